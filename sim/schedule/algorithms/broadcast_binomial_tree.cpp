// Binomial-tree broadcast (MPICH's short-message MPI_Bcast; Thakur, Rabenseifner &
// Gropp 2005).
//
// Ranks are numbered relative to the root (see rooted.h). One phase:
//   rounds, ceil(lg N) steps: in round k every rank v < 2^k, which already holds the
//   data, sends the whole buffer to rank v + 2^k, so the ranks holding it double each
//   round. The root sends from its input and keeps a copy in its output (nothing to copy
//   in place).
// Any N works as it is: in the last round of an N that is not a power of two, ranks whose
// partner would be N or more have none (N = 6: round 3 has 2 sends, not 4).
// Steps: ceil(lg N). Bytes each rank sends: n per child — the root ceil(lg N) * n, a leaf
// nothing; the root's link carries the most, which scatter_allgather avoids for large n.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/rooted.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

std::string round_label(int round, int rounds, int d, int sends, int n) {
  std::string label = fmt::format(
      "round {}/{}: every rank that holds the data (root-relative 0..{}) sends it to the "
      "rank {} further on",
      round + 1, rounds, d - 1, d);
  if (sends < d) label += fmt::format(" — only {} of the {} have one, as N = {} is not a power of two", sends, d, n);
  return label;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "binomial_tree");
  const Rooted t{spec.ranks, spec.root};
  const std::uint64_t k = spec.count;
  b.pre_copy({t.root, BufferKind::input, 0, k}, {t.root, BufferKind::output, 0, k});
  auto data = [&](int v) { return Region{t.real(v), v == 0 ? BufferKind::input : BufferKind::output, 0, k}; };

  // The only phase: the set of ranks holding the data doubles every round.
  for (int round = 0; round < t.rounds(); ++round) {
    const int d = 1 << round;
    const int sends = std::min(d, t.ranks - d);
    b.step(round_label(round, t.rounds(), d, sends, t.ranks));
    for (int c = d; c < d + sends; ++c) b.copy(0, data(Rooted::doubling_parent(c)), {t.real(c), BufferKind::output, 0, k});
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  return forms::ceil_lg(s.ranks) * forms::copy(p, forms::n(s));
}

// The doubling tree the rounds send along.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, spec.root}.binomial_tree(true)});
}

}  // namespace

extern const AlgorithmInfo kBroadcastBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::broadcast,
    .summary = "the ranks holding the data double every round; latency-optimal, but the root sends lg N times",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "root: ceil(lg N) * n; others: n per child (a leaf 0)",
    .used_by = "Gloo broadcast (PyTorch's ProcessGroupGloo); Open MPI tuned bcast binomial (6); MPICH bcast "
                "binomial",
    .build = &build,
    .layout = &layout,
    .closed_form = {"ceil(lg N)(α + nβ)", "",
                    "any N", &time_ns},
    // The default broadcast: latency-optimal (ceil(lg N) steps) for every N and count and
    // needs no options, as MPICH picks it for short messages; chain (pipelined) and
    // scatter_allgather win only for large n, where their extra steps amortise.
    .is_default = true,
};

}  // namespace collsim
