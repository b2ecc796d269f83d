// Recursive-doubling all-gather (MPICH's MPIR_Allgather_intra_recursive_doubling).
//
// Every rank places its own input as block r of its output. In round k (distance
// d = 2^k) every rank exchanges everything it has gathered so far — the blocks of its
// aligned group of d ranks — with the rank d away (rank r ^ d), so the gathered run
// doubles each round: lg N steps, with messages of n/N, 2n/N, 4n/N, ...
// Both partners copy into blocks the other never touches, so each exchange is one step.
// Rank counts that are not a power of two fold in first (see fold.h): the even rank of a
// pair sends its block to its odd partner, the N' remaining ranks gather — a virtual rank
// of a pair carries two consecutive blocks — and the odd partner finally sends the N-1
// blocks its even partner lacks.
// Steps: lg N' (+2 fold steps when N != N' = 2^floor(lg N)). Bytes each rank sends:
// (N-1)/N * n for a power of two (n = the whole result). Otherwise each round a virtual
// rank sends the blocks of its group (a pair's virtual rank counts two), the even rank of
// a pair sends n/N in the fold-in and the odd one (N-1)/N * n more in the fold-out.
#include <fmt/format.h>

#include "sim/schedule/algorithms/fold.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "recursive_doubling");
  const Fold f(spec.ranks);
  const std::uint64_t k = spec.count;
  // Blocks [lo, hi) of real rank r's output.
  auto blocks = [k](int r, int lo, int hi) {
    return block_region(r, BufferKind::output, k, lo, hi);
  };
  for (int r = 0; r < spec.ranks; ++r) b.pre_copy({r, BufferKind::input, 0, k}, blocks(r, r, r + 1));

  if (f.active()) {
    b.stage("fold-in");
    b.step(f.fold_in_label("sends its block to"));
    for (int r = 0; r < 2 * f.rem; r += 2) b.copy(r, blocks(r, r, r + 1), blocks(r + 1, r, r + 1));
  }
  b.stage("recursive doubling");
  for (int round = 0; round < f.rounds(); ++round) {
    const int d = 1 << round;
    b.step(fmt::format("recursive doubling {}/{}: every rank receives all that {} has gathered", round + 1,
                       f.rounds(), f.partner(d)));
    for (int v = 0; v < f.pof2; ++v) {
      const int group = (v ^ d) / d * d;  // the partner's aligned group of d virtual ranks
      const int lo = f.first_rank(group), hi = f.first_rank(group + d);
      b.copy(lo, blocks(f.real_rank(v ^ d), lo, hi), blocks(f.real_rank(v), lo, hi));
    }
  }
  if (f.active()) {
    b.stage("fold-out");
    b.step(f.fold_out_label("sends all other blocks to"));
    for (int r = 0; r < 2 * f.rem; r += 2) {
      b.copy(0, blocks(r + 1, 0, r), blocks(r, 0, r));
      b.copy(r + 1, blocks(r + 1, r + 1, spec.ranks), blocks(r, r + 1, spec.ranks));
    }
  }
  return std::move(b).finish();
}

// Fold for any N: the even rank of a pair sends its block in, the core's messages carry
// the extra blocks of folded pairs, and the odd rank sends back the N-1 blocks its partner lacks.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks);
  if (is_pof2(s.ranks)) return rounds * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
  const double blocks = 1 + (np - 1) + fold_extra_blocks(s.ranks) + (N(s) - 1);
  return (rounds + 2) * p.alpha_ns + blocks / N(s) * n(s) * p.beta_ns_per_byte;
}

}  // namespace

extern const AlgorithmInfo kAllGatherRecursiveDoubling{
    .name = "recursive_doubling",
    .collective = Collective::all_gather,
    .summary = "lg N rounds; in round k every rank swaps all it has gathered with the rank 2^k away",
    .steps_formula = "lg N' (+2 fold if N != N')",
    .bytes_formula = "(N-1)/N * n for N = N'; uneven otherwise",
    .used_by = "Open MPI tuned allgather recursive_doubling (3); MPICH allgather recursive_doubling",
    .build = &build,
    .layout = &layouts::hypercube_of,
    .closed_form = {"lg N·α + (N-1)/N·nβ", "other N: (lg N' + 2)α + (N' + N - 1 + X)/N·nβ, X = sum over k < lg N' of min(2^k, rem)",
                    "any N", &time_ns},
};

}  // namespace collsim
