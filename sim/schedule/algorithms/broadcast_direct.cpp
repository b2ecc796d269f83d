// Direct broadcast: the naive baseline.
//
// The root keeps a copy of its input in its output (nothing to copy in place) and, in one
// step, sends the whole buffer to each of the other N-1 ranks.
// Steps: 1. Bytes each rank sends: the root (N-1) * n, the others nothing — the root's
// link carries everything, which the trees and the chain spread out.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const std::uint64_t k = spec.count;
  const Region from{spec.root, BufferKind::input, 0, k};
  b.pre_copy(from, {spec.root, BufferKind::output, 0, k});

  // The only step: the root sends to everyone else.
  b.step("send: the root sends its whole buffer to every other rank");
  for (int i = 1; i < spec.ranks; ++i) b.copy(0, from, {(spec.root + i) % spec.ranks, BufferKind::output, 0, k});
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kBroadcastDirect{
    .name = "direct",
    .collective = Collective::broadcast,
    .summary = "the root sends its whole buffer to every other rank; the naive baseline",
    .steps_formula = "1",
    .bytes_formula = "root: (N-1) * n; others: 0",
    .used_by = "Gloo BroadcastOneToAll; Open MPI tuned bcast basic_linear (1)",
    .build = &build,
    .layout = &layouts::root_star,
    .closed_form = {"(N-1)(α + nβ)", "",
                    "any N", &forms::vectors_one_by_one},
    .streams = true,
};

}  // namespace collsim
