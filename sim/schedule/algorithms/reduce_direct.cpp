// Direct reduce: the naive baseline.
//
// The root starts from its own input (a local copy into its output; nothing to copy in
// place); in one step every other rank sends its whole input to the root, which reduces
// them in, one after the other.
// Steps: 1. Bytes each rank sends: n, the root nothing — but the root receives (N-1) * n
// through one link, which the trees and the ring spread out.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const std::uint64_t k = spec.count;
  const Region acc{spec.root, BufferKind::output, 0, k};
  b.pre_copy({spec.root, BufferKind::input, 0, k}, acc);

  // The only step: everyone sends to the root, which accumulates in the order listed.
  b.step("send: every rank sends its whole buffer to the root, which reduces it");
  for (int i = 1; i < spec.ranks; ++i) {
    const int src = (spec.root + i) % spec.ranks;
    b.reduce(src, {src, BufferKind::input, 0, k}, acc);
  }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kReduceDirect{
    .name = "direct",
    .collective = Collective::reduce,
    .summary = "every rank sends its whole buffer to the root, which reduces them; the naive baseline",
    .steps_formula = "1",
    .bytes_formula = "n (every rank but the root)",
    .used_by = "Open MPI tuned reduce linear (1)",
    .build = &build,
    .layout = &layouts::root_star,
    .closed_form = {"(N-1)(α + nβ + nγ)", "",
                    "any N", &forms::vectors_reduced_one_by_one},
};

}  // namespace collsim
