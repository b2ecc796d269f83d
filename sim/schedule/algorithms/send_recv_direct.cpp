// Point-to-point send/receive: the root sends its buffer to rank root+1 (mod N).
//
// Only those two ranks hold buffers (DESIGN.md: input K on the root, output K on rank
// root+1). One step: the message. With N = 1 the root sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n from the root, nothing from the others.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const int to = (spec.root + 1) % spec.ranks;
  b.step("send: the root sends its buffer to the next rank");
  b.copy(0, {spec.root, BufferKind::input, 0, spec.count}, {to, BufferKind::output, 0, spec.count});
  return std::move(b).finish();
}

// The one hop root -> root+1 (one rank: itself).
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  std::vector<int> order{spec.root};
  if (spec.ranks > 1) order.push_back((spec.root + 1) % spec.ranks);
  return layouts::chain(std::move(order));
}

}  // namespace

extern const AlgorithmInfo kSendRecvDirect{
    .name = "direct",
    .collective = Collective::send_recv,
    .summary = "one message: the root sends its buffer to rank root+1",
    .steps_formula = "1",
    .bytes_formula = "n (the root only)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"α + nβ", "",
                    "N >= 2 (one rank: a local copy, nδ)", &forms::one_message},
    .is_default = true,
};

}  // namespace collsim
