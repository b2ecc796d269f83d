// Direct all-gather: the naive baseline.
//
// Every rank places its own input as block r of its output (a local copy), then, in one
// step, every rank copies every other rank's input into block q of its own output.
// Steps: 1. Bytes each rank sends: (N-1)/N * n (n = the whole result) — the same bytes as
// the ring, but as N-1 messages at once from every rank: one step of latency, and N-1
// concurrent flows per link on a real network.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto block = [k](int r, int q) { return Region{r, BufferKind::output, static_cast<std::uint64_t>(q) * k, k}; };
  for (int r = 0; r < n; ++r) b.pre_copy({r, BufferKind::input, 0, k}, block(r, r));

  b.step("exchange: every rank sends its input to every other rank, which stores it as block r");
  for (int dst = 0; dst < n; ++dst)
    for (int i = 1; i < n; ++i) {
      const int src = (dst + i) % n;
      b.copy(src, {src, BufferKind::input, 0, k}, block(dst, src));
    }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kAllGatherDirect{
    .name = "direct",
    .collective = Collective::all_gather,
    .summary = "every rank sends its input to every other rank at once; one step, N-1 messages per rank",
    .steps_formula = "1",
    .bytes_formula = "(N-1)/N * n",
    .build = &build,
    .layout = &layouts::all_pairs_of,
    .closed_form = {"(N-1)(α + nβ/N)", "",
                    "any N", &forms::blocks_one_by_one},
    .streams = true,
};

}  // namespace collsim
