// `collsim bench`: the CPU benchmark as an nccl-tests-style table (sim/bench.h measures).
// No CLI11 here: cli_main.cpp registers the flags into BenchFlags.
#pragma once
#include <cstdint>
#include <string>

namespace collsim::cli {

// The flags as typed; command_bench checks them (exit 2 naming the flag).
struct BenchFlags {
  std::string backend = "cpu", collective = "all_reduce", algorithms = "ring";
  std::string min_bytes = "1K", max_bytes = "256M", dtype = "f32", op = "sum";
  std::uint64_t factor = 2;
  int ranks = 8, root = 0, iterations = 20, warmup = 5, threads = 0;
  int slices = 0, servers = 1, ranks_per_node = 0;
  bool colocated = false;
};

int command_bench(const BenchFlags& flags);

}  // namespace collsim::cli
