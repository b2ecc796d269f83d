#include "sim/exec/cuda_plan.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace collsim {
namespace {

// What stream d already knows to be complete on stream s: the latest transfer of s, or
// one of these. Any transfer implies its stream's pre-operations (they come first).
constexpr std::int32_t kNothing = -2;
constexpr std::int32_t kPreOps = -1;  // only s's pre-operations

// A vector clock per stream. Waiting on transfer t imports the clock t's stream had when
// t was issued: t itself and, transitively, everything that stream had waited for. The
// snapshots cost one clock per transfer that something may wait on; past a memory
// budget only t itself is imported (still correct, just fewer waits elided).
class Knowledge {
 public:
  Knowledge(const Schedule& s, const std::vector<bool>& may_be_waited)
      : streams_(static_cast<std::size_t>(s.total_ranks)), clocks_(streams_ * streams_, kNothing),
        snapshot_of_(may_be_waited.size(), kNoSnapshot) {
    std::size_t needed = 0;
    for (bool w : may_be_waited) needed += w ? 1 : 0;
    if (needed * streams_ > kBudget) return;
    for (std::size_t t = 0, next = 0; t < may_be_waited.size(); ++t)
      if (may_be_waited[t]) snapshot_of_[t] = next++;
    snapshots_.resize(needed * streams_);
  }

  std::int32_t known(int stream, int other) const { return clocks_[index(stream, other)]; }
  void learn(int stream, int other, std::int32_t what) {
    std::int32_t& k = clocks_[index(stream, other)];
    k = std::max(k, what);
  }
  // After a wait on transfer t of stream `other`.
  void waited(int stream, int other, std::uint32_t t) {
    learn(stream, other, static_cast<std::int32_t>(t));
    if (snapshot_of_[t] == kNoSnapshot) return;
    const std::int32_t* snap = &snapshots_[snapshot_of_[t] * streams_];
    for (std::size_t o = 0; o < streams_; ++o) learn(stream, static_cast<int>(o), snap[o]);
  }
  // After transfer t was issued on `stream`.
  void issued(int stream, std::uint32_t t) {
    learn(stream, stream, static_cast<std::int32_t>(t));
    if (snapshot_of_[t] == kNoSnapshot) return;
    std::copy_n(&clocks_[index(stream, 0)], streams_, &snapshots_[snapshot_of_[t] * streams_]);
  }

 private:
  static constexpr std::size_t kNoSnapshot = SIZE_MAX;
  static constexpr std::size_t kBudget = std::size_t{1} << 23;  // clock entries: 32 MiB
  std::size_t index(int stream, int other) const {
    return static_cast<std::size_t>(stream) * streams_ + static_cast<std::size_t>(other);
  }

  std::size_t streams_;
  std::vector<std::int32_t> clocks_;
  std::vector<std::size_t> snapshot_of_;
  std::vector<std::int32_t> snapshots_;
};

std::vector<bool> ranks_with(const std::vector<LocalOp>& ops, int ranks) {
  std::vector<bool> has(static_cast<std::size_t>(ranks), false);
  for (const LocalOp& op : ops) has[static_cast<std::size_t>(op.target.rank)] = true;
  return has;
}

// The waits of one launch (or post-operation) on `stream` for `candidates`, transfers on
// other streams, applying the elision rule of the header. Latest first: a later
// transfer's clock is the one most likely to cover the others.
std::vector<std::uint32_t> waits_for(int stream, std::vector<std::pair<int, std::uint32_t>> candidates,
                                     WaitElision elision, Knowledge& known) {
  std::vector<std::uint32_t> waits;
  if (elision == WaitElision::none) {
    for (const auto& [other, t] : candidates) waits.push_back(t);
  } else {
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [other, t] : candidates) {
      if (static_cast<std::int32_t>(t) <= known.known(stream, other)) continue;  // already known complete
      waits.push_back(t);
      known.waited(stream, other, t);
    }
  }
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  return waits;
}

// Transfers that a launch or a post-operation on another stream may wait on.
std::vector<bool> may_be_waited(const Schedule& s, const DependencyGraph& deps) {
  std::vector<bool> waited(s.transfers.size(), false);
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    if (!s.transfers[t].is_local()) waited[t] = true;  // a reader of another rank: post-operations may wait
    for (std::uint32_t i : deps.dependencies_of(t))
      if (s.transfers[i].dst != s.transfers[t].dst) waited[i] = true;
  }
  return waited;
}

