// Ranks grouped into nodes, for the algorithms that know them (hierarchical, nccl_tree):
// G ranks per node (--ranks-per-node), M = N/G nodes, rank = node * G + local index.
// One check, so that both refuse a bad G with the same message.
#pragma once
#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/schedule/algorithm.h"

namespace collsim::nodes {

// A G given by the user must split the ranks into whole nodes.
inline void validate_ranks_per_node(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  if (options.ranks_per_node > 0 && (options.ranks_per_node > spec.ranks || spec.ranks % options.ranks_per_node != 0))
    throw InputError(fmt::format("--ranks-per-node {} must divide --ranks {} (N = nodes x ranks per node)",
                                 options.ranks_per_node, spec.ranks));
}

}  // namespace collsim::nodes
