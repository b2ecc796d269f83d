#include "app/views/view_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "sim/model/timing_model.h"

namespace collsim::gui {
namespace {

bool has_records(const Trace& t) {
  return !t.schedule.transfers.empty() && t.records.size() == t.schedule.transfers.size();
}

// The measured clock: the run executed (the trace says whether it was --model-only) and took
// time.
bool has_measured_times(const Trace& t) {
  return !t.model_only && has_records(t) &&
         std::any_of(t.records.begin(), t.records.end(), [](const TransferRecord& r) { return r.measured_end_ns > 0; });
}

bool has_predicted_times(const Trace& t) {
  if (!has_records(t)) return false;
  return std::all_of(t.records.begin(), t.records.end(),
                     [](const TransferRecord& r) { return r.predicted_begin_ns && r.predicted_end_ns; });
}

void sort_by(std::vector<std::uint32_t>& order, const std::vector<double>& key) {
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
}

// ClockIndex::together and group_labels: the transfers between ranks that share a sender,
// a receiver, a begin and an end on clock c, grouped under the first of them (by index).
void group_travellers(const Schedule& s, ClockIndex& c) {
  const std::size_t n = s.transfers.size();
  c.together.resize(n);
  std::iota(c.together.begin(), c.together.end(), 0u);
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < n; ++i)
    if (!s.transfers[i].is_local()) order.push_back(i);
  auto key = [&](std::uint32_t i) {
    const Transfer& t = s.transfers[i];
    return std::tuple(t.src, t.dst, c.begin[i], c.end[i]);
  };
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return std::pair(key(a), a) < std::pair(key(b), b); });
  for (std::size_t lo = 0, hi = 0; lo < order.size(); lo = hi) {
    for (hi = lo + 1; hi < order.size() && key(order[hi]) == key(order[lo]);) ++hi;
    if (hi - lo < 2) continue;
    for (std::size_t k = lo; k < hi; ++k) c.together[order[k]] = order[lo];
    c.group_labels.emplace(order[lo], packet_label(s, std::span(order).subspan(lo, hi - lo)));
  }
}

// The steps clock's times: step k over [k, k + 1), and inside it the timing model's
// order and proportions (its earliest begin at k, its latest end at k + 1), so that what
// the model serialises on one link runs one after the other. Without predicted times, or
// in a step the model gives no time, every transfer spans its whole step.
void steps_clock_times(const Trace& trace, bool predicted, std::vector<double>& begin, std::vector<double>& end) {
  const std::vector<std::size_t> step_first = trace.schedule.step_firsts();
  for (std::size_t step = 0; step + 1 < step_first.size(); ++step) {
    const std::size_t lo = step_first[step], hi = step_first[step + 1];
    if (lo == hi) continue;
    const auto k = static_cast<double>(step);
    double first = 0, last = 0;
    if (predicted) {
      first = *trace.records[lo].predicted_begin_ns, last = *trace.records[lo].predicted_end_ns;
      for (std::size_t i = lo; i < hi; ++i)
        first = std::min(first, *trace.records[i].predicted_begin_ns), last = std::max(last, *trace.records[i].predicted_end_ns);
    }
    for (std::size_t i = lo; i < hi; ++i) {
      if (last > first) {
        begin[i] = k + (*trace.records[i].predicted_begin_ns - first) / (last - first);
        end[i] = k + (*trace.records[i].predicted_end_ns - first) / (last - first);
      } else {
        begin[i] = k, end[i] = k + 1;
      }
    }
  }
}