// Launch t's waits: its dependencies on other streams, then the sender's pre-operations
// unless a wait on one of the sender's transfers already implies them.
void plan_launch(const Schedule& s, const DependencyGraph& deps, std::size_t t, const std::vector<bool>& has_pre,
                 WaitElision elision, Knowledge& known, CudaLaunchPlan& plan) {
  const Transfer& tr = s.transfers[t];
  CudaLaunch& launch = plan.launches[t];
  launch.stream = tr.dst;
  std::vector<std::pair<int, std::uint32_t>> candidates;
  for (std::uint32_t i : deps.dependencies_of(t))
    if (s.transfers[i].dst != tr.dst) candidates.emplace_back(s.transfers[i].dst, i);
  launch.wait_for = waits_for(tr.dst, std::move(candidates), elision, known);
  if (tr.src != tr.dst && has_pre[static_cast<std::size_t>(tr.src)] && known.known(tr.dst, tr.src) == kNothing) {
    launch.wait_pre_ops.push_back(tr.src);
    plan.records_pre_ops[static_cast<std::size_t>(tr.src)] = true;
    known.learn(tr.dst, tr.src, kPreOps);
  }
  known.issued(tr.dst, static_cast<std::uint32_t>(t));
}

// Rank r's post-operations wait for the transfers on other streams that read r's buffers.
void plan_post_waits(const Schedule& s, WaitElision elision, Knowledge& known, CudaLaunchPlan& plan) {
  const std::vector<bool> has_post = ranks_with(s.post_ops, s.total_ranks);
  std::vector<std::vector<std::pair<int, std::uint32_t>>> readers(has_post.size());
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Transfer& tr = s.transfers[t];
    if (tr.src != tr.dst && has_post[static_cast<std::size_t>(tr.src)])
      readers[static_cast<std::size_t>(tr.src)].emplace_back(tr.dst, static_cast<std::uint32_t>(t));
  }
  for (int r = 0; r < s.total_ranks; ++r) {
    std::vector<std::uint32_t> waits = waits_for(r, readers[static_cast<std::size_t>(r)], elision, known);
    if (!waits.empty()) plan.post_waits.push_back({r, std::move(waits)});
  }
}

// Gives every transfer that is waited on an event slot on its stream's device, reusing a
// slot once the last wait on it has been issued (the waits of launch t come before t's
// own record, so t may take a slot that its own waits just released).
void assign_event_slots(CudaLaunchPlan& plan, int devices) {
  const std::size_t n = plan.launches.size();
  std::vector<std::int64_t> last_use(n, -1);
  for (std::size_t t = 0; t < n; ++t)
    for (std::uint32_t i : plan.launches[t].wait_for) last_use[i] = static_cast<std::int64_t>(t);
  for (const CudaPostWait& p : plan.post_waits)
    for (std::uint32_t i : p.wait_for) last_use[i] = static_cast<std::int64_t>(n);
  std::vector<std::vector<int>> free_slots(static_cast<std::size_t>(devices));
  plan.event_slots_per_device.assign(static_cast<std::size_t>(devices), 0);
  const auto device_of = [&](std::size_t t) {
    return static_cast<std::size_t>(plan.device_of_stream[static_cast<std::size_t>(plan.launches[t].stream)]);
  };
  for (std::size_t t = 0; t < n; ++t) {
    for (std::uint32_t i : plan.launches[t].wait_for)
      if (last_use[i] == static_cast<std::int64_t>(t)) free_slots[device_of(i)].push_back(plan.launches[i].record_slot);
    if (last_use[t] < 0) continue;
    std::vector<int>& free = free_slots[device_of(t)];
    if (free.empty()) {
      plan.launches[t].record_slot = plan.event_slots_per_device[device_of(t)]++;
    } else {
      plan.launches[t].record_slot = free.back();
      free.pop_back();
    }
  }
}

}  // namespace

std::string_view to_string(CudaPlacement p) { return p == CudaPlacement::streams ? "streams" : "devices"; }

std::optional<CudaPlacement> parse_cuda_placement(std::string_view text) {
  if (text == "streams") return CudaPlacement::streams;
  if (text == "devices") return CudaPlacement::devices;
  return std::nullopt;
}

std::size_t CudaLaunchPlan::wait_count() const {
  std::size_t n = 0;
  for (const CudaLaunch& l : launches) n += l.wait_pre_ops.size() + l.wait_for.size();
  for (const CudaPostWait& p : post_waits) n += p.wait_for.size();
  return n;
}

CudaLaunchPlan plan_cuda_launches(const Schedule& s, const DependencyGraph& deps, CudaPlacement placement,
                                  int device_count, WaitElision elision) {
  if (deps.size() != s.transfers.size())
    throw std::logic_error("plan_cuda_launches: the dependency graph is not the schedule's");
  const int devices = placement == CudaPlacement::devices ? std::max(1, device_count) : 1;
  CudaLaunchPlan plan;
  plan.streams = s.total_ranks;
  for (int r = 0; r < s.total_ranks; ++r) plan.device_of_stream.push_back(r % devices);
  plan.records_pre_ops.assign(static_cast<std::size_t>(s.total_ranks), false);
  plan.launches.resize(s.transfers.size());
  const std::vector<bool> has_pre = ranks_with(s.pre_ops, s.total_ranks);
  Knowledge known(s, may_be_waited(s, deps));
  for (std::size_t t = 0; t < s.transfers.size(); ++t) plan_launch(s, deps, t, has_pre, elision, known, plan);
  plan_post_waits(s, elision, known, plan);
  assign_event_slots(plan, devices);
  return plan;
}

}  // namespace collsim
