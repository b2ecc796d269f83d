// NCCL's Tree all-reduce (NCCL_ALGO=Tree, NCCL 2.4+): inside each node a chain of its G
// GPUs, between the nodes a double binary tree; reduce up, broadcast down, pipelined.
//
// How NCCL wires it (NVIDIA/nccl src/graph/connect.cc): ncclTopoPreset links the GPUs of a
// node into a chain (tree.up = the previous GPU, tree.down[0] = the next, in the order the
// topology search found); connectTrees attaches the node's first GPU to the tree between
// nodes that ncclGetDtree (src/graph/trees.cc) gives, and duplicates the channels: channel
// c uses tree 0, channel c + nChannels tree 1, each on its own part of the buffer.
// What collsim models: G ranks per node (--ranks-per-node; default N: one node, where the
// Tree is one chain), M = N/G nodes, rank = node * G + local index; both trees use the chain 0 - 1 - ... - G-1 of every node, with
// local rank 0 the node's only GPU on the network for both trees (NCCL's pattern
// NCCL_TOPO_PATTERN_TREE; NCCL may choose patterns that split the network traffic over two
// GPUs). The trees between nodes are collsim's double binary tree (trees.h) over the M
// nodes: the same two trees as NCCL's for 2 nodes, and in general the same property, every
// node interior in at most one of them. One pair of channels: half of the vector on each
// tree, cut into S slices (--slices) — NCCL's chunks — that follow each other up and down.
//
// Per tree, on its half, for each slice s, with every rank's height h (levels above its
// deepest descendant) and depth d in the combined tree (chains under node trees):
//   1. reduce up, step s + h: a rank sends its partial slice to its parent, which reduces
//      it: up the chain to local rank 0, then up the tree between nodes (a leaf sends its
//      input; the first slice a parent receives is added to its own input on the way into
//      its output, NCCL's recvReduceCopy: TreeMoveWriter in trees.h);
//   2. broadcast down, step s + H + d - 1 (H: the tree's height): the parent copies the
//      finished slice to the rank: down the tree between nodes, then down every chain.
// Steps are not barriers: slice s+1 climbs while slice s already descends. Where both
// trees move a slice between the same two ranks in one step (up a chain), the two halves
// are listed together and travel as one message (one α), as NCCL's two channels would
// run side by side.
// Steps: 2H + S - 1 with H = G - 1 + (height of the node tree). Bytes each rank sends: about
// n up and n down its chain in all; local rank 0 also n/2 per tree edge between nodes.
#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/nodes.h"
#include "sim/schedule/algorithms/trees.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// One of the two trees over all ranks: each node's chain hangs under its local rank 0,
// which hangs under the local rank 0 of its parent node.
struct RankTree {
  int root = 0;
  std::vector<int> parent, height, depth;  // per rank; parent -1 for the root
};

RankTree rank_tree(int ranks, int g, int tree) {
  const int m = ranks / g;
  std::vector<int> node_parent(static_cast<std::size_t>(m), -1);
  if (m > 1) node_parent = double_binary_tree(m)[static_cast<std::size_t>(tree)].parent;
  RankTree t;
  t.parent.assign(static_cast<std::size_t>(ranks), -1);
  for (int r = 0; r < ranks; ++r) {
    const int node = r / g, local = r % g;
    const int up_node = node_parent[static_cast<std::size_t>(node)];
    if (local > 0)
      t.parent[static_cast<std::size_t>(r)] = r - 1;  // up the chain
    else if (up_node >= 0)
      t.parent[static_cast<std::size_t>(r)] = up_node * g;  // the node's head to its parent node's head
    else
      t.root = r;
  }
  // Depths top-down, heights bottom-up, through a breadth-first order.
  std::vector<std::vector<int>> children(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    if (const int up = t.parent[static_cast<std::size_t>(r)]; up >= 0) children[static_cast<std::size_t>(up)].push_back(r);
  t.depth.assign(static_cast<std::size_t>(ranks), 0);
  t.height.assign(static_cast<std::size_t>(ranks), 0);
  std::vector<int> order{t.root};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int c : children[static_cast<std::size_t>(order[i])]) {
      t.depth[static_cast<std::size_t>(c)] = t.depth[static_cast<std::size_t>(order[i])] + 1;
      order.push_back(c);
    }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (const int up = t.parent[static_cast<std::size_t>(*it)]; up >= 0)
      t.height[static_cast<std::size_t>(up)] =
          std::max(t.height[static_cast<std::size_t>(up)], t.height[static_cast<std::size_t>(*it)] + 1);
  return t;
}

