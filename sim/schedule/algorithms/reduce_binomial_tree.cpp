// Binomial-tree reduce (MPICH's MPI_Reduce for short messages and commutative ops;
// Thakur, Rabenseifner & Gropp 2005).
//
// Ranks are numbered relative to the root (see rooted.h). One phase:
//   rounds, ceil(lg N) steps: in round k every rank v whose lowest set bit is 2^k sends
//   its partial vector to rank v - 2^k, which reduces it into its own. The partials of
//   whole subtrees meet, so after the last round the root holds the full reduction.
// Where a rank's partial lives: a leaf (no children) sends its input as it is; an
// interior rank first copies its input into a scratch accumulator (the root: into its
// output; nothing to copy in place) and reduces its children's partials into it.
// Any N works as it is: a subtree that would reach past rank N-1 is cut off there (N = 6:
// round 1: 1->0, 3->2, 5->4; round 2: 2->0; round 3: 4->0, which brings 4 and 5).
// Steps: ceil(lg N). Bytes each rank sends: n (its partial, once), the root nothing.
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
      "round {}/{}: every rank {} mod {} (root-relative) sends its partial vector to the "
      "rank {} nearer the root, which reduces it",
      round + 1, rounds, d, 2 * d, d);
  if ((n & (n - 1)) != 0 && round + 1 == rounds)
    label += fmt::format(" (N = {} is not a power of two: this subtree ends at rank N-1)", n);
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "binomial_tree");
  const Rooted t{spec.ranks, spec.root};
  const std::uint64_t k = spec.count;
  // Where virtual rank v keeps its partial vector (see the file comment).
  auto partial = [&](int v) {
    const int r = t.real(v);
    if (v == 0) return Region{r, BufferKind::output, 0, k};
    const bool has_children = v % 2 == 0 && v + 1 < t.ranks;
    return Region{r, has_children ? BufferKind::scratch : BufferKind::input, 0, k};
  };
  for (int v = 0; v < t.ranks; ++v) {
    const Region acc = partial(v);
    if (acc.buffer == BufferKind::input) continue;
    if (acc.buffer == BufferKind::scratch) b.set_scratch(acc.rank, k);
    b.pre_copy({acc.rank, BufferKind::input, 0, k}, acc);
  }

  // The only phase: partials of ever larger subtrees flow towards the root.
  for (int round = 0; round < t.rounds(); ++round) {
    const int d = 1 << round;
    b.step(round_label(round, t.rounds(), d, t.ranks));
    for (int v = d; v < t.ranks; v += 2 * d) b.reduce(t.real(v), partial(v), partial(Rooted::parent(v)));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  return forms::ceil_lg(s.ranks) * forms::reduce(p, forms::n(s));
}

// The binomial tree the partials climb.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, spec.root}.binomial_tree()});
}

}  // namespace

extern const AlgorithmInfo kReduceBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::reduce,
    .summary = "partials of ever larger subtrees meet on their way to the root; latency-optimal",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "n (every rank but the root)",
    .used_by = "Open MPI tuned reduce binomial (5); MPICH reduce binomial",
    .build = &build,
    .layout = &layout,
    .closed_form = {"ceil(lg N)(α + nβ + nγ)", "",
                    "any N", &time_ns},
    .is_default = true,
};

}  // namespace collsim
