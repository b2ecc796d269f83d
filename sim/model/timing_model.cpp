// The discrete-event simulation behind timing_model.h.
//
// The unit of the simulation is a message: consecutive transfers of one step with the same
// source and destination (an algorithm may split what one rank sends another into several
// regions, e.g. recursive halving's block for the receiver's output and the rest for its
// scratch). A message pays α once per hop for all its bytes, its reduce happens when all
// of it has arrived, and every transfer in it gets the message's begin and end. Local
// transfers group the same way: one rank's local work of one step is one batch, done piece
// after piece (Bruck's packing of many slots costs all their bytes). Messages are
// contiguous index ranges, so dependencies on earlier messages keep the message graph
// acyclic; dependencies inside a message are dropped.
//
// Time advances from event to event (a message's links are released, a message ends, a
// late rank's message becomes ready). At each instant, first every event of that instant
// is applied: released links become free, ended messages count their dependents'
// dependencies down, and messages whose last dependency ended become ready. Then the
// messages that could start now are considered in priority order — the order they became
// ready, ties broken by schedule order — and each one whose links are all free starts and
// takes them. A message that cannot start waits in a queue on each of its links; it is
// looked at again only when one of those links is released, since nothing else can free
// it. So a free link is never left idle while a ready message that could use it waits
// (work-conserving), and a waiting message is passed over by a later one only when that
// one's links are all free and its own are not (greedy list scheduling).
//
// Everything is sequential with total orders on ties, so the same input gives
// bit-identical times. Cost: O(M log M) heap operations for M messages plus the queue
// walks, which are short unless many messages wait on one link (the direct algorithms at
// large N).
#include "sim/model/timing_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>

namespace collsim {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// What happens to a message at an instant; one heap entry may carry several.
enum EventKind : std::uint8_t { kRelease = 1, kEnd = 2, kReady = 4 };

struct Event {
  double time;
  std::uint32_t message;
  std::uint8_t kinds;
  bool operator>(const Event& o) const { return std::tie(time, message, kinds) > std::tie(o.time, o.message, o.kinds); }
};

// Messages waiting for lanes (a link's share for one channel; the link itself with one
// channel): one FIFO list per lane, in the order they started to wait
// (which is priority order: they arrive in time order, and sorted within an instant).
// Started messages are not unlinked; walks skip them and drop them from the front.
struct WaitLists {
  struct Node {
    std::uint32_t message, next;
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> head, tail;

  explicit WaitLists(std::size_t links) : head(links, kNone), tail(links, kNone) {}
  void append(std::uint32_t link, std::uint32_t message) {
    const auto index = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back({message, kNone});
    (tail[link] == kNone ? head[link] : nodes[tail[link]].next) = index;
    tail[link] = index;
  }
};

// Consecutive transfers of one step from the same source to the same destination on the
// same channel form one message; for src == dst, one batch of local work done one piece after the other.
bool same_message(const Transfer& a, const Transfer& b) {
  // Local work is no channel's: one rank's local work of a step is one batch.
  return a.step == b.step && a.src == b.src && a.dst == b.dst && (a.is_local() || a.channel == b.channel);
}

// The messages of a schedule: message m is transfers [first[m], first[m+1]). When every
// message is a single transfer (most schedules), nothing is stored and the transfers'
// own dependency graph is used as it is.
class Messages {
 public:
  Messages(const Schedule& s, const DependencyGraph& g) : transfers_(s.transfers.size()), g_(g) {
    std::size_t joined = 0;  // transfers that continue the message before them
    for (std::size_t i = 1; i < transfers_; ++i) joined += same_message(s.transfers[i - 1], s.transfers[i]) ? 1 : 0;
    if (joined == 0) return;
    for (std::uint32_t i = 0; i < transfers_; ++i)
      if (i == 0 || !same_message(s.transfers[i - 1], s.transfers[i])) first_.push_back(i);
    first_.push_back(static_cast<std::uint32_t>(transfers_));
    merged_ = merge_dependencies();
  }