// The direction (a unit vector) furthest in angle from every one of `ways`: where a
// sender's queue goes, clear of the packets leaving it. Up when it has no ways.
// The side a sender's queue stands on: the direction farthest (in angle) from every way it
// sends by; where that column, `reach` long from `from`, would leave the drawing's box (a
// server at its foot, queueing downwards off the scene), the farthest of the directions whose
// column stays inside and that keep at least 35 degrees from every way.
Vec2 free_side(const std::vector<Vec2>& ways, Vec2 from, float reach, Vec2 lo, Vec2 hi) {
  constexpr int kCandidates = 36;
  constexpr float kTau = 6.2831853f, kClear = 0.61f;  // 35 degrees
  Vec2 best{0, -1}, best_inside{0, 0};
  float best_gap = -1, best_inside_gap = -1;
  for (int k = 0; k < kCandidates; ++k) {
    const float angle = -kTau / 4 + kTau * static_cast<float>(k) / kCandidates;  // from straight up
    const Vec2 c{std::cos(angle), std::sin(angle)};
    float gap = kTau;
    for (const Vec2& w : ways) {
      const float d = std::hypot(w.x, w.y);
      if (d < 1e-6f) continue;
      gap = std::min(gap, std::acos(std::clamp((c.x * w.x + c.y * w.y) / d, -1.0f, 1.0f)));
    }
    if (gap > best_gap + 1e-4f) best_gap = gap, best = c;
    const Vec2 end{from.x + c.x * reach, from.y + c.y * reach};
    const bool inside = end.x >= lo.x && end.x <= hi.x && end.y >= lo.y && end.y <= hi.y;
    if (inside && gap >= kClear && gap > best_inside_gap + 1e-4f) best_inside_gap = gap, best_inside = c;
  }
  const Vec2 end{from.x + best.x * reach, from.y + best.y * reach};
  const bool best_inside_too = end.x >= lo.x && end.x <= hi.x && end.y >= lo.y && end.y <= hi.y;
  return best_inside_too || best_inside_gap < 0 ? best : best_inside;
}

}  // namespace

std::string packet_label(const Schedule& s, std::span<const std::uint32_t> transfers) {
  std::vector<int> chunks;
  bool all_reduce = !transfers.empty();
  for (const std::uint32_t i : transfers) {
    chunks.push_back(s.transfers[i].chunk);
    all_reduce = all_reduce && reduces(s.transfers[i].action);
  }
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  std::string out = all_reduce ? "+" : "";
  const std::size_t shown = chunks.size() > 4 ? 3 : chunks.size();
  for (std::size_t k = 0; k < shown; ++k) out += fmt::format("{}{}", k ? "," : "", chunks[k]);
  if (shown < chunks.size()) out += fmt::format("…({})", chunks.size());
  return out;
}

std::string ViewModel::packet_text(ClockKind c, std::uint32_t i) const {
  const ClockIndex& clock = this->clock(c);
  if (i < clock.together.size()) {
    const auto it = clock.group_labels.find(clock.together[i]);
    if (it != clock.group_labels.end()) return it->second;
  }
  return packet_label(trace_.schedule, std::span(&i, 1));
}

std::string step_title(const Schedule& s, int k) {
  return fmt::format("step {}/{}: {}", k + 1, s.step_count(), s.step_labels[static_cast<std::size_t>(k)]);
}

std::string no_steps_caption() { return "This schedule has no steps: nothing moves."; }

std::string start_caption(const Schedule& s) {
  return fmt::format("Start: every rank holds only its own data{}. Next, {}",
                     outputs_start_empty(s) ? ", in its input; the outputs are empty until the steps write them" : "",
                     step_title(s, 0));
}

std::string_view to_string(ClockKind c) {
  switch (c) {
    case ClockKind::steps: return "steps";
    case ClockKind::measured: return "measured";
    case ClockKind::predicted: return "predicted";
  }
  return "?";
}

std::optional<ClockKind> clock_named(std::string_view name) {
  for (ClockKind c : kAllClocks)
    if (to_string(c) == name) return c;
  return std::nullopt;
}

void Tally::finish() {
  std::vector<std::uint32_t> order(end.size());
  std::iota(order.begin(), order.end(), 0u);
  sort_by(order, end);
  std::vector<double> e(end.size()), b(end.size());
  double sum = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    e[i] = end[order[i]];
    sum += bytes[order[i]];
    b[i] = sum;
  }
  end = std::move(e);
  bytes = std::move(b);
}

