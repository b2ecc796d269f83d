// Progress on stderr for the commands that take a while (`bench`, `run` on a lesson, a long `run`).
#pragma once
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstdio>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/core/throttle.h"

namespace collsim::cli {

// Whether progress may rewrite one line in place (\r) and come more often.
inline bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

// Shows progress on stderr once the command has taken more than a second: one line
// rewritten in place (\r) on a terminal, plain lines otherwise (logs, CI). Cleared before
// the command prints on stdout, so that a table there stays intact on a terminal.
class ProgressLine {
 public:
  ProgressLine() : tty_(stderr_is_terminal()), start_(std::chrono::steady_clock::now()) {}

  void show(const std::string& text) {
#ifdef __EMSCRIPTEN__
    // None in the live page's WebAssembly CLI: the command runs on the page's one thread,
    // which draws nothing until it ends, and emscripten hands the page whole lines only (a
    // line rewritten in place stayed in its buffer and opened the next run's error text).
    (void)text;
    return;
#endif
    if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
    if (tty_) {
      fmt::print(stderr, "\r{:<70}", text);
      shown_ = true;
    } else {
      fmt::print(stderr, "{}\n", text);
    }
    std::fflush(stderr);
  }
  void clear() {
    if (!shown_) return;
    fmt::print(stderr, "\r{:<70}\r", "");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// A long computation that reports no count (building, checking and predicting a 4096-rank
// schedule): a thread says the current stage and the seconds spent, from one second on,
// every second on a terminal and every ten in a log, until the object is destroyed.
class StageProgress {
 public:
  explicit StageProgress(std::string stage) : stage_(std::move(stage)) {
    ticker_ = std::thread([this] { tick(); });
  }
  StageProgress(const StageProgress&) = delete;
  StageProgress& operator=(const StageProgress&) = delete;
  ~StageProgress() {
    {
      const std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    ticker_.join();
    line_.clear();
  }
  void stage(std::string text) {
    const std::lock_guard lock(mutex_);
    stage_ = std::move(text);
  }

 private:
  void tick() {
    const auto start = std::chrono::steady_clock::now();
    const auto every = stderr_is_terminal() ? std::chrono::seconds(1) : std::chrono::seconds(10);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, every, [this] { return done_; })) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      line_.show(fmt::format("{} ({:.0f} s) ...", stage_, seconds));
    }
  }

  std::string stage_;
  bool done_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  ProgressLine line_;
  std::thread ticker_;
};

// A long run's transfers done, from whichever CPU worker finished one (CpuBackendOptions::
// after_transfer): shown at most four times a second on a terminal and every ten seconds
// in a log; thread-safe, and cheap when there is nothing to show.
class TransferProgress {
 public:
  explicit TransferProgress(std::string what)
      : what_(std::move(what)), throttle_(stderr_is_terminal() ? std::chrono::milliseconds(250) : std::chrono::seconds(10)) {}

  void operator()(std::size_t done, std::size_t total) {
    if (!throttle_.due()) return;
    const std::lock_guard lock(mutex_);
    line_.show(fmt::format("{}: {}/{} transfers ({:.0f} %) ...", what_, done, total, 100.0 * static_cast<double>(done) / static_cast<double>(total)));
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    line_.clear();
  }

 private:
  std::string what_;
  Throttle throttle_;
  std::mutex mutex_;
  ProgressLine line_;
};

}  // namespace collsim::cli
