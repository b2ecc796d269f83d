// `collsim list`: the collectives, algorithms with their cost formulas, types and ops. No
// CLI11 here (cli_main.cpp owns the flags).
#pragma once

namespace collsim::cli {

// `collsim list [--names]`: the catalogue, or with `names_only` one 'COLLECTIVE ALGORITHM'
// per line, for scripts.
int command_list(bool names_only);

}  // namespace collsim::cli
