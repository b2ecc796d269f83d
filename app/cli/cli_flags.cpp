#include "app/cli/cli_flags.h"

#include <string>

#include <CLI/CLI.hpp>

namespace collsim::cli {

void add_trace_flags(CLI::App& cmd, TraceOutputs& o) {
  // An empty name would mean "not wanted" further on: refused here, where the flag is known.
  const auto named = [](const std::string& path) { return path.empty() ? std::string("the file name is empty") : std::string(); };
  cmd.add_option("--trace", o.trace, "write the JSON trace (docs/trace-format.md) to this file")->check(named);
  cmd.add_option("--chrome", o.chrome, "write a Chrome/Perfetto trace (open in ui.perfetto.dev) to this file")->check(named);
  cmd.add_option("--csv", o.csv, "write one CSV row per transfer to this file")->check(named);
}

}  // namespace collsim::cli