double Tally::done_by(double t) const {
  const auto it = std::upper_bound(end.begin(), end.end(), t);
  return it == end.begin() ? 0.0 : bytes[static_cast<std::size_t>(it - end.begin()) - 1];
}

ViewModel::ViewModel(Trace trace)
    : trace_(std::move(trace)), history_(history_or_record(trace_.history, trace_.schedule)) {
  build();
  // The run's numbers (Trace::values, recorded with its history); a trace made without them
  // (a test's) has them recorded here. A window of a schedule (the other constructor) reads
  // what earlier steps wrote: only a whole schedule's values stand on their own.
  values_ = values_or_record(trace_.values, trace_.schedule, trace_.request.seed, trace_.request.input_values);
}

ViewModel::ViewModel(Trace trace, BufferHistory history)
    : trace_(std::move(trace)), history_(std::make_shared<const BufferHistory>(std::move(history))) {
  build();
}

void ViewModel::build() {
  const Schedule& s = trace_.schedule;
  topology_ = layout_for_topology(trace_);
  // The algorithm's shape unless the run's file or flags chose the wires ([topology] arrange,
  // --arrange): a ring drawn as the PCIe switch it runs under shows every rank talking to the
  // switch, not the ring.
  arranged_ = file_arrangement();
  choice_ = layout_choice(arranged_);
  layout_ = make_layout(s, choice_);
  build_paths();
  sum_link_bytes();
  total_sent_ = bytes_sent_per_rank(s);
  total_received_ = bytes_received_per_rank(s);
  communication_steps_ = collsim::communication_steps(s);

  const std::size_t n = s.transfers.size();
  std::vector<double> begin(n), end(n);
  steps_clock_times(trace_, has_predicted_times(trace_), begin, end);
  clocks_[0] = build_clock(ClockKind::steps, begin, end);
  if (has_measured_times(trace_)) {
    for (std::size_t i = 0; i < n; ++i)
      begin[i] = static_cast<double>(trace_.records[i].measured_begin_ns),
      end[i] = static_cast<double>(trace_.records[i].measured_end_ns);
    clocks_[1] = build_clock(ClockKind::measured, begin, end);
    available_[1] = true;
  }
  if (has_predicted_times(trace_)) {
    for (std::size_t i = 0; i < n; ++i) begin[i] = *trace_.records[i].predicted_begin_ns, end[i] = *trace_.records[i].predicted_end_ns;
    clocks_[2] = build_clock(ClockKind::predicted, begin, end);
    available_[2] = true;
  }
}

Arrangement ViewModel::file_arrangement() const {
  if (!topology_ || !trace_.predicted || !trace_.predicted->topology_config) return Arrangement::algorithm;
  return trace_.predicted->topology_config->arrange;
}

LayoutChoice ViewModel::layout_choice(Arrangement a) const {
  if (a == Arrangement::topology) return *topology_;
  LayoutChoice pattern = layout_for_algorithm(trace_.schedule, trace_.request.options);
  if (a == Arrangement::both) with_wires(pattern, *topology_->topology);
  return pattern;
}

void ViewModel::arrange(Arrangement a) {
  if (!topology_) a = Arrangement::algorithm;
  if (a == arranged_) return;
  arranged_ = a;
  choice_ = layout_choice(a);
  layout_ = make_layout(trace_.schedule, choice_);
  path_first_.assign(1, 0);
  link_first_.assign(1, 0);
  path_nodes_.clear();
  path_links_.clear();
  build_paths();
  sum_link_bytes();
  for (std::size_t k = 0; k < 3; ++k)
    if (available_[k]) fill_link_tallies(clocks_[k]);
}

