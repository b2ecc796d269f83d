// What the send_recv algorithms share: one message from the root to its receiver
// (send_recv_receiver: root+1 for direct, root-1 for to_previous), and the layout of that
// one hop. Each algorithm's file names the receiver and its step label.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim::send_recv {

// One step: the root's input to the receiver's output (with one rank, a local copy).
inline Schedule one_message(const CollectiveSpec& spec, std::string_view algorithm, const std::string& label) {
  ScheduleBuilder b(spec, std::string(algorithm));
  b.step(label);
  b.copy(0, {spec.root, BufferKind::input, 0, spec.count},
         {send_recv_receiver(spec, algorithm), BufferKind::output, 0, spec.count});
  return std::move(b).finish();
}

// The one hop root -> receiver (one rank: itself).
inline AlgorithmLayout one_hop(const CollectiveSpec& spec, std::string_view algorithm) {
  std::vector<int> order{spec.root};
  if (spec.ranks > 1) order.push_back(send_recv_receiver(spec, algorithm));
  return layouts::chain(std::move(order));
}

}  // namespace collsim::send_recv
