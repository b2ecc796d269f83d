// The layouts (AlgorithmInfo::layout, algorithm.h) the algorithm files share: how the views
// draw a ring, a chain, a star, all pairs, a hypercube or shifts by 2^k over N ranks. Trees come from the
// code that builds their schedules (rooted.h's binomial tree, trees.h's double binary tree).
#pragma once
#include <utility>
#include <vector>

#include "sim/schedule/algorithm.h"

namespace collsim::layouts {

// first, first+1, ..., first-1 (mod n).
inline std::vector<int> ranks_from(int n, int first = 0) {
  std::vector<int> order;
  for (int i = 0; i < n; ++i) order.push_back((first + i) % n);
  return order;
}

inline AlgorithmLayout ring(int n, int first = 0) { return {LayoutShape::ring, ranks_from(n, first), {}, {}, 0}; }
inline AlgorithmLayout chain(std::vector<int> order) { return {LayoutShape::chain, std::move(order), {}, {}, 0}; }
inline AlgorithmLayout star(std::vector<int> hubs) { return {LayoutShape::star, {}, {}, std::move(hubs), 0}; }
inline AlgorithmLayout all_pairs(int n) { return {LayoutShape::all_pairs, ranks_from(n), {}, {}, 0}; }
inline AlgorithmLayout hypercube(int n) { return {LayoutShape::hypercube, ranks_from(n), {}, {}, 0}; }
inline AlgorithmLayout shifts(int n) { return {LayoutShape::shifts, ranks_from(n), {}, {}, 0}; }
inline AlgorithmLayout trees(std::vector<TreeShape> trees) { return {LayoutShape::trees, {}, std::move(trees), {}, 0}; }

// The plain layouts as AlgorithmInfo::layout functions: every rank of the spec.
inline AlgorithmLayout ring_of(const CollectiveSpec& spec, const AlgorithmOptions&) { return ring(spec.ranks); }
inline AlgorithmLayout all_pairs_of(const CollectiveSpec& spec, const AlgorithmOptions&) { return all_pairs(spec.ranks); }
inline AlgorithmLayout hypercube_of(const CollectiveSpec& spec, const AlgorithmOptions&) { return hypercube(spec.ranks); }
inline AlgorithmLayout shifts_of(const CollectiveSpec& spec, const AlgorithmOptions&) { return shifts(spec.ranks); }
// The root talks to every other rank (the rooted direct algorithms).
inline AlgorithmLayout root_star(const CollectiveSpec& spec, const AlgorithmOptions&) { return star({spec.root}); }

}  // namespace collsim::layouts