void ViewModel::fill_link_tallies(ClockIndex& c) const {
  c.links.assign(layout_.links.size(), Tally{});
  const Schedule& s = trace_.schedule;
  for (std::uint32_t i : c.by_begin)
    for (std::uint32_t link : links_of(i)) c.links[link].add(c.end[i], static_cast<double>(s.bytes(s.transfers[i])));
  for (Tally& tally : c.links) tally.finish();
}

void ViewModel::build_paths() {
  std::unordered_map<std::uint64_t, std::uint32_t> link_id;
  auto key = [](int a, int b) { return static_cast<std::uint64_t>(std::min(a, b)) << 32 | static_cast<std::uint32_t>(std::max(a, b)); };
  for (std::size_t i = 0; i < layout_.links.size(); ++i)
    link_id.emplace(key(layout_.links[i].first, layout_.links[i].second), static_cast<std::uint32_t>(i));
  for (const Transfer& t : trace_.schedule.transfers) {
    const Path route_of = route(layout_, t.src, t.dst);
    const std::vector<int>& path = route_of.nodes;
    path_nodes_.insert(path_nodes_.end(), path.begin(), path.end());
    path_first_.push_back(static_cast<std::uint32_t>(path_nodes_.size()));
    path_links_.insert(path_links_.end(), route_of.links.begin(), route_of.links.end());  // on a topology: its links
    for (std::size_t j = 0; route_of.links.empty() && j + 1 < path.size(); ++j) {  // a pattern: the pairs it joins
      const auto [it, added] = link_id.emplace(key(path[j], path[j + 1]), static_cast<std::uint32_t>(layout_.links.size()));
      if (added) {
        layout_.links.emplace_back(std::min(path[j], path[j + 1]), std::max(path[j], path[j + 1]));
        layout_.link_tree.push_back(-1);  // a pair the pattern's transfers join, in no tree
      }
      path_links_.push_back(it->second);
    }
    link_first_.push_back(static_cast<std::uint32_t>(path_links_.size()));
  }
}

void ViewModel::sum_link_bytes() {
  const Schedule& s = trace_.schedule;
  link_totals_.assign(layout_.links.size(), 0.0);
  if (layout_.topology) {
    const std::vector<double> bytes = link_bytes(s, *layout_.topology);
    for (std::size_t k = 0; k < bytes.size(); ++k) link_totals_[layout_.drawn_link[k]] += bytes[k];
    return;
  }
  for (std::size_t i = 0; i < s.transfers.size(); ++i)
    for (std::uint32_t link : links_of(i)) link_totals_[link] += static_cast<double>(s.bytes(s.transfers[i]));
}

std::span<const int> ViewModel::path_of(std::size_t i) const {
  return {path_nodes_.data() + path_first_[i], path_first_[i + 1] - path_first_[i]};
}

std::span<const std::uint32_t> ViewModel::links_of(std::size_t i) const {
  return {path_links_.data() + link_first_[i], link_first_[i + 1] - link_first_[i]};
}

