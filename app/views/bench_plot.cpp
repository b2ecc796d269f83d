#include "app/views/bench_plot.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/types.h"

namespace collsim::gui {
namespace {

// The slide: the title and subtitle on top, the plot on the left, the legend on the right.
constexpr float kWidth = 1280, kHeight = 800;
constexpr float kLeft = 112, kTop = 116, kRight = 872, kBottom = 684;
constexpr float kPad = 14;  // between the plotting area's edge and the outermost point
constexpr float kLegendLeft = 900, kLegendRight = 1264;
constexpr float kText = 17, kSmall = 16;
constexpr float kCharWidth = 0.6f;  // of the font size: DejaVu Sans's average, a little generous
constexpr std::size_t kMaxCrossoverRows = 3;
constexpr float kCrossoverRow = 50;  // a crossover's two lines of label, on the band above the points

// The width of a line of text, estimated: DejaVu Sans's lower case averages about 0.56 of
// the font size (bold 0.62), which a label's box needs, not the legend's generous kCharWidth.
float text_width(std::string_view s, float size, bool bold = false) {
  std::size_t chars = 0;  // UTF-8: count the characters, not the bytes
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  return static_cast<float>(chars) * size * (bold ? 0.62f : 0.56f);
}

PlotLabel label(float x, float y, std::string text, float size, PlotAnchor anchor = PlotAnchor::start,
                palette::Rgb colour = palette::text) {
  PlotLabel l;
  l.x = x;
  l.y = y;
  l.text = std::move(text);
  l.size = size;
  l.anchor = anchor;
  l.colour = colour;
  return l;
}

// The box behind a label, kept inside [lo, hi] horizontally by moving the label.
void box(PlotLabel& l, float lo, float hi) {
  const float w = text_width(l.text, l.size, l.bold) + 10;
  float x0 = l.anchor == PlotAnchor::start ? l.x - 5 : l.anchor == PlotAnchor::middle ? l.x - w / 2 : l.x - w + 5;
  const float shift = x0 < lo ? lo - x0 : x0 + w > hi ? hi - (x0 + w) : 0;
  l.x += shift;
  x0 += shift;
  l.boxed = true;
  l.box_x = x0;
  l.box_y = l.y - l.size * 0.95f;
  l.box_w = w;
  l.box_h = l.size * 1.3f;
}

constexpr std::size_t kSubtitleChars = 128;  // at 16 px across the slide

// Greedy wrap after `separator` (", " or "; "), keeping its first character at the line's
// end, so that each line holds at most `chars` characters (a longer part stays whole).
std::vector<std::string> wrap_at(const std::string& text, std::string_view separator, std::size_t chars) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at + 1 - start));
    if (at == std::string::npos) break;
    start = at + separator.size();
  }
  std::vector<std::string> lines;
  for (const std::string& p : parts) {
    if (!lines.empty() && lines.back().size() + 1 + p.size() <= chars)
      lines.back() += " " + p;
    else
      lines.push_back(p);
  }
  return lines;
}

std::vector<std::string> wrap_label(const std::string& text, std::size_t chars) { return wrap_at(text, ", ", chars); }

std::string cut(const std::string& s, std::size_t chars) {
  return s.size() <= chars ? s : s.substr(0, chars - 3) + "...";
}

// "0.01", "2", "500": a busbw tick.
std::string gbps_label(double v) {
  if (v >= 1e5 || (v > 0 && v < 1e-4)) return fmt::format("{:.0e}", v);
  return fmt::format("{:g}", v);
}

// The largest step of 1, 2 or 5 times a power of ten with at least `min_ticks` ticks up to `top`.
double nice_step(double top, int min_ticks) {
  double step = std::pow(10.0, std::floor(std::log10(top)));
  for (int i = 0; i < 8 && top / step < min_ticks; ++i) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    step = mantissa > 4.5 ? step * 0.4 : step * 0.5;  // 5 -> 2 -> 1 -> 0.5 ...
  }
  return step;
}

}  // namespace

