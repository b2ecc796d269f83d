// The CUDA backend's launch plan, as plain data: on which stream each transfer runs and
// which CUDA events it waits on first. A pure function of the schedule and its derived
// dependency graph, with no CUDA in sight, so the ordering logic is unit-tested on
// machines without a GPU (tests/test_cuda_plan.cpp); sim/exec/cuda_backend.cpp only replays it.
//
// The model: stream r belongs to rank r, and a transfer is a kernel on the receiver's
// stream that reads the sender's memory (a pull). The host issues everything in schedule
// order, which is a topological order of the dependency graph (dependencies point
// backwards), so every event a launch waits on has already been recorded when the wait is
// issued. A stream runs its work in issue order; only dependencies on other streams need
// events. Per rank:
//   pre-operations  ->  its transfers, in schedule order  ->  post-operations
// A transfer that reads rank s's buffers also waits for rank s's pre-operations (they
// wrote what it reads); rank r's post-operations wait for the transfers on other streams
// that read r's buffers (they must not see the post-operations' writes).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/check/dependencies.h"
#include "sim/schedule/schedule.h"

namespace collsim {

// streams: every rank on one device, each with its own stream and buffers.
// devices: rank r on device r mod D (the plan only needs D to say which device owns a
// stream; peer access is a run-time question for the backend).
enum class CudaPlacement : std::uint8_t { streams, devices };
std::string_view to_string(CudaPlacement p);
std::optional<CudaPlacement> parse_cuda_placement(std::string_view text);

// none: a launch waits on every dependency that ran on another stream.
// covered: it skips those its stream already knows to be complete. Completing transfer i
// on stream s implies that everything issued on s before i completed, and everything s
// had waited for before i, transitively (vector clocks). So of several dependencies on
// one stream at most the latest is waited on, and none that an earlier wait implies —
// e.g. the ring's write-after-read on the next rank, implied by the chain of hops that
// brought the chunk back. Same ordering, fewer waits and live events.
enum class WaitElision : std::uint8_t { none, covered };

struct CudaLaunch {
  int stream = 0;                       // the receiver rank's stream
  std::vector<int> wait_pre_ops;        // streams whose pre-operations event to wait on first
  std::vector<std::uint32_t> wait_for;  // transfers whose completion events to wait on, ascending
  // Where to record this transfer's completion event after the launch, when something on
  // another stream waits on it: slot `record_slot` of the stream's device. -1: nobody does.
  int record_slot = -1;
};

struct CudaPostWait {
  int stream = 0;                       // the rank whose post-operations wait
  std::vector<std::uint32_t> wait_for;  // transfers on other streams that read its buffers
};

struct CudaLaunchPlan {
  int streams = 0;                        // = schedule.total_ranks
  std::vector<int> device_of_stream;      // streams: all 0; devices: r mod device_count
  std::vector<bool> records_pre_ops;      // per stream: record an event after its pre-operations
  std::vector<CudaLaunch> launches;       // one per transfer, in schedule (= issue) order
  std::vector<CudaPostWait> post_waits;   // one per rank that has post-operations and waits
  // Completion events are recycled: a slot is free again once the last wait on its
  // current event has been issued (a wait captures the event's state when issued). These
  // are the slots each device needs at once, not one event per transfer.
  std::vector<int> event_slots_per_device;

  std::size_t wait_count() const;  // event waits issued, pre-operations and post-operations included
};

// device_count: devices placement only (>= 1); ignored for streams.
CudaLaunchPlan plan_cuda_launches(const Schedule& s, const DependencyGraph& deps, CudaPlacement placement,
                                  int device_count = 1, WaitElision elision = WaitElision::covered);

}  // namespace collsim
