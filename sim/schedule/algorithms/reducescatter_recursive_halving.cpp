// Recursive-halving reduce-scatter (MPICH's MPIR_Reduce_scatter_intra_recursive_halving,
// for commutative ops — all of collsim's are).
//
// Rank r accumulates its own block r in its output and partial sums of the other blocks
// in scratch; the first write of each adds the rank's input of it (a reduce-copy), so
// nothing is copied there first. lg N steps, the distance halving with the data: in
// step k (d = N/2^(k+1)) every rank splits the blocks it is still responsible for — those
// of its aligned group of 2d ranks — in two halves, sends the half that belongs to its
// partner r ^ d and reduces the partner's half of its own half in. After the last step
// rank r is responsible for block r alone, complete.
// Rank counts that are not a power of two fold in first (see fold.h): the even rank of a
// pair reduces its whole input into its odd partner's partial sums; the virtual rank of a
// pair is responsible for both blocks of the pair, and the odd rank finally sends the
// even rank its finished block.
// Steps: lg N' (+2 fold steps when N != N' = 2^floor(lg N)). Bytes each rank sends:
// (N-1)/N * n for a power of two (n = the whole input: n/2 + n/4 + ... + n/N); otherwise
// the halves are uneven, the even rank of a pair sends n in the fold-in and the odd one
// n/N more in the fold-out.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithms/fold.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// Where each rank keeps the partial sums of blocks: its own block in its output, the
// others in scratch, at their input offsets. Nothing is copied there first: the first write
// of a block adds the receiver's input of it (a reduce-copy), and a rank sends a block it
// has not received yet straight from its input. `written` tracks which blocks each rank
// has written (rank * N + block).
struct Partials {
  std::uint64_t k;
  int n;
  std::vector<char> written;

  Region of(int r, int lo, int hi) const {
    if (lo == r && hi == r + 1) return {r, BufferKind::output, 0, k};
    return block_region(r, BufferKind::scratch, k, lo, hi);
  }
  Region input(int r, int lo, int hi) const { return block_region(r, BufferKind::input, k, lo, hi); }
  char& has(int r, int block) { return written[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(block)]; }

  // Moves blocks [lo, hi) from src to dst, cut where a rank's own block sits in its output
  // rather than in its scratch (an input is not cut). The blocks of a move are all written
  // or all not, on either side: the halves only shrink.
  void move(ScheduleBuilder& b, Action action, int src, int dst, int lo, int hi) {
    const bool src_input = !has(src, lo), dst_first = !has(dst, lo);
    const int src_own = src_input ? lo : src;
    int cuts[] = {lo, hi, src_own, src_own + 1, dst, dst + 1};
    std::sort(std::begin(cuts), std::end(cuts));
    for (int i = 0; i + 1 < 6; ++i) {
      const int a = std::max(lo, cuts[i]), z = std::min(hi, cuts[i + 1]);
      if (a >= z) continue;
      const Region from = src_input ? input(src, a, z) : of(src, a, z);
      if (action == Action::reduce && dst_first)
        b.reduce_copy(a, from, input(dst, a, z), of(dst, a, z));
      else
        b.add(action, a, from, of(dst, a, z));
    }
    for (int c = lo; c < hi; ++c) has(dst, c) = 1;
  }
};

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "recursive_halving");
  const Fold f(spec.ranks);
  const int n = spec.ranks;
  Partials p{spec.count, n, std::vector<char>(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0)};
  for (int r = 0; r < n; ++r)
    if (!f.sits_out(r)) b.set_scratch(r, static_cast<std::uint64_t>(n) * p.k);  // one that sits out sends from its input
  if (n == 1) b.pre_copy(p.input(0, 0, 1), p.of(0, 0, 1));

  if (f.active()) {
    b.stage("fold-in");
    b.step(f.fold_in_label("reduces its whole input into"));
    for (int r = 0; r < 2 * f.rem; r += 2) p.move(b, Action::reduce, r, r + 1, 0, n);
  }
  b.stage("recursive halving");
  for (int round = 1, d = f.pof2 / 2; d >= 1; ++round, d /= 2) {
    b.step(fmt::format("recursive halving {}/{}: every rank sends the half of its blocks that belongs to {}, which "
                       "reduces it; it keeps the other half",
                       round, f.rounds(), f.partner(d)));
    for (int v = 0; v < f.pof2; ++v) {
      const int lo = v / d * d;  // v's half: the aligned group of d virtual ranks that holds v
      p.move(b, Action::reduce, f.real_rank(v ^ d), f.real_rank(v), f.first_rank(lo), f.first_rank(lo + d));
    }
  }
  if (f.active()) {
    b.stage("fold-out");
    b.step(f.fold_out_label("sends the block it finished for"));
    for (int r = 0; r < 2 * f.rem; r += 2) p.move(b, Action::copy, r + 1, r, r, r + 1);
  }
  return std::move(b).finish();
}

// Fold for any N: the even rank of a pair reduces its whole input into its partner, the
// core's messages carry the extra blocks of folded pairs, and the odd rank sends the even
// one its finished block.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks), bg = p.beta_ns_per_byte + p.gamma_ns_per_byte;
  if (is_pof2(s.ranks)) return rounds * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * bg;
  const double core_blocks = (np - 1) + fold_extra_blocks(s.ranks);
  return reduce(p, n(s)) + rounds * p.alpha_ns + core_blocks / N(s) * n(s) * bg + copy(p, n(s) / N(s));
}

}  // namespace

extern const AlgorithmInfo kReduceScatterRecursiveHalving{
    .name = "recursive_halving",
    .collective = Collective::reduce_scatter,
    .summary = "lg N steps; each rank sends half of its remaining blocks to the rank N/2, N/4, ... away, which reduces them",
    .steps_formula = "lg N' (+2 fold if N != N')",
    .bytes_formula = "(N-1)/N * n for N = N'; uneven otherwise (fold-in senders: n)",
    .used_by = "Open MPI tuned reduce_scatter recursive_halving (2); MPICH reduce_scatter recursive_halving",
    .build = &build,
    .layout = &layouts::hypercube_of,
    .closed_form = {"lg N·α + (N-1)/N·n(β + γ)", "other N: (lg N' + 2)α + n(β + γ) + (N' - 1 + X)/N·n(β + γ) + nβ/N, X = sum over k < lg N' of min(2^k, rem)",
                    "any N", &time_ns},
};

}  // namespace collsim
