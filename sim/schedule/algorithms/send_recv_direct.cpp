// Point-to-point send/receive: the root sends its buffer to rank root+1 (mod N).
//
// Only those two ranks hold buffers (docs/design.md's buffer table: input K on the root, output K on rank
// root+1). One step: the message. With N = 1 the root sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n from the root, nothing from the others.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/send_recv.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return send_recv::one_message(spec, "direct", "send: the root sends its buffer to the next rank");
}

AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) { return send_recv::one_hop(spec, "direct"); }

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
    .streams = true,
};

}  // namespace collsim