ClockIndex ViewModel::build_clock(ClockKind kind, std::vector<double> begin, std::vector<double> end) const {
  const Schedule& s = trace_.schedule;
  const std::size_t n = s.transfers.size(), ranks = static_cast<std::size_t>(s.total_ranks);
  ClockIndex c;
  c.kind = kind;
  c.begin = std::move(begin);
  c.end = std::move(end);
  c.by_begin.resize(n);
  std::iota(c.by_begin.begin(), c.by_begin.end(), 0u);
  sort_by(c.by_begin, c.begin);

  c.start = kind == ClockKind::steps ? 0.0 : std::min(0.0, n ? c.begin[c.by_begin[0]] : 0.0);
  c.finish = kind == ClockKind::steps ? s.step_count() : c.start;
  if (kind == ClockKind::measured) c.finish = std::max(c.finish, static_cast<double>(trace_.summary.time_ns));
  c.step_done.assign(static_cast<std::size_t>(s.step_count()), c.start);
  for (std::size_t i = 0; i < n; ++i) {
    c.max_duration = std::max(c.max_duration, c.end[i] - c.begin[i]);
    c.finish = std::max(c.finish, c.end[i]);
    double& done = c.step_done[static_cast<std::size_t>(s.transfers[i].step)];
    done = std::max(done, c.end[i]);
  }
  for (std::size_t k = 1; k < c.step_done.size(); ++k) c.step_done[k] = std::max(c.step_done[k], c.step_done[k - 1]);
  if (kind == ClockKind::steps)
    for (std::size_t k = 0; k < c.step_done.size(); ++k) c.step_done[k] = static_cast<double>(k + 1);
  c.change_keys = history_->change_keys(c.end, c.finish);

  c.sent.resize(ranks);
  c.received.resize(ranks);
  c.send_lane.resize(ranks);
  c.recv_lane.resize(ranks);
  for (std::uint32_t i : c.by_begin) {
    const Transfer& t = s.transfers[i];
    const double bytes = static_cast<double>(s.bytes(t));
    if (!t.is_local()) {
      c.sent[static_cast<std::size_t>(t.src)].add(c.end[i], bytes);
      c.received[static_cast<std::size_t>(t.dst)].add(c.end[i], bytes);
      c.total.add(c.end[i], bytes);
      c.send_lane[static_cast<std::size_t>(t.src)].push_back(i);
    }
    c.recv_lane[static_cast<std::size_t>(t.dst)].push_back(i);
  }
  for (auto* tallies : {&c.sent, &c.received})
    for (Tally& tally : *tallies) tally.finish();
  c.total.finish();
  fill_link_tallies(c);
  group_travellers(s, c);
  return c;
}

int ViewModel::steps_done(ClockKind kind, double t) const {
  const std::vector<double>& done = clock(kind).step_done;
  return static_cast<int>(std::upper_bound(done.begin(), done.end(), t) - done.begin());
}

double ViewModel::step_time(ClockKind kind, int k) const {
  const ClockIndex& c = clock(kind);
  if (k <= 0 || c.step_done.empty()) return c.start;
  return c.step_done[static_cast<std::size_t>(std::min(k, step_count()) - 1)];
}

void ViewModel::in_flight(ClockKind kind, double t, std::vector<InFlight>& out) const {
  out.clear();
  const ClockIndex& c = clock(kind);
  // Only transfers that began within max_duration before t can still be running.
  const auto by_begin = [&](std::uint32_t i, double v) { return c.begin[i] < v; };
  auto it = std::lower_bound(c.by_begin.begin(), c.by_begin.end(), t - c.max_duration, by_begin);
  for (; it != c.by_begin.end() && c.begin[*it] < t; ++it) {
    const double b = c.begin[*it], e = c.end[*it];
    if (t < e) out.push_back({*it, static_cast<float>((t - b) / (e - b))});
  }
}

const CellChange& ViewModel::cell_state(ClockKind kind, std::uint32_t cell, double t) const {
  return history_->change_at(cell, clock(kind).change_keys, t);
}

std::string ViewModel::caption(ClockKind kind, double t, int done, const std::vector<InFlight>& flying) const {
  const Schedule& s = trace_.schedule;
  const int steps = s.step_count();
  if (steps == 0) return no_steps_caption();
  if (done >= steps) return fmt::format("Done: all {} steps have run; every output holds its result.", steps);
  if (flying.empty()) {
    if (done == 0) return start_caption(s);
    return fmt::format("After {}", step_title(s, done - 1));
  }
  int first = steps, last = -1;
  for (const InFlight& f : flying) {
    const int k = s.transfers[f.transfer].step;
    first = std::min(first, k), last = std::max(last, k);
  }
  if (kind != ClockKind::steps && last > first)
    return fmt::format("Steps {} to {} overlap (pipelined). Earliest: {}", first + 1, last + 1, step_title(s, first));
  (void)t;
  return fmt::format("In {}", step_title(s, first));
}

