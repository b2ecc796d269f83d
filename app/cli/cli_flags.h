// The flags only the command line's commands share: the trace files of `run` and `convert`
// (add_trace_flags). The run's flags, which collsim-gui takes too, are app/flags/'s
// (run_flags.h). Only CLI11's App is named here, not included.
#pragma once
#include "app/cli/cli_io.h"

namespace CLI {
class App;
}

namespace collsim::cli {

void add_trace_flags(CLI::App& cmd, TraceOutputs& o);

}  // namespace collsim::cli
