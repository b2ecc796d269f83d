// Ring reduce-scatter (MPICH's MPIR_Reduce_scatter_intra_ring; the first half of ring
// all-reduce, NCCL's ReduceScatter ring).
//
// Rank r accumulates its own block r in its output and the partial sums of the other
// blocks in a scratch buffer. N-1 steps: in step k rank r sends its partial sum of block
// (r-k-1) mod N (its input of it, in the first step) to its right neighbour, which adds
// its own input of the block and writes the sum to its partial (a reduce-copy, so no
// local copies come first). Block c starts at rank c+1 and travels the ring once; the last
// hop lands in the output of rank c, complete.
// Steps: N-1. Bytes each rank sends: (N-1)/N * n (n = the whole input, N blocks) —
// bandwidth-optimal.
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
  auto input = [k](int r, int lo, int hi) {
    return block_region(r, BufferKind::input, k, lo, hi);
  };
  // Where rank r keeps its partial sum of block c: the output for its own block.
  auto partial = [k](int r, int c) {
    return c == r ? Region{r, BufferKind::output, 0, k}
                  : Region{r, BufferKind::scratch, static_cast<std::uint64_t>(c) * k, k};
  };
  for (int r = 0; r < n; ++r) b.set_scratch(r, static_cast<std::uint64_t>(n) * k);
  if (n == 1) b.pre_copy(input(0, 0, 1), partial(0, 0));

  // Block c starts as rank c+1's input; every receiver adds its own input of the block as
  // it writes the partial sum (NCCL's recvReduceCopy), so nothing is copied beforehand.
  for (int step = 0; step < n - 1; ++step) {
    b.step(fmt::format("reduce-scatter {}/{}: every rank sends one partial block to its right neighbour, which "
                       "adds its own input of that block{}",
                       step + 1, n - 1, step == n - 2 ? " into its output: block r is complete on rank r" : ""));
    for (int r = 0; r < b.senders_end(); ++r) {
      const int c = mod(r - step - 1, n), to = mod(r + 1, n);
      b.reduce_copy(c, step == 0 ? input(r, c, c + 1) : partial(r, c), input(to, c, c + 1), partial(to, c));
    }
  }
  return std::move(b).finish();
}

// Rank r+1 sends its partial sum of block c+1 where rank r sends block c: the input and the
// partial sums turn by a block, the output (the rank's own block) not at all.
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return RankRotation{.ranks = 1, .elements = {spec.count, 0, spec.count}};
}

}  // namespace

extern const AlgorithmInfo kReduceScatterRing{
    .name = "ring",
    .collective = Collective::reduce_scatter,
    .summary = "partial sums of each block travel once around a ring, N-1 steps; bandwidth-optimal",
    .steps_formula = "N-1",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "NCCL ReduceScatter Ring; Open MPI tuned reduce_scatter ring (3)",
    .build = &build,
    .layout = &layouts::ring_of,
    .closed_form = {"(N-1)(α + nβ/N + nγ/N)", "",
                    "any N", &forms::blocks_reduced_one_by_one},
    .is_default = true,
    .streams = true,
    .rotation = &rotation,
};

}  // namespace collsim
