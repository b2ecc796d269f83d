// The tiny interface every algorithm file implements, and the registry that lists them.
#pragma once
#include <span>
#include <string_view>

#include "sim/schedule.h"

namespace collsim {

// Knobs some algorithms understand; the others ignore them.
struct AlgorithmOptions {
  int slices = 1;          // ring: split every chunk into this many pipelined slices
  int servers = 1;         // parameter_server: number of servers S
  bool colocated = false;  // parameter_server: server s runs on worker s instead of an extra rank
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

// Validates the spec and options against the algorithm (throws InputError naming the
// problem) and builds its schedule. The schedule is not checked here; see checker.h.
Schedule build_schedule(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options);

}  // namespace collsim