std::string size_tick_label(std::uint64_t bytes) {
  if (bytes == 0 || (bytes & (bytes - 1)) != 0) return format_bytes(static_cast<double>(bytes));
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", bytes, kUnits[unit]);
}

BenchPlot make_bench_plot(const BenchPlotInput& in) {
  BenchPlot p;
  p.width = kWidth;
  p.height = kHeight;
  p.left = kLeft;
  p.top = kTop;
  p.right = kRight;
  p.bottom = kBottom;
  const BenchOptions& o = in.options;
  const bool measured = !in.backend.empty();

  // The title names the collective, the type, the ranks and the (timing model's) topology.
  p.title = label(40, 48,
                  fmt::format("{} of {}, {} ranks, {} topology: busbw against size", to_string(o.collective),
                              to_string(o.dtype), o.ranks, to_string(o.topology.kind)),
                  26);
  p.title.bold = true;
  // The topology line on one line or two, broken between its parts ("; "), and inside a
  // part too long for a line, between its items (", "); cut short beyond two lines.
  std::vector<std::string> lines;
  for (const std::string& part : wrap_at("topology: " + in.topology, "; ", kSubtitleChars))
    for (const std::string& line : part.size() <= kSubtitleChars ? std::vector{part} : wrap_at(part, ", ", kSubtitleChars))
      lines.push_back(line);
  if (lines.size() > 2) {
    lines.resize(2);
    lines[1] = cut(lines[1], kSubtitleChars - 4) + " ...";
  }
  for (const std::string& line : lines)
    p.subtitle.push_back(label(40, 82 + 22 * static_cast<float>(p.subtitle.size()), line, kSmall, PlotAnchor::start,
                               palette::text_dim));
  p.x_title = label((kLeft + kRight) / 2, kBottom + 76,
                    "size per rank (bytes, log scale: K = 2\u00b9\u2070, M = 2\u00b2\u2070, G = 2\u00b3\u2070)", kText + 1,
                    PlotAnchor::middle);

  // The series: per algorithm, the measured one (if any) and the predicted one.
  struct Raw {
    std::uint64_t bytes;
    std::optional<double> busbw;
  };
  std::vector<std::vector<Raw>> raws;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  for (const SweepPoint& pt : in.points) {
    if (pt.bytes == 0) continue;
    min_bytes = min_bytes == 0 ? pt.bytes : std::min(min_bytes, pt.bytes);
    max_bytes = std::max(max_bytes, pt.bytes);
  }
  constexpr PlotMarker kMarkers[] = {PlotMarker::circle,   PlotMarker::square,        PlotMarker::triangle,
                                     PlotMarker::diamond, PlotMarker::triangle_down, PlotMarker::cross};
  std::vector<std::string> algorithms = o.algorithms;
  for (const SweepPoint& pt : in.points)  // any the options do not list, in the order met
    if (std::find(algorithms.begin(), algorithms.end(), pt.algorithm) == algorithms.end())
      algorithms.push_back(pt.algorithm);
  for (std::size_t a = 0; a < algorithms.size(); ++a) {
    for (const SweepClock clock : {SweepClock::measured, SweepClock::predicted}) {
      if (clock == SweepClock::measured && !measured) continue;
      PlotSeries s;
      s.algorithm = algorithms[a];
      s.kind = clock == SweepClock::measured ? PlotSeriesKind::measured : PlotSeriesKind::predicted;
      s.id = fmt::format("{}-{}", s.algorithm, clock == SweepClock::measured ? "measured" : "predicted");
      s.label = clock == SweepClock::measured ? fmt::format("{}, {}, measured", s.algorithm, in.backend)
                                              : fmt::format("{}, predicted", s.algorithm);
      s.colour = palette::rank(static_cast<int>(a));
      s.marker = kMarkers[a % std::size(kMarkers)];
      s.dashed = clock == SweepClock::predicted;
      std::vector<Raw> raw;
      for (const SweepPoint& pt : in.points)
        if (pt.algorithm == s.algorithm && pt.bytes > 0) raw.push_back({pt.bytes, sweep_busbw(o, pt, clock)});
      std::sort(raw.begin(), raw.end(), [](const Raw& x, const Raw& y) { return x.bytes < y.bytes; });
      raws.push_back(std::move(raw));
      p.series.push_back(std::move(s));
    }
  }
  // The MPI library's own collective: one series, from the first algorithm whose rows hold it
  // (every algorithm's rows time the same call on the same sizes).
  for (const std::string& algorithm : algorithms) {
    std::vector<Raw> raw;
    std::string call;
    for (const SweepPoint& pt : in.points)
      if (pt.algorithm == algorithm && pt.bytes > 0 && !pt.native_call.empty()) {
        call = pt.native_call;
        raw.push_back({pt.bytes, pt.native_busbw_gbps});
      }
    if (raw.empty()) continue;
    std::sort(raw.begin(), raw.end(), [](const Raw& x, const Raw& y) { return x.bytes < y.bytes; });
    PlotSeries s;
    s.algorithm = call;
    s.kind = PlotSeriesKind::native;
    s.id = call + "-native";
    s.label = fmt::format("{}, {}, measured (the MPI library's own)", call, in.backend);
    s.colour = palette::packet;
    s.marker = PlotMarker::cross;
    raws.push_back(std::move(raw));
    p.series.push_back(std::move(s));
    break;
  }

  // The size axis: log2, a grid line at every power of two, a label on every k-th.
  double x0 = 0, x1 = 1;
  if (max_bytes > 0) {
    x0 = std::floor(std::log2(static_cast<double>(min_bytes)) + 1e-9);
    x1 = std::ceil(std::log2(static_cast<double>(max_bytes)) - 1e-9);
    if (x1 <= x0) {
      x0 -= 1;
      x1 += 1;
    }
  }
  const auto x_at = [&](double log2_bytes) {
    return static_cast<float>(kLeft + kPad + (log2_bytes - x0) / (x1 - x0) * (kRight - kLeft - 2 * kPad));
  };
  if (max_bytes > 0) {
    const int count = static_cast<int>(x1 - x0) + 1;
    int every = 1;
    for (const int k : {1, 2, 3, 4, 5, 10, 20}) {
      every = k;
      if (count / k <= 11) break;
    }
    for (int e = static_cast<int>(x0); e <= static_cast<int>(x1); ++e)
      p.x_ticks.push_back({x_at(e), e % every == 0 && e >= 0 && e < 64 ? size_tick_label(1ull << e) : ""});
  }

  // The size marked (the run's own, in the app and the storyboard).
  if (in.mark_bytes > 0 && max_bytes > 0) {
    p.marked = true;
    p.mark_x = x_at(std::log2(static_cast<double>(in.mark_bytes)));
    const bool right_half = p.mark_x > (kLeft + kRight) / 2;
    p.mark_label = label(p.mark_x + (right_half ? -8.0f : 8.0f), kBottom - 14,
                         "this run: " + format_bytes(static_cast<double>(in.mark_bytes)), kSmall,
                         right_half ? PlotAnchor::end : PlotAnchor::start, palette::text);
    p.mark_label.bold = true;
  }

  // The crossovers the bench printed: a vertical line between the two sizes, and on a band
  // above the points, which algorithm is fastest on either side.
  const auto colour_of = [&](const std::string& algorithm) {
    const auto at = std::find(algorithms.begin(), algorithms.end(), algorithm);
    return palette::rank(static_cast<int>(at - algorithms.begin()));
  };
  for (const SweepClock clock : {SweepClock::predicted, SweepClock::measured}) {
    const std::vector<CrossoverRange>& ranges =
        clock == SweepClock::predicted ? in.crossover_predicted : in.crossover_measured;
    for (std::size_t i = 0; i + 1 < ranges.size(); ++i) {
      PlotCrossover c;
      c.clock = clock;
      c.below_bytes = ranges[i].to_bytes;
      c.above_bytes = ranges[i + 1].from_bytes;
      c.below_algorithm = ranges[i].algorithm;
      c.above_algorithm = ranges[i + 1].algorithm;
      if (c.below_bytes == 0 || c.above_bytes == 0) continue;
      c.x = x_at((std::log2(static_cast<double>(c.below_bytes)) + std::log2(static_cast<double>(c.above_bytes))) / 2);
      p.crossovers.push_back(std::move(c));
    }
  }
  // Each crossover's labels on the first row of the band where they overlap no other's
  // (predicted first); none beyond kMaxCrossoverRows rows.
  std::vector<std::vector<std::pair<float, float>>> rows;  // per row, the horizontal extents taken
  std::size_t unlabelled = 0;
  for (PlotCrossover& c : p.crossovers) {
    PlotLabel head = label(c.x, 0,
                           fmt::format("{} crossover, {} to {}", c.clock == SweepClock::predicted ? "predicted" : "measured",
                                       size_tick_label(c.below_bytes), size_tick_label(c.above_bytes)),
                           kSmall, PlotAnchor::middle, c.clock == SweepClock::predicted ? palette::text_dim : palette::text);
    PlotLabel below = label(c.x - 8, 23, "\u2190 " + c.below_algorithm, kSmall, PlotAnchor::end,
                            colour_of(c.below_algorithm));
    PlotLabel above = label(c.x + 8, 23, c.above_algorithm + " \u2192", kSmall, PlotAnchor::start,
                            colour_of(c.above_algorithm));
    below.bold = above.bold = true;
    // The two sides move together, so that neither covers the other near an edge.
    const float from = below.x - text_width(below.text, kSmall, true) - 5, to = above.x + text_width(above.text, kSmall, true) + 5;
    const float shift = from < kLeft + 4 ? kLeft + 4 - from : to > kRight - 4 ? kRight - 4 - to : 0;
    below.x += shift;
    above.x += shift;
    box(head, kLeft + 4, kRight - 4);
    box(below, kLeft - 1000, kRight + 1000);
    box(above, kLeft - 1000, kRight + 1000);
    const float lo = std::min({head.box_x, below.box_x, above.box_x}) - 6;
    const float hi = std::max({head.box_x + head.box_w, below.box_x + below.box_w, above.box_x + above.box_w}) + 6;
    std::size_t row = 0;
    for (; row < rows.size(); ++row)
      if (std::none_of(rows[row].begin(), rows[row].end(), [&](const auto& e) { return lo < e.second && e.first < hi; }))
        break;
    if (row == kMaxCrossoverRows) {
      ++unlabelled;
      continue;
    }
    if (row == rows.size()) rows.emplace_back();
    rows[row].push_back({lo, hi});
    c.labels = {head, below, above};
    for (PlotLabel& l : c.labels) {
      const float dy = kTop + 24 + static_cast<float>(row) * kCrossoverRow;
      l.y += dy;
      l.box_y += dy;
    }
  }
  if (unlabelled > 0) {
    p.unlabelled = label(kRight - 8, kBottom - 12,
                         fmt::format("{} more crossover{}: see the table", unlabelled, unlabelled == 1 ? "" : "s"), kSmall,
                         PlotAnchor::end, palette::text_dim);
    box(p.unlabelled, kLeft + 4, kRight - 4);
  }

  // The busbw axis, under the crossovers' band.
  const float data_top = kTop + (rows.empty() ? 0 : static_cast<float>(rows.size()) * kCrossoverRow + 8);
  p.data_top = data_top;
  // The busbw axis: log10 over more than a decade, else linear from 0.
  double lo = 0, hi = 0;
  for (const auto& raw : raws)
    for (const Raw& r : raw)
      if (r.busbw && *r.busbw > 0) {
        lo = lo == 0 ? *r.busbw : std::min(lo, *r.busbw);
        hi = std::max(hi, *r.busbw);
      }
  const bool any = hi > 0;
  p.y_log = any && hi / lo > 10;
  p.y_title = label(36, (kTop + kBottom) / 2,
                    fmt::format("bus bandwidth, busbw (GB/s{})", p.y_log ? ", log scale" : ""), kText + 1,
                    PlotAnchor::middle);
  double y0 = 0, y1 = 1;  // the axis's range: log10 of GB/s, or GB/s
  if (p.y_log) {
    y0 = std::floor(std::log10(lo) + 1e-9);
    y1 = std::ceil(std::log10(hi) - 1e-9);
    if (y1 <= y0) y1 = y0 + 1;
  } else if (any) {
    const double step = nice_step(hi * 1.05, 4);
    y1 = std::ceil(hi * 1.05 / step) * step;
  }
  const auto y_at = [&](double gbps) {
    const double v = p.y_log ? std::log10(gbps) : gbps;
    return static_cast<float>(kBottom - kPad - (v - y0) / (y1 - y0) * (kBottom - data_top - 2 * kPad));
  };
  if (p.y_log) {
    const int decades = static_cast<int>(y1 - y0);
    for (int d = static_cast<int>(y0); d <= static_cast<int>(y1); ++d)
      for (int m = 1; m <= 9; ++m) {
        const double v = m * std::pow(10.0, d);
        if (std::log10(v) > y1 + 1e-9) break;
        const bool labelled = m == 1 || (decades <= 2 && (m == 2 || m == 5));
        if (m == 1 || decades <= 4) p.y_ticks.push_back({y_at(v), labelled ? gbps_label(v) : ""});
      }
  } else {
    const double step = any ? nice_step(y1, 4) : 0.25;
    for (double v = 0; v <= y1 + step * 1e-6; v += step) p.y_ticks.push_back({y_at(v), gbps_label(v)});
  }

  // The ticks' labels, placed once for every renderer.
  for (const PlotTick& t : p.x_ticks)
    if (!t.label.empty()) p.tick_labels.push_back(label(t.at, kBottom + 30, t.label, kText, PlotAnchor::middle));
  for (const PlotTick& t : p.y_ticks)
    if (!t.label.empty()) p.tick_labels.push_back(label(kLeft - 12, t.at + 6, t.label, kText, PlotAnchor::end));

  // The points, a line broken wherever a point has no busbw.
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    std::vector<PlotPoint> run;
    for (const Raw& r : raws[i]) {
      if (!r.busbw || *r.busbw <= 0) {
        if (!run.empty()) p.series[i].runs.push_back(std::move(run));
        run.clear();
        continue;
      }
      run.push_back({x_at(std::log2(static_cast<double>(r.bytes))), y_at(*r.busbw), r.bytes, *r.busbw});
    }
    if (!run.empty()) p.series[i].runs.push_back(std::move(run));
  }
  if (!any)
    p.empty = label((kLeft + kRight) / 2, (kTop + kBottom) / 2, "no point has a bus bandwidth to draw", kText + 3,
                    PlotAnchor::middle, palette::text_dim);

  // The legend: every series, then the crossover lines drawn, then what the two clocks are.
  float y = kTop + 10;
  const std::size_t chars = static_cast<std::size_t>((kLegendRight - kLegendLeft - 56) / (kSmall * kCharWidth));
  for (const PlotSeries& s : p.series) {
    PlotLegendEntry e;
    e.series_id = s.id;
    e.lines = wrap_label(s.label, chars);
    e.colour = s.colour;
    e.marker = s.marker;
    e.dashed = s.dashed;
    e.hollow = s.kind == PlotSeriesKind::predicted;
    e.x = kLegendLeft;
    e.y = y;
    y += 22 * static_cast<float>(e.lines.size()) + 10;
    p.legend.push_back(std::move(e));
  }
  for (const SweepClock clock : {SweepClock::predicted, SweepClock::measured}) {
    if (std::none_of(p.crossovers.begin(), p.crossovers.end(), [&](const PlotCrossover& c) { return c.clock == clock; }))
      continue;
    PlotLegendEntry e;
    e.lines = {clock == SweepClock::predicted ? "crossover, predicted" : "crossover, measured"};
    e.colour = palette::text_dim;  // both clocks: the dash tells them apart
    e.dashed = clock == SweepClock::predicted;
    e.markers = false;
    e.x = kLegendLeft;
    e.y = y;
    y += 32;
    p.legend.push_back(std::move(e));
  }
  for (PlotLegendEntry& e : p.legend)  // each entry's lines, right of its sample
    for (std::size_t i = 0; i < e.lines.size(); ++i)
      e.labels.push_back(label(e.x + 56, e.y + 6 + 22 * static_cast<float>(i), e.lines[i], kSmall));
  y += 16;
  std::vector<std::string> notes;
  if (measured)
    notes.push_back(fmt::format("measured: {} backend, mean of {} timed iteration{}", in.backend, o.iterations,
                                o.iterations == 1 ? "" : "s"));
  notes.push_back("predicted: collsim's timing model");
  notes.push_back("busbw as nccl-tests defines it");
  for (const std::string& n : notes)
    for (const std::string& line : wrap_label(n, chars + 4)) {
      p.notes.push_back(label(kLegendLeft, y + 6, line, kSmall, PlotAnchor::start, palette::text_dim));
      y += 22;
    }
  return p;
}

