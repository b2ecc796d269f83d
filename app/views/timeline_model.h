// The timeline's arithmetic, without ImGui: the time-to-pixel scale of the visible range
// (as Tracy's TimelineContext), and the bars of one lane after culling and folding.
//
// Culling: only bars that overlap the visible range are looked at (a binary search finds
// the first). Folding: a bar narrower than `min_px` pixels is merged with the tiny bars
// that follow it within `min_px`, into one bar that says how many transfers it holds, so
// a lane of a million transfers costs at most a few bars per pixel column to draw.
//
// Comparing two runs, the timeline stacks them: the first run's rows, then the second's,
// each under a header row, on one axis and one scale. The axis spans both runs (to the
// later finish). On the steps clock each run is on its own steps, as in the scene: step k
// of either run is at [k, k+1), so a 2-step run's bars end at 2 while a 6-step run goes on.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "app/views/playback.h"

namespace collsim::gui {

struct TimeScale {
  double t0 = 0, t1 = 1;  // visible range, in clock units
  float x0 = 0;           // screen x of t0
  float width = 1;        // pixels from t0 to t1
  double px_per_unit() const { return t1 > t0 ? width / (t1 - t0) : 0.0; }
  float x_of(double t) const { return x0 + static_cast<float>((t - t0) * px_per_unit()); }
  double t_of(float x) const { return t0 + (x - x0) / px_per_unit(); }
};

// Zooms by `factor` (> 1: in) keeping time `anchor` under the same pixel, then clamps the
// range into [lo, hi] (never narrower than min_span).
TimeScale zoom(TimeScale s, double anchor, double factor, double lo, double hi, double min_span);
// Moves the visible range by `dx` pixels (positive: to later times), clamped into [lo, hi].
TimeScale pan(TimeScale s, float dx, double lo, double hi);

// A tick spacing of 1, 2 or 5 times a power of ten, at least `raw` (whole numbers when asked).
double nice_step(double raw, bool integers);

struct LaneBar {
  float x0 = 0, x1 = 0;     // screen x, clipped to the visible range
  std::uint32_t first = 0;  // the (first) transfer of the bar
  std::uint32_t count = 1;  // > 1: a fold of that many transfers too small to see
};

// `lane`: transfer indices sorted by begin time. Fills `out` (cleared first).
void fold_lane(std::span<const std::uint32_t> lane, std::span<const double> begin, std::span<const double> end,
               double max_duration, const TimeScale& scale, float min_px, std::vector<LaneBar>& out);

// The range the timeline may show on clock c (both runs when comparing), and the
// narrowest span zooming may reach.
struct TimelineRange {
  double lo = 0, hi = 1, min_span = 1;
};
TimelineRange timeline_range(const Runs& runs, ClockKind c);

// One row of the timeline. Every row has the same height, so a list clipper visits only the
// visible ones. Comparing, each run starts with a header row (rank -1) naming it.
struct TimelineRow {
  const ViewModel* run = nullptr;
  int side = 0;   // 0: the run, 1: the one it is compared with
  int rank = -1;  // -1: the run's header; else its lane (sends above, receives below)
  bool header() const { return rank < 0; }
};
// A single run: a lane per rank. Comparing: header, the first run's lanes, header, the second's.
std::vector<TimelineRow> timeline_rows(const Runs& runs);

// A header row's text: "parameter_server: 2 steps, predicted 25.3 µs".
std::string run_header(const ViewModel& vm);

// A lane's bars on clock c: the rank's sends to other ranks (sends) or everything it
// receives, culled to the visible range and folded (fold_lane).
void lane_bars(const ViewModel& vm, ClockKind c, int rank, bool sends, const TimeScale& scale, float min_px,
               std::vector<LaneBar>& out);

}  // namespace collsim::gui
