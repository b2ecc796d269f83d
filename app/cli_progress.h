// Progress on stderr for the commands that take a while (`bench`, `run` on a lesson).
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace collsim::cli {

// Shows progress on stderr once the command has taken more than a second: one line
// rewritten in place (\r) on a terminal, plain lines otherwise (logs, CI). Cleared before
// the command prints on stdout, so that a table there stays intact on a terminal.
class ProgressLine {
 public:
  ProgressLine() : tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

  void show(const std::string& text) {
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

}  // namespace collsim::cli
