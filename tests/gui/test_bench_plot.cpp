// The geometry of `collsim bench --plot` (app/views/bench_plot.h): one series per algorithm
// and kind, points on a log2 size axis and a log10 (or, over less than a decade, linear)
// busbw axis, a crossover line halfway between the two sizes of the summary it is given, its
// labels above every point, and tick labels in K, M and G.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/views/bench_plot.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/run.h"
#include "sim/trace/trace.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

// Two algorithms predicted at 1K..1M on 8 ranks, the way `bench --model-only` hands them over.
BenchPlotInput model_only_input() {
  BenchPlotInput in;
  in.options.algorithms = {"ring", "double_binary_tree"};
  in.options.ranks = 8;
  in.options.min_bytes = 1024;
  in.options.max_bytes = 1 << 20;
  in.topology = "switch, 8 ranks";
  in.points = predict_sweep(in.options, in.options.topology);
  in.crossover_predicted = crossover(in.points, SweepClock::predicted);
  return in;
}

const PlotSeries* find_series(const BenchPlot& p, const std::string& id) {
  const auto at = std::find_if(p.series.begin(), p.series.end(), [&](const PlotSeries& s) { return s.id == id; });
  return at == p.series.end() ? nullptr : &*at;
}

}  // namespace

TEST_CASE("bench plot: model-only gives one predicted series per algorithm, dashed, on log axes") {
  const BenchPlotInput in = model_only_input();
  const BenchPlot p = make_bench_plot(in);
  REQUIRE(p.series.size() == 2);
  for (const char* id : {"ring-predicted", "double_binary_tree-predicted"}) {
    const PlotSeries* s = find_series(p, id);
    REQUIRE(s != nullptr);
    CHECK(s->dashed);
    CHECK(s->kind == PlotSeriesKind::predicted);
    REQUIRE(s->runs.size() == 1);
    CHECK(s->runs[0].size() == 11);  // 1K, 2K, ..., 1M
    for (const PlotPoint& pt : s->runs[0]) {
      CHECK(pt.x >= p.left);
      CHECK(pt.x <= p.right);
      CHECK(pt.y >= p.data_top);
      CHECK(pt.y <= p.bottom);
    }
    // Larger sizes lie further right.
    CHECK(std::is_sorted(s->runs[0].begin(), s->runs[0].end(), [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; }));
  }
  CHECK(find_series(p, "ring-predicted")->colour != find_series(p, "double_binary_tree-predicted")->colour);
  CHECK(find_series(p, "ring-predicted")->marker != find_series(p, "double_binary_tree-predicted")->marker);
  CHECK(p.y_log);  // 1K to 1M spans decades of busbw
  // The labelled x ticks are K and M powers of two.
  std::vector<std::string> labels;
  for (const PlotTick& t : p.x_ticks)
    if (!t.label.empty()) labels.push_back(t.label);
  CHECK(labels.front() == "1K");
  CHECK(labels.back() == "1M");
  CHECK(p.title.text.find("8 ranks") != std::string::npos);
  CHECK(p.title.text.find("all_reduce") != std::string::npos);
  CHECK(p.title.text.find("switch topology") != std::string::npos);
}

TEST_CASE("bench plot: a crossover is drawn halfway between the sizes the summary names, labelled above the points") {
  BenchPlotInput in = model_only_input();
  // The summary as given, whatever the points say: the plot reads it, never recomputes it.
  in.crossover_predicted = {{1024, 16384, "double_binary_tree"}, {32768, 1 << 20, "ring"}};
  const BenchPlot p = make_bench_plot(in);
  REQUIRE(p.crossovers.size() == 1);
  const PlotCrossover& c = p.crossovers[0];
  CHECK(c.below_algorithm == "double_binary_tree");
  CHECK(c.above_algorithm == "ring");
  const PlotSeries* ring = find_series(p, "ring-predicted");
  REQUIRE(ring != nullptr);
  const auto x_of = [&](std::uint64_t bytes) {
    for (const PlotPoint& pt : ring->runs[0])
      if (pt.bytes == bytes) return pt.x;
    return -1.0f;
  };
  CHECK(c.x == doctest::Approx((x_of(16384) + x_of(32768)) / 2).epsilon(0.001));
  REQUIRE(c.labels.size() == 3);
  for (const PlotLabel& l : c.labels) {
    CHECK(l.y < p.data_top);
    CHECK(l.size >= 16);
    CHECK(l.box_x >= p.left);
    CHECK(l.box_x + l.box_w <= p.right);
  }
  CHECK(c.labels[1].text.find("double_binary_tree") != std::string::npos);
  CHECK(c.labels[2].text.find("ring") != std::string::npos);
}

