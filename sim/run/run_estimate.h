// How long a run will take, said before it starts (issue 21: "limits before the work"). A
// collective's execution on the CPU moves data_moved(schedule) bytes (reads plus writes);
// it cannot go faster than the machine's memcpy, so that rate gives a lower bound that
// holds on any machine. `collsim run` refuses a run whose bound is above kLongRunSeconds
// unless --allow-long is given, says the bound of a run over a few seconds, and shows
// progress while it runs.
#pragma once
#include <string>
#include <string_view>

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

}  // namespace collsim
