// The two complementary binary trees of the double-binary-tree all-reduce, exposed so
// that tests (and views) can inspect their shape.
#pragma once
#include <array>
#include <vector>

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

}  // namespace collsim
