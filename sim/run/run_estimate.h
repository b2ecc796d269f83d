// How long a run will take, said before it starts (issue 21: "limits before the work"). A
// collective's execution on the CPU moves data_moved(schedule) bytes (reads plus writes);
// it cannot go faster than the machine's memcpy, so that rate gives a lower bound that
// holds on any machine. `collsim run` refuses a run whose bound is above kLongRunSeconds
// unless --allow-long is given, says the bound of a run over a few seconds, and shows
// progress while it runs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/model/topology.h"
#include "sim/run/run.h"
#include "sim/schedule/schedule.h"

namespace collsim {

struct RunTimeEstimate {
  double bytes = 0;        // read plus written by the transfers and local operations
  double memcpy_gbps = 0;  // measured, 1e9 bytes per second; 0 when not measured
  double seconds = 0;      // bytes at that rate: at least this long; 0 when not measured
};

// Runs that move less than this are not worth the memcpy measurement (under a second anywhere).
inline constexpr double kEstimateAboveBytes = 1e9;
// A run estimated longer than this (10 minutes) is refused without --allow-long.
inline constexpr double kLongRunSeconds = 600;
// A run estimated longer than this says so and shows progress.
inline constexpr double kSayEstimateSeconds = 5;

// The schedule's bytes; above kEstimateAboveBytes the memcpy rate with `threads` threads
// (0: one per hardware thread) is measured, briefly (about 0.1 s), and the bound computed.
RunTimeEstimate estimate_cpu_run(const Schedule& s, int threads = 0);
// The same for `bytes` moved by several runs (a lesson's collectives, a bench's points);
// `measured_gbps` > 0: a memcpy rate measured already (the bench's reference), used as it is.
RunTimeEstimate estimate_cpu_bytes(double bytes, int threads = 0, double measured_gbps = 0);
// What a user can change instead, for a single run.
inline constexpr std::string_view kSmallerRun = "fewer --ranks, a smaller --count or another --algorithm";
// InputError above kLongRunSeconds, with the estimate and what to do: `allow_flag`, or
// `smaller` (what makes the work smaller: kSmallerRun for a run).
void check_run_time(const RunTimeEstimate& e, std::string_view allow_flag, std::string_view smaller = kSmallerRun);
// "at least 82 s: its transfers read and write 822 GB at this machine's memcpy rate of 10.0 GB/s".
std::string describe(const RunTimeEstimate& e);

// --- --model-only at many ranks ------------------------------------------------------------
// Above kMaxRanks a model-only run builds, derives and predicts millions of transfers (a ring
// all-reduce at 4096 ranks: 33.5 M), and holds them all at once. Before it starts, the same
// request is built and predicted at kModelProbeRanks[0] and [1] ranks (a tenth of a second),
// and the transfers, the seconds and the memory are extrapolated from them: transfers by the
// power of N the two probes show, seconds at the larger probe's rate per transfer times
// kModelSlowdownAtScale, bytes at kModelBytesPerTransfer.
inline constexpr int kModelProbeRanks[2] = {128, 256};
// Peak resident bytes per transfer of a model-only run predicted whole: its schedule,
// dependencies (both ways), predicted times and each message's lanes and cost. Measured: ring
// all-reduce at 4096 ranks predicted whole, 5.05 GiB for 33.5 M transfers (162 bytes a
// transfer since each message keeps its cost; docs/performance.md, issue 37 session 5).
inline constexpr double kModelBytesPerTransfer = 165;
// A transfer costs more in a schedule of millions (out of the caches) than in a probe's: the
// ring at 3000 and 4096 ranks took 1.56 and 1.43 times the probe's rate (docs/performance.md).
inline constexpr double kModelSlowdownAtScale = 1.5;

// A streamed run (streams_model_run in run.h) holds a few batches of steps, not the
// schedule: its seconds are the probe's rate per transfer times kStreamedRateAtScale (below
// 1: the generation and the derivation overlap the simulation on a second thread, and a
// batch's derivation is cheaper than the probe's whole one; measured 0.31 at 4096 ranks,
// 0.30 at 16 384 and 0.29 at 32 768), its memory kStreamedBytesBase (the batches of 2^18
// transfers, their copies and dependencies, the threads' stacks and heaps: peak RSS 0.13,
// 0.14 and 0.17 GB at 4096, 16 384 and 32 768 ranks, peak address space 0.35 GB at 16 384
// and 0.39 GB at 65 536) plus kStreamedBytesPerRank per rank (the topology's lanes, each
// batch's pieces per buffer). Ring all-reduce; docs/performance.md. Above
// kStreamedRateRanks a transfer costs more as N grows (its steps' pieces outgrow the caches):
// the factor grows as (N / kStreamedRateRanks)^kStreamedRateGrowth, fitted to 32 768 ranks
// (841 s where 0.5 said 703 s, before issue 37's fifth session; 264 s where 0.3 says 273 s
// after it); 65 536 is extrapolated.
inline constexpr double kStreamedRateAtScale = 0.3;
inline constexpr double kStreamedRateRanks = 16384;
inline constexpr double kStreamedRateGrowth = 0.26;
inline constexpr double kStreamedBytesBase = 0.4e9;
inline constexpr double kStreamedBytesPerRank = 2e3;
// ... plus its largest step's transfers (extrapolated from the probes as the transfers are)
// kStreamedStepsHeld times at the whole model's bytes: a step is generated, derived and
// simulated whole. Nothing for a ring's steps of N; PAT's reduce-scatter, whose first step
// holds N^2/2 transfers, took 24 GB at 16 384 ranks (134 M transfers in that step, 180 bytes
// each; docs/performance.md, issue 37 session 6), where the estimate without it said 0.4 GB.
inline constexpr double kStreamedStepsHeld = 1.5;

struct ModelRunEstimate {
  double transfers = 0;  // extrapolated
  double seconds = 0;    // to build, derive and predict them
  double bytes = 0;      // peak memory
  bool streamed = false;  // predicted step by step (streams_model_run)
  // Predicted from one period of its ranks (symmetric_model_period in run.h): the whole
  // model on transfers × period / ranks, kModelBytesPerTransfer each, plus
  // kStreamedBytesPerRank per rank (the steps' labels, the topology's lanes): 85 MB measured
  // for a 65 536-rank ring on a switch, 220 MB on nodes of 8 (docs/performance.md).
  int symmetric_period = 0;
  int ranks = 0;
};

// Nullopt when the request is not one to extrapolate: at most kMaxRanks ranks, a hand-written
// schedule, or an algorithm whose probes cannot be built (their error is not the run's: the
// run says its own).
std::optional<ModelRunEstimate> estimate_model_run(const RunRequest& request, const TopologyConfig& topology);
// "about 29 s and 3.7 GB: about 33.5 M transfers, extrapolated from the same run at 128 and 256 ranks".
std::string describe(const ModelRunEstimate& e);
// InputError when the estimate's memory is more than this machine has available, naming the
// limit and what to do.
void check_model_memory(const ModelRunEstimate& e, std::uint64_t available_bytes, std::string_view limit);

}  // namespace collsim
