// Scatter + all-gather broadcast (van de Geijn; MPICH's long-message MPI_Bcast, Thakur,
// Rabenseifner & Gropp 2005).
//
// The buffer is cut into N blocks; block v belongs to root-relative rank v (rooted.h).
// Two phases:
//   1. scatter, ceil(lg N) steps: a binomial scatter. In round k (distance d = 2^(R-1-k),
//      R = ceil(lg N)) every rank v that holds the blocks [v, v + 2d) sends the upper
//      half [v + d, v + 2d) to rank v + d. Blocks stay at their own offsets, so each send
//      is one contiguous region. Afterwards rank v holds block v.
//   2. all-gather, N-1 steps: a ring root -> root+1 -> ...: in step j every rank forwards
//      block v - j to its right neighbour, so after N-1 steps every rank holds all
//      blocks. The root takes part like everyone else (it receives blocks it already
//      has, as in MPICH), which keeps every rank's share equal.
// Any N works as it is: in the scatter, ranks whose upper half would start at N or
// beyond send nothing, and a cut-off half is shorter (N = 6: 0 sends blocks 4-5 to 4,
// then 2-3 to 2; 0, 2 and 4 send one block each in round 3); the ring needs no power
// of two. Counts below N leave some blocks empty; their sends are dropped.
// Steps: ceil(lg N) + N-1. Bytes each rank sends: (N-1)/N * n in the all-gather, plus
// its scatter sends — the root (N-1)/N * n, so at most 2(N-1)/N * n: for large n about
// twice a single send, whatever N, at the price of N-1 more steps than the binomial tree.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/rooted.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// Blocks [a, b) (root-relative rank order) of rank v's copy of the vector.
Region blocks(const Rooted& t, std::uint64_t k, int v, int a, int b) {
  const Block range =
      block_range(k, static_cast<std::uint64_t>(t.ranks), static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  return {t.real(v), v == 0 ? BufferKind::input : BufferKind::output, range.offset, range.count};
}

void scatter(ScheduleBuilder& b, const Rooted& t) {
  const std::uint64_t k = b.spec().count;
  const int rounds = t.rounds();
  b.stage("scatter");
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << (rounds - 1 - round);
    b.step(
        fmt::format("scatter {}/{}: every rank holding blocks v..v+{} (root-relative) sends the upper {} block{} to "
                    "rank v+{}",
                    round + 1, rounds, 2 * d - 1, d, d == 1 ? "" : "s", d));
    for (int v = 0; v + d < t.ranks; v += 2 * d) {
      const int end = std::min(t.ranks, v + 2 * d);
      b.copy(t.real(v + d), blocks(t, k, v, v + d, end), blocks(t, k, v + d, v + d, end));
    }
  }
}

void ring_all_gather(ScheduleBuilder& b, const Rooted& t) {
  const std::uint64_t k = b.spec().count;
  const int n = t.ranks;
  auto held = [&](int v, int block) {  // the root's copy of its blocks is its output now
    Region r = blocks(t, k, v, block, block + 1);
    r.buffer = BufferKind::output;
    return r;
  };
  b.stage("all-gather");
  for (int j = 0; j < n - 1; ++j) {
    b.step(fmt::format("all-gather {}/{}: every rank forwards one block to its right neighbour", j + 1, n - 1));
    for (int v = 0; v < n; ++v) {
      const int block = ((v - j) % n + n) % n;
      b.copy(t.real(block), held(v, block), held((v + 1) % n, block));
    }
  }
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "scatter_allgather");
  const Rooted t{spec.ranks, spec.root};
  // The root's own block starts the ring from its output (nothing to copy in place).
  Region own = blocks(t, spec.count, 0, 0, 1);
  b.pre_copy(own, {t.root, BufferKind::output, own.offset, own.count});

  scatter(b, t);          // Phase 1: rank v gets block v.
  ring_all_gather(b, t);  // Phase 2: every rank gets every block.
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  return (ceil_lg(s.ranks) + N(s) - 1) * p.alpha_ns + 2 * (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
}

// Drawn as the ring root -> root+1 -> ... of its all-gather, which carries N-1 of its
// ceil(lg N) + N-1 steps (the scatter before it is a binomial tree on the same ranks).
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::ring(spec.ranks, spec.root);
}

}  // namespace

extern const AlgorithmInfo kBroadcastScatterAllgather{
    .name = "scatter_allgather",
    .collective = Collective::broadcast,
    .summary = "binomial scatter of N blocks, then a ring all-gather (van de Geijn); for large n",
    .steps_formula = "ceil(lg N) + N-1",
    .bytes_formula = "at most 2(N-1)/N * n (the root); (N-1)/N * n in the all-gather each",
    .used_by = "Open MPI tuned bcast scatter_allgather_ring (9); MPICH bcast scatter_ring_allgather",
    .build = &build,
    .layout = &layout,
    .closed_form = {"(ceil(lg N) + N-1)α + 2(N-1)/N·nβ", "",
                    "any N", &time_ns},
};

}  // namespace collsim
