// Double-binary-tree all-reduce, as NCCL's tree algorithm (Sanders, Speck & Träff 2009;
// NCCL 2.4 "double binary trees").
//
// A single tree wastes half the links: leaves only send up and receive down. Two binary
// trees in which every rank is an interior node of at most one — a leaf in the other —
// each carry half of the vector, so every rank sends and receives about n in each
// direction while the depth stays lg N.
//   Trees: for odd N, tree 1 is a balanced full binary tree over in-order positions
//     0..N-1 (rank = position); in-order numbering of a full binary tree alternates
//     leaf, interior, leaf ..., so its interior ranks are exactly the odd ones. Tree 0
//     is the same tree shifted by one rank (rank = position + 1 mod N): interior ranks
//     2, 4, ..., N-1, and rank 0 a leaf of both. For even N, tree 0 is the full tree over
//     ranks 0..N-2 under an extra root N-1 (interior: the odd ranks) and tree 1 its mirror
//     image r -> N-1-r (interior: the even ranks). (NCCL shifts for odd N too, which makes
//     rank 0 interior in both trees; the full-tree construction avoids that.)
//   Per tree, on its half of the vector, cut into S slices (--slices):
//   1. reduce up: a rank of height h (h levels above its deepest leaf) sends its partial
//      slice s to its parent, which reduces it, in step s + h (a leaf sends its input; the
//      parent adds its first child's slice to its own input as it writes its output, so
//      nothing is copied first: TreeMoveWriter in trees.h);
//   2. broadcast down: a rank of depth d receives the finished slice s from its parent in
//      step s + H + d - 1 (H: the tree's height).
//   Steps are not barriers: slice s+1 climbs while slice s already descends — a pipeline.
// Steps: 2H + S - 1 with H = ceil(lg N) for even N, floor(lg N) for odd N (2 lg N for a
// power of two and one slice). Bytes each rank sends: n/2 to each parent and to each
// child, over both trees; at most 2n (two children in one tree, a leaf in the other).
#include <algorithm>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/trees.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// The balanced full binary tree over in-order positions [lo, hi) (an odd count); returns
// the root position. Splitting the leaves evenly keeps the height at ceil(lg leaves).
int full_tree(int lo, int hi, int parent, std::vector<int>& parents) {
  const int leaves = (hi - lo + 1) / 2;
  const int root = hi - lo == 1 ? lo : lo + 2 * ((leaves + 1) / 2) - 1;
  parents[static_cast<std::size_t>(root)] = parent;
  if (hi - lo > 1) {
    full_tree(lo, root, root, parents);
    full_tree(root + 1, hi, root, parents);
  }
  return root;
}

// Builds the tree from parents in position space, renaming position p to rank_of(p).
template <class RankOf>
BinaryTree make_tree(const std::vector<int>& parents, RankOf rank_of) {
  const std::size_t n = parents.size();
  BinaryTree t;
  t.parent.assign(n, -1);
  t.children.assign(n, {});
  t.height.assign(n, 0);
  t.depth.assign(n, 0);
  for (std::size_t p = 0; p < n; ++p) {
    const int r = rank_of(static_cast<int>(p));
    if (parents[p] < 0) {
      t.root = r;
      continue;
    }
    const int up = rank_of(parents[p]);
    t.parent[static_cast<std::size_t>(r)] = up;
    t.children[static_cast<std::size_t>(up)].push_back(r);
  }
  // Depths top-down, heights bottom-up, through a breadth-first order.
  std::vector<int> order{t.root};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int c : t.children[static_cast<std::size_t>(order[i])]) {
      t.depth[static_cast<std::size_t>(c)] = t.depth[static_cast<std::size_t>(order[i])] + 1;
      order.push_back(c);
    }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (const int up = t.parent[static_cast<std::size_t>(*it)]; up >= 0)
      t.height[static_cast<std::size_t>(up)] =
          std::max(t.height[static_cast<std::size_t>(up)], t.height[static_cast<std::size_t>(*it)] + 1);
  return t;
}

using Move = TreeMove;