TEST_CASE("bench plot: measured rows add a solid series per algorithm, and a skipped point breaks its line") {
  BenchPlotInput in = model_only_input();
  in.backend = "cpu";
  for (SweepPoint& pt : in.points) {  // a measured time of twice the predicted one
    pt.measured_us = *pt.predicted_us * 2;
    pt.busbw_gbps = *pt.busbw_gbps / 2;
  }
  in.points[3].skipped = "not enough memory";  // ring at 8K
  const BenchPlot p = make_bench_plot(in);
  CHECK(p.series.size() == 4);
  const PlotSeries* measured = find_series(p, "ring-measured");
  REQUIRE(measured != nullptr);
  CHECK_FALSE(measured->dashed);
  CHECK(measured->label == "ring, cpu, measured");
  CHECK(measured->runs.size() == 2);  // 1K..4K, then 16K..1M
  CHECK(find_series(p, "ring-predicted")->runs.size() == 2);
  // The measured busbw is half the predicted one: below it on the page (y grows downwards).
  CHECK(find_series(p, "double_binary_tree-measured")->runs[0][0].y >
        find_series(p, "double_binary_tree-predicted")->runs[0][0].y);
}

TEST_CASE("bench plot: busbw within a decade is drawn on a linear axis from 0") {
  BenchPlotInput in = model_only_input();
  in.options.min_bytes = 64ull << 20;
  in.options.max_bytes = 256ull << 20;
  in.points = predict_sweep(in.options, in.options.topology);
  in.crossover_predicted = crossover(in.points, SweepClock::predicted);
  const BenchPlot p = make_bench_plot(in);
  CHECK_FALSE(p.y_log);
  REQUIRE_FALSE(p.y_ticks.empty());
  CHECK(p.y_ticks.front().label == "0");
}

TEST_CASE("bench plot: no busbw at all gives axes and a message, not a crash") {
  BenchPlotInput in = model_only_input();
  for (SweepPoint& pt : in.points) pt.skipped = "not run";
  in.crossover_predicted.clear();
  const BenchPlot p = make_bench_plot(in);
  CHECK_FALSE(p.empty.text.empty());
  for (const PlotSeries& s : p.series) CHECK(s.runs.empty());
}

TEST_CASE("bench plot: size tick labels") {
  CHECK(size_tick_label(1) == "1");
  CHECK(size_tick_label(512) == "512");
  CHECK(size_tick_label(1024) == "1K");
  CHECK(size_tick_label(64ull << 10) == "64K");
  CHECK(size_tick_label(1ull << 20) == "1M");
  CHECK(size_tick_label(2ull << 30) == "2G");
}

// --- a run's busbw against size (the app's window, the storyboard's busbw.svg) -----------------

namespace {

// A run predicted on the default switch, as the app and the storyboard get it.
Trace predicted_trace(Collective c, const std::string& algorithm, int ranks, std::uint64_t count) {
  RunRequest r;
  r.spec.collective = c;
  r.spec.ranks = ranks;
  r.spec.count = count;
  r.algorithm = algorithm;
  RunResult run = prepare_model_run(r);
  predict_run(run, TopologyConfig{});
  return make_trace(run, "", "");
}

}  // namespace

TEST_CASE("size curve: a binomial tree's run beside the default ring, its own size marked between them, the crossover printed") {
  const Trace t = predicted_trace(Collective::all_reduce, "binomial_tree", 8, 1024);  // 4 KiB per rank
  const SizeCurvePlot curve = size_curve_plot(t);
  REQUIRE(curve.plot.has_value());
  CHECK(curve.none.empty());
  CHECK(curve.run_bytes == 4096);
  const BenchPlot& p = *curve.plot;
  REQUIRE(p.series.size() == 2);  // the run's algorithm, then the collective's default
  CHECK(p.series[0].algorithm == "binomial_tree");
  CHECK(p.series[1].algorithm == "ring");
  CHECK(p.marked);
  // The mark sits on the run's own point: 4 KiB is one of the sizes.
  bool on_a_point = false;
  for (const auto& run : p.series[0].runs)
    for (const PlotPoint& pt : run) on_a_point = on_a_point || (pt.bytes == 4096 && std::abs(pt.x - p.mark_x) < 0.01f);
  CHECK(on_a_point);
  CHECK(p.mark_label.text == "this run: 4 KiB");
  // From 256 B to 4 KiB x 4^8 = 256 MiB, every size predicted for both.
  for (const PlotSeries& s : p.series) {
    REQUIRE(s.runs.size() == 1);
    CHECK(s.runs[0].front().bytes == 256);
    CHECK(s.runs[0].back().bytes == (4096ull << 16));
  }
  CHECK(p.crossovers.size() >= 1);  // the tree wins small sizes, the ring large ones
}

TEST_CASE("size curve: none for a barrier, a hand-written schedule, too many transfers, or a run without its topology") {
  CHECK(size_curve_plot(predicted_trace(Collective::barrier, "dissemination", 4, 1)).none.find("barrier") != std::string::npos);
  const Trace big = predicted_trace(Collective::all_reduce, "ring", 128, 1 << 16);  // 2 x 128 x 127 transfers
  const SizeCurvePlot too_many = size_curve_plot(big);
  CHECK_FALSE(too_many.plot.has_value());
  CHECK(too_many.none.find("32512 transfers") != std::string::npos);
  Trace custom = predicted_trace(Collective::all_reduce, "ring", 4, 64);
  custom.request.algorithm = std::string(kCustomAlgorithm);
  CHECK(size_curve_plot(custom).none.find("hand-written") != std::string::npos);
  Trace untold = predicted_trace(Collective::all_reduce, "ring", 4, 64);
  untold.predicted->topology_config.reset();
  CHECK(size_curve_plot(untold).none.find("without its topology") != std::string::npos);
}
