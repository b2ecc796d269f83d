#include "app/views/timeline_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace collsim::gui {

double nice_step(double raw, bool integers) {
  if (raw <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p * 10;
  for (double m : {1.0, 2.0, 5.0})
    if (p * m >= raw) {
      step = p * m;
      break;
    }
  return integers ? std::max(1.0, std::round(step)) : step;
}

TimeScale zoom(TimeScale s, double anchor, double factor, double lo, double hi, double min_span) {
  const double span = std::clamp((s.t1 - s.t0) / factor, std::min(min_span, hi - lo), hi - lo);
  const double f = s.t1 > s.t0 ? (anchor - s.t0) / (s.t1 - s.t0) : 0.5;
  s.t0 = anchor - f * span;
  s.t1 = s.t0 + span;
  if (s.t0 < lo) s.t0 = lo, s.t1 = lo + span;
  if (s.t1 > hi) s.t1 = hi, s.t0 = hi - span;
  return s;
}

TimeScale pan(TimeScale s, float dx, double lo, double hi) {
  const double span = s.t1 - s.t0;
  const double shift = s.px_per_unit() > 0 ? dx / s.px_per_unit() : 0.0;
  s.t0 = std::clamp(s.t0 + shift, lo, std::max(lo, hi - span));
  s.t1 = s.t0 + span;
  return s;
}

void fold_lane(std::span<const std::uint32_t> lane, std::span<const double> begin, std::span<const double> end,
               double max_duration, const TimeScale& scale, float min_px, std::vector<LaneBar>& out) {
  out.clear();
  const float left = scale.x0, right = scale.x0 + scale.width;
  // Bars that begin more than max_duration before t0 have ended before it: skip them.
  auto it = std::lower_bound(lane.begin(), lane.end(), scale.t0 - max_duration,
                             [&](std::uint32_t i, double t) { return begin[i] < t; });
  bool folding = false;  // out.back() is a fold that a tiny bar may join
  for (; it != lane.end() && begin[*it] < scale.t1; ++it) {
    const std::uint32_t i = *it;
    if (end[i] <= scale.t0) continue;  // culled: over before the visible range
    const float x0 = std::max(scale.x_of(begin[i]), left), x1 = std::min(scale.x_of(end[i]), right);
    if (x1 - x0 >= min_px) {
      out.push_back({x0, x1, i, 1});
      folding = false;
    } else if (folding && x0 <= out.back().x1 + min_px) {
      out.back().x1 = std::max(out.back().x1, x1);
      ++out.back().count;
    } else {
      out.push_back({x0, std::max(x1, x0 + 1.0f), i, 1});
      folding = true;
    }
  }
}

TimelineRange timeline_range(const Runs& runs, ClockKind c) {
  const double lo = runs.start(c), hi = std::max(runs.finish(c), lo + 1e-9);
  return {lo, hi, c == ClockKind::steps ? 0.05 : std::max(1.0, (hi - lo) * 1e-7)};
}

std::vector<TimelineRow> timeline_rows(const Runs& runs) {
  std::vector<TimelineRow> rows;
  const ViewModel* sides[] = {&runs.a(), runs.b()};
  for (int side = 0; side < 2; ++side) {
    const ViewModel* vm = sides[side];
    if (!vm) continue;
    if (runs.b()) rows.push_back({vm, side, -1});  // alone, the panel's header names the run
    for (int r = 0; r < vm->schedule().total_ranks; ++r) rows.push_back({vm, side, r});
  }
  return rows;
}

std::string run_header(const ViewModel& vm) {
  const Trace& t = vm.trace();
  std::string text = fmt::format("{}: {} step{}", t.schedule.algorithm, vm.step_count(), vm.step_count() == 1 ? "" : "s");
  if (t.predicted) text += fmt::format(", predicted {}", format_duration_ns(t.predicted->time_ns));
  return text;
}

void lane_bars(const ViewModel& vm, ClockKind c, int rank, bool sends, const TimeScale& scale, float min_px,
               std::vector<LaneBar>& out) {
  const ClockIndex& k = vm.clock(c);
  const auto& lanes = sends ? k.send_lane : k.recv_lane;
  fold_lane(lanes.at(static_cast<std::size_t>(rank)), k.begin, k.end, k.max_duration, scale, min_px, out);
}

}  // namespace collsim::gui
