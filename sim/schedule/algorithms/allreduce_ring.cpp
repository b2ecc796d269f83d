// Ring all-reduce (Patarasuk & Yuan 2009; NCCL's runRing, Gloo's allreduce_ring).
//
// The buffer is cut into N chunks. Ranks form a ring r -> r+1. Two phases:
//   1. reduce-scatter, N-1 steps: in step k rank r sends chunk (r-k) mod N to its right
//      neighbour, which reduces it into its own copy. After N-1 steps rank r holds the
//      fully reduced chunk (r+1) mod N.
//   2. all-gather, N-1 steps: in step k rank r forwards the finished chunk (r+1-k) mod N,
//      and the neighbour overwrites its copy.
// Steps: 2(N-1). Bytes each rank sends: 2(N-1)/N * n — independent of N for large N,
// which is why the ring is bandwidth-optimal.
//
// With S slices every chunk is cut again into S slices that travel one after the other;
// steps are never barriers, so slice 2 of a step runs while slice 1 already moves on:
// the same traffic, pipelined. Steps: 2(N-1)S.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// One ring step for every slice: rank r sends chunk (r + shift) mod N of its `source` buffer
// to rank r+1's output. A reducing step adds the receiver's own input of the chunk as it
// writes (NCCL's recvReduceCopy): the output is never pre-filled with a copy of the input.
void ring_step(ScheduleBuilder& b, Action action, BufferKind source, const std::string& label, int slices, int shift) {
  const CollectiveSpec& spec = b.spec();
  const int n = spec.ranks;
  // Fewer elements than ranks: only chunks 0..count-1 hold any (even_block), so only the ranks
  // that send those have work; listed in rank order, the order of a full step. At --count 1
  // a 65 536-rank ring would otherwise walk 8.6 G empty places.
  std::vector<int> senders;
  if (spec.count < static_cast<std::uint64_t>(n)) {
    for (std::uint64_t c = 0; c < spec.count; ++c) senders.push_back(mod(static_cast<int>(c) - shift, n));
    std::sort(senders.begin(), senders.end());
  }
  const auto send = [&](int r, int s) {
    const int chunk = mod(r + shift, n), to = mod(r + 1, n);
    const Block part = sub_block(even_block(spec.count, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(chunk)),
                                 static_cast<std::uint64_t>(slices), static_cast<std::uint64_t>(s));
    const Region from{r, source, part.offset, part.count}, into{to, BufferKind::output, part.offset, part.count};
    if (action == Action::reduce_copy)
      b.reduce_copy(chunk * slices + s, from, {to, BufferKind::input, part.offset, part.count}, into);
    else
      b.add(action, chunk * slices + s, from, into);
  };
  for (int s = 0; s < slices; ++s) {
    b.step(slices == 1 ? label : fmt::format("{}, slice {}/{}", label, s + 1, slices));
    if (spec.count < static_cast<std::uint64_t>(n))
      for (const int r : senders) send(r, s);
    else
      for (int r = 0; r < b.senders_end(); ++r) send(r, s);
  }
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  ScheduleBuilder b(spec, "ring");
  const int n = spec.ranks;
  if (n == 1) b.pre_copy({0, BufferKind::input, 0, spec.count}, {0, BufferKind::output, 0, spec.count});

  // Phase 1: reduce-scatter — partial sums travel around the ring. Step 1 sends each rank's
  // own input; every receiver writes (its input + what arrived) into its output, so after
  // step k its output chunk holds k+1 ranks' data and nothing was copied in beforehand.
  b.stage("reduce-scatter");
  for (int k = 0; k < n - 1; ++k)
    ring_step(b, Action::reduce_copy, k == 0 ? BufferKind::input : BufferKind::output,
              fmt::format("reduce-scatter {}/{}: every rank sends one chunk to its right neighbour, which adds its own "
                          "input of that chunk and writes the sum to its output",
                          k + 1, n - 1),
              options.slices_or(1), -k);

  // Phase 2: all-gather — finished chunks travel around the ring and overwrite.
  b.stage("all-gather");
  for (int k = 0; k < n - 1; ++k)
    ring_step(b, Action::copy, BufferKind::output,
              fmt::format("all-gather {}/{}: every rank forwards a finished chunk to its right neighbour", k + 1, n - 1),
              options.slices_or(1), 1 - k);
  return std::move(b).finish();
}

// Ring all-reduce with S slices per chunk. Every port carries 2(N-1)S messages of h =
// α + nβ/(NS); a slice must also be reduced (g = nγ/(NS)) before it moves on. While
// g <= (S-1)h the port never waits and the time is 2(N-1)S·h; otherwise each
// reduce-scatter step takes h + g and the all-gather then runs back to back.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double slices = s.options.slices_or(1), h = copy(p, n(s) / (N(s) * slices)),
               g = n(s) * p.gamma_ns_per_byte / (N(s) * slices);
  return (N(s) - 1) * (slices * h + std::max(slices * h, h + g));
}

// Rank r+1 sends chunk c+1 where rank r sends chunk c: the same schedule, one chunk on,
// where the chunks are equal (count a multiple of N).
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions&) {
  const auto n = static_cast<std::uint64_t>(spec.ranks);
  if (spec.count % n != 0) return std::nullopt;
  return RankRotation{.ranks = 1, .elements = {spec.count / n, spec.count / n, 0}};
}

}  // namespace

extern const AlgorithmInfo kAllReduceRing{
    .name = "ring",
    .collective = Collective::all_reduce,
    .summary = "reduce-scatter then all-gather around a ring; bandwidth-optimal",
    .steps_formula = "2(N-1)",
    .bytes_formula = "2(N-1)/N * n",
    .used_by = "NCCL Ring (NCCL_ALGO=Ring); Gloo allreduce ring (PyTorch's ProcessGroupGloo, its segments as "
                "slices), AllreduceRingChunked (2 slices); Open MPI tuned ring (4), segmented_ring (5, its "
                "segments as slices); MPICH ring",
    .build = &build,
    .layout = &layouts::ring_of,
    .closed_form = {"2(N-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ", "S slices: (N-1)(S·h + max(S·h, h + g)), h = α + nβ/(NS), g = nγ/(NS)",
                    "any N", &time_ns},
    .is_default = true,
    .streams = true,
    .rotation = &rotation,
};

}  // namespace collsim