FrameState ViewModel::frame_state(ClockKind kind, double t) const {
  FrameState f;
  frame_state(kind, t, f);
  return f;
}

void ViewModel::frame_state(ClockKind kind, double t, FrameState& f) const {
  f.clock = kind;
  f.t = t;
  f.steps_done = steps_done(kind, t);
  in_flight(kind, t, f.in_flight);
  queued_and_caption(kind, t, f);
}

void ViewModel::queued_and_caption(ClockKind kind, double t, FrameState& f) const {
  const ClockIndex& c = clock(kind);
  const Schedule& s = trace_.schedule;
  f.queued.clear();
  // Strictly inside step k (at its start nothing has begun yet: the boundary shows the step before).
  if (kind == ClockKind::steps && t >= 0 && t < s.step_count() && t > std::floor(t)) {
    const int k = static_cast<int>(t);
    for (auto i = static_cast<std::uint32_t>(s.step_first(k)); i < s.step_first(k + 1); ++i)
      if (c.begin[i] >= t && c.end[i] > t && !s.transfers[i].is_local()) f.queued.push_back(i);
  } else if (kind != ClockKind::steps && f.steps_done < s.step_count()) {
    // On a time clock, the first step not done is under way once any of its transfers has
    // begun; those that have not wait at their senders (the parameter server's third push
    // while the second has just ended), and the caption stays in that step.
    const auto lo = static_cast<std::uint32_t>(s.step_first(f.steps_done)), hi = static_cast<std::uint32_t>(s.step_first(f.steps_done + 1));
    bool begun = false;
    for (std::uint32_t i = lo; i < hi; ++i) begun = begun || c.begin[i] < t;
    for (std::uint32_t i = lo; begun && i < hi; ++i)
      if (c.begin[i] >= t && !s.transfers[i].is_local()) f.queued.push_back(i);
  }
  std::stable_sort(f.queued.begin(), f.queued.end(), [&](std::uint32_t a, std::uint32_t b) { return c.begin[a] < c.begin[b]; });
  if (f.in_flight.empty() && !f.queued.empty()) {  // between two transfers of a step: still in it
    std::vector<InFlight> waiting;
    for (std::uint32_t i : f.queued) waiting.push_back({i, 0.0f});
    f.caption = caption(kind, t, f.steps_done, waiting);
  } else {
    f.caption = caption(kind, t, f.steps_done, f.in_flight);
  }
}

Frame ViewModel::frame(ClockKind kind, double t) const {
  const ClockIndex& c = clock(kind);
  const Schedule& s = trace_.schedule;
  Frame f;
  frame_state(kind, t, f);
  const std::size_t ranks = static_cast<std::size_t>(s.total_ranks);
  f.sent.resize(ranks);
  f.received.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) f.sent[r] = c.sent[r].done_by(t), f.received[r] = c.received[r].done_by(t);
  f.link_bytes.resize(c.links.size());
  for (std::size_t l = 0; l < c.links.size(); ++l) f.link_bytes[l] = c.links[l].done_by(t);
  f.total_bytes = c.total.done_by(t);
  for (const InFlight& p : f.in_flight) {
    const Transfer& tr = s.transfers[p.transfer];
    const double part = p.progress * static_cast<double>(s.bytes(tr));
    for (std::uint32_t l : links_of(p.transfer)) f.link_bytes[l] += part;
    if (tr.is_local()) continue;
    f.sent[static_cast<std::size_t>(tr.src)] += part;
    f.received[static_cast<std::size_t>(tr.dst)] += part;
    f.total_bytes += part;
  }
  for (const InFlight& p : f.in_flight) f.highlighted.push_back(p.transfer);
  if (f.in_flight.empty() && f.steps_done > 0) {  // the step just completed
    const int k = f.steps_done - 1;
    for (auto i = static_cast<std::uint32_t>(s.step_first(k)); i < s.step_first(k + 1); ++i) f.highlighted.push_back(i);
  }
  return f;
}

