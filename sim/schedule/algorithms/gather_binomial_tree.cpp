// Binomial-tree gather (MPICH's MPI_Gather; Thakur, Rabenseifner & Gropp 2005).
//
// Ranks are numbered relative to the root (see rooted.h for the tree). One phase:
//   rounds, ceil(lg N) steps: in round k every rank v whose lowest set bit is 2^k sends
//   the blocks of its whole subtree (its own input, and what its children sent it) to
//   rank v - 2^k. Subtrees double in size each round, and the root ends with every block.
// Interior ranks collect their descendants' blocks in scratch, in root-relative order, so
// each send is one region; the root places blocks at their real ranks' offsets in its
// output, which splits a subtree in two where it wraps past rank N-1 (root ≠ 0).
// Any N works as it is: a subtree that would reach past rank N-1 is cut off there (N = 6:
// round 1: 1->0, 3->2, 5->4 one block each; round 2: 2->0 two blocks; round 3: 4->0 two).
// Steps: ceil(lg N). Bytes each rank sends: its subtree's blocks once — rank v
// (root-relative) lowbit(v)/N * n (cut off at N), at most n/2 (power-of-two N); a leaf
// n/N; the root nothing. The root receives (N-1)/N * n.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/rooted.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

std::string round_label(int round, int rounds, int d, int n) {
  std::string label = fmt::format(
      "round {}/{}: every rank {} mod {} (root-relative) sends its subtree's {} block{} to "
      "the rank {} nearer the root",
      round + 1, rounds, d, 2 * d, d, d == 1 ? "" : "s", d);
  if ((n & (n - 1)) != 0 && round + 1 == rounds)
    label += fmt::format(" (N = {} is not a power of two: the last subtree ends at rank N-1)", n);
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "binomial_tree");
  const Rooted t{spec.ranks, spec.root};
  const std::uint64_t k = spec.count;
  auto kept = [&](int v) {
    return [&, v](int u, int length) { return kept_blocks(t, k, BufferKind::output, v, u, length); };
  };
  for (int v = 1; v < t.ranks; ++v) b.set_scratch(t.real(v), kept(v)(v + 1, t.subtree_end(v) - v - 1).count);
  b.pre_copy({t.root, BufferKind::input, 0, k}, kept(0)(0, 1));

  // The only phase: ever larger subtrees move one level up.
  for (int round = 0; round < t.rounds(); ++round) {
    const int d = 1 << round;
    b.step(round_label(round, t.rounds(), d, t.ranks));
    for (int v = d; v < t.ranks; v += 2 * d) {
      b.copy(t.real(v), {t.real(v), BufferKind::input, 0, k}, kept(Rooted::parent(v))(v, 1));
      copy_blocks(b, t, v + 1, t.subtree_end(v), v == d, kept(v), kept(Rooted::parent(v)));
    }
  }
  return std::move(b).finish();
}

// The binomial tree the blocks move along.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, spec.root}.binomial_tree()});
}

}  // namespace

extern const AlgorithmInfo kGatherBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::gather,
    .summary = "subtrees of doubling size send their collected blocks one level up to the root",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "rank v (root-relative): lowbit(v)/N * n, at most n/2; the root 0",
    .used_by = "Open MPI tuned gather binomial (2); MPICH gather binomial",
    .build = &build,
    .layout = &layout,
    .closed_form = {"ceil(lg N)α + (N-1)/N·nβ", "",
                    "any N", &forms::tree_blocks},
    .is_default = true,
};

}  // namespace collsim
