// The flags several commands share, as typed (SpecFlags) and registered on a command
// (add_spec_flags, add_model_flags, add_seed_flag, add_trace_flags), and their checking into
// a RunRequest (to_request). cli_main.cpp builds the commands from them; the topology
// flags' values are cli_topology_flags.h's. Only CLI11's App is named here, not included.
#pragma once
#include <cstdint>
#include <string>

#include "app/cli/cli_io.h"
#include "app/cli/cli_topology_flags.h"
#include "sim/run/run.h"

namespace CLI {
class App;
}

namespace collsim::cli {

// Flags as typed, before they are checked and turned into a RunRequest.
struct SpecFlags {
  std::string collective = "all_reduce", algorithm, count = "1M", dtype = "f32", op = "sum", schedule, inputs;
  int ranks = 4, root = 0, slices = 0, servers = 1, ranks_per_node = 0;
  bool colocated = false, in_place = false;
};

void add_spec_flags(CLI::App& cmd, SpecFlags& f);

// --collective, --dtype and --op as typed, parsed: InputError naming the flag and what it takes.
Collective collective_flag(const std::string& text);
DataType dtype_flag(const std::string& text);
ReduceOp op_flag(const std::string& text);

// `given` tells which flags were typed: --schedule without --algorithm means custom.
RunRequest to_request(const SpecFlags& f, const FlagGiven& given);

// Whether the user typed `flag` on `cmd`'s command line (not just its default).
FlagGiven flags_given(const CLI::App* cmd);

// The timing model's flags (cli_model.h), for `run` and `bench`.
void add_model_flags(CLI::App& cmd, ModelFlags& f);

void add_seed_flag(CLI::App& cmd, std::uint64_t& seed);

void add_trace_flags(CLI::App& cmd, TraceOutputs& o);

}  // namespace collsim::cli