FrameSweep::FrameSweep(const ViewModel& vm, ClockKind kind) : vm_(vm), kind_(kind) {
  const ClockIndex& c = vm.clock(kind);
  const std::size_t n = c.begin.size();
  for (std::size_t i = 0; i < n && exact_; ++i) exact_ = std::isfinite(c.begin[i]) && std::isfinite(c.end[i]);
  if (!exact_) return;
  by_end_.resize(n);
  std::iota(by_end_.begin(), by_end_.end(), 0u);
  sort_by(by_end_, c.end);
  place_.resize(n);
  for (std::size_t p = 0; p < n; ++p) place_[c.by_begin[p]] = static_cast<std::uint32_t>(p);
  reset();
}

void FrameSweep::reset() {
  ended_.assign(by_end_.size(), 0);
  flying_.clear();
  begun_ = done_ = 0;
  started_ = false;
}

void FrameSweep::state(double t, FrameState& f) {
  if (!exact_) return vm_.frame_state(kind_, t, f);
  if (started_ && t < last_) reset();
  started_ = true;
  last_ = t;
  const ClockIndex& c = vm_.clock(kind_);
  // Ended by t: out of the list (if begun), and never into it.
  for (; done_ < by_end_.size() && c.end[by_end_[done_]] <= t; ++done_) {
    const std::uint32_t i = by_end_[done_];
    ended_[i] = 1;
    const auto at = std::lower_bound(flying_.begin(), flying_.end(), place_[i]);
    if (at != flying_.end() && *at == place_[i]) flying_.erase(at);
  }
  // Begun before t and not ended: in flight; places only grow, so each goes at the back.
  for (; begun_ < c.by_begin.size() && c.begin[c.by_begin[begun_]] < t; ++begun_)
    if (!ended_[c.by_begin[begun_]]) flying_.push_back(static_cast<std::uint32_t>(begun_));
  f.clock = kind_;
  f.t = t;
  f.steps_done = vm_.steps_done(kind_, t);
  f.in_flight.clear();
  for (std::uint32_t p : flying_) {  // in_flight's progress, the same arithmetic
    const std::uint32_t i = c.by_begin[p];
    const double b = c.begin[i], e = c.end[i];
    f.in_flight.push_back({i, static_cast<float>((t - b) / (e - b))});
  }
  vm_.queued_and_caption(kind_, t, f);
}

void ViewModel::packet_spots(const Frame& f, std::vector<PacketSpot>& out, std::size_t limit) const {
  out.clear();
  place_in_flight(f, out, limit);
  place_queued(f, out, limit);
}

// In flight: along its lane, one packet per group of transfers that travel together (the
// first of them: packet_text names them all). A packet closer than two radii to one already
// placed that leaves the same sender or heads for the same receiver is drawn as that one:
// under --latency-rule delay a port's next message leaves before the one before has
// arrived, so messages close in on one receiver, or follow each other on one way, together.
void ViewModel::place_in_flight(const Frame& f, std::vector<PacketSpot>& out, std::size_t limit) const {
  const std::vector<std::uint32_t>& together = clock(f.clock).together;
  const float r = packet_radius(layout_);
  struct Placed {
    int from, to;
    Vec2 at;
  };
  std::vector<Placed> placed;
  std::vector<int> nodes;
  for (const InFlight& p : f.in_flight) {
    const auto path = path_of(p.transfer);
    if (path.empty() || out.size() >= limit || together[p.transfer] != p.transfer) continue;
    nodes.assign(path.begin(), path.end());
    const Vec2 at = point_along(layout_, nodes, packet_way(layout_, nodes, p.progress), true);
    const bool drawn = std::any_of(placed.begin(), placed.end(), [&](const Placed& q) {
      return (q.from == nodes.front() || q.to == nodes.back()) && std::hypot(q.at.x - at.x, q.at.y - at.y) < 2 * r;
    });
    if (drawn) continue;
    placed.push_back({nodes.front(), nodes.back(), at});
    out.push_back({p.transfer, at, p.progress, false});
  }
}

