// The timing model at scale: a model-only ring all-reduce, as `collsim run --model-only`
// does it — build the schedule, check it symbolically (up to 1024 ranks; above, only derive
// the dependency graph), predict on a switch — for 1024 and 4096 ranks.
// Targets (issue 5): 1024 ranks (about 2.1 million transfers) under 2 s; 4096 ranks (about
// 33.5 million) under 60 s and 8 GiB. Reports transfers simulated per second.
//
//   model_bench [ranks ...] [--algorithm NAME] [--topology KIND]
//
// Each rank count runs once, cold, in a fresh schedule. Peak RSS is the process's
// high-water mark (getrusage ru_maxrss): run one rank count alone to see its own peak.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/run/run.h"

namespace {

using namespace collsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// User + system seconds of the process so far: on a shared machine the wall time also
// counts the time other processes held the cores.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void bench(const std::string& algorithm, int ranks, const TopologyConfig& topology) {
  RunRequest request;
  request.spec = {Collective::all_reduce, ranks, 1u << 20, DataType::f32, ReduceOp::sum, 0, false};
  request.algorithm = algorithm;
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  RunResult r = prepare_model_run(request);  // build + check (or derive dependencies above 1024 ranks)
  const double prepare_s = seconds_since(t0);
  const auto t1 = Clock::now();
  predict_run(r, topology);
  const double predict_s = seconds_since(t1), total_s = prepare_s + predict_s, cpu_s = cpu_seconds() - cpu0;
  const double transfers = static_cast<double>(r.schedule.transfers.size());
  fmt::print("{:>6} {:>10} {:>9.3f} {:>6} {:>9.3f} {:>9.3f} {:>9.3f} {:>12.2f} {:>12.2f} {:>12.1f} {:>10.0f}\n", ranks,
             r.schedule.transfers.size(), prepare_s, r.check_skipped ? "no" : "yes", predict_s, total_s, cpu_s,
             transfers / predict_s / 1e6, transfers / total_s / 1e6, r.model->prediction.total_ns / 1e3, peak_rss_mib());
}

}  // namespace

int main(int argc, char** argv) {
  std::string algorithm = "ring";
  TopologyConfig topology;
  std::vector<int> ranks;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--algorithm" && i + 1 < argc) {
      algorithm = argv[++i];
    } else if (arg == "--topology" && i + 1 < argc) {
      const auto kind = parse_topology_kind(argv[++i]);
      if (!kind) return std::fprintf(stderr, "model_bench: unknown topology '%s'\n", argv[i]), 2;
      topology.kind = *kind;
    } else {
      ranks.push_back(std::atoi(arg.c_str()));
    }
  }
  if (ranks.empty()) ranks = {1024, 4096};
  fmt::print("all_reduce {}, count 1M f32, model only on {}: wall seconds (cpu: user + system), Mtransfers/s, "
             "predicted time, peak RSS\n",
             algorithm, to_string(topology.kind));
  fmt::print("{:>6} {:>10} {:>9} {:>6} {:>9} {:>9} {:>9} {:>12} {:>12} {:>12} {:>10}\n", "ranks", "transfers",
             "prepare", "check", "predict", "total", "cpu", "Mxfer/s pred", "Mxfer/s all", "predicted us", "peakRSS MiB");
  for (int n : ranks) bench(algorithm, n, topology);
  return 0;
}