std::vector<PlotOffset> marker_outline(PlotMarker shape) {
  switch (shape) {
    case PlotMarker::circle: return {};
    case PlotMarker::square: return {{-0.9f, -0.9f}, {0.9f, -0.9f}, {0.9f, 0.9f}, {-0.9f, 0.9f}};
    case PlotMarker::triangle: return {{0, -1.2f}, {1.1f, 0.8f}, {-1.1f, 0.8f}};
    case PlotMarker::triangle_down: return {{0, 1.2f}, {1.1f, -0.8f}, {-1.1f, -0.8f}};
    case PlotMarker::diamond: return {{0, -1.25f}, {1.25f, 0}, {0, 1.25f}, {-1.25f, 0}};
    case PlotMarker::cross:
      return {{-0.35f, -1.1f}, {0.35f, -1.1f}, {0.35f, -0.35f}, {1.1f, -0.35f}, {1.1f, 0.35f}, {0.35f, 0.35f},
              {0.35f, 1.1f}, {-0.35f, 1.1f}, {-0.35f, 0.35f}, {-1.1f, 0.35f}, {-1.1f, -0.35f}, {-0.35f, -0.35f}};
  }
  return {};
}

BenchPlotInput size_curve_plot_input(const SizeCurve& curve, const std::string& topology) {
  BenchPlotInput in;
  in.options = curve.options;
  in.topology = topology;
  in.points = curve.points;
  in.crossover_predicted = curve.crossover;
  in.mark_bytes = curve.run_bytes;
  return in;
}

SizeCurvePlot size_curve_plot(const Trace& t) {
  SizeCurvePlot out;
  if (!t.predicted || !t.predicted->topology_config) {
    out.none = "this run has no prediction to vary (a trace written without its topology)";
    return out;
  }
  const SizeCurve curve = size_curve(t.request, *t.predicted->topology_config, t.schedule.transfers.size());
  out.run_bytes = curve.run_bytes;
  out.none = curve.none;
  if (curve.none.empty()) out.plot = make_bench_plot(size_curve_plot_input(curve, t.predicted->topology));
  return out;
}

}  // namespace collsim::gui