// Queued: in a column beside the sender, on the side none of its ways this frame leave
// by, in the order they will leave.
void ViewModel::place_queued(const FrameState& f, std::vector<PacketSpot>& out, std::size_t limit) const {
  const Layout& l = layout_;
  const float r = packet_radius(l);
  auto node = [&](int i) { return l.nodes[static_cast<std::size_t>(i)]; };
  std::unordered_map<int, std::vector<Vec2>> ways;  // per sender with a queue: where its ways go
  for (std::uint32_t i : f.queued)
    if (const auto path = path_of(i); path.size() >= 2) ways.emplace(path.front(), std::vector<Vec2>{});
  std::vector<int> nodes;
  auto add_way = [&](std::uint32_t i) {
    const auto path = path_of(i);
    const auto it = path.size() < 2 ? ways.end() : ways.find(path.front());
    if (it == ways.end()) return;
    nodes.assign(path.begin(), path.end());
    const Vec2 a = node(nodes.front()), toward = point_along(l, nodes, 0.15f, true);
    it->second.push_back({toward.x - a.x, toward.y - a.y});
  };
  for (const InFlight& p : f.in_flight) add_way(p.transfer);
  for (std::uint32_t i : f.queued) add_way(i);
  const std::vector<std::uint32_t>& together = clock(f.clock).together;
  // The drawing's box (as the scene fits it: the discs and a margin), and each queue's length.
  Vec2 lo{1e9f, 1e9f}, hi{-1e9f, -1e9f};
  for (const Vec2& n : l.nodes) lo = {std::min(lo.x, n.x), std::min(lo.y, n.y)}, hi = {std::max(hi.x, n.x), std::max(hi.y, n.y)};
  lo = {lo.x - 1.3f * l.rank_radius, lo.y - 1.3f * l.rank_radius}, hi = {hi.x + 1.3f * l.rank_radius, hi.y + 1.3f * l.rank_radius};
  std::unordered_map<int, int> length;
  for (std::uint32_t i : f.queued)
    if (const auto path = path_of(i); path.size() >= 2 && together[i] == i) ++length[path.front()];
  std::unordered_map<int, Vec2> side_of;
  for (const auto& [rank, dirs] : ways) {
    const float disc = l.rank_radius * (l.is_server[static_cast<std::size_t>(rank)] ? 1.15f : 1.0f);
    const float reach = disc + r * (2.3f + 2.2f * static_cast<float>(std::min(length[rank], 8) - 1));
    side_of[rank] = free_side(dirs, node(rank), reach, lo, hi);
  }
  std::unordered_map<int, int> waiting;
  for (std::uint32_t i : f.queued) {
    const auto path = path_of(i);
    if (path.size() < 2 || out.size() >= limit || together[i] != i) continue;
    const Vec2 a = node(path.front()), away = side_of[path.front()];
    const Vec2 across_dir{-away.y, away.x};
    // One behind the other, eight deep, then the next column beside.
    static constexpr int kAcross[5] = {0, -1, 1, -2, 2};
    const int place = waiting[path.front()]++, back = place % 8, across = kAcross[(place / 8) % 5];
    const float disc = l.rank_radius * (l.is_server[static_cast<std::size_t>(path.front())] ? 1.15f : 1.0f);  // a server is a larger square
    const float out_by = disc + r * (1.3f + 2.2f * static_cast<float>(back));
    const float aside = 2.2f * r * static_cast<float>(across);
    out.push_back({i, {a.x + away.x * out_by + across_dir.x * aside, a.y + away.y * out_by + across_dir.y * aside}, 0.0f, true});
  }
}

}  // namespace collsim::gui