// G: options.ranks_per_node, or N (one node: NCCL knows the nodes from the hardware;
// without --ranks-per-node collsim assumes a single node).
int ranks_per_node(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  return options.ranks_per_node > 0 ? options.ranks_per_node : spec.ranks;
}

std::array<RankTree, 2> rank_trees(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const int g = ranks_per_node(spec, options);
  return {rank_tree(spec.ranks, g, 0), rank_tree(spec.ranks, g, 1)};
}

using Move = TreeMove;

std::string step_label(const std::vector<Move>& moves, int step, int steps) {
  const bool up = std::any_of(moves.begin(), moves.end(), [](const Move& m) { return m.up; });
  const bool down = std::any_of(moves.begin(), moves.end(), [](const Move& m) { return !m.up; });
  std::string label = fmt::format("tree pipeline {}/{}:", step + 1, steps);
  if (up) label += " partial slices climb the chains and the trees between nodes, each parent reduces them";
  if (up && down) label += ";";
  if (down) label += " finished slices descend the trees between nodes and the chains, copied to the children";
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  ScheduleBuilder b(spec, "nccl_tree");
  const int n = spec.ranks, slices = options.slices_or(1);
  const std::array<RankTree, 2> trees = rank_trees(spec, options);
  if (n == 1) b.pre_copy({0, BufferKind::input, 0, spec.count}, {0, BufferKind::output, 0, spec.count});
  TreeMoveWriter writer(b, trees, slices);

  std::vector<std::vector<Move>> steps = pipelined_tree_moves(trees, n, slices);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    // The same pair's moves of both trees next to each other, so that they form one message.
    std::stable_sort(steps[i].begin(), steps[i].end(), [](const Move& x, const Move& y) {
      return std::tie(x.child, x.up) < std::tie(y.child, y.up);
    });
    b.stage(tree_stage(steps[i]));
    b.step(step_label(steps[i], static_cast<int>(i), static_cast<int>(steps.size())));
    for (const Move& m : steps[i]) {
      // Tree t owns half t of the vector (NCCL: channel c and c + nChannels), in S slices.
      writer.add(m);
    }
  }
  return std::move(b).finish();
}

// One node and one slice: both trees are the same chain, so both halves travel together;
// the vector climbs the chain one hop at a time, each hop reduced before the next
// (α + nβ + nγ), then descends it (α + nβ). Several nodes or slices: the two trees differ
// between nodes and the slices contend for the ports up and down, so no closed form here.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  if (s.options.ranks_per_node != s.ranks || s.options.slices_or(1) != 1) return std::nullopt;
  return (N(s) - 1) * (2 * p.alpha_ns + 2 * n(s) * p.beta_ns_per_byte + n(s) * p.gamma_ns_per_byte);
}

// Both trees over all ranks, as the schedule builds them.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  std::vector<TreeShape> shapes;
  for (const RankTree& t : rank_trees(spec, options)) shapes.push_back({t.root, t.parent});
  return layouts::trees(std::move(shapes));
}

void validate(const CollectiveSpec& spec, const AlgorithmOptions& options, int) {
  nodes::validate_ranks_per_node(spec, options);
}

AlgorithmOptions resolve(const CollectiveSpec& spec, AlgorithmOptions options) {
  options.ranks_per_node = ranks_per_node(spec, options);
  return options;
}

}  // namespace

extern const AlgorithmInfo kAllReduceNcclTree{
    .name = "nccl_tree",
    .collective = Collective::all_reduce,
    .summary = "NCCL's Tree: --ranks-per-node G, a chain inside each node and a double binary tree between nodes, "
        "half the vector on each tree; reduce up, broadcast down, pipelined in --slices",
    .steps_formula = "2H + S - 1 (H = G-1 + height of the tree between the N/G nodes)",
    .bytes_formula = "about n up and n down each chain; n/2 per tree edge between nodes",
    .used_by = "NCCL Tree (NCCL_ALGO=Tree): a chain inside each node, a double binary tree between nodes",
    .build = &build,
    .layout = &layout,
    .closed_form = {"(N-1)(2α + 2nβ + nγ)", "G < N or S > 1: none here (the simulation only)",
                    "one node (G = N), S = 1: a chain", &time_ns},
    .validate = &validate,
    .resolve = &resolve,
    .knobs = {.slices = true, .servers = false, .ranks_per_node = true},
    .streams = true,
};

}  // namespace collsim
