// `collsim bench`: the CPU benchmark as an nccl-tests-style table (sim/run/bench.h measures).
// No CLI11 here: cli_main.cpp registers the flags into BenchFlags.
#pragma once
#include <cstdint>
#include <string>

#include "app/cli/cli_model.h"

namespace collsim::cli {

// The flags as typed; command_bench checks them (exit 2 naming the flag).
struct BenchFlags {
  std::string backend = "cpu", placement = "streams", timings = "on";
  std::string collective = "all_reduce", algorithms;  // algorithms empty: the collective's default
  std::string min_bytes = "1K", max_bytes = "256M", dtype = "f32", op = "sum";
  std::uint64_t factor = 2;
  int ranks = 8, root = 0, iterations = 20, warmup = 5, threads = 0;
  int slices = 0, servers = 1, ranks_per_node = 0;
  bool colocated = false;
  bool fuse = false;  // --fuse
  bool allow_long = false;  // --allow-long: no refusal of a bench estimated over 10 minutes
  flags::ModelFlags model;       // the topology of the predicted column; --model-only: predictions only
  std::string csv, json;  // every row, written at the end (sim/run/bench_model.h)
  std::string plot;       // --plot F.svg: busbw against size, written with them (app/views/bench_plot.h)
};

// `given` says which flags were typed (for the topology flags, cli_model.h).
int command_bench(const BenchFlags& flags, const flags::FlagGiven& given);

}  // namespace collsim::cli
