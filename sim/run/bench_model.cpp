#include "sim/run/bench_model.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "sim/check/dependencies.h"
#include "sim/core/csv.h"
#include "sim/model/timing_model.h"
#include "sim/run/custom_schedule.h"
#include "sim/schedule/algorithm.h"

namespace collsim {
namespace {

// nccl-tests' algbw and busbw from a time in µs.
void set_bandwidths(const BenchOptions& o, SweepPoint& p, double time_us) {
  const CollectiveSpec spec{o.collective, o.ranks, p.count, o.dtype, o.op, o.root, false};
  const Bandwidth bw = bandwidth(spec, time_us * 1e3);
  p.algbw_gbps = bw.algbw_gbps;
  p.busbw_gbps = bw.busbw_gbps;
}

std::optional<double> clock_time(const SweepPoint& p, SweepClock clock) {
  if (!p.skipped.empty()) return std::nullopt;
  return clock == SweepClock::predicted ? p.predicted_us : p.measured_us;
}

std::string number_or_empty(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

}  // namespace

double predicted_time_us(const BenchOptions& o, const std::string& algorithm, std::uint64_t count,
                         const TopologyConfig& topology) {
  const RunRequest request = bench_request(o, algorithm, count);
  if (predicted_without_schedule(request, topology)) return run_streamed_model(request, topology).model->prediction.total_ns / 1e3;
  RunResult r = prepare_model_run(request);
  predict_run(r, topology);
  return r.model->prediction.total_ns / 1e3;
}

std::vector<SweepPoint> predict_sweep(const BenchOptions& o, const TopologyConfig& topology,
                                      const std::function<void(const SweepPoint&)>& on_point) {
  std::vector<SweepPoint> points;
  for (const std::string& algorithm : o.algorithms)
    for (std::uint64_t bytes : bench_sizes(o)) {
      SweepPoint p;
      p.algorithm = algorithm;
      p.count = bytes / dtype_size(o.dtype);
      p.bytes = p.count * dtype_size(o.dtype);
      p.predicted_us = predicted_time_us(o, algorithm, p.count, topology);
      set_bandwidths(o, p, *p.predicted_us);
      if (on_point) on_point(p);
      points.push_back(std::move(p));
    }
  return points;
}

SizeCurve size_curve(const RunRequest& run, const TopologyConfig& topology, std::size_t transfers) {
  SizeCurve c;
  const CollectiveSpec& spec = run.spec;
  const std::string_view algorithm = algorithm_or_default(spec.collective, run.algorithm);
  const std::uint64_t elem = dtype_size(spec.dtype);
  c.run_bytes = spec.count * elem;
  if (spec.collective == Collective::barrier) c.none = "a barrier moves no data: its time has no size to vary";
  else if (algorithm == kCustomAlgorithm) c.none = "a hand-written schedule is written for its own count";
  else if (transfers > kSizeCurveMaxTransfers)
    c.none = fmt::format("{} transfers: too many to predict again at each size here; collsim bench --model-only "
                         "draws it (--plot)", transfers);
  else if (c.run_bytes == 0) c.none = "a count of 0 has no size";
  if (!c.none.empty()) return c;
  BenchOptions& o = c.options;
  o.collective = spec.collective;
  o.ranks = spec.ranks;
  o.dtype = spec.dtype;
  o.op = spec.op;
  o.root = spec.root;
  o.algorithm_options = run.options;
  o.algorithms = {std::string(algorithm)};
  if (const std::string_view d = default_algorithm(spec.collective).name; d != algorithm) o.algorithms.emplace_back(d);
  o.factor = 4;
  // The run's size on the grid: divided by 4 while the elements stay whole, multiplied up to the top.
  std::uint64_t count_low = spec.count, count_high = spec.count;
  for (int k = 0; k < 8 && count_low % 4 == 0 && count_low / 4 * elem >= kSizeCurveMinBytes; ++k) count_low /= 4;
  for (int k = 0; k < 8 && count_high * 4 * elem <= kSizeCurveMaxBytes; ++k) count_high *= 4;
  o.min_bytes = count_low * elem;
  o.max_bytes = count_high * elem;
  o.topology = topology;
  for (const std::string& name : o.algorithms)
    for (const std::uint64_t bytes : bench_sizes(o)) {
      SweepPoint p;
      p.algorithm = name;
      p.count = bytes / elem;
      p.bytes = bytes;
      try {
        // Built and predicted, not checked again: the run's own schedule was checked, and
        // these are the same algorithm at other counts, for a view (the check costs more).
        const RunRequest r = bench_request(o, name, p.count);
        const Schedule s = build_schedule(r.spec, r.algorithm, r.options, kMaxModelRanks);
        p.predicted_us = run_model(s, derive_dependencies(s), topology).prediction.total_ns / 1e3;
        set_bandwidths(o, p, *p.predicted_us);
      } catch (const InputError& e) {  // e.g. a count some algorithm cannot split
        p.skipped = e.what();
      }
      c.points.push_back(std::move(p));
    }
  c.crossover = crossover(c.points, SweepClock::predicted);
  return c;
}

SweepPoint sweep_point(const BenchRow& row) {
  SweepPoint p{row.algorithm, row.bytes, row.count, row.predicted_us, {}, {}, {}, {}, row.wrong, row.skipped, {}, {}};
  if (row.skipped.empty()) {
    p.measured_us = row.time_us;
    p.best_us = row.best_time_us;
    p.algbw_gbps = row.algbw_gbps;
    p.busbw_gbps = row.busbw_gbps;
  }
  return p;
}

std::vector<CrossoverRange> crossover(const std::vector<SweepPoint>& points, SweepClock clock) {
  std::vector<CrossoverRange> ranges;
  std::vector<std::uint64_t> sizes;
  for (const SweepPoint& p : points)
    if (std::find(sizes.begin(), sizes.end(), p.bytes) == sizes.end()) sizes.push_back(p.bytes);
  std::sort(sizes.begin(), sizes.end());
  for (std::uint64_t bytes : sizes) {
    const SweepPoint* best = nullptr;  // ties: the algorithm listed first
    for (const SweepPoint& p : points)
      if (p.bytes == bytes && clock_time(p, clock) && (!best || *clock_time(p, clock) < *clock_time(*best, clock)))
        best = &p;
    if (!best) continue;
    if (!ranges.empty() && ranges.back().algorithm == best->algorithm)
      ranges.back().to_bytes = bytes;
    else
      ranges.push_back({bytes, bytes, best->algorithm});
  }
  return ranges;
}

std::string format_crossover(const std::vector<SweepPoint>& points, SweepClock clock) {
  const std::vector<CrossoverRange> ranges = crossover(points, clock);
  std::string out = fmt::format("# crossover ({}): ", clock == SweepClock::predicted ? "predicted" : "measured");
  if (ranges.empty()) return out + "no points\n";
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const CrossoverRange& r = ranges[i];
    const std::string span = r.from_bytes == r.to_bytes
                                 ? format_bytes(static_cast<double>(r.from_bytes))
                                 : fmt::format("{} - {}", format_bytes(static_cast<double>(r.from_bytes)),
                                               format_bytes(static_cast<double>(r.to_bytes)));
    out += fmt::format("{}{}: {}", i > 0 ? "; " : "", span, r.algorithm);
  }
  return out + "\n";
}

std::string format_model_bench_header(const BenchOptions& o, const std::string& topology) {
  const std::vector<std::uint64_t> sizes = bench_sizes(o);
  return fmt::format(
      "# collsim bench --model-only: {} on {} ranks, {} {}; nothing is executed\n"
      "# topology: {}\n"
      "# sizes {} to {} bytes per rank (x{}); time = the timing model's (docs/timing-model.md)\n",
      to_string(o.collective), o.ranks, to_string(o.dtype), to_string(o.op), topology,
      sizes.empty() ? 0 : sizes.front(), sizes.empty() ? 0 : sizes.back(), o.factor);
}

std::string format_model_bench_algorithm_header(const std::string& algorithm) {
  return fmt::format(
      "#\n# algorithm: {}\n# {:>10} {:>12} {:>5} {:>6} {:>5} {:>12} {:>8} {:>8}\n"
      "# {:>10} {:>12} {:>5} {:>6} {:>5} {:>12} {:>8} {:>8}\n",
      algorithm, "size", "count", "type", "redop", "root", "predicted", "algbw", "busbw", "(B)", "(elements)", "", "",
      "", "(us)", "(GB/s)", "(GB/s)");
}

std::string format_model_bench_row(const BenchOptions& o, const SweepPoint& p) {
  const auto gbps = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string("n/a"); };
  return fmt::format("  {:>10} {:>12} {:>5} {:>6} {:>5} {:>12.3f} {:>8} {:>8}\n", p.bytes, p.count, to_string(o.dtype),
                     to_string(o.op), collective_has_root(o.collective) ? o.root : -1, p.predicted_us.value_or(0),
                     gbps(p.algbw_gbps), gbps(p.busbw_gbps));
}