  std::size_t size() const { return first_.empty() ? transfers_ : first_.size() - 1; }
  std::uint32_t begin(std::uint32_t m) const { return first_.empty() ? m : first_[m]; }
  std::uint32_t end(std::uint32_t m) const { return first_.empty() ? m + 1 : first_[m + 1]; }
  const DependencyGraph& graph() const { return first_.empty() ? g_ : merged_; }

 private:
  // The message graph: each message depends on the messages its transfers depend on.
  DependencyGraph merge_dependencies() const {
    std::vector<std::uint32_t> message_of(transfers_);
    for (std::uint32_t m = 0; m + 1 < first_.size(); ++m)
      std::fill(message_of.begin() + first_[m], message_of.begin() + first_[m + 1], m);
    DependencyGraph out;
    std::vector<std::uint32_t> deps;
    for (std::uint32_t m = 0; m + 1 < first_.size(); ++m) {
      deps.clear();
      for (std::uint32_t i = first_[m]; i < first_[m + 1]; ++i)
        for (std::uint32_t d : g_.dependencies_of(i))
          if (message_of[d] != m) deps.push_back(message_of[d]);
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      out.deps.insert(out.deps.end(), deps.begin(), deps.end());
      out.offsets.push_back(static_cast<std::uint32_t>(out.deps.size()));
    }
    return out;
  }

  std::size_t transfers_;
  const DependencyGraph& g_;
  std::vector<std::uint32_t> first_;
  DependencyGraph merged_;
};

// A message that may start at the current instant: ready first, then schedule order.
// `node` is where it waits on `lane` (kNone for a message that just became ready).
struct Candidate {
  double ready;
  std::uint32_t message, lane, node;
  bool operator>(const Candidate& o) const { return std::tie(ready, message) > std::tie(o.ready, o.message); }
};

template <class T>
using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<>>;

class Simulation {
 public:
  Simulation(const Schedule& s, const DependencyGraph& g, const Topology& t)
      : s_(s),
        t_(t),
        messages_(s, g),
        dependents_(reverse(messages_.graph())),
        channels_(static_cast<std::size_t>(std::max(1, s.channels))),
        waits_(t.link_count() * channels_),
        lane_free_(t.link_count() * channels_, 0),
        lane_busy_(t.link_count() * channels_, 0),
        lane_own_(t.link_count() * channels_, 0),
        in_flight_(t.link_count() * channels_, 0) {
    p_.begin_ns.assign(s.transfers.size(), 0);
    p_.end_ns.assign(s.transfers.size(), 0);
    const std::size_t n = messages_.size();
    ready_.resize(n);
    waiting_.resize(n);
    started_.assign(n, 0);
    for (std::uint32_t m = 0; m < n; ++m) {
      ready_[m] = earliest_start(m);
      waiting_[m] = static_cast<std::uint32_t>(messages_.graph().dependencies_of(m).size());
      if (waiting_[m] == 0) events_.push({ready_[m], m, kReady});
    }
  }

  Prediction run() && {
    while (!events_.empty()) {
      const double now = events_.top().time;
      apply_events(now);
      start_what_can(now);
    }
    p_.busiest = busiest_links(p_.links_used);
    return std::move(p_);
  }

 private:
  const Transfer& head(std::uint32_t m) const { return s_.transfers[messages_.begin(m)]; }

  // No message starts before both of its ranks have (stragglers), and then the protocol's
  // base latency later: every rank pays it once, when it starts the collective.
  double earliest_start(std::uint32_t m) const {
    const Transfer& x = head(m);
    return t_.base_latency_ns +
           std::max(t_.late_ns[static_cast<std::size_t>(x.src)], t_.late_ns[static_cast<std::size_t>(x.dst)]);
  }

  const std::vector<Hop>& route_of(std::uint32_t m) {
    route(t_, head(m).src, head(m).dst, hops_);
    return hops_;
  }

