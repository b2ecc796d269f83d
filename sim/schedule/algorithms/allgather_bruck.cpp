// Bruck's all-gather (Bruck et al. 1997; MPICH's MPIR_Allgather_intra_brucks).
//
// Rank r gathers into a scratch buffer in which its own block comes first: after the
// communication, scratch block i holds the block of rank (r+i) mod N.
//   gather, ceil(lg N) steps: in step k (d = 2^k) rank r receives the first min(d, N-d)
//     blocks of rank r+d's scratch and appends them at block d of its own; the run of
//     gathered blocks doubles each step, for any N — no fold-in, no power of two needed.
//   rotate, local: rank r copies scratch block i to output block (r+i) mod N — two
//     contiguous runs.
// Steps: ceil(lg N) (+1 local). Bytes each rank sends: (N-1)/N * n (n = the whole
// result): the ring's bandwidth in ceil(lg N) steps instead of N-1.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "bruck");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto at = [k](int r, BufferKind buf, int lo, int hi) {
    return block_region(r, buf, k, lo, hi);
  };
  for (int r = 0; r < n; ++r) {
    b.set_scratch(r, static_cast<std::uint64_t>(n) * k);
    b.pre_copy({r, BufferKind::input, 0, k}, at(r, BufferKind::scratch, 0, 1));
  }

  const int rounds = std::bit_width(static_cast<unsigned>(n - 1));  // ceil(lg N)
  b.stage("gather");
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << round, count = std::min(d, n - d);
    b.step(fmt::format("gather {}/{}: every rank r appends the first {} block{} of rank r+{} at its block {}",
                       round + 1, rounds, count, count == 1 ? "" : "s", d, d));
    for (int r = 0; r < n; ++r) {
      const int from = (r + d) % n;
      b.copy(from, at(from, BufferKind::scratch, 0, count), at(r, BufferKind::scratch, d, d + count));
    }
  }
  b.stage("rotate");
  b.step("rotate: every rank r copies scratch block i to output block (r+i) mod N");
  for (int r = 0; r < n; ++r) {
    b.copy(r, at(r, BufferKind::scratch, 0, n - r), at(r, BufferKind::output, r, n));
    b.copy(0, at(r, BufferKind::scratch, n - r, n), at(r, BufferKind::output, 0, r));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  return forms::tree_blocks(p, s).value() + forms::n(s) * p.delta_ns_per_byte;
}

}  // namespace

extern const AlgorithmInfo kAllGatherBruck{
    .name = "bruck",
    .collective = Collective::all_gather,
    .summary = "rank r gathers the blocks of r+1, r+2, ... in ceil(lg N) doubling steps, then rotates them into place",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "Open MPI tuned allgather bruck-k-fanout (2) at fanout 2; MPICH allgather brucks",
    .build = &build,
    .layout = &layouts::shifts_of,
    .closed_form = {"ceil(lg N)α + (N-1)/N·nβ + nδ (the final rotation)", "",
                    "any N", &time_ns},
};

}  // namespace collsim
