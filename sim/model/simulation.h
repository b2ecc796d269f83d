// The discrete-event simulation behind timing_model.h: predict() and predict_streamed()
// (streamed_model.cpp) run this one class. Internal to sim/model.
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
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/model/timing_model.h"

namespace collsim::des {

constexpr std::uint32_t kNone = UINT32_MAX;

// Messages are numbered in schedule order across the whole schedule (a streamed one may
// have more than 2^32 transfers); the numbers break ties, so that a streamed prediction and
// a whole one order every instant alike.
using MessageId = std::uint64_t;

// What happens to a message at an instant; one heap entry may carry several.
enum EventKind : std::uint8_t { kRelease = 1, kEnd = 2, kReady = 4 };

struct Event {
  MessageId message;
  std::uint8_t kinds;
};

template <class T>
using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<>>;

// The events still to come, by instant. Within an instant their order does not matter:
// apply_events only collects the lanes they free and the messages that become ready, and
// start_what_can orders those candidates itself. So the events of one instant share a
// bucket, and a ring whose N messages end at the same instant costs one heap entry, not N.
class EventQueue {
 public:
  bool empty() const { return times_.empty(); }
  double next_time() const { return times_.top(); }
  void push(double time, Event e) {
    // The events of an instant tend to come together (a ring's N messages start together,
    // each pushing its release and its end): the two instants pushed last are remembered.
    Recent* r = std::find_if(recent_.begin(), recent_.end(), [&](const Recent& x) { return x.bucket != kNone && x.time == time; });
    if (r == recent_.end()) {
      const auto [it, added] = bucket_of_.try_emplace(time, 0);
      if (added) {
        it->second = take_bucket();
        times_.push(time);
      }
      r = &recent_[next_recent_];
      next_recent_ = (next_recent_ + 1) % recent_.size();
      *r = {time, it->second};
    }
    buckets_[r->bucket].push_back(e);
  }
  // The earliest instant's events, removed from the queue; `out` is cleared first.
  void pop_instant(std::vector<Event>& out) {
    const auto it = bucket_of_.find(times_.top());
    times_.pop();
    out.clear();
    out.swap(buckets_[it->second]);
    unused_.push_back(it->second);
    for (Recent& r : recent_)
      if (r.bucket == it->second) r.bucket = kNone;
    bucket_of_.erase(it);
  }

 private:
  std::uint32_t take_bucket() {
    if (unused_.empty()) {
      buckets_.emplace_back();
      return static_cast<std::uint32_t>(buckets_.size() - 1);
    }
    const std::uint32_t b = unused_.back();
    unused_.pop_back();
    return b;
  }

  MinHeap<double> times_;  // one entry per instant with events
  std::unordered_map<double, std::uint32_t> bucket_of_;
  struct Recent {
    double time = 0;
    std::uint32_t bucket = kNone;  // kNone: none, or popped
  };
  std::array<Recent, 2> recent_;  // instants pushed lately, and their buckets
  std::size_t next_recent_ = 0;   // the one to replace next
  std::vector<std::vector<Event>> buckets_;  // reused: a bucket keeps its capacity
  std::vector<std::uint32_t> unused_;
};

// Messages waiting for lanes (a link's share for one channel; the link itself with one
// channel): one FIFO list per lane, in the order they started to wait
// (which is priority order: they arrive in time order, and sorted within an instant).
// Started messages are not unlinked; walks skip them and trim() drops them from the front,
// giving their nodes back for reuse (a streamed model waits billions of times).
struct WaitLists {
  struct Node {
    MessageId message;
    std::uint32_t next;
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> head, tail, unused;

