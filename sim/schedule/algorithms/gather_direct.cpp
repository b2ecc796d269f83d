// Direct gather: the naive baseline.
//
// The root copies its own input into its block of the output; in one step every other
// rank sends its input straight to its block of the root's output.
// Steps: 1. Bytes each rank sends: n/N (its block), the root nothing; the root receives
// (N-1)/N * n through one link, as in the tree, but in N-1 messages instead of lg N.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const std::uint64_t k = spec.count;
  auto block = [&](int r) { return Region{spec.root, BufferKind::output, static_cast<std::uint64_t>(r) * k, k}; };
  b.pre_copy({spec.root, BufferKind::input, 0, k}, block(spec.root));

  // The only step: everyone sends its block to the root.
  b.step("send: every rank sends its block to the root");
  for (int i = 1; i < spec.ranks; ++i) {
    const int src = (spec.root + i) % spec.ranks;
    b.copy(src, {src, BufferKind::input, 0, k}, block(src));
  }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kGatherDirect{
    .name = "direct",
    .collective = Collective::gather,
    .summary = "every rank sends its block straight to the root; the naive baseline",
    .steps_formula = "1",
    .bytes_formula = "n/N (every rank but the root)",
    .used_by = "Open MPI tuned gather basic_linear (1)",
    .build = &build,
    .layout = &layouts::root_star,
    .closed_form = {"(N-1)(α + nβ/N)", "",
                    "any N", &forms::blocks_one_by_one},
    .streams = true,
};

}  // namespace collsim
