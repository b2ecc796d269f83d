#include "app/cli/cli_list.h"

#include <fmt/format.h>

#include "sim/core/types.h"
#include "sim/schedule/algorithm.h"
#include "sim/trace/report.h"

namespace collsim::cli {

int command_list(bool names_only) {
  if (names_only) {
    for (const AlgorithmInfo& a : all_algorithms()) fmt::print("{} {}\n", to_string(a.collective), a.name);
    return 0;
  }
  fmt::print("{}", format_catalogue());
  return 0;
}

}  // namespace collsim::cli