  explicit WaitLists(std::size_t links) : head(links, kNone), tail(links, kNone) {}
  void append(std::uint32_t link, MessageId message) {
    std::uint32_t index;
    if (unused.empty()) {
      index = static_cast<std::uint32_t>(nodes.size());
      nodes.push_back({message, kNone});
    } else {
      index = unused.back();
      unused.pop_back();
      nodes[index] = {message, kNone};
    }
    (tail[link] == kNone ? head[link] : nodes[tail[link]].next) = index;
    tail[link] = index;
  }
};

// Consecutive transfers of one step from the same source to the same destination on the
// same channel form one message; for src == dst, one batch of local work done one piece after the other.
inline bool same_message(const Transfer& a, const Transfer& b) {
  // Local work is no channel's: one rank's local work of a step is one batch.
  return a.step == b.step && a.src == b.src && a.dst == b.dst && (a.is_local() || a.channel == b.channel);
}

// A message that may start at the current instant: ready first, then schedule order.
// `node` is where it waits on `lane` (kNone for a message that just became ready).
struct Candidate {
  double ready;
  MessageId message;
  std::uint32_t lane, node;
  bool operator>(const Candidate& o) const { return std::tie(ready, message) > std::tie(o.ready, o.message); }
};

// The simulation, fed a window of the schedule at a time. A whole prediction adds every
// transfer at once and runs to the end. A streamed one adds steps as they are generated
// (add), runs while the steps added reach window_steps beyond the furthest step any
// message has started from (advance: a step must be known before any of its messages
// could become ready), and forgets what has ended (forget_ended). Either way the same instants are processed in the same order, so
// both give the same times to the bit.
//
// Why the window is enough: a message depends only on earlier messages, and one whose
// dependencies have all ended needs none of them again. A message generated late is exact
// if at least one of its dependencies has not ended when it is added (then it becomes
// ready when the last one ends, as in the whole schedule); one with none is exact only if
// its rank's start is still to come. add() checks this and throws NotStreamable otherwise:
// that algorithm must be predicted whole.
class Simulation {
 public:
  // `observe`: where each message's times go (may be null); `keep_times`: into the
  // Prediction's begin_ns and end_ns as well (a whole prediction; a streamed one keeps none).
  Simulation(const Topology& t, int channels, const TransferTimesObserver* observe, bool keep_times, int window_steps = 1)
      : t_(t),
        keep_times_(keep_times),
        channels_(static_cast<std::size_t>(std::max(1, channels))),
        observe_(observe),
        waits_(t.link_count() * channels_),
        lane_free_(t.link_count() * channels_, 0),
        lane_busy_(t.link_count() * channels_, 0),
        lane_own_(t.link_count() * channels_, 0),
        in_flight_(t.link_count() * channels_, 0) {
    window_steps_ = std::max(1, window_steps);
  }

  // Adds the messages of window.transfers[new_from..], whose dependencies `g` were derived
  // over the whole window; window.transfers[0] is the schedule's transfer `window_first`.
  void add(const Schedule& window, std::uint64_t window_first, std::size_t new_from, const DependencyGraph& g) {
    set_window(window, window_first);
    const std::size_t n = window.transfers.size();
    const MessageId first_new = next_message_;
    for (std::size_t i = new_from, j = i; i < n; i = j) {
      while (++j < n && same_message(window.transfers[j - 1], window.transfers[j])) {}
      push_message(window_first + i, window_first + j);
    }
    transfers_added_ = window_first + n;
    if (keep_times_) p_.begin_ns.resize(transfers_added_), p_.end_ns.resize(transfers_added_);
    last_step_added_ = window.transfers.empty() ? last_step_added_ : window.transfers.back().step;
    add_dependencies(window, new_from, g, first_new);
  }

  // Simulates until no event is left, or (more_coming) until a message starts from one of
  // the last window_steps steps added: then true, and the next steps must be added first.
  bool advance(bool more_coming) {
    if (more_coming && last_step_added_ - max_started_step_ < window_steps_) return true;  // not enough ahead yet
    while (!events_.empty()) {
      const double now = events_.next_time();
      apply_events(now);
      start_what_can(now);
      last_instant_ = now;
      if (more_coming && last_step_added_ - max_started_step_ < window_steps_) return true;
    }
    return false;
  }

  // The schedule's transfer with which the first message not yet ended begins: every
  // transfer before it has ended and is needed no more.
  std::uint64_t first_needed_transfer() {
    while (lowest_unended_ < next_message_ && state(lowest_unended_) == kEnded) ++lowest_unended_;
    return lowest_unended_ < next_message_ ? first_transfer(lowest_unended_) : transfers_added_;
  }

