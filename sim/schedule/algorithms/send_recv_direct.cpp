// Point-to-point send/receive: the root sends its buffer to rank root+1 (mod N).
//
// Only those two ranks hold buffers (DESIGN.md: input K on the root, output K on rank
// root+1). One step: the message. With N = 1 the root sends to itself, a local copy.
// Steps: 1. Bytes each rank sends: n from the root, nothing from the others.
#include "sim/schedule/algorithms/registry.h"
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

}  // namespace

extern const AlgorithmInfo kSendRecvDirect{
    "direct", Collective::send_recv,
    "one message: the root sends its buffer to rank root+1",
    "1", "n (the root only)", &build};

}  // namespace collsim
