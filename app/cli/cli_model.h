// `collsim run --model-only`; the topology flags it shares with `collsim run` and `collsim
// bench` are in app/flags/topology_flags.h.
#pragma once
#include <string>
#include <vector>

#include "app/cli/cli_io.h"
#include "app/flags/topology_flags.h"
#include "sim/model/topology.h"

namespace collsim::cli {

// `collsim run --model-only`: predicts without buffers or a backend, then prints the
// summary and writes the traces (measured times 0). Refuses --dump (nothing is executed)
// and trace files above kMaxRanks ranks (they could not be read back).
int command_model_only(const RunPlan& plan, const std::string& scenario_path, const TraceOutputs& outputs,
                       const std::string& dump, bool quiet);

}  // namespace collsim::cli
