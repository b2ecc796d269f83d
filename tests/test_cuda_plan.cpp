// The CUDA backend's launch plan (sim/exec/cuda_plan.h), tested without a GPU: every launch
// waits on exactly the transfers it depends on (none missing, none extra), the event
// slots it waits on still hold those transfers' events when the wait is issued, and
// pre- and post-operations are ordered against the other ranks' transfers.
//
// The oracle is independent of the plan's own bookkeeping: it replays the plan as CUDA
// would (streams run in issue order, a wait imports everything the recording stream had
// finished) with vector clocks, then asks whether each dependency is known complete.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "sim/schedule/algorithm.h"
#include "sim/check/checker.h"
#include "sim/exec/cuda_plan.h"
#include "sim/schedule/schedule_builder.h"

using namespace collsim;

namespace {

// What a stream knows to be complete: per stream, the latest transfer (-1: none) and
// whether its pre-operations are done.
struct VectorClock {
  std::vector<std::int64_t> done;
  std::vector<bool> pre;

  void merge(const VectorClock& o) {
    for (std::size_t s = 0; s < done.size(); ++s) {
      done[s] = std::max(done[s], o.done[s]);
      pre[s] = pre[s] || o.pre[s] || done[s] >= 0;  // a stream's transfers follow its pre-operations
    }
  }
  bool knows_pre_ops_of(int s) const { return pre[static_cast<std::size_t>(s)]; }
  bool knows(int stream, std::uint32_t t) const {
    return done[static_cast<std::size_t>(stream)] >= static_cast<std::int64_t>(t);
  }
};

std::vector<bool> has_ops(const std::vector<LocalOp>& ops, int ranks) {
  std::vector<bool> has(static_cast<std::size_t>(ranks), false);
  for (const LocalOp& op : ops) has[static_cast<std::size_t>(op.target.rank)] = true;
  return has;
}

// Replays `plan` and checks, with doctest CHECKs, every ordering the backend relies on.
class PlanReplay {
 public:
  PlanReplay(const Schedule& s, const DependencyGraph& deps, const CudaLaunchPlan& plan)
      : s_(s), deps_(deps), plan_(plan), streams_(static_cast<std::size_t>(plan.streams)) {
    for (std::size_t d = 0; d < streams_.size(); ++d) {
      streams_[d] = {std::vector<std::int64_t>(streams_.size(), -1), std::vector<bool>(streams_.size(), false)};
      streams_[d].pre[d] = true;  // its own pre-operations come first on the stream
    }
    for (int slots : plan.event_slots_per_device) holder_.emplace_back(static_cast<std::size_t>(slots), -1);
    completion_.resize(s.transfers.size());
  }

  void run() {
    const std::vector<bool> has_pre = has_ops(s_.pre_ops, s_.total_ranks);
    for (std::size_t t = 0; t < plan_.launches.size(); ++t) launch(t, has_pre);
    for (const CudaPostWait& p : plan_.post_waits) post(p);
    check_post_ops_ordered();
  }

 private:
  int device_of(std::uint32_t t) const {
    return plan_.device_of_stream[static_cast<std::size_t>(plan_.launches[t].stream)];
  }

  // A wait on transfer i's event: its slot must still hold i's record.
  void wait(VectorClock& clock, std::uint32_t i) {
    const int slot = plan_.launches[i].record_slot;
    REQUIRE(slot >= 0);
    CHECK(holder_[static_cast<std::size_t>(device_of(i))][static_cast<std::size_t>(slot)] == i);
    clock.merge(completion_[i]);
  }

