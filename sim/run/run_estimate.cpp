#include "sim/run/run_estimate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/check/dependencies.h"
#include "sim/core/errors.h"
#include "sim/model/timing_model.h"
#include "sim/run/bench.h"
#include "sim/run/custom_schedule.h"
#include "sim/schedule/algorithm.h"

namespace collsim {

RunTimeEstimate estimate_cpu_run(const Schedule& s, int threads) { return estimate_cpu_bytes(data_moved(s).total(), threads); }

RunTimeEstimate estimate_cpu_bytes(double bytes, int threads, double measured_gbps) {
  RunTimeEstimate e;
  e.bytes = bytes;
  // Test hook (tests/bad_input): a fixed rate at any size, so that a test's run is long on
  // any machine.
  if (const char* fixed = std::getenv("COLLSIM_TEST_MEMCPY_GBPS"))
    e.memcpy_gbps = std::atof(fixed);
  else if (measured_gbps > 0)
    e.memcpy_gbps = measured_gbps;
  else if (bytes >= kEstimateAboveBytes)
    // 64 MiB per thread, well beyond the caches (with 8 MiB a large last-level cache made
    // memcpy look 5 times faster than a run's traffic); the best of 2 trials of 1 copy each.
    e.memcpy_gbps = measure_memcpy_rate(threads, 64ull << 20, 1, 2).gbps;
  if (e.memcpy_gbps > 0) e.seconds = e.bytes / (e.memcpy_gbps * 1e9);
  return e;
}

std::string describe(const RunTimeEstimate& e) {
  return fmt::format("at least {}: its transfers read and write {} at this machine's memcpy rate of {:.1f} GB/s",
                     format_duration_ns(e.seconds * 1e9), format_bytes(e.bytes), e.memcpy_gbps);
}

void check_run_time(const RunTimeEstimate& e, std::string_view allow_flag, std::string_view smaller) {
  if (e.seconds <= kLongRunSeconds) return;
  throw InputError(fmt::format("this run would take {}; give {} to run it anyway, or {} (--model-only predicts it "
                               "without running)",
                               describe(e), allow_flag, smaller));
}

std::optional<ModelRunEstimate> estimate_model_run(const RunRequest& request, const TopologyConfig& topology) {
  const std::string_view algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  if (request.spec.ranks <= kMaxRanks || algorithm == kCustomAlgorithm) return std::nullopt;
  double transfers[2] = {0, 0}, largest_step[2] = {0, 0}, seconds = 0;
  try {
    for (int k = 0; k < 2; ++k) {
      CollectiveSpec spec = request.spec;
      spec.ranks = kModelProbeRanks[k];
      spec.root = 0;
      const auto start = std::chrono::steady_clock::now();
      const Schedule s = build_schedule(spec, algorithm, request.options, kMaxStreamedRanks);
      const DependencyGraph g = derive_dependencies(s);
      run_model(s, g, topology);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      transfers[k] = static_cast<double>(s.transfers.size());
      for (int step = 0; step < s.step_count(); ++step)
        largest_step[k] = std::max(largest_step[k], static_cast<double>(s.step_first(step + 1) - s.step_first(step)));
    }
  } catch (const std::exception&) {
    return std::nullopt;  // e.g. ranks per node that do not divide a probe's ranks
  }
  if (transfers[0] <= 0 || transfers[1] <= 0) return std::nullopt;
  // transfers ~ N^power: 2 for a ring (2N(N-1)), about 1 for a tree, between for others.
  const double power = std::log(transfers[1] / transfers[0]) / std::log(double(kModelProbeRanks[1]) / kModelProbeRanks[0]);
  ModelRunEstimate e;
  e.ranks = request.spec.ranks;
  e.transfers = transfers[1] * std::pow(double(request.spec.ranks) / kModelProbeRanks[1], power);
  e.streamed = streams_model_run(request);
  e.symmetric_period = symmetric_model_period(request, topology);
  if (e.symmetric_period > 0) {  // the whole model on one period's transfers
    const double held = e.transfers * e.symmetric_period / request.spec.ranks;
    e.seconds = seconds / transfers[1] * held;
    e.bytes = kModelBytesPerTransfer * held + kStreamedBytesPerRank * request.spec.ranks;
    return e;
  }
  if (e.streamed) {
    const double growth = std::pow(std::max(1.0, request.spec.ranks / kStreamedRateRanks), kStreamedRateGrowth);
    e.seconds = seconds / transfers[1] * e.transfers * kStreamedRateAtScale * growth;
    // A streamed model holds whole steps: a step of millions (PAT's first, N^2/2 transfers)
    // costs what the whole model's transfers do.
    const double step_power = std::log(largest_step[1] / largest_step[0]) /
                              std::log(double(kModelProbeRanks[1]) / kModelProbeRanks[0]);
    const double step = largest_step[1] * std::pow(double(request.spec.ranks) / kModelProbeRanks[1], step_power);
    e.bytes = kStreamedBytesBase + kStreamedBytesPerRank * request.spec.ranks + kStreamedStepsHeld * kModelBytesPerTransfer * step;
    return e;
  }
  e.seconds = seconds / transfers[1] * e.transfers * kModelSlowdownAtScale;
  e.bytes = kModelBytesPerTransfer * e.transfers;
  return e;
}

std::string describe(const ModelRunEstimate& e) {
  const double held = e.symmetric_period > 0 ? e.transfers * e.symmetric_period / e.ranks : 0;  // one period's
  const std::string transfers =
      e.transfers >= 1e9 ? fmt::format("{:.3g} G", e.transfers / 1e9) : fmt::format("{:.3g} M", e.transfers / 1e6);
  return fmt::format("about {:.0f} s and {}: about {} transfers{}, extrapolated from the same run at {} and {} ranks",
                     std::max(1.0, e.seconds), format_bytes(e.bytes), transfers,
                     e.symmetric_period > 0
                         ? fmt::format(" predicted from the {} that {}", held < 1e6 ? fmt::format("{:.0f}", held) : fmt::format("{:.3g} M", held / 1e6),
                                       e.symmetric_period == 1 ? std::string("rank 0 sends")
                                                               : fmt::format("ranks 0-{} send", e.symmetric_period - 1))
                     : e.streamed ? " predicted step by step"
                                  : "",
                     kModelProbeRanks[0], kModelProbeRanks[1]);
}

void check_model_memory(const ModelRunEstimate& e, std::uint64_t available_bytes, std::string_view limit) {
  if (available_bytes == 0 || e.bytes <= static_cast<double>(available_bytes)) return;
  throw InputError(fmt::format("--model-only: this prediction needs {} ({}), more than the {} available ({}): give fewer "
                               "--ranks or an algorithm with fewer transfers (a tree's grow as N log N, a ring's as N^2)",
                               format_bytes(e.bytes), describe(e), format_bytes(double(available_bytes)), limit));
}

}  // namespace collsim
