// The timing model's side of `collsim bench`: predicted times per (algorithm, size), the
// crossover summary (which algorithm is fastest over which range of sizes), and the rows
// as CSV and JSON. `collsim bench --model-only` uses only this; a measured bench adds a
// predicted time to each of its rows (sim/run/bench.h) and then uses the same outputs.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/bench.h"
#include "sim/model/topology.h"

namespace collsim {

// One (algorithm, size) point of a sweep, measured, predicted or both.
struct SweepPoint {
  std::string algorithm;
  std::uint64_t bytes = 0, count = 0;            // per rank, as in BenchRow
  std::optional<double> predicted_us;            // the timing model
  std::optional<double> measured_us, best_us;    // mean and best timed iteration; none with --model-only
  std::optional<double> algbw_gbps, busbw_gbps;  // from the measured time, else the predicted one
  std::uint64_t wrong = 0;
  std::string skipped;
  // bench --backend mpi: the MPI library's own collective on the same buffers (native_call,
  // "MPI_Allreduce"), its busbw from its mean time; none elsewhere, or where MPI has no such call.
  std::string native_call;
  std::optional<double> native_busbw_gbps;
};

// The model's time for one point (builds and predicts the schedule; no buffers).
double predicted_time_us(const BenchOptions& o, const std::string& algorithm, std::uint64_t count,
                         const TopologyConfig& topology);

// --model-only: every algorithm at every size, predicted. Points above kMaxRanks ranks
// skip the symbolic check, like `collsim run --model-only`.
std::vector<SweepPoint> predict_sweep(const BenchOptions& o, const TopologyConfig& topology,
                                      const std::function<void(const SweepPoint&)>& on_point = {});

// A measured row with its prediction (row.predicted_us) as a point.
SweepPoint sweep_point(const BenchRow& row);

// The fastest algorithm per size, consecutive sizes with the same winner merged.
struct CrossoverRange {
  std::uint64_t from_bytes = 0, to_bytes = 0;
  std::string algorithm;
};
enum class SweepClock : std::uint8_t { predicted, measured };
std::vector<CrossoverRange> crossover(const std::vector<SweepPoint>& points, SweepClock clock);
// "# crossover (predicted): 4 B - 64 KiB: recursive_doubling; 128 KiB - 256 MiB: ring"
std::string format_crossover(const std::vector<SweepPoint>& points, SweepClock clock);

// A point's busbw (nccl-tests' definition, GB/s) on one clock: the measured one is the row's
// own; the predicted one is computed from predicted_us (a measured point's busbw_gbps is the
// measured one). None where that time is missing or not positive, or the point was skipped.
// What `collsim bench --plot` draws (app/views/bench_plot.h).
std::optional<double> sweep_busbw(const BenchOptions& o, const SweepPoint& p, SweepClock clock);

// The busbw-against-size curve of one run (the app's numbers panel, the storyboard's
// busbw.svg): the run's algorithm and, when it is another, the collective's default, predicted
// on the run's topology at the run's own size and at that size times and divided by powers of
// 4, from kSizeCurveMinBytes to kSizeCurveMaxBytes per rank (at most 8 steps either way).
inline constexpr std::uint64_t kSizeCurveMinBytes = 256, kSizeCurveMaxBytes = 1ull << 30;
// A run whose schedule has more transfers than this gets no curve: each point predicts a
// schedule of its size again, and a view waits for them.
inline constexpr std::size_t kSizeCurveMaxTransfers = 20000;
struct SizeCurve {
  BenchOptions options;  // collective, ranks, type, op, the algorithms, the sizes
  std::vector<SweepPoint> points;
  std::vector<CrossoverRange> crossover;  // on the predicted clock
  std::uint64_t run_bytes = 0;            // the run's own size per rank: one of the points
  std::string none;                       // non-empty: why there is no curve
};
// `transfers`: the run's schedule's, for the limit above.
SizeCurve size_curve(const RunRequest& run, const TopologyConfig& topology, std::size_t transfers);

// The model-only table: a header per algorithm, then size count type redop root, the
// predicted time and the predicted algbw and busbw.
std::string format_model_bench_header(const BenchOptions& o, const std::string& topology);
std::string format_model_bench_algorithm_header(const std::string& algorithm);
std::string format_model_bench_row(const BenchOptions& o, const SweepPoint& p);

// Every point as CSV (a header, one row each) and as JSON (docs/timing-model.md).
std::string sweep_csv(const BenchOptions& o, const std::vector<SweepPoint>& points);
std::string sweep_json(const BenchOptions& o, const std::string& topology, const std::vector<SweepPoint>& points);

}  // namespace collsim
