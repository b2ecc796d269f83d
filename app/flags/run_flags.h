// The flags of a run on a command line, shared by `collsim` (run, explain, storyboard, html,
// bench, export-msccl) and `collsim-gui`: the collective's as typed (SpecFlags), registered on
// a command (add_spec_flags, add_model_flags, add_seed_flag), and their checking into a
// RunRequest (to_request). The topology flags' values are topology_flags.h's, what they make
// of a scenario run_plan.h's. Only CLI11's App is named here, not included.
#pragma once
#include <cstdint>
#include <string>

#include "app/flags/topology_flags.h"
#include "sim/run/run.h"

namespace CLI {
class App;
}

namespace collsim::flags {

// Flags as typed, before they are checked and turned into a RunRequest.
struct SpecFlags {
  std::string collective = "all_reduce", algorithm, count = "1M", dtype = "f32", op = "sum", schedule, inputs;
  int ranks = 4, root = 0, slices = 0, servers = 1, ranks_per_node = 0;
  bool colocated = false, in_place = false;
};

// `group`: the --help heading they are listed under (empty: the command's own options').
void add_spec_flags(CLI::App& cmd, SpecFlags& f, const std::string& group = "");

// --collective, --dtype and --op as typed, parsed: InputError naming the flag and what it takes.
Collective collective_flag(const std::string& text);
DataType dtype_flag(const std::string& text);
ReduceOp op_flag(const std::string& text);

// `given` tells which flags were typed: --schedule without --algorithm means custom.
RunRequest to_request(const SpecFlags& f, const FlagGiven& given);

// Whether the user typed `flag` on `cmd`'s command line (not just its default).
FlagGiven flags_given(const CLI::App* cmd);

// The timing model's flags (topology_flags.h), for `run`, `bench`, `html` and the app.
void add_model_flags(CLI::App& cmd, ModelFlags& f, const std::string& group = "");

void add_seed_flag(CLI::App& cmd, std::uint64_t& seed, const std::string& group = "");

}  // namespace collsim::flags
