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

// The transfers of the moves, added in order: tree t owns half t of the vector, cut into
// `slices`. Up, a leaf sends its own input (nothing is written to its output before its
// finished slice comes down), an interior rank its partial slice; the parent adds the
// first child's slice to its own input as it writes its output (a reduce-copy, NCCL's
// recvReduceCopy: nothing is copied first) and reduces later children's into that sum.
// Where a parent's first two children arrive in the same step (they have the same height),
// its half starts from a copy of its input instead (a pre-operation): a step's writes to
// one region must commute, and NCCL's tree reads all the children and the input in one
// primitive, which a collsim transfer, with one source, cannot.
// Down, the parent's finished slice is copied to the child. Chunk: tree * slices + slice.
template <class Tree>
class TreeMoveWriter {
 public:
  TreeMoveWriter(ScheduleBuilder& b, const std::array<Tree, 2>& trees, int slices)
      : b_(b), trees_(trees), slices_(slices),
        started_(2 * static_cast<std::size_t>(slices) * static_cast<std::size_t>(b.spec().ranks), 0) {
    for (int t = 0; t < 2; ++t) {
      const Block half = even_block(b.spec().count, 2, static_cast<std::uint64_t>(t));
      for (int p : parents_with_first_children_together(trees[static_cast<std::size_t>(t)])) {
        b.pre_copy({p, BufferKind::input, half.offset, half.count}, {p, BufferKind::output, half.offset, half.count});
        for (int s = 0; s < slices; ++s) started_[index(t * slices + s, p)] = 1;
      }
    }
  }

  void add(const TreeMove& m) {
    const CollectiveSpec& spec = b_.spec();
    const Tree& tree = trees_[static_cast<std::size_t>(m.tree)];
    const Block part = sub_block(even_block(spec.count, 2, static_cast<std::uint64_t>(m.tree)),
                                 static_cast<std::uint64_t>(slices_), static_cast<std::uint64_t>(m.slice));
    const int chunk = m.tree * slices_ + m.slice, up = tree.parent[static_cast<std::size_t>(m.child)];
    auto at = [&](int rank, BufferKind buffer) { return Region{rank, buffer, part.offset, part.count}; };
    if (!m.up) {
      b_.copy(chunk, at(up, BufferKind::output), at(m.child, BufferKind::output));
      return;
    }
    const bool leaf = tree.height[static_cast<std::size_t>(m.child)] == 0;
    const Region from = at(m.child, leaf ? BufferKind::input : BufferKind::output);
    char& started = started_[index(chunk, up)];
    if (started) {
      b_.reduce(chunk, from, at(up, BufferKind::output));
    } else {
      b_.reduce_copy(chunk, from, at(up, BufferKind::input), at(up, BufferKind::output));
      started = 1;
    }
  }

 private:
  ScheduleBuilder& b_;
  const std::array<Tree, 2>& trees_;
  int slices_;
  std::vector<char> started_;  // per (chunk, rank): its output slice holds a sum already

  // The ranks of which two or more children have the least height among their children:
  // their first two children send up in the same step.
  std::vector<int> parents_with_first_children_together(const Tree& tree) const {
    const auto ranks = static_cast<std::size_t>(b_.spec().ranks);
    std::vector<int> lowest(ranks, INT32_MAX), together(ranks, 0), parents;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (static_cast<int>(r) == tree.root) continue;
      const auto p = static_cast<std::size_t>(tree.parent[r]);
      if (tree.height[r] < lowest[p]) lowest[p] = tree.height[r], together[p] = 0;
      together[p] += tree.height[r] == lowest[p];
    }
    for (std::size_t p = 0; p < ranks; ++p)
      if (together[p] >= 2) parents.push_back(static_cast<int>(p));
    return parents;
  }

  std::size_t index(int chunk, int rank) const {
    return static_cast<std::size_t>(chunk) * static_cast<std::size_t>(b_.spec().ranks) + static_cast<std::size_t>(rank);
  }
};

}  // namespace collsim
