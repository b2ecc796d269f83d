// Binomial-tree scatter (MPICH's MPI_Scatter; Thakur, Rabenseifner & Gropp 2005).
//
// Ranks are numbered relative to the root (see rooted.h for the tree). One phase:
//   rounds, ceil(lg N) steps: in round k (distance d = 2^(R-1-k), R = ceil(lg N)) every
//   rank v that holds the blocks of [v, v + 2d) sends those of [v + d, v + 2d) to rank
//   v + d: its own block into its output, its descendants' into its scratch. Held blocks
//   halve each round, and every rank ends with its own.
// Non-root ranks keep their descendants' blocks in scratch, in root-relative order; the
// root reads blocks at their real ranks' offsets of its input, which splits a subtree in
// two where it wraps past rank N-1 (root ≠ 0).
// Any N works as it is: a subtree that would reach past rank N-1 is cut off there (N = 6:
// round 1: 0->4 blocks 4-5; round 2: 0->2 blocks 2-3; round 3: 0->1, 2->3, 4->5).
// Steps: ceil(lg N). Bytes each rank sends: the root (N-1)/N * n; rank v (root-relative)
// (lowbit(v)-1)/N * n, cut off at N; a leaf nothing.
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
      "round {}/{}: every rank holding blocks v..v+{} (root-relative) sends the upper {} "
      "block{} to rank v+{}",
      round + 1, rounds, 2 * d - 1, d, d == 1 ? "" : "s", d);
  if ((n & (n - 1)) != 0 && round == 0)
    label += fmt::format(" (N = {} is not a power of two: the upper half ends at rank N-1)", n);
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "binomial_tree");
  const Rooted t{spec.ranks, spec.root};
  const std::uint64_t k = spec.count;
  auto kept = [&](int v) {
    return [&, v](int u, int length) { return kept_blocks(t, k, BufferKind::input, v, u, length); };
  };
  for (int v = 1; v < t.ranks; ++v) b.set_scratch(t.real(v), kept(v)(v + 1, t.subtree_end(v) - v - 1).count);
  b.pre_copy(kept(0)(0, 1), {t.root, BufferKind::output, 0, k});

  // The only phase: held blocks halve every round.
  const int rounds = t.rounds();
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << (rounds - 1 - round);
    b.step(round_label(round, rounds, d, t.ranks));
    for (int c = d; c < t.ranks; c += 2 * d) {
      const int v = Rooted::parent(c);
      b.copy(t.real(c), kept(v)(c, 1), {t.real(c), BufferKind::output, 0, k});
      copy_blocks(b, t, c + 1, t.subtree_end(c), v == 0, kept(v), kept(c));
    }
  }
  return std::move(b).finish();
}

// The binomial tree the blocks move along.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, spec.root}.binomial_tree()});
}

}  // namespace

extern const AlgorithmInfo kScatterBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::scatter,
    .summary = "the root's blocks halve at every level of a binomial tree until each rank holds its own",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "root: (N-1)/N * n; rank v (root-relative): (lowbit(v)-1)/N * n",
    .used_by = "Open MPI tuned scatter binomial (2); MPICH scatter binomial",
    .build = &build,
    .layout = &layout,
    .closed_form = {"ceil(lg N)α + (N-1)/N·nβ", "",
                    "any N", &forms::tree_blocks},
    .is_default = true,
};

}  // namespace collsim