  void launch(std::size_t t, const std::vector<bool>& has_pre) {
    const Transfer& tr = s_.transfers[t];
    const CudaLaunch& l = plan_.launches[t];
    INFO("transfer ", t, ": rank ", tr.src, " -> rank ", tr.dst);
    REQUIRE(l.stream == tr.dst);  // on the receiver's stream: a pull
    VectorClock& clock = streams_[static_cast<std::size_t>(l.stream)];
    for (int s : l.wait_pre_ops) {
      CHECK(plan_.records_pre_ops[static_cast<std::size_t>(s)]);
      clock.pre[static_cast<std::size_t>(s)] = true;
    }
    for (std::uint32_t i : l.wait_for) wait(clock, i);
    // None missing: every dependency, and the sender's pre-operations, are known complete.
    for (std::uint32_t i : deps_.dependencies_of(t)) CHECK_MESSAGE(clock.knows(s_.transfers[i].dst, i), "dependency ", i);
    if (!tr.is_local() && has_pre[static_cast<std::size_t>(tr.src)]) CHECK(clock.knows_pre_ops_of(tr.src));
    // None extra: it waits only on its own dependencies, never on its own stream.
    const auto d = deps_.dependencies_of(t);
    for (std::uint32_t i : l.wait_for) {
      CHECK(std::find(d.begin(), d.end(), i) != d.end());
      CHECK(s_.transfers[i].dst != tr.dst);
    }
    for (int s : l.wait_pre_ops) CHECK((s == tr.src && has_pre[static_cast<std::size_t>(s)]));
    clock.done[static_cast<std::size_t>(l.stream)] = static_cast<std::int64_t>(t);
    completion_[t] = clock;
    if (l.record_slot >= 0) holder_[static_cast<std::size_t>(device_of(static_cast<std::uint32_t>(t)))]
                                   [static_cast<std::size_t>(l.record_slot)] = static_cast<std::int64_t>(t);
  }

  void post(const CudaPostWait& p) {
    for (std::uint32_t i : p.wait_for) {
      CHECK(s_.transfers[i].src == p.stream);  // a reader of this rank's buffers
      CHECK(s_.transfers[i].dst != p.stream);
      wait(streams_[static_cast<std::size_t>(p.stream)], i);
    }
  }

  // A rank's post-operations run after every transfer on another stream that reads it.
  void check_post_ops_ordered() {
    const std::vector<bool> has_post = has_ops(s_.post_ops, s_.total_ranks);
    for (std::size_t t = 0; t < s_.transfers.size(); ++t) {
      const Transfer& tr = s_.transfers[t];
      if (tr.is_local() || !has_post[static_cast<std::size_t>(tr.src)]) continue;
      INFO("post-operations of rank ", tr.src, " after transfer ", t);
      CHECK(streams_[static_cast<std::size_t>(tr.src)].knows(tr.dst, static_cast<std::uint32_t>(t)));
    }
  }

  const Schedule& s_;
  const DependencyGraph& deps_;
  const CudaLaunchPlan& plan_;
  std::vector<VectorClock> streams_;
  std::vector<VectorClock> completion_;            // per transfer: its stream's clock when it completed
  std::vector<std::vector<std::int64_t>> holder_;  // per device and slot: the transfer recorded last
};

// Without elision a launch waits on exactly its dependencies on other streams.
void check_exact_without_elision(const Schedule& s, const DependencyGraph& deps, const CudaLaunchPlan& plan) {
  for (std::size_t t = 0; t < plan.launches.size(); ++t) {
    std::vector<std::uint32_t> want;
    for (std::uint32_t i : deps.dependencies_of(t))
      if (s.transfers[i].dst != s.transfers[t].dst) want.push_back(i);
    CHECK(plan.launches[t].wait_for == want);
  }
}

// With elision: at most one wait per other stream per launch.
void check_one_wait_per_stream(const Schedule& s, const CudaLaunchPlan& plan) {
  for (const CudaLaunch& l : plan.launches) {
    std::set<int> streams;
    for (std::uint32_t i : l.wait_for) CHECK(streams.insert(s.transfers[i].dst).second);
  }
}

void check_plans(const Schedule& s) {
  const DependencyGraph deps = derive_dependencies(s);
  for (CudaPlacement placement : {CudaPlacement::streams, CudaPlacement::devices})
    for (WaitElision elision : {WaitElision::none, WaitElision::covered}) {
      INFO(to_string(s.spec.collective), " ", s.algorithm, " N=", s.spec.ranks, " count=", s.spec.count, " ",
           to_string(placement), elision == WaitElision::none ? " no elision" : " covered waits elided");
      const CudaLaunchPlan plan = plan_cuda_launches(s, deps, placement, 3, elision);
      REQUIRE(plan.launches.size() == s.transfers.size());
      REQUIRE(plan.streams == s.total_ranks);
      for (int r = 0; r < s.total_ranks; ++r)
        CHECK(plan.device_of_stream[static_cast<std::size_t>(r)] == (placement == CudaPlacement::devices ? r % 3 : 0));
      PlanReplay(s, deps, plan).run();
      if (elision == WaitElision::none)
        check_exact_without_elision(s, deps, plan);
      else
        check_one_wait_per_stream(s, plan);
    }
}

Schedule built(Collective c, const char* algorithm, int ranks, std::uint64_t count, ReduceOp op = ReduceOp::sum,
               AlgorithmOptions options = {}) {
  const Schedule s = build_algorithm_schedule({c, ranks, count, DataType::f32, op, 0}, algorithm, options);
  check_schedule(s);
  return s;
}

// Three ranks, built by hand so every expected wait can be read off:
//   pre:  rank 1 copies input[2..4) -> output[2..4)
//   t0:   rank 0 input[0..2) -> rank 1 output[0..2)   (copy, stream 1)
//   t1:   rank 0 input[2..4) -> rank 2 output[0..2)   (copy, stream 2)
//   t2:   rank 1 output[0..2) -> rank 2 output[0..2)  (reduce, stream 2: reads t0's write)
//   t3:   rank 1 output[0..2) -> rank 2 output[2..4)  (reduce, stream 2: reads t0's write again)
//   t4:   rank 2 output[0..2) -> rank 0 output[0..2)  (copy, stream 0: reads t2's write)
//   post: avg divides every rank's output
Schedule hand_made() {
  ScheduleBuilder b({Collective::all_reduce, 3, 4, DataType::f32, ReduceOp::avg, 0}, "hand_made");
  b.pre_copy({1, BufferKind::input, 2, 2}, {1, BufferKind::output, 2, 2});
  b.step("a");
  b.copy(0, {0, BufferKind::input, 0, 2}, {1, BufferKind::output, 0, 2});
  b.copy(1, {0, BufferKind::input, 2, 2}, {2, BufferKind::output, 0, 2});
  b.step("b");
  b.reduce(0, {1, BufferKind::output, 0, 2}, {2, BufferKind::output, 0, 2});
  b.reduce(1, {1, BufferKind::output, 0, 2}, {2, BufferKind::output, 2, 2});
  b.step("c");
  b.copy(0, {2, BufferKind::output, 0, 2}, {0, BufferKind::output, 0, 2});
  return std::move(b).finish();
}

using Waits = std::vector<std::uint32_t>;

}  // namespace

