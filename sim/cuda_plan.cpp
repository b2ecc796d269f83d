#include "sim/cuda_plan.h"

#include <algorithm>
#include <stdexcept>

namespace collsim {
namespace {

// What stream d already knows to be complete on stream s: the latest transfer of s that
// d waited for, or one of these.
constexpr std::int64_t kNothing = -2;
constexpr std::int64_t kPreOps = -1;  // only s's pre-operations

class Knowledge {
 public:
  explicit Knowledge(int streams)
      : streams_(static_cast<std::size_t>(streams)), known_(streams_ * streams_, kNothing) {}
  std::int64_t& at(int stream, int other) {
    return known_[static_cast<std::size_t>(stream) * streams_ + static_cast<std::size_t>(other)];
  }

 private:
  std::size_t streams_;
  std::vector<std::int64_t> known_;
};

std::vector<bool> ranks_with(const std::vector<LocalOp>& ops, int ranks) {
  std::vector<bool> has(static_cast<std::size_t>(ranks), false);
  for (const LocalOp& op : ops) has[static_cast<std::size_t>(op.target.rank)] = true;
  return has;
}

// Of several (stream, transfer) pairs, the latest transfer per stream, by stream.
std::vector<std::pair<int, std::uint32_t>> latest_per_stream(std::vector<std::pair<int, std::uint32_t>> waits) {
  std::sort(waits.begin(), waits.end());
  std::vector<std::pair<int, std::uint32_t>> latest;
  for (const auto& w : waits) {
    if (!latest.empty() && latest.back().first == w.first)
      latest.back() = w;
    else
      latest.push_back(w);
  }
  return latest;
}

// The waits of one launch (or post-operation) on `stream` for `candidates`, transfers on
// other streams, applying the elision rule of the header.
std::vector<std::uint32_t> waits_for(int stream, const std::vector<std::pair<int, std::uint32_t>>& candidates,
                                     WaitElision elision, Knowledge& known) {
  std::vector<std::uint32_t> waits;
  if (elision == WaitElision::none) {
    for (const auto& [other, t] : candidates) waits.push_back(t);
  } else {
    for (const auto& [other, t] : latest_per_stream(candidates)) {
      std::int64_t& k = known.at(stream, other);
      if (static_cast<std::int64_t>(t) <= k) continue;  // already known complete
      waits.push_back(t);
      k = t;
    }
  }
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  return waits;
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
  launch.wait_for = waits_for(tr.dst, candidates, elision, known);
  std::int64_t& k = known.at(tr.dst, tr.src);
  if (tr.src != tr.dst && has_pre[static_cast<std::size_t>(tr.src)] && k == kNothing) {
    launch.wait_pre_ops.push_back(tr.src);
    plan.records_pre_ops[static_cast<std::size_t>(tr.src)] = true;
    k = kPreOps;
  }
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
  Knowledge known(s.total_ranks);
  for (std::size_t t = 0; t < s.transfers.size(); ++t) plan_launch(s, deps, t, has_pre, elision, known, plan);
  plan_post_waits(s, elision, known, plan);
  assign_event_slots(plan, devices);
  return plan;
}

}  // namespace collsim
