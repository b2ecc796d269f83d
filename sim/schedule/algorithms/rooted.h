// What the rooted algorithms (broadcast, reduce, gather, scatter) share: they run their
// trees and chains on ranks renumbered relative to the root, v = (r - root) mod N, so the
// root is always virtual rank 0 and one tree shape serves every --root.
//
// The binomial tree on virtual ranks 0..N-1: v's parent is v minus its lowest set bit,
// and v's subtree is [v, v + lowbit(v)) cut off at N (the root's: all of 0..N-1). Any N
// works as it is: ranks whose subtree would reach past N - 1 simply have fewer
// descendants, so no fold-in is needed (N = 6: 0 has children 1, 2, 4; 2 has 3; 4 has 5).
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {

struct Rooted {
  int ranks = 1;
  int root = 0;

  int real(int v) const { return (v + root) % ranks; }
  // ceil(lg N): the rounds of a binomial tree.
  int rounds() const { return std::bit_width(static_cast<unsigned>(ranks - 1)); }
  // v's parent in the binomial tree (v > 0): v minus its lowest set bit (reduce, gather,
  // scatter: subtrees [v, v + lowbit(v))).
  static int parent(int v) { return v - (v & -v); }
  // v's parent in the broadcast's doubling tree (v > 0): v minus its highest set bit, the
  // rank that reached v in round floor(lg v) (also a binomial tree, with other subtrees).
  static int doubling_parent(int v) { return v - largest_power_of_two(v); }
  // The tree in real ranks, as the views draw it (AlgorithmInfo::layout): the same
  // parent() (or doubling_parent()) the schedules send along.
  TreeShape binomial_tree(bool doubling = false) const {
    TreeShape tree{root, std::vector<int>(static_cast<std::size_t>(ranks), -1)};
    for (int v = 1; v < ranks; ++v)
      tree.parent[static_cast<std::size_t>(real(v))] = real(doubling ? doubling_parent(v) : parent(v));
    return tree;
  }
  // One past the last virtual rank of v's binomial subtree.
  int subtree_end(int v) const { return v == 0 ? ranks : std::min(ranks, v + (v & -v)); }

  // Calls f(first_real, length, first_virtual) for the runs of consecutive real ranks that
  // virtual ranks [a, b) cover: one run, or two where the range wraps past rank N - 1.
  template <class F>
  void for_each_real_run(int a, int b, F&& f) const {
    while (a < b) {
      const int first = real(a);
      const int length = std::min(b - a, ranks - first);
      f(first, length, a);
      a += length;
    }
  }
};

// Gather and scatter trees: where rank v keeps the K-element blocks of virtual ranks
// [u, u + length). The root keeps them in its full-size buffer at their real ranks'
// offsets (gather: its output; scatter: its input); any other rank in its scratch, its
// descendants v+1, v+2, ... in virtual order (its own block is its input or output).
inline Region kept_blocks(const Rooted& t, std::uint64_t k, BufferKind root_buffer, int v, int u, int length) {
  const auto blocks = [k](int i) { return static_cast<std::uint64_t>(i) * k; };
  if (v == 0) return {t.root, root_buffer, blocks(t.real(u)), blocks(length)};
  return {t.real(v), BufferKind::scratch, blocks(u - v - 1), blocks(length)};
}

// Copies the blocks of virtual ranks [a, b) from where `from` keeps them to where `to`
// keeps them (both called as f(first_virtual, length) -> Region): one transfer, or, when
// one side is the root (`via_root`), one per run of consecutive real ranks — two where
// [a, b) wraps past rank N-1.
template <class From, class To>
void copy_blocks(ScheduleBuilder& builder, const Rooted& t, int a, int b, bool via_root, From from, To to) {
  if (a >= b) return;
  if (!via_root) {
    builder.copy(t.real(a), from(a, b - a), to(a, b - a));
    return;
  }
  t.for_each_real_run(a, b, [&](int first_real, int length, int first_virtual) {
    builder.copy(first_real, from(first_virtual, length), to(first_virtual, length));
  });
}

}  // namespace collsim