  // The lanes a message holds: its channel's lane of every link of its route.
  template <class F>
  void for_each_lane(std::uint32_t m, F&& f) {
    const std::size_t channel = head(m).channel;
    for (const Hop& h : route_of(m))
      for (int k = 0; k < h.count; ++k)
        f(static_cast<std::uint32_t>(h.links[static_cast<std::size_t>(k)] * channels_ + channel));
  }

  // Free: its bytes are through, and (latency as delay) fewer than kMessagesInFlight
  // messages are still on their way on it.
  bool lanes_free(std::uint32_t m, double now) {
    bool free = true;
    for_each_lane(m, [&](std::uint32_t l) {
      free = free && lane_free_[l] <= now && (!delay_ || in_flight_[l] < kMessagesInFlight);
    });
    return free;
  }

  void apply_events(double now) {
    just_ready_.clear();
    released_.clear();
    while (!events_.empty() && events_.top().time == now) {
      const Event e = events_.top();
      events_.pop();
      if (e.kinds & kRelease) for_each_lane(e.message, [&](std::uint32_t l) { released_.push_back(l); });
      if ((e.kinds & kEnd) && delay_ && !head(e.message).is_local())
        for_each_lane(e.message, [&](std::uint32_t l) {  // one fewer on its way: the lane may take another
          --in_flight_[l];
          released_.push_back(l);
        });
      if (e.kinds & kEnd) end(e.message, now);
      if (e.kinds & kReady) just_ready_.push_back(e.message);
    }
  }

  void end(std::uint32_t m, double now) {
    for (std::uint32_t d : dependents_.dependencies_of(m)) {
      ready_[d] = std::max(ready_[d], now);
      if (--waiting_[d] > 0) continue;
      if (ready_[d] > now)
        events_.push({ready_[d], d, kReady});  // its rank starts late
      else
        just_ready_.push_back(d);
    }
  }

  // Drops started transfers from the front of a lane's queue, so queues stay short.
  void trim(std::uint32_t lane) {
    std::uint32_t& head = waits_.head[lane];
    while (head != kNone && started_[waits_.nodes[head].message]) head = waits_.nodes[head].next;
    if (head == kNone) waits_.tail[lane] = kNone;
  }

  // The first transfer waiting on `lane`, from `node` on, that could start now.
  std::optional<Candidate> first_startable(std::uint32_t lane, std::uint32_t node, double now) {
    for (; node != kNone; node = waits_.nodes[node].next) {
      const std::uint32_t i = waits_.nodes[node].message;
      if (!started_[i] && lanes_free(i, now)) return Candidate{ready_[i], i, lane, node};
    }
    return std::nullopt;
  }

  void start_what_can(double now) {
    MinHeap<Candidate> candidates;
    for (std::uint32_t i : just_ready_) candidates.push({now, i, kNone, kNone});
    for (std::uint32_t l : released_) {
      trim(l);
      if (lane_free_[l] <= now)
        if (const auto c = first_startable(l, waits_.head[l], now)) candidates.push(*c);
    }
    while (!candidates.empty()) {
      const Candidate c = candidates.top();
      candidates.pop();
      if (c.lane != kNone) {
        if (lane_free_[c.lane] > now) continue;  // taken in the meantime; it will be released again
        if (started_[c.message] || !lanes_free(c.message, now)) {
          if (const auto next = first_startable(c.lane, c.node, now)) candidates.push(*next);
          continue;
        }
      } else if (!lanes_free(c.message, now)) {
        for_each_lane(c.message, [&](std::uint32_t l) { waits_.append(l, c.message); });
        continue;
      }
      start(c.message, now);
    }
  }

