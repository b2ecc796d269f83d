#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {

std::span<const Target> targets() {
  static constexpr Target kTargets[] = {
      {"scenario", check_scenario},
      {"schedule", check_schedule},
      {"trace", check_trace},
      {"values", check_values},
#ifdef COLLSIM_FUZZ_MSCCL
      {"msccl", check_msccl},
#endif
  };
  return kTargets;
}

void finding(std::string_view what) {
  std::fprintf(stderr, "collsim fuzz: FINDING: %.*s\n", static_cast<int>(what.size()), what.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace collsim::fuzz