std::string step_label(const std::vector<Move>& moves, int step, int steps, int slices) {
  int up_lo = slices, up_hi = -1, down_lo = slices, down_hi = -1;
  for (const Move& m : moves) {
    int& lo = m.up ? up_lo : down_lo;
    int& hi = m.up ? up_hi : down_hi;
    lo = std::min(lo, m.slice);
    hi = std::max(hi, m.slice);
  }
  auto which = [&](int lo, int hi) {
    if (slices == 1) return std::string();
    return lo == hi ? fmt::format(" (slice {}/{})", lo + 1, slices) : fmt::format(" (slices {}-{}/{})", lo + 1, hi + 1, slices);
  };
  std::string label = fmt::format("pipeline {}/{}:", step + 1, steps);
  if (up_hi >= 0) label += " partial halves climb both trees, each parent reduces them" + which(up_lo, up_hi);
  if (up_hi >= 0 && down_hi >= 0) label += ";";
  if (down_hi >= 0) label += " finished halves descend both trees, copied to the children" + which(down_lo, down_hi);
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  ScheduleBuilder b(spec, "double_binary_tree");
  const int n = spec.ranks, slices = options.slices_or(1);
  const std::array<BinaryTree, 2> trees = double_binary_tree(n);
  if (n == 1) b.pre_copy({0, BufferKind::input, 0, spec.count}, {0, BufferKind::output, 0, spec.count});
  TreeMoveWriter writer(b, trees, slices);

  std::vector<std::vector<Move>> steps = pipelined_tree_moves(trees, n, slices);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    b.stage(tree_stage(steps[i]));
    b.step(step_label(steps[i], static_cast<int>(i), static_cast<int>(steps.size()), slices));
    for (const Move& m : steps[i]) {
      writer.add(m);
    }
  }
  return std::move(b).finish();
}

}  // namespace

std::array<BinaryTree, 2> double_binary_tree(int n) {
  if (n % 2 == 1) {
    std::vector<int> parents(static_cast<std::size_t>(n), -1);
    full_tree(0, n, -1, parents);
    return {make_tree(parents, [n](int p) { return (p + 1) % n; }), make_tree(parents, [](int p) { return p; })};
  }
  // Even N: a full tree over positions 0..N-2 under an extra root at position N-1.
  std::vector<int> parents(static_cast<std::size_t>(n), -1);
  full_tree(0, n - 1, n - 1, parents);
  return {make_tree(parents, [](int p) { return p; }), make_tree(parents, [n](int p) { return n - 1 - p; })};
}

namespace {

// Each level of the two trees moves two half vectors through one port (two children into
// a parent, or a rank sending up both trees), for 2 lg N - 1 levels up and down.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  if (!is_pof2(s.ranks) || s.options.slices_or(1) != 1) return std::nullopt;
  const double levels = 2.0 * floor_lg(s.ranks) - 1;
  return levels * (2 * p.alpha_ns + n(s) * p.beta_ns_per_byte + n(s) * p.gamma_ns_per_byte / 2);
}

// Both trees, as the schedule builds them.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  std::vector<TreeShape> shapes;
  for (const BinaryTree& t : double_binary_tree(spec.ranks)) shapes.push_back({t.root, t.parent});
  return layouts::trees(std::move(shapes));
}

}  // namespace

extern const AlgorithmInfo kAllReduceDoubleBinaryTree{
    .name = "double_binary_tree",
    .collective = Collective::all_reduce,
    .summary = "two complementary binary trees (each rank interior in at most one) reduce and broadcast half the vector each, "
        "pipelined in --slices",
    .steps_formula = "2H + S - 1 (H: tree height, lg N for N = 2^k)",
    .bytes_formula = "n/2 per parent and per child, both trees; at most 2n",
    .used_by = "NCCL Tree (NCCL_ALGO=Tree) with one GPU per node (collsim's own pair of trees)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"(2 lg N - 1)(2α + nβ + nγ/2)", "",
                    "N a power of two, S = 1", &time_ns},
    .streams = true,
};

}  // namespace collsim