  // Drops what only ended messages need (call after first_needed_transfer).
  void forget_ended() {
    while (!batches_.empty() && batches_.front().first + batches_.front().count <= lowest_unended_) batches_.erase(batches_.begin());
    const std::size_t ended = static_cast<std::size_t>(lowest_unended_ - first_message_);
    if (ended < 1024 || ended * 2 < state_.size()) return;  // amortised: erase half or more at once
    const auto cut = [ended](auto& v) { v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(ended)); };
    const std::uint64_t pool_cut = ended < lane_begin_.size() ? lane_begin_[ended] : lane_pool_first_ + lane_pool_.size();
    lane_pool_.erase(lane_pool_.begin(), lane_pool_.begin() + static_cast<std::ptrdiff_t>(pool_cut - lane_pool_first_));
    lane_pool_first_ = pool_cut;
    cut(first_transfer_), cut(ready_), cut(waiting_), cut(state_), cut(lane_begin_), cut(cost_);
    first_message_ = lowest_unended_;
  }

  // A schedule of one period of a symmetric one (symmetric_model.h): every link's traffic is
  // that of the first link of its orbit (link_orbits), which the messages hold instead.
  // Before the first add().
  void use_link_orbits(std::vector<std::uint32_t> first_of_orbit) { orbit_first_ = std::move(first_of_orbit); }

  void set_window(const Schedule& window, std::uint64_t window_first) {
    window_ = &window;
    window_first_ = window_first;
  }

  Prediction finish() && {
    p_.busiest = busiest_links(p_.links_used);
    return std::move(p_);
  }

 private:
  enum State : std::uint8_t { kWaiting, kStarted, kEnded };

  // A batch's dependents: who, among the messages it added, waits for message m (m from
  // `from` on). The whole schedule is one batch; a streamed one keeps the batches whose
  // messages have not all ended.
  struct Batch {
    MessageId from = 0, first = 0, count = 0;  // dependencies from `from`; its messages [first, first + count)
    DependencyGraph dependents;                 // row m - from: dependents, as offsets from `first`
  };

  // Where message m's state is; a forgotten one (before first_message_) has none.
  std::size_t at(MessageId m) const {
    if (m < first_message_) [[unlikely]]
      throw std::logic_error(fmt::format("the simulation looked up message {}, forgotten (it ended)", m));
    return static_cast<std::size_t>(m - first_message_);
  }
  State state(MessageId m) const { return static_cast<State>(state_[at(m)]); }
  std::uint64_t first_transfer(MessageId m) const { return first_transfer_[at(m)]; }
  std::uint64_t end_transfer(MessageId m) const { return m + 1 < next_message_ ? first_transfer(m + 1) : transfers_added_; }
  const Transfer& transfer(std::uint64_t i) const { return window_->transfers[static_cast<std::size_t>(i - window_first_)]; }
  const Transfer& head(MessageId m) const { return transfer(first_transfer(m)); }

  // The message of transfers [first, end).
  void push_message(std::uint64_t first, std::uint64_t end) {
    // Its lanes and its time, found once: its channel's lane of every link of its route,
    // and what its bytes cost on them (the time a message takes does not depend on when).
    const Transfer& x = transfer(first);
    lane_begin_.push_back(lane_pool_first_ + lane_pool_.size());
    route(t_, x.src, x.dst, hops_);
    for (const Hop& h : hops_)
      for (int k = 0; k < h.count; ++k) {
        const std::uint32_t link = h.links[static_cast<std::size_t>(k)];
        lane_pool_.push_back(static_cast<std::uint32_t>((orbit_first_.empty() ? link : orbit_first_[link]) * channels_ + x.channel));
      }
    if (!orbit_first_.empty()) refuse_orbit_held_twice();
    double copied = 0, reduced = 0;
    for (std::uint64_t i = first; i < end; ++i)
      (reduces(transfer(i).action) ? reduced : copied) += static_cast<double>(window_->bytes(transfer(i)));
    cost_.push_back({message_time(t_, hops_, x.dst, copied, reduced, static_cast<int>(channels_)), copied + reduced});
    first_transfer_.push_back(first);
    ready_.push_back(earliest_start(transfer(first)));
    waiting_.push_back(0);
    state_.push_back(kWaiting);
    ++next_message_;
  }

