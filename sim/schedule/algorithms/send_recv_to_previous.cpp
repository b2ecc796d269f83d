// Point-to-point send/receive backwards: the root sends its buffer to rank root-1 (mod N).
//
// `direct`'s mirror image, for messages that flow against the rank order: a pipeline's
// backward pass sends each stage's input gradient to the stage before it. Only the two
// ranks hold buffers: input K on the root, output K on rank root-1. One step: the message.
// With N = 1 the root sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n from the root, nothing from the others.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "to_previous");
  const int to = send_recv_receiver(spec, "to_previous");
  b.step("send: the root sends its buffer to the previous rank");
  b.copy(0, {spec.root, BufferKind::input, 0, spec.count}, {to, BufferKind::output, 0, spec.count});
  return std::move(b).finish();
}

// The one hop root -> root-1 (one rank: itself).
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  std::vector<int> order{spec.root};
  if (spec.ranks > 1) order.push_back(send_recv_receiver(spec, "to_previous"));
  return layouts::chain(std::move(order));
}

}  // namespace

extern const AlgorithmInfo kSendRecvToPrevious{
    .name = "to_previous",
    .collective = Collective::send_recv,
    .summary = "one message: the root sends its buffer to rank root-1",
    .steps_formula = "1",
    .bytes_formula = "n (the root only)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"α + nβ", "",
                    "N >= 2 (one rank: a local copy, nδ)", &forms::one_message},
};

}  // namespace collsim
