// Dissemination barrier (Hensgen, Finkel & Manber 1988; MPICH's MPI_Barrier).
//
// Barriers move no data, only signals (see ScheduleBuilder: one-element i32 tokens
// combined with max, counted as 0 bytes). One phase:
//   rounds, ceil(lg N) steps: in round k every rank r signals rank r + 2^k (mod N): the
//   receiver merges the sender's token — every rank the sender has heard from — into
//   its own. After round k a token has heard from 2^(k+1) ranks, so after ceil(lg N)
//   rounds from all N; no rank can leave before every rank has arrived.
// A rank sends the token it had before this round's signal arrives, so each round works
// on a fresh token: token k+1 starts empty (the op's identity) and reduces in token k of
// its own rank and of the sender. Scratch: ceil(lg N) + 1 tokens; the last is the result.
// Any N works as it is, with no fold-in: for N not a power of two the last round brings
// some ranks' signals twice (N = 6, round 3: rank 5 gets rank 1's token, which has heard
// from 4, 5, 0 and 1, but 4 and 5 had reached rank 5 already), which max ignores: tokens
// are sets, not counts.
// Steps: ceil(lg N). Bytes each rank sends: 0 (ceil(lg N) zero-byte signals).
#include <fmt/format.h>

#include <bit>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "dissemination");
  const int n = spec.ranks;
  const int rounds = std::bit_width(static_cast<unsigned>(n - 1));  // ceil(lg N)
  auto token = [](int r, int k) { return Region{r, BufferKind::scratch, static_cast<std::uint64_t>(k), 1}; };
  for (int r = 0; r < n; ++r) {
    b.set_scratch(r, static_cast<std::uint64_t>(rounds) + 1);
    b.pre_signal(token(r, 0));
    for (int k = 1; k <= rounds; ++k) b.pre_fill_identity(token(r, k));
  }

  // The only phase: every round doubles how many ranks each token has heard from.
  for (int k = 0; k < rounds; ++k) {
    const int d = 1 << k;
    const bool repeats = k + 1 == rounds && (n & (n - 1)) != 0;
    b.step(
        fmt::format("round {}/{}: every rank signals the rank {} to its right, which merges the sender's token "
                    "into its own{}",
                    k + 1, rounds, d, repeats ? " (N is not a power of two: some signals arrive twice)" : ""));
    for (int r = 0; r < n; ++r) {
      b.reduce(r, token(r, k), token(r, k + 1));
      b.reduce((r - d + n) % n, token((r - d + n) % n, k), token(r, k + 1));
    }
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) { return forms::ceil_lg(s.ranks) * p.alpha_ns; }

}  // namespace

extern const AlgorithmInfo kBarrierDissemination{
    .name = "dissemination",
    .collective = Collective::barrier,
    .summary = "in round k every rank signals rank r + 2^k; after ceil(lg N) rounds every rank has heard from all",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "0 (zero-byte signals)",
    .used_by = "MPICH barrier k_dissemination at its default radix 2",
    .build = &build,
    .layout = &layouts::shifts_of,
    .closed_form = {"ceil(lg N)α", "",
                    "any N", &time_ns},
    .is_default = true,
    .streams = true,
};

}  // namespace collsim