TEST_CASE("cuda plan: a hand-made schedule gets exactly the waits read off by hand") {
  const Schedule s = hand_made();
  REQUIRE(s.transfers.size() == 5);
  const DependencyGraph deps = derive_dependencies(s);
  CHECK(Waits(deps.dependencies_of(2).begin(), deps.dependencies_of(2).end()) == Waits{0, 1});
  CHECK(Waits(deps.dependencies_of(3).begin(), deps.dependencies_of(3).end()) == Waits{0});

  SUBCASE("without elision: every dependency on another stream, the sender's pre-operations once") {
    const CudaLaunchPlan p = plan_cuda_launches(s, deps, CudaPlacement::streams, 1, WaitElision::none);
    CHECK(p.launches[0].wait_for.empty());
    CHECK(p.launches[2].wait_for == Waits{0});  // t1 is on the same stream
    CHECK(p.launches[2].wait_pre_ops == std::vector<int>{1});
    CHECK(p.launches[3].wait_for == Waits{0});
    CHECK(p.launches[3].wait_pre_ops.empty());  // stream 2 already waited for rank 1's pre-operations
    CHECK(p.launches[4].wait_for == Waits{2});
    REQUIRE(p.post_waits.size() == 3);
    CHECK(p.post_waits[0].wait_for == Waits{0, 1});  // rank 0 was read by t0 and t1
    CHECK(p.post_waits[1].wait_for == Waits{2, 3});
    CHECK(p.post_waits[2].wait_for == Waits{4});
  }
  SUBCASE("with elision: covered waits are skipped, events are recycled") {
    const CudaLaunchPlan p = plan_cuda_launches(s, deps, CudaPlacement::streams, 1, WaitElision::covered);
    CHECK(p.launches[2].wait_for == Waits{0});
    CHECK(p.launches[2].wait_pre_ops.empty());  // t0 ran after rank 1's pre-operations on stream 1
    CHECK(p.launches[3].wait_for.empty());      // stream 2 already waited for t0
    CHECK(p.launches[4].wait_for == Waits{2});
    CHECK_FALSE(p.records_pre_ops[1]);
    // Rank 0 was read by t0 and t1: stream 0 waited for t2, which ran after t1 on stream 2
    // and after stream 2 had waited for t0, so both are known complete.
    REQUIRE(p.post_waits.size() == 2);
    CHECK(p.post_waits[0].stream == 1);
    CHECK(p.post_waits[0].wait_for == Waits{3});  // the latest reader on stream 2 implies t2
    CHECK(p.post_waits[1].stream == 2);
    CHECK(p.post_waits[1].wait_for == Waits{4});
    // Event slots: t0's is free once t2 waited on it, t2's once t4 did.
    CHECK(p.launches[0].record_slot == 0);
    CHECK(p.launches[1].record_slot == -1);
    CHECK(p.launches[2].record_slot == 0);
    CHECK(p.launches[3].record_slot == 1);
    CHECK(p.launches[4].record_slot == 0);
    CHECK(p.event_slots_per_device == std::vector<int>{2});
    CHECK(p.wait_count() == 4);
  }
  PlanReplay(s, deps, plan_cuda_launches(s, deps, CudaPlacement::streams)).run();
}

