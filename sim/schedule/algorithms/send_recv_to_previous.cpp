// Point-to-point send/receive backwards: the root sends its buffer to rank root-1 (mod N).
//
// `direct`'s mirror image, for messages that flow against the rank order: a pipeline's
// backward pass sends each stage's input gradient to the stage before it. Only the two
// ranks hold buffers: input K on the root, output K on rank root-1. One step: the message.
// With N = 1 the root sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n from the root, nothing from the others.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/send_recv.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return send_recv::one_message(spec, "to_previous", "send: the root sends its buffer to the previous rank");
}

AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) { return send_recv::one_hop(spec, "to_previous"); }

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
    .streams = true,
};

}  // namespace collsim
