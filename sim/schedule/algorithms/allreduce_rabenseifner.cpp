// Rabenseifner's all-reduce (Rabenseifner 2004; MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather,
// Gloo's allreduce_halving_doubling).
//
// The vector is cut into N' blocks; virtual rank v ends up owning block v. Two phases:
//   1. reduce-scatter by recursive halving, lg N' steps: in step k the distance is
//      d = N'/2^(k+1); every rank splits the blocks it is still responsible for in two
//      halves, keeps the half its own block lies in and sends the other half to the rank
//      d away, which reduces it into its copy. Both halves move at once and never overlap,
//      so the reduce goes straight into the output. Distance and data halve together.
//      The first halving reads both ranks' inputs and writes the sum to the output (a
//      reduce-copy, NCCL's recvReduceCopy), so nothing is copied into the outputs first.
//   2. all-gather by recursive doubling, lg N' steps: the same exchanges in reverse
//      order, now copying the finished halves.
// Rank counts that are not a power of two fold in first (see fold.h): the even rank of a
// pair reduces its whole vector and its partner's input into the partner's output, and gets
// the result back at the end.
// Steps: 2 lg N' (+2 fold steps when N != N' = 2^floor(lg N)). Bytes each rank sends:
// 2(N'-1)/N' * n — the ring's bandwidth in 2 lg N steps instead of 2(N-1); in a fold pair
// the even rank sends n (the fold-in) and the odd one n more (the fold-out).
#include <fmt/format.h>

#include "sim/schedule/algorithms/fold.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

struct Halving {
  const CollectiveSpec& spec;
  Fold fold;
  // Elements of virtual blocks [lo, hi) on real rank r's output (or another buffer).
  Region blocks(int r, int lo, int hi, BufferKind b = BufferKind::output) const {
    const Block range = block_range(spec.count, static_cast<std::uint64_t>(fold.pof2), static_cast<std::uint64_t>(lo),
                                    static_cast<std::uint64_t>(hi));
    return {r, b, range.offset, range.count};
  }
  // Where real rank r's partial vector is before the first halving: its input, or its
  // output when it took in its fold partner's vector there.
  BufferKind start(int r) const { return fold.active() && r < 2 * fold.rem ? BufferKind::output : BufferKind::input; }
};

// One exchange at distance d between every virtual rank v and its partner v ^ d, over
// the aligned group of 2d blocks they share. v receives one half of it from the partner:
//   reduce-scatter: v's own half (the d blocks that hold block v), the partner's partial
//                   sums of it, which v reduces in; the partner keeps the other half;
//   all-gather:     the partner's half, which the partner has finished.
// The first halving reads both partial vectors where they start (start()) and writes the
// sum to the output (a reduce-copy), so nothing is copied into the outputs first.
void exchange(ScheduleBuilder& b, const Halving& h, int d, Action action, bool first) {
  for (int v = 0; v < h.fold.pof2; ++v) {
    const int partner = v ^ d, from = h.fold.real_rank(partner), to = h.fold.real_rank(v);
    const int lo = (action == Action::reduce ? v : partner) / d * d;
    if (first)
      b.reduce_copy(lo, h.blocks(from, lo, lo + d, h.start(from)), h.blocks(to, lo, lo + d, h.start(to)),
                    h.blocks(to, lo, lo + d));
    else
      b.add(action, lo, h.blocks(from, lo, lo + d), h.blocks(to, lo, lo + d));
  }
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "rabenseifner");
  const Halving h{spec, Fold(spec.ranks)};
  const Fold& f = h.fold;
  const std::uint64_t k = spec.count;
  auto out = [k](int r) { return Region{r, BufferKind::output, 0, k}; };
  auto in = [k](int r) { return Region{r, BufferKind::input, 0, k}; };
  if (spec.ranks == 1) b.pre_copy(in(0), out(0));

  if (f.active()) {
    b.stage("fold-in");
    b.step(f.fold_in_label("reduces its vector into"));
    for (int r = 0; r < 2 * f.rem; r += 2) b.reduce_copy(r, in(r), in(r + 1), out(r + 1));
  }
  // Phase 1: reduce-scatter by recursive halving — distance N'/2 first, half the data each time.
  b.stage("reduce-scatter");
  for (int round = 1, d = f.pof2 / 2; d >= 1; ++round, d /= 2) {
    b.step(fmt::format("reduce-scatter {}/{}: every rank sends half of its blocks to {}, which reduces them; it "
                       "keeps the other half",
                       round, f.rounds(), f.partner(d)));
    exchange(b, h, d, Action::reduce, round == 1);
  }
  // Phase 2: all-gather by recursive doubling — distance 1 first, twice the data each time.
  b.stage("all-gather");
  for (int round = 1, d = 1; d < f.pof2; ++round, d *= 2) {
    b.step(fmt::format("all-gather {}/{}: every rank sends its finished blocks to {}", round, f.rounds(), f.partner(d)));
    exchange(b, h, d, Action::copy, false);
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
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks), share = (np - 1) / np * n(s);
  const double core = 2 * rounds * p.alpha_ns + 2 * share * p.beta_ns_per_byte + share * p.gamma_ns_per_byte;
  return is_pof2(s.ranks) ? core : core + reduce(p, n(s)) + copy(p, n(s));
}

}  // namespace

extern const AlgorithmInfo kAllReduceRabenseifner{
    .name = "rabenseifner",
    .collective = Collective::all_reduce,
    .summary = "reduce-scatter by recursive halving, then all-gather by recursive doubling; bandwidth-optimal in 2 lg N steps",
    .steps_formula = "2 lg N' (+2 fold if N != N')",
    .bytes_formula = "2(N'-1)/N' * n; paired ranks: even n, odd 2(N'-1)/N' * n + n",
    .used_by = "Open MPI tuned rabenseifner (6), its choice for long messages; MPICH reduce_scatter_allgather, "
                "its choice for long messages; Gloo AllreduceHalvingDoubling (other N: binary blocks instead of a "
                "fold)",
    .build = &build,
    .layout = &layouts::hypercube_of,
    .closed_form = {"2 lg N·α + 2(N-1)/N·nβ + (N-1)/N·nγ", "other N: the same in N', + (2α + 2nβ + nγ) for the fold",
                    "any N", &time_ns},
};

}  // namespace collsim