  void start(std::uint32_t m, double now) {
    double copied = 0, reduced = 0;
    for (std::uint32_t i = messages_.begin(m); i < messages_.end(m); ++i)
      (reduces(s_.transfers[i].action) ? reduced : copied) += static_cast<double>(s_.bytes(s_.transfers[i]));
    const TransferTime cost =
        message_time(t_, route_of(m), head(m).dst, copied, reduced, static_cast<int>(channels_));
    for_each_lane(m, [&](std::uint32_t l) {
      if (delay_) ++in_flight_[l];
      lane_free_[l] = now + cost.links_ns;
      lane_busy_[l] += cost.links_ns;
      lane_own_[l] += (copied + reduced) * t_.ns_per_byte[l / channels_];
    });
    started_[m] = 1;
    const double end = now + cost.total_ns;
    std::fill(p_.begin_ns.begin() + messages_.begin(m), p_.begin_ns.begin() + messages_.end(m), now);
    std::fill(p_.end_ns.begin() + messages_.begin(m), p_.end_ns.begin() + messages_.end(m), end);
    p_.total_ns = std::max(p_.total_ns, end);
    const bool remote = !head(m).is_local(), together = cost.links_ns == cost.total_ns;
    if (remote && !together) events_.push({now + cost.links_ns, m, kRelease});
    events_.push({end, m, static_cast<std::uint8_t>(kEnd | (remote && together ? kRelease : 0))});
  }

  // The links with the most busy time, busiest first. A link's busy time is its lanes'
  // together, each counted at its share (1/channels): the time the whole link would have
  // needed. A transfer holds every link of its route for its whole time, so when one slow
  // link paces a ring, the links on its way are busy just as long: among links busy equally
  // long (to the picosecond) the one whose own bytes take longest at its own speed comes
  // first (the slow link itself, not its neighbour's), then the lower link number, so that
  // the report is deterministic.
  std::vector<LinkLoad> busiest_links(std::size_t& used) const {
    struct Load {
      LinkLoad load;
      double busy_ps = 0;  // busy time rounded to the picosecond: the tie
      double own_ns = 0;   // its bytes at its own speed
    };
    std::vector<Load> loads;
    for (std::uint32_t l = 0; l < lane_busy_.size() / channels_; ++l) {
      double busy = 0, own = 0;
      for (std::size_t c = 0; c < channels_; ++c) busy += lane_busy_[l * channels_ + c], own += lane_own_[l * channels_ + c];
      busy /= static_cast<double>(channels_);
      if (busy > 0) loads.push_back({{l, busy}, std::round(busy * 1e3), own});
    }
    used = loads.size();
    const std::size_t keep = std::min(kBusiestLinks, loads.size());
    std::partial_sort(loads.begin(), loads.begin() + static_cast<std::ptrdiff_t>(keep), loads.end(),
                      [](const Load& a, const Load& b) {
                        if (a.busy_ps != b.busy_ps) return a.busy_ps > b.busy_ps;
                        if (a.own_ns != b.own_ns) return a.own_ns > b.own_ns;
                        return a.load.link < b.load.link;
                      });
    std::vector<LinkLoad> out;
    for (std::size_t k = 0; k < keep; ++k) out.push_back(loads[k].load);
    return out;
  }

