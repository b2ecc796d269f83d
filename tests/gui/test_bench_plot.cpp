// The geometry of `collsim bench --plot` (app/views/bench_plot.h): one series per algorithm
// and kind, points on a log2 size axis and a log10 (or, over less than a decade, linear)
// busbw axis, a crossover line halfway between the two sizes of the summary it is given, its
// labels above every point, and tick labels in K, M and G.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/views/bench_plot.h"

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
