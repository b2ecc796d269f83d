#include "sim/run/run_estimate.h"

#include <cstdlib>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/run/bench.h"

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

}  // namespace collsim