  // The messages' dependencies from their transfers' (a message depends on the messages its
  // transfers depend on, not on itself), counting those not yet ended, and the batch of
  // their dependents.
  void add_dependencies(const Schedule& window, std::size_t new_from, const DependencyGraph& g, MessageId first_new) {
    const std::size_t n = window.transfers.size();
    if (n == new_from) return;
    // The message of each transfer of the window: while every message so far is a single
    // transfer (most schedules), its number is the transfer's, and nothing need be stored.
    const bool single = next_message_ == transfers_added_;
    std::vector<MessageId> message_of;
    if (!single) {
      message_of.resize(n);
      const auto after = std::upper_bound(first_transfer_.begin(), first_transfer_.end(), window_first_);
      MessageId m = first_message_ + static_cast<MessageId>(after - first_transfer_.begin()) - 1;
      for (std::size_t i = 0; i < n; ++i) {
        while (m + 1 < next_message_ && first_transfer(m + 1) <= window_first_ + i) ++m;
        message_of[i] = m;
      }
    }
    const auto message = [&](std::size_t i) { return single ? window_first_ + i : message_of[i]; };
    // Message j's dependencies not yet ended, sorted: its transfers' (derived sorted and
    // unique per transfer), less itself.
    std::vector<MessageId> deps;
    const auto dependencies_of = [&](MessageId j) {
      deps.clear();
      for (std::uint64_t i = first_transfer(j); i < end_transfer(j); ++i)
        for (std::uint32_t d : g.dependencies_of(static_cast<std::size_t>(i - window_first_)))
          if (const MessageId md = message(d); md != j && md >= first_message_ && state(md) != kEnded) deps.push_back(md);
      if (!single) {
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      }
    };
    // Who waits for whom, as compressed rows: counted, then filled (two passes, so that no
    // list of edges is held: a whole 4096-rank ring has 100 million).
    Batch b;
    b.first = first_new;
    b.count = next_message_ - first_new;
    b.from = message(0);
    std::vector<std::uint32_t>& offsets = b.dependents.offsets;
    offsets.assign(static_cast<std::size_t>(next_message_ - b.from) + 1, 0);
    for (MessageId j = first_new; j < next_message_; ++j) {
      dependencies_of(j);
      waiting_[at(j)] = static_cast<std::uint32_t>(deps.size());
      for (MessageId d : deps) ++offsets[static_cast<std::size_t>(d - b.from) + 1];
      if (deps.empty()) become_ready_at_start(j);
    }
    for (std::size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
    b.dependents.deps.resize(offsets.back());
    std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for (MessageId j = first_new; j < next_message_; ++j) {
      dependencies_of(j);
      for (MessageId d : deps) b.dependents.deps[fill[static_cast<std::size_t>(d - b.from)]++] = static_cast<std::uint32_t>(j - b.first);
    }
    batches_.push_back(std::move(b));
  }


  // A message with no dependency left waits only for its ranks' start: exact only while
  // that is still to come (see the class comment).
  void become_ready_at_start(MessageId j) {
    const double ready = ready_[at(j)];
    if (ready <= last_instant_)
      throw NotStreamable(fmt::format("transfer {} (step {}) could have started at {} ns, before it was generated",
                                      first_transfer(j), head(j).step + 1, ready));
    events_.push(ready, {j, kReady});
  }

  // No message starts before both of its ranks have (stragglers), and then the protocol's
  // base latency later: every rank pays it once, when it starts the collective.
  double earliest_start(const Transfer& x) const {
    return t_.base_latency_ns +
           std::max(t_.late_ns[static_cast<std::size_t>(x.src)], t_.late_ns[static_cast<std::size_t>(x.dst)]);
  }

  // One period's message that holds two links of one orbit stands for two messages of the
  // whole schedule that would contend with each other: one period cannot say how.
  void refuse_orbit_held_twice() const {
    const auto begin = lane_pool_.begin() + static_cast<std::ptrdiff_t>(lane_begin_.back() - lane_pool_first_);
    for (auto i = begin; i != lane_pool_.end(); ++i)
      if (std::find(begin, i, *i) != i)
        throw std::logic_error(fmt::format("a message's route holds two links of the orbit of link {}", *i / channels_));
  }

  // The lanes a message holds (push_message found them).
  template <class F>
  void for_each_lane(MessageId m, F&& f) const {
    const auto begin = static_cast<std::size_t>(lane_begin_[at(m)] - lane_pool_first_);
    const auto end = m + 1 < next_message_ ? static_cast<std::size_t>(lane_begin_[at(m) + 1] - lane_pool_first_) : lane_pool_.size();
    for (std::size_t i = begin; i < end; ++i) f(lane_pool_[i]);
  }

  // Free: its bytes are through, and (latency as delay) fewer than kMessagesInFlight
  // messages are still on their way on it.
  bool lanes_free(MessageId m, double now) {
    bool free = true;
    for_each_lane(m, [&](std::uint32_t l) {
      free = free && lane_free_[l] <= now && (!delay_ || in_flight_[l] < kMessagesInFlight);
    });
    return free;
  }

  void apply_events(double now) {
    just_ready_.clear();
    released_.clear();
    events_.pop_instant(instant_);
    for (const Event& e : instant_) {
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

  void end(MessageId m, double now) {
    state_[at(m)] = kEnded;
    for (const Batch& b : batches_) {
      if (m < b.from || m >= b.first + b.count) continue;
      for (std::uint32_t offset : b.dependents.dependencies_of(static_cast<std::size_t>(m - b.from))) {
        const MessageId d = b.first + offset;
        double& ready = ready_[at(d)];
        ready = std::max(ready, now);
        if (--waiting_[at(d)] > 0) continue;
        if (ready > now)
          events_.push(ready, {d, kReady});  // its rank starts late
        else
          just_ready_.push_back(d);
      }
    }
  }

  // A message forgotten (before first_message_) has ended; a wait list may still name it,
  // behind one that waits longer.
  bool started(MessageId m) const { return m < first_message_ || state(m) != kWaiting; }

  // Drops started messages from the front of a lane's queue, so queues stay short.
  void trim(std::uint32_t lane) {
    std::uint32_t& head = waits_.head[lane];
    while (head != kNone && started(waits_.nodes[head].message)) {
      waits_.unused.push_back(head);
      head = waits_.nodes[head].next;
    }
    if (head == kNone) waits_.tail[lane] = kNone;
  }

  // The first message waiting on `lane`, from `node` on, that could start now.
  std::optional<Candidate> first_startable(std::uint32_t lane, std::uint32_t node, double now) {
    for (; node != kNone; node = waits_.nodes[node].next) {
      const MessageId i = waits_.nodes[node].message;
      if (!started(i) && lanes_free(i, now)) return Candidate{ready_[at(i)], i, lane, node};
    }
    return std::nullopt;
  }

  // Ascending. A ring's messages become ready in rank order but for the one of rank 0, last:
  // two sorted runs are merged in linear time.
  static void sort_nearly_sorted(std::vector<MessageId>& v) {
    const auto mid = std::is_sorted_until(v.begin(), v.end());
    if (mid == v.end()) return;
    if (std::is_sorted(mid, v.end()))
      std::inplace_merge(v.begin(), mid, v.end());
    else
      std::sort(v.begin(), v.end());
  }

  // The candidates in priority order: those that just became ready (ready now, in schedule
  // order) merged with those waiting on released lanes, which became ready earlier or now
  // (a heap, as a lane's next candidate joins when one is passed over). Sorting the just-ready
  // once instead of pushing them through the heap: a ring's N messages become ready at once.
  void start_what_can(double now) {
    sort_nearly_sorted(just_ready_);
    waiting_candidates_.clear();
    const auto push = [&](const Candidate& c) {
      waiting_candidates_.push_back(c);
      std::push_heap(waiting_candidates_.begin(), waiting_candidates_.end(), std::greater<>());
    };
    for (std::uint32_t l : released_) {
      trim(l);
      if (lane_free_[l] <= now)
        if (const auto c = first_startable(l, waits_.head[l], now)) push(*c);
    }
    std::size_t next_ready = 0;
    while (next_ready < just_ready_.size() || !waiting_candidates_.empty()) {
      Candidate c{now, next_ready < just_ready_.size() ? just_ready_[next_ready] : 0, kNone, kNone};
      if (!waiting_candidates_.empty() && (next_ready == just_ready_.size() || c > waiting_candidates_.front())) {
        std::pop_heap(waiting_candidates_.begin(), waiting_candidates_.end(), std::greater<>());
        c = waiting_candidates_.back();
        waiting_candidates_.pop_back();
      } else {
        ++next_ready;
      }
      if (c.lane != kNone) {
        if (lane_free_[c.lane] > now) continue;  // taken in the meantime; it will be released again
        if (started(c.message) || !lanes_free(c.message, now)) {
          if (const auto next = first_startable(c.lane, c.node, now)) push(*next);
          continue;
        }
      } else if (!lanes_free(c.message, now)) {
        for_each_lane(c.message, [&](std::uint32_t l) { waits_.append(l, c.message); });
        continue;
      }
      start(c.message, now);
    }
  }

  void start(MessageId m, double now) {
    const std::uint64_t first = first_transfer(m), last = end_transfer(m);
    const Cost& c = cost_[at(m)];
    const TransferTime cost = c.time;
    for_each_lane(m, [&](std::uint32_t l) {
      if (delay_) ++in_flight_[l];
      lane_free_[l] = now + cost.links_ns;
      lane_busy_[l] += cost.links_ns;
      lane_own_[l] += c.bytes * t_.ns_per_byte[l / channels_];
    });
    state_[at(m)] = kStarted;
    max_started_step_ = std::max(max_started_step_, head(m).step);
    const double end = now + cost.total_ns;
    if (observe_ && *observe_) (*observe_)(first, last, now, end);
    if (keep_times_) {
      std::fill(p_.begin_ns.begin() + static_cast<std::ptrdiff_t>(first), p_.begin_ns.begin() + static_cast<std::ptrdiff_t>(last), now);
      std::fill(p_.end_ns.begin() + static_cast<std::ptrdiff_t>(first), p_.end_ns.begin() + static_cast<std::ptrdiff_t>(last), end);
    }
    p_.total_ns = std::max(p_.total_ns, end);
    const bool remote = !head(m).is_local(), together = cost.links_ns == cost.total_ns;
    if (remote && !together) events_.push(now + cost.links_ns, {m, kRelease});
    events_.push(end, {m, static_cast<std::uint8_t>(kEnd | (remote && together ? kRelease : 0))});
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
      const std::size_t held = orbit_first_.empty() ? l : orbit_first_[l];  // one period's: its orbit's first
      double busy = 0, own = 0;
      for (std::size_t c = 0; c < channels_; ++c)
        busy += lane_busy_[held * channels_ + c], own += lane_own_[held * channels_ + c];
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

  const Topology& t_;
  const bool keep_times_;
  const std::size_t channels_;  // lanes per link
  std::vector<std::uint32_t> orbit_first_;  // per link: the link its messages hold (use_link_orbits); empty: itself
  const bool delay_ = t_.latency_rule == LatencyRule::delay;
  const TransferTimesObserver* observe_;
  Prediction p_;
  // The transfers held now: window_->transfers[i] is the schedule's transfer window_first_ + i.
  const Schedule* window_ = nullptr;
  std::uint64_t window_first_ = 0, transfers_added_ = 0;
  // Per message from first_message_ on (those before have ended and are forgotten):
  MessageId first_message_ = 0, next_message_ = 0, lowest_unended_ = 0;
  std::vector<std::uint64_t> first_transfer_;  // its first transfer, in the whole schedule
  std::vector<std::uint64_t> lane_begin_;      // where its lanes begin in the pool (counted from the schedule's start)
  std::vector<std::uint32_t> lane_pool_;       // the lanes of the messages from first_message_ on
  std::uint64_t lane_pool_first_ = 0;          // the pool's count of lane_pool_[0]
  struct Cost {
    TransferTime time;  // message_time
    double bytes;       // copied and reduced
  };
  std::vector<Cost> cost_;
  std::vector<double> ready_;                  // when it became (or will become) ready
  std::vector<std::uint32_t> waiting_;         // dependencies not yet ended
  std::vector<std::uint8_t> state_;            // State
  std::vector<Batch> batches_;
  int last_step_added_ = -1;
  // Streamed: the simulation stops while fewer than window_steps_ steps are added beyond the
  // furthest one any message has started from (StreamOptions::window_steps).
  int max_started_step_ = -1, window_steps_ = 1;
  double last_instant_ = -std::numeric_limits<double>::infinity();  // the last instant simulated
  WaitLists waits_;                          // per lane
  std::vector<double> lane_free_, lane_busy_;  // lane l * channels_ + c: channel c of link l
  std::vector<double> lane_own_;               // per lane: its messages' bytes at its link's own speed
  std::vector<int> in_flight_;                 // per lane (latency as delay): messages started, not yet arrived
  EventQueue events_;
  std::vector<Event> instant_;  // the events of the instant being applied
  std::vector<MessageId> just_ready_;
  std::vector<Candidate> waiting_candidates_;  // start_what_can's heap, kept for its capacity
  std::vector<std::uint32_t> released_;
  std::vector<Hop> hops_;
};

}  // namespace collsim::des
