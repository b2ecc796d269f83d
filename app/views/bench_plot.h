// The picture of a bench (`collsim bench --plot F.svg`), as plain geometry: bus bandwidth
// (busbw, GB/s) against size (bytes per rank), the way nccl-tests' results are read. Every
// fact is sim/'s: the busbw of each point on each clock (sweep_busbw, sim/run/bench_model.h)
// and the crossover summary (crossover(), the one the bench prints); this only places them
// on a 1280 x 800 slide: series, axes, ticks, crossover lines, legend and labels, in user
// units. The SVG is app/storyboard/bench_plot_svg.h's.
//
// One series per algorithm and kind: measured (a solid line with filled markers) and
// predicted (the timing model's: a dashed line, hollow markers), in the algorithm's colour
// (app/views/palette.h's rank colours, in order: the first four are the farthest apart, as a
// colour-blind reader sees them too) and the algorithm's marker shape, so that identity never
// rests on colour alone. `--model-only`: predicted only. `--backend mpi`: also the MPI library's
// own collective where the points hold it (SweepPoint::native_busbw_gbps), one series in the
// light neutral (palette::packet), solid, with crosses.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/views/palette.h"
#include "sim/run/bench_model.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

// What the bench hands over: its options (collective, ranks, dtype, op, the algorithms in
// order), its points and the crossover summaries it printed.
struct BenchPlotInput {
  BenchOptions options;
  std::string topology;  // the header's topology line
  std::string backend;   // the backend measured ("cpu", "cuda", "mpi"); empty: --model-only
  std::vector<SweepPoint> points;
  std::vector<CrossoverRange> crossover_predicted, crossover_measured;  // crossover(points, clock)
  std::uint64_t mark_bytes = 0;  // non-zero: a size to mark (the run's own, size_curve_plot_input)
};

// A run's curve (sim's size_curve) as a plot's input, its own size marked.
BenchPlotInput size_curve_plot_input(const SizeCurve& curve, const std::string& topology);


// native: the MPI library's own collective, measured beside the algorithms (bench --backend mpi).
enum class PlotSeriesKind : std::uint8_t { measured, predicted, native };
enum class PlotMarker : std::uint8_t { circle, square, triangle, diamond, triangle_down, cross };
enum class PlotAnchor : std::uint8_t { start, middle, end };

// A marker's outline around its centre, in units of its size (the SVG's polygons and the
// app's); empty for the circle.
struct PlotOffset {
  float dx = 0, dy = 0;
};
std::vector<PlotOffset> marker_outline(PlotMarker shape);
// The dashes of a predicted series and of a predicted crossover line: drawn, then skipped.
inline constexpr float kSeriesDash[2] = {12, 8}, kCrossoverDash[2] = {8, 7};

struct PlotPoint {
  float x = 0, y = 0;  // user units
  std::uint64_t bytes = 0;
  double busbw_gbps = 0;
};

struct PlotSeries {
  std::string id;     // "ring-measured", "MPI_Allreduce-native": unique, what a test counts (the SVG's data-series)
  std::string label;  // "ring, cpu, measured", "ring, predicted"
  std::string algorithm;
  PlotSeriesKind kind = PlotSeriesKind::predicted;
  palette::Rgb colour;
  PlotMarker marker = PlotMarker::circle;
  bool dashed = false;
  std::vector<std::vector<PlotPoint>> runs;  // a line per run; a skipped point or one without busbw breaks it
};

// A line of text; box_* is the rectangle behind it (estimated from the characters), when wanted.
struct PlotLabel {
  float x = 0, y = 0;  // the baseline's anchor point
  std::string text;
  float size = 16;
  PlotAnchor anchor = PlotAnchor::start;
  palette::Rgb colour = palette::text;
  bool bold = false;
  bool boxed = false;
  float box_x = 0, box_y = 0, box_w = 0, box_h = 0;
};

struct PlotTick {
  float at = 0;        // x (size axis) or y (busbw axis)
  std::string label;   // empty: a grid line without a label
};

// Where the fastest algorithm changes, on one clock: between two measured sizes.
struct PlotCrossover {
  SweepClock clock = SweepClock::predicted;
  float x = 0;  // halfway, on the log axis, between the last size of one range and the first of the next
  std::uint64_t below_bytes = 0, above_bytes = 0;
  std::string below_algorithm, above_algorithm;
  // On a band at the top of the plot that no point reaches: "predicted crossover, 16K to 32K",
  // then "← tree" left of the line and "ring →" right of it; each on the band's first row
  // where it covers no other label, up to three rows. Beyond them none (the line only;
  // BenchPlot::unlabelled says how many).
  std::vector<PlotLabel> labels;
};

struct PlotLegendEntry {
  std::string series_id;  // empty: a crossover line's entry
  std::vector<std::string> lines;  // the label, wrapped
  palette::Rgb colour;
  PlotMarker marker = PlotMarker::circle;
  bool dashed = false, markers = true, hollow = false;
  float x = 0, y = 0;  // the sample line's left end, on the first line's middle
  std::vector<PlotLabel> labels;  // `lines`, placed right of the sample
};

struct BenchPlot {
  float width = 1280, height = 800;
  float left = 0, top = 0, right = 0, bottom = 0;  // the plotting area
  float data_top = 0;  // where the points may reach: below the crossovers' labels
  PlotLabel title, x_title, y_title;  // y_title reads upwards (rotated -90 degrees about x, y)
  std::vector<PlotLabel> subtitle;    // the topology, on one or two lines
  bool y_log = true;
  std::vector<PlotTick> x_ticks, y_ticks;
  // Every labelled tick's text, placed: under the size axis, left of the busbw axis.
  std::vector<PlotLabel> tick_labels;
  std::vector<PlotSeries> series;
  std::vector<PlotCrossover> crossovers;
  PlotLabel unlabelled;  // non-empty: "2 more crossovers: see the table" (the printed crossover summary)
  std::vector<PlotLegendEntry> legend;
  std::vector<PlotLabel> notes;  // under the legend: what "measured" and "predicted" are
  PlotLabel empty;  // non-empty text: nothing to draw, and why
  // BenchPlotInput::mark_bytes: a solid vertical line at x from top to bottom, and its label
  // ("this run: 4 MiB") just below the plotting area's top, beside the line.
  bool marked = false;
  float mark_x = 0;
  PlotLabel mark_label;
  float line_width = 3, marker_size = 7;
};

// Throws nothing; a bench without a single positive busbw gives axes and `empty`.
BenchPlot make_bench_plot(const BenchPlotInput& in);

// The plot of a run's busbw against size (the app's "busbw against size" window, the
// storyboard's busbw.svg), or why there is none (`none`: not predicted, a hand-written
// schedule, a barrier, too many transfers).
struct SizeCurvePlot {
  std::optional<BenchPlot> plot;
  std::string none;
  std::uint64_t run_bytes = 0;
};
SizeCurvePlot size_curve_plot(const Trace& t);

// "1K", "64K", "1M", "2G": a power of two's tick label; other sizes as format_bytes.
std::string size_tick_label(std::uint64_t bytes);

}  // namespace collsim::gui
