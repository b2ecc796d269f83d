// Schedule build + check at scale: how long building and symbolically checking a ring
// all-reduce takes for 256, 512 and 1024 ranks, and how much memory the process peaks at.
// Target (issue 4): 1024 ranks, about 2.1 million transfers, under 2 s and 1 GiB.
//
//   schedule_bench [ranks ...] [--algorithm NAME] [--count K]
//
// Each rank count is built and checked once, in a fresh schedule (the first call is not
// warmed up: a teacher's `collsim explain` pays exactly this). Peak RSS is the process's
// high-water mark (getrusage ru_maxrss), so it only grows from one row to the next; run a
// single rank count to see its own peak.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithm.h"
#include "sim/check/checker.h"

namespace {

using namespace collsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// User + system CPU seconds of this process so far: unlike wall time, other processes
// competing for the cores (a shared build machine) barely change it.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

void bench(const std::string& algorithm, int ranks, std::uint64_t count) {
  const CollectiveSpec spec{Collective::all_reduce, ranks, count, DataType::f32, ReduceOp::sum, 0};
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  const Schedule s = build_algorithm_schedule(spec, algorithm, {});
  const double build_s = seconds_since(t0);
  const auto t1 = Clock::now();
  const CheckReport report = check_schedule(s);
  const double check_s = seconds_since(t1);
  const double total = build_s + check_s, cpu = cpu_seconds() - cpu0;
  fmt::print("{:>6} {:>10} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>12.2f} {:>10} {:>10.0f}\n", ranks, s.transfers.size(),
             build_s, check_s, total, cpu, static_cast<double>(s.transfers.size()) / total / 1e6,
             report.dependencies.edge_count(), peak_rss_mib());
}

}  // namespace

int main(int argc, char** argv) {
  std::string algorithm = "ring";
  std::uint64_t count = 1u << 20;
  std::vector<int> ranks;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--algorithm" && i + 1 < argc)
      algorithm = argv[++i];
    else if (arg == "--count" && i + 1 < argc)
      count = std::strtoull(argv[++i], nullptr, 10);
    else
      ranks.push_back(std::atoi(arg.c_str()));
  }
  if (ranks.empty()) ranks = {256, 512, 1024};
  fmt::print("all_reduce {}, count {} f32: build + check (wall seconds; cpu = user + system seconds of both), "
             "Mtransfers/s, dependency edges, peak RSS (MiB)\n",
             algorithm, count);
  fmt::print("{:>6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>12} {:>10} {:>10}\n", "ranks", "transfers", "build", "check",
             "total", "cpu", "Mtransfers/s", "edges", "peakRSS");
  for (int n : ranks) bench(algorithm, n, count);
  return 0;
}
