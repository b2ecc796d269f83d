// At most one "yes" per interval, from any number of threads, without a lock: the progress
// hooks that the CPU backend's workers call after every transfer (the CLI's progress line,
// the app's bar) report only this often.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>

namespace collsim {

class Throttle {
 public:
  explicit Throttle(std::chrono::steady_clock::duration every) : every_(every.count()) {}

  // True for the first call, then for the first call after each interval; else false.
  bool due() {
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::int64_t next = next_.load(std::memory_order_relaxed);
    return now >= next && next_.compare_exchange_strong(next, now + every_);
  }

 private:
  std::int64_t every_;  // steady_clock ticks
  std::atomic<std::int64_t> next_{0};
};

}  // namespace collsim