  const Schedule& s_;
  const Topology& t_;
  const Messages messages_;
  const DependencyGraph dependents_;
  const std::size_t channels_;  // lanes per link
  const bool delay_ = t_.latency_rule == LatencyRule::delay;
  Prediction p_;
  // Per message:
  std::vector<double> ready_;           // when it became (or will become) ready
  std::vector<std::uint32_t> waiting_;  // dependencies not yet ended
  std::vector<std::uint8_t> started_;
  WaitLists waits_;                          // per lane
  std::vector<double> lane_free_, lane_busy_;  // lane l * channels_ + c: channel c of link l
  std::vector<double> lane_own_;               // per lane: its messages' bytes at its link's own speed
  std::vector<int> in_flight_;                 // per lane (latency as delay): messages started, not yet arrived
  MinHeap<Event> events_;
  std::vector<std::uint32_t> just_ready_, released_;
  std::vector<Hop> hops_;
};

}  // namespace

CostParams cost_params(const Topology& t) {
  return {t.link_latency_us * 1000.0, 1.0 / (t.link_gbps * t.bandwidth_share), 1.0 / t.reduce_rate_gbps,
          1.0 / t.copy_rate_gbps, t.base_latency_ns};
}

TransferTime message_time(const Topology& t, const std::vector<Hop>& route, int dst, double copied_bytes,
                          double reduced_bytes, int channels) {
  const double slow = t.slow[static_cast<std::size_t>(dst)];
  const double gamma = 1.0 / t.reduce_rate_gbps, delta = 1.0 / t.copy_rate_gbps;  // GB/s = bytes per ns
  // local: memory only, at the rank's whole rates (local work is no channel's)
  if (route.empty()) return {0, copied_bytes * delta * slow + reduced_bytes * gamma * slow};
  // A channel has its share of every link and of the receiver's reduce rate (one of the
  // GPU's thread blocks among `channels`). Times 1 is exact, so one channel predicts as
  // before channels existed.
  const double compute = reduced_bytes * gamma * slow * channels;
  double bytes = 0, latency = 0;
  for (const Hop& h : route) {
    bytes += (copied_bytes + reduced_bytes) * h.beta_ns_per_byte * channels;
    latency += h.alpha_ns;
  }
  // Hockney: the links are held for the latency too; as delay, for the bytes only.
  const double links = t.latency_rule == LatencyRule::delay ? bytes : latency + bytes;
  return {links, latency + bytes + compute};
}

Prediction predict(const Schedule& s, const DependencyGraph& g, const Topology& t) { return Simulation(s, g, t).run(); }

CostSplit split_latency_bandwidth(const Schedule& s, const DependencyGraph& g, const Topology& t) {
  Topology latency_only = t;  // infinitely fast links, reductions and copies: 1/rate = 0
  std::fill(latency_only.ns_per_byte.begin(), latency_only.ns_per_byte.end(), 0.0);
  latency_only.reduce_rate_gbps = latency_only.copy_rate_gbps = std::numeric_limits<double>::infinity();
  Topology bandwidth_only = t;  // links without latency, and no protocol base latency
  std::fill(bandwidth_only.latency_ns.begin(), bandwidth_only.latency_ns.end(), 0.0);
  bandwidth_only.base_latency_ns = 0;
  return {predict(s, g, latency_only).total_ns, predict(s, g, bandwidth_only).total_ns};
}

ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config) {
  return run_model(s, g, config, s.spec.ranks, s.total_ranks);
}

// auto: every candidate the topology allows, predicted in full; the smallest time wins,
// the earlier candidate on a tie (NCCL's tuner: topoGetAlgoInfo in src/enqueue.cc keeps
// the first minimum of its cost table).
ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config, int workers,
                   int total_ranks) {
  ModelRun m{make_topology(config, workers, total_ranks), {}, config, {}};
  if (config.protocol != Protocol::automatic) {
    m.prediction = predict(s, g, m.topology);
    return m;
  }
  const LinkClass rank_links = m.topology.link_class;
  bool first = true;
  for (Protocol p : kCandidateProtocols) {
    if (!auto_considers(p, rank_links)) continue;
    Topology t = make_topology(with_protocol(config, p), workers, total_ranks);
    Prediction pred = predict(s, g, t);
    m.candidates.push_back({p, pred.total_ns});
    if (first || pred.total_ns < m.prediction.total_ns) {
      m.topology = std::move(t);
      m.prediction = std::move(pred);
    }
    first = false;
  }
  return m;
}

std::vector<double> link_bytes(const Schedule& s, const Topology& t) {
  std::vector<double> bytes(t.link_count(), 0.0);
  std::vector<Hop> hops;
  for (const Transfer& tr : s.transfers) {
    route(t, tr.src, tr.dst, hops);
    for (const Hop& h : hops)
      for (int k = 0; k < h.count; ++k) bytes[h.links[static_cast<std::size_t>(k)]] += static_cast<double>(s.bytes(tr));
  }
  return bytes;
}

}  // namespace collsim
