// Ring all-gather (MPICH's MPIR_Allgather_intra_ring; the second half of ring all-reduce).
//
// Every rank first places its own input as block r of its output (a local copy). Then,
// N-1 steps: in step k rank r forwards block (r-k) mod N — its own block first, then the
// one it received in the step before — to its right neighbour r+1, which stores it.
// After N-1 steps every block has visited every rank.
// Steps: N-1. Bytes each rank sends: (N-1)/N * n (n = the whole result, N blocks) — every
// rank sends each block except one exactly once: bandwidth-optimal.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "ring");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto block = [k](int r, int c) { return Region{r, BufferKind::output, static_cast<std::uint64_t>(c) * k, k}; };
  for (int r = 0; r < n; ++r) b.pre_copy({r, BufferKind::input, 0, k}, block(r, r));

  for (int step = 0; step < n - 1; ++step) {
    b.step(fmt::format("all-gather {}/{}: every rank forwards one block to its right neighbour", step + 1, n - 1));
    for (int r = 0; r < b.senders_end(); ++r) {
      const int c = mod(r - step, n);
      b.copy(c, block(r, c), block(mod(r + 1, n), c));
    }
  }
  return std::move(b).finish();
}

// Rank r+1 forwards block c+1 where rank r forwards block c: the output turns by a block,
// the input (the rank's own block) not at all.
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return RankRotation{.ranks = 1, .elements = {0, spec.count, 0}};
}

}  // namespace

extern const AlgorithmInfo kAllGatherRing{
    .name = "ring",
    .collective = Collective::all_gather,
    .summary = "every rank forwards blocks around a ring, N-1 steps; bandwidth-optimal",
    .steps_formula = "N-1",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "NCCL AllGather Ring; Open MPI tuned allgather ring (4); MPICH allgather ring",
    .build = &build,
    .layout = &layouts::ring_of,
    .closed_form = {"(N-1)(α + nβ/N)", "",
                    "any N", &forms::blocks_one_by_one},
    .is_default = true,
    .streams = true,
    .rotation = &rotation,
};

}  // namespace collsim
