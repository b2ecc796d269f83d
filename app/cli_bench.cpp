#include "app/cli_bench.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "sim/bench.h"
#include "sim/errors.h"

namespace collsim::cli {
namespace {

std::uint64_t bytes_flag(std::string_view flag, const std::string& text) {
  const auto n = parse_count(text);
  if (!n) throw InputError(fmt::format("{}: '{}' is not a size in bytes (an integer, optionally with K, M or G)", flag, text));
  return *n;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

BenchOptions to_options(const BenchFlags& f) {
  if (f.backend != "cpu" && f.backend != "auto")
    throw InputError(fmt::format("--backend {}: the benchmark runs on the CPU backend only (use --backend cpu)", f.backend));
  BenchOptions o;
  const auto collective = parse_collective(f.collective);
  if (!collective) throw InputError(fmt::format("--collective: unknown collective '{}' (see `collsim list`)", f.collective));
  const auto dtype = parse_data_type(f.dtype);
  if (!dtype) throw InputError(fmt::format("--dtype: unknown data type '{}' (use f32 f64 f16 bf16 i32 i64)", f.dtype));
  const auto op = parse_reduce_op(f.op);
  if (!op) throw InputError(fmt::format("--op: unknown reduce op '{}' (use sum prod min max avg)", f.op));
  o.collective = *collective;
  o.dtype = *dtype;
  o.op = *op;
  o.algorithms = split_list(f.algorithms);
  o.ranks = f.ranks;
  o.root = f.root;
  o.min_bytes = bytes_flag("-b/--minbytes", f.min_bytes);
  o.max_bytes = bytes_flag("-e/--maxbytes", f.max_bytes);
  o.factor = f.factor;
  o.iterations = f.iterations;
  o.warmup = f.warmup;
  o.threads = f.threads;
  o.algorithm_options.slices = f.slices;
  o.algorithm_options.servers = f.servers;
  o.algorithm_options.colocated = f.colocated;
  o.algorithm_options.ranks_per_node = f.ranks_per_node;
  validate_bench_options(o);
  return o;
}

// Shows progress on stderr once a run has taken more than a second: one line rewritten
// in place (\r) on a terminal, plain lines otherwise (logs, CI). Cleared before each row
// so that the table on stdout stays intact on a terminal.
class ProgressLine {
 public:
  ProgressLine() : tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

  void show(const BenchProgress& p) {
    if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
    const std::string text = fmt::format("bench: {}/{}: {} at {} per rank ...", p.done + 1, p.total, p.algorithm,
                                         format_bytes(static_cast<double>(p.bytes)));
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

}  // namespace

int command_bench(const BenchFlags& flags) {
  const BenchOptions o = to_options(flags);
  // The reference in the same run, with the engine's thread count: memcpy's rate, best
  // of 5 trials of 10 copies of 64 MiB per thread (far larger than any cache).
  const MemcpyRate memcpy_rate = measure_memcpy_rate(o.threads, 64ull << 20, 10, 5);
  const std::string device = make_cpu_backend({.threads = o.threads, .before_transfer = {}})->device_name();
  fmt::print("{}", format_bench_header(o, memcpy_rate, device));
  std::fflush(stdout);
  ProgressLine progress;
  std::string current;
  std::uint64_t wrong = 0;
  BenchCallbacks callbacks;
  callbacks.on_progress = [&](const BenchProgress& p) { progress.show(p); };
  callbacks.on_row = [&](const BenchRow& row) {
    progress.clear();
    if (row.algorithm != current) fmt::print("{}", format_bench_algorithm_header(current = row.algorithm));
    fmt::print("{}", format_bench_row(o, row));
    std::fflush(stdout);
    wrong += row.wrong;
  };
  run_bench(o, memcpy_rate, callbacks);
  progress.clear();
  fmt::print("# wrong output elements in all: {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  return wrong == 0 ? 0 : 1;
}

}  // namespace collsim::cli
