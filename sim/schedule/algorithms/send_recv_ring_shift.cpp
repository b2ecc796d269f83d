// Ring shift: every rank sends its buffer to its right neighbour, all at once (the
// neighbour exchange of a ring step, or of pipeline parallelism).
//
// Every rank holds input K and output K; rank r's output receives rank r-1's input. One
// step. With N = 1 the rank sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n — every link of the ring busy at once.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "ring_shift");
  const int n = spec.ranks;
  b.step("shift: every rank sends its buffer to its right neighbour");
  for (int r = 0; r < n; ++r)
    b.copy(r, {r, BufferKind::input, 0, spec.count}, {(r + 1) % n, BufferKind::output, 0, spec.count});
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kSendRecvRingShift{
    .name = "ring_shift",
    .collective = Collective::send_recv,
    .summary = "every rank sends its buffer to its right neighbour at once",
    .steps_formula = "1",
    .bytes_formula = "n",
    .build = &build,
    .layout = &layouts::ring_of,
    .closed_form = {"α + nβ", "",
                    "N >= 2 (one rank: a local copy, nδ)", &forms::one_message},
    .streams = true,
};

}  // namespace collsim