TEST_CASE("cuda plan: ring, parameter server and direct all-reduce wait exactly on their dependencies") {
  for (int ranks : {1, 2, 3, 4, 5, 8}) {
    check_plans(built(Collective::all_reduce, "ring", ranks, 1000));
    check_plans(built(Collective::all_reduce, "ring", ranks, 1000, ReduceOp::avg, {.slices = 3}));
    check_plans(built(Collective::all_reduce, "parameter_server", ranks, 1000, ReduceOp::avg));
    check_plans(built(Collective::all_reduce, "parameter_server", ranks, 7, ReduceOp::sum,
                      {.servers = std::min(2, ranks), .colocated = true}));
    check_plans(built(Collective::all_reduce, "direct", ranks, 1000, ReduceOp::avg));
  }
}

TEST_CASE("cuda plan: every algorithm of every collective waits exactly on its dependencies") {
  for (const AlgorithmInfo& a : all_algorithms())
    for (int ranks : {2, 3, 5, 8}) {
      const ReduceOp op = collective_reduces(a.collective) ? ReduceOp::avg : ReduceOp::sum;  // avg: post-operations
      for (std::uint64_t count : {1u, 1000u}) check_plans(built(a.collective, a.name.data(), ranks, count, op));
    }
}

TEST_CASE("cuda plan: the ring's pipeline needs few waits and few events") {
  const Schedule s = built(Collective::all_reduce, "ring", 16, 1 << 16, ReduceOp::sum, {.slices = 4});
  const DependencyGraph deps = derive_dependencies(s);
  const CudaLaunchPlan none = plan_cuda_launches(s, deps, CudaPlacement::streams, 1, WaitElision::none);
  const CudaLaunchPlan covered = plan_cuda_launches(s, deps, CudaPlacement::streams, 1, WaitElision::covered);
  // Without elision a hop also waits for the next rank's earlier read of the chunk it
  // overwrites (write after read); the chain of hops that brought the chunk back implies it.
  CHECK(none.wait_count() > s.transfers.size());
  CHECK(covered.wait_count() < s.transfers.size());
  for (const CudaLaunch& l : covered.launches) CHECK(l.wait_for.size() <= 1);
  // Events are recycled: the slots stay far below one per transfer.
  REQUIRE(s.transfers.size() == 2 * 15 * 16 * 4);
  CHECK(covered.event_slots_per_device[0] < static_cast<int>(s.transfers.size()) / 8);
}

TEST_CASE("cuda plan: devices placement puts rank r on device r mod D, with events per device") {
  const Schedule s = built(Collective::all_reduce, "ring", 5, 100);
  const CudaLaunchPlan p = plan_cuda_launches(s, derive_dependencies(s), CudaPlacement::devices, 2);
  CHECK(p.device_of_stream == std::vector<int>{0, 1, 0, 1, 0});
  CHECK(p.event_slots_per_device.size() == 2);
  const CudaLaunchPlan one = plan_cuda_launches(s, derive_dependencies(s), CudaPlacement::streams, 4);
  CHECK(one.device_of_stream == std::vector<int>(5, 0));  // streams: the device count is ignored
  CHECK(one.event_slots_per_device.size() == 1);
}

TEST_CASE("cuda plan: placement names parse and print") {
  CHECK(parse_cuda_placement("streams") == CudaPlacement::streams);
  CHECK(parse_cuda_placement("devices") == CudaPlacement::devices);
  CHECK_FALSE(parse_cuda_placement("gpus").has_value());
  CHECK(to_string(CudaPlacement::devices) == "devices");
}
