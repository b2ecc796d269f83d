// Direct scatter: the naive baseline.
//
// The root copies its own block of the input into its output; in one step it sends
// block r of its input straight to rank r.
// Steps: 1. Bytes each rank sends: the root (N-1)/N * n in N-1 messages, the others
// nothing.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const std::uint64_t k = spec.count;
  auto block = [&](int r) { return Region{spec.root, BufferKind::input, static_cast<std::uint64_t>(r) * k, k}; };
  b.pre_copy(block(spec.root), {spec.root, BufferKind::output, 0, k});

  // The only step: the root sends every other rank its block.
  b.step("send: the root sends block r of its input to rank r");
  for (int i = 1; i < spec.ranks; ++i) {
    const int dst = (spec.root + i) % spec.ranks;
    b.copy(dst, block(dst), {dst, BufferKind::output, 0, k});
  }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kScatterDirect{
    .name = "direct",
    .collective = Collective::scatter,
    .summary = "the root sends every rank its block directly; the naive baseline",
    .steps_formula = "1",
    .bytes_formula = "root: (N-1)/N * n; others: 0",
    .used_by = "Open MPI tuned scatter basic_linear (1)",
    .build = &build,
    .layout = &layouts::root_star,
    .closed_form = {"(N-1)(α + nβ/N)", "",
                    "any N", &forms::blocks_one_by_one},
    .streams = true,
};

}  // namespace collsim