std::optional<double> sweep_busbw(const BenchOptions& o, const SweepPoint& p, SweepClock clock) {
  const std::optional<double> t = clock_time(p, clock);
  if (!t || *t <= 0) return std::nullopt;
  if (clock == SweepClock::measured) return p.busbw_gbps;
  const CollectiveSpec spec{o.collective, o.ranks, p.count, o.dtype, o.op, o.root, false};
  return bandwidth(spec, *t * 1e3).busbw_gbps;
}


std::string sweep_csv(const BenchOptions& o, const std::vector<SweepPoint>& points) {
  std::string out =
      "algorithm,size,count,type,redop,root,predicted_us,time_us,best_us,algbw_gbps,busbw_gbps,wrong,skipped\n";
  for (const SweepPoint& p : points)
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.algorithm, p.bytes, p.count,
                   to_string(o.dtype), to_string(o.op), collective_has_root(o.collective) ? o.root : -1,
                   number_or_empty(p.predicted_us), number_or_empty(p.measured_us), number_or_empty(p.best_us),
                   number_or_empty(p.algbw_gbps), number_or_empty(p.busbw_gbps), p.wrong, csv_field(p.skipped));
  return out;
}

std::string sweep_json(const BenchOptions& o, const std::string& topology, const std::vector<SweepPoint>& points) {
  using ojson = nlohmann::ordered_json;
  const auto optional = [](const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson rows = ojson::array();
  for (const SweepPoint& p : points)
    rows.push_back({{"algorithm", p.algorithm},
                    {"size", p.bytes},
                    {"count", p.count},
                    {"predicted_us", optional(p.predicted_us)},
                    {"time_us", optional(p.measured_us)},
                    {"best_us", optional(p.best_us)},
                    {"algbw_gbps", optional(p.algbw_gbps)},
                    {"busbw_gbps", optional(p.busbw_gbps)},
                    {"wrong", p.wrong},
                    {"skipped", p.skipped}});
  ojson doc = {{"format", "collsim-bench"},
               {"version", 1},
               {"collective", to_string(o.collective)},
               {"ranks", o.ranks},
               {"dtype", to_string(o.dtype)},
               {"op", to_string(o.op)},
               {"root", collective_has_root(o.collective) ? o.root : -1},
               {"topology", topology},
               {"rows", rows}};
  for (SweepClock clock : {SweepClock::predicted, SweepClock::measured}) {
    ojson ranges = ojson::array();
    for (const CrossoverRange& r : crossover(points, clock))
      ranges.push_back({{"from_size", r.from_bytes}, {"to_size", r.to_bytes}, {"algorithm", r.algorithm}});
    doc[clock == SweepClock::predicted ? "crossover_predicted" : "crossover_measured"] = ranges;
  }
  return doc.dump(2) + "\n";
}

}  // namespace collsim
