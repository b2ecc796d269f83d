// Recursive-doubling all-reduce (MPICH's MPIR_Allreduce_intra_recursive_doubling).
//
// In round k (k = 0..lg N - 1) every rank exchanges its whole partial vector with the
// rank 2^k away (rank r ^ 2^k) and combines the two: after round k each rank holds the
// reduction over its aligned group of 2^(k+1) ranks, so after lg N rounds every rank
// holds everything. Few steps and whole-vector messages: the algorithm for short vectors.
//   exchange k, 1 step: every rank copies its partner's vector into its scratch (a pull
//     that reduced straight into the output would race with the partner reading it);
//   combine k, local: every rank reduces its scratch into its output.
// Out of place at a power of two, round 0 is one step instead: every rank reads its
// partner's input and writes the sum with its own input to its output (a reduce-copy),
// so nothing is copied into the outputs first and there is no first combine.
// Rank counts that are not a power of two fold in first (see fold.h): the even rank of a
// pair reduces into its odd partner, and gets the result back at the end.
// Steps: lg N' (+2 fold steps when N != N' = 2^floor(lg N)). Bytes each rank sends:
// n * lg N'; in a fold pair the even rank sends n (the fold-in) and the odd one n more (the
// fold-out).
#include <fmt/format.h>

#include "sim/schedule/algorithms/fold.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "recursive_doubling");
  const Fold f(spec.ranks);
  const std::uint64_t k = spec.count;
  auto out = [k](int r) { return Region{r, BufferKind::output, 0, k}; };
  auto scratch = [k](int r) { return Region{r, BufferKind::scratch, 0, k}; };
  auto in = [k](int r) { return Region{r, BufferKind::input, 0, k}; };
  // A power of two out of place: the first round adds the partner's input to one's own
  // straight into the output (a reduce-copy: each reads the other's input, which nobody
  // writes), so there is no pre-copy and no first combine. Otherwise every rank starts from
  // a copy of its input in its output, and every round goes through the scratch.
  const bool direct_first = !f.active() && !spec.in_place && f.rounds() > 0;
  for (int r = 0; r < spec.ranks; ++r) {
    if (!direct_first) b.pre_copy(in(r), out(r));
    if (!f.sits_out(r)) b.set_scratch(r, k);
  }

  if (f.active()) {
    b.stage("fold-in");
    b.step(f.fold_in_label("reduces its vector into"));
    for (int r = 0; r < 2 * f.rem; r += 2) b.reduce(r, out(r), out(r + 1));
  }
  b.stage("recursive doubling");
  for (int round = 0; round < f.rounds(); ++round) {
    const int distance = 1 << round;
    if (round == 0 && direct_first) {
      b.step(fmt::format("recursive doubling 1/{}: every rank receives the whole input of {} and adds its own input "
                         "into its output",
                         f.rounds(), f.partner(distance)));
      for (int v = 0; v < f.pof2; ++v) b.reduce_copy(v ^ distance, in(v ^ distance), in(v), out(v));
      continue;
    }
    b.step(fmt::format("recursive doubling {}/{}: every rank receives the whole vector of {}", round + 1, f.rounds(),
                       f.partner(distance)));
    for (int v = 0; v < f.pof2; ++v) {
      const int from = f.real_rank(v ^ distance);
      b.copy(from, out(from), scratch(f.real_rank(v)));
    }
    b.step(fmt::format("combine {}/{}: every rank reduces the received vector into its own", round + 1, f.rounds()));
    for (int v = 0; v < f.pof2; ++v) b.reduce(f.real_rank(v ^ distance), scratch(f.real_rank(v)), out(f.real_rank(v)));
  }
  if (f.active()) {
    b.stage("fold-out");
    b.step(f.fold_out_label("sends the result to"));
    for (int r = 0; r < 2 * f.rem; r += 2) b.copy(r + 1, out(r + 1), out(r));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double rounds = floor_lg(s.ranks);
  if (is_pof2(s.ranks)) return rounds * reduce(p, n(s));
  return (rounds + 2) * copy(p, n(s)) + (rounds + 1) * n(s) * p.gamma_ns_per_byte;
}

}  // namespace

extern const AlgorithmInfo kAllReduceRecursiveDoubling{
    .name = "recursive_doubling",
    .collective = Collective::all_reduce,
    .summary = "lg N rounds of whole-vector exchanges with the rank 2^k away; latency-optimal, for short vectors",
    .steps_formula = "lg N' (+2 fold if N != N')",
    .bytes_formula = "n * lg N'; paired ranks: even n, odd n * lg N' + n",
    .used_by = "Open MPI tuned recursive_doubling (3), its choice for short messages; MPICH recursive_doubling, "
                "its choice for short messages",
    .build = &build,
    .layout = &layouts::hypercube_of,
    .closed_form = {"lg N·(α + nβ + nγ)", "other N: (lg N' + 2)(α + nβ) + (lg N' + 1)·nγ",
                    "any N", &time_ns},
};

}  // namespace collsim
