// The tiny interface every algorithm file implements, and the registry that lists them.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "sim/schedule/schedule.h"

namespace collsim {

// Knobs some algorithms understand; the others ignore them.
struct AlgorithmOptions {
  int slices = 0;          // pipelined algorithms: slices per chunk; 0: the algorithm's default
                           // (build_schedule and resolve_options replace 0 with it)
  int slices_or(int fallback) const { return slices > 0 ? slices : fallback; }
  int servers = 1;         // parameter_server: number of servers S
  bool colocated = false;  // parameter_server: server s runs on worker s instead of an extra rank
  int ranks_per_node = 0;  // hierarchical: G ranks per node, N a multiple of G; 0: the smallest
                           // divisor of N that is at least sqrt(N) (two nodes for 4, 6 or 8 ranks)
  std::string schedule_file{};  // custom: the hand-written schedule (custom_schedule.h)
};

struct AlgorithmInfo {
  std::string_view name;  // the command-line and scenario-file name
  Collective collective;
  std::string_view summary;        // one sentence for `collsim list`
  std::string_view steps_formula;  // communication steps, in N
  std::string_view bytes_formula;  // bytes each rank sends, in N and n
  Schedule (*build)(const CollectiveSpec&, const AlgorithmOptions&);
};

std::span<const AlgorithmInfo> all_algorithms();
const AlgorithmInfo* find_algorithm(Collective c, std::string_view name);

// The largest rank count collsim accepts (schedules grow as N^2 transfers).
inline constexpr int kMaxRanks = 1024;
// The largest rank count of a --model-only run, which allocates no buffers and skips the
// symbolic check above kMaxRanks (kMaxTransfers still bounds the schedule).
inline constexpr int kMaxModelRanks = 4096;
// The most transfers a schedule may be expected to hold (estimated as 2 N^2 slices).
inline constexpr double kMaxTransfers = 4.2e7;

// The options with every "default" (slices 0) replaced by the algorithm's value, as
// build_schedule uses them and a trace records them. Unknown algorithms: unchanged.
AlgorithmOptions resolve_options(const CollectiveSpec& spec, std::string_view algorithm, AlgorithmOptions options);

// Checks the spec and options against the algorithm (throws InputError naming the flag):
// rank count up to `max_ranks`, root, sizes, slices, in-place support and the options the
// algorithm understands. `algo` is null for a schedule that is not in the registry (a
// hand-written one: "custom", sim/run/custom_schedule.h).
void validate_request(const CollectiveSpec& spec, const AlgorithmInfo* algo, const AlgorithmOptions& options,
                      int max_ranks = kMaxRanks);

// Validates the request and builds the registered algorithm's schedule (InputError for an
// unknown name, listing the collective's algorithms). The schedule is not checked here; see
// checker.h. Hand-written schedules ("custom") are built one layer up, by build_schedule
// (sim/run/run.h), which loads the file and explains a wrong one.
// `max_ranks` is kMaxRanks, or kMaxModelRanks for a --model-only run.
Schedule build_algorithm_schedule(const CollectiveSpec& spec, std::string_view algorithm,
                                  const AlgorithmOptions& options, int max_ranks = kMaxRanks);

}  // namespace collsim
