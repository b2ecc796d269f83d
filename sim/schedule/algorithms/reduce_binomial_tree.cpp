// Binomial-tree reduce (MPICH's MPI_Reduce for short messages and commutative ops;
// Thakur, Rabenseifner & Gropp 2005).
//
// Ranks are numbered relative to the root (see rooted.h). One phase:
//   rounds, ceil(lg N) steps: in round k every rank v whose lowest set bit is 2^k sends
//   its partial vector to rank v - 2^k, which reduces it into its own. The partials of
//   whole subtrees meet, so after the last round the root holds the full reduction.
// Where a rank's partial lives: a leaf (no children) sends its input as it is; an
// interior rank accumulates in scratch (the root: in its output): its first child's partial
// plus its own input are written there at once (a reduce-copy, no copy first), the later
// children's partials reduced into it.
// Any N works as it is: a subtree that would reach past rank N-1 is cut off there (N = 6:
// round 1: 1->0, 3->2, 5->4; round 2: 2->0; round 3: 4->0, which brings 4 and 5).
// Steps: ceil(lg N). Bytes each rank sends: n (its partial, once), the root nothing.
#include <vector>

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
  auto input = [&](int v) { return Region{t.real(v), BufferKind::input, 0, k}; };
  for (int v = 0; v < t.ranks; ++v)
    if (partial(v).buffer == BufferKind::scratch) b.set_scratch(t.real(v), k);
  if (t.ranks == 1) b.pre_copy(input(0), partial(0));

  // The only phase: partials of ever larger subtrees flow towards the root. A rank's first
  // receive adds its own input and writes the sum to its accumulator (a reduce-copy), and
  // one that has received nothing sends its input: nothing is copied first.
  std::vector<bool> summed(static_cast<std::size_t>(t.ranks), false);
  for (int round = 0; round < t.rounds(); ++round) {
    const int d = 1 << round;
    b.step(round_label(round, t.rounds(), d, t.ranks));
    for (int v = d; v < t.ranks; v += 2 * d) {
      const int parent = Rooted::parent(v);
      const Region from = summed[static_cast<std::size_t>(v)] ? partial(v) : input(v);
      if (summed[static_cast<std::size_t>(parent)])
        b.reduce(t.real(v), from, partial(parent));
      else
        b.reduce_copy(t.real(v), from, input(parent), partial(parent));
      summed[static_cast<std::size_t>(parent)] = true;
    }
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
    .streams = true,
};

}  // namespace collsim
