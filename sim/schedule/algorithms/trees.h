// The two complementary binary trees of the double-binary-tree all-reduce, exposed so
// that tests (and views) can inspect their shape.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {

struct BinaryTree {
  int root = 0;
  std::vector<int> parent;                 // -1 for the root
  std::vector<std::vector<int>> children;  // at most two per rank
  std::vector<int> height;                 // 0 for a leaf
  std::vector<int> depth;                  // 0 for the root
  bool interior(int r) const { return !children[static_cast<std::size_t>(r)].empty(); }
};

// Two binary trees over ranks 0..N-1 in which every rank is an interior node of at most
// one tree (see allreduce_double_binary_tree.cpp for the construction).
std::array<BinaryTree, 2> double_binary_tree(int ranks);

// One move of a reduce-then-broadcast pipelined over two trees (double_binary_tree,
// nccl_tree): slice `slice` of tree `tree`'s half between `child` and its parent, up
// (reduced into the parent) or down (copied to the child).
struct TreeMove {
  int tree, slice, child;
  bool up;
};

// Every (tree, slice, rank but the root) moves up once, in step slice + height, and down
// once, in step slice + H + depth - 1 (H: the tree's height): the moves, bucketed by step.
// Steps are not barriers: slice s+1 climbs while slice s descends. Tree: any type with
// root, height and depth per rank.
template <class Tree>
std::vector<std::vector<TreeMove>> pipelined_tree_moves(const std::array<Tree, 2>& trees, int ranks, int slices) {
  std::vector<std::vector<TreeMove>> steps;
  auto at = [&](int step) -> std::vector<TreeMove>& {
    if (step >= static_cast<int>(steps.size())) steps.resize(static_cast<std::size_t>(step) + 1);
    return steps[static_cast<std::size_t>(step)];
  };
  for (int t = 0; t < 2; ++t) {
    const Tree& tree = trees[static_cast<std::size_t>(t)];
    const int height = tree.height[static_cast<std::size_t>(tree.root)];
    for (int s = 0; s < slices; ++s)
      for (int r = 0; r < ranks; ++r) {
        if (r == tree.root) continue;
        at(s + tree.height[static_cast<std::size_t>(r)]).push_back({t, s, r, true});
        at(s + height + tree.depth[static_cast<std::size_t>(r)] - 1).push_back({t, s, r, false});
      }
  }
  return steps;
}

// The stage of a step of such moves, for lesson captions (Schedule::step_stages): "reduce"
// while every move climbs, "broadcast" while every move descends, and "reduce and broadcast"
// where the pipeline does both at once.
inline std::string tree_stage(const std::vector<TreeMove>& moves) {
  const bool up = std::any_of(moves.begin(), moves.end(), [](const TreeMove& m) { return m.up; });
  const bool down = std::any_of(moves.begin(), moves.end(), [](const TreeMove& m) { return !m.up; });
  return up && down ? "reduce and broadcast" : up ? "reduce" : "broadcast";
}

// The transfer of one move: tree t owns half t of the vector, cut into `slices`; up, the
// child's partial slice is reduced into its parent's; down, the parent's finished slice is
// copied to the child. Chunk number: tree * slices + slice.
template <class Tree>
void add_tree_move(ScheduleBuilder& b, const CollectiveSpec& spec, const std::array<Tree, 2>& trees, int slices,
                   const TreeMove& m) {
  const Block part = sub_block(even_block(spec.count, 2, static_cast<std::uint64_t>(m.tree)),
                               static_cast<std::uint64_t>(slices), static_cast<std::uint64_t>(m.slice));
  const Region child{m.child, BufferKind::output, part.offset, part.count};
  Region parent = child;
  parent.rank = trees[static_cast<std::size_t>(m.tree)].parent[static_cast<std::size_t>(m.child)];
  if (m.up)
    b.reduce(m.tree * slices + m.slice, child, parent);
  else
    b.copy(m.tree * slices + m.slice, parent, child);
}

}  // namespace collsim
