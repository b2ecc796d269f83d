#include "sim/run/bench.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <thread>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {
namespace {

using Clock = std::chrono::steady_clock;

int resolve_threads(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The first "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

// The 1-minute load average: a benchmark on a busy machine says so.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  return in >> one ? one : std::string("unknown");
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double local_op_bytes(const Schedule& s, const LocalOp& op) {
  const double n = static_cast<double>(op.target.count * dtype_size(s.spec.dtype));
  switch (op.kind) {
    case LocalOpKind::copy:
    case LocalOpKind::divide: return 2 * n;  // read and write
    case LocalOpKind::fill_identity:
    case LocalOpKind::signal: return n;  // write only
  }
  return 0;
}

std::string algorithm_names(Collective c) {
  std::string names;
  for (const AlgorithmInfo& a : all_algorithms())
    if (a.collective == c) names.append(names.empty() ? "" : ", ").append(a.name);
  return names;
}


// The ranks, root and algorithm options are valid iff a small schedule builds.
void validate_algorithm(const BenchOptions& o, const std::string& entry, int max_ranks) {
  const std::string name = parse_bench_algorithm(entry).name;
  if (!find_algorithm(o.collective, name))
    throw InputError(fmt::format("--algorithms: unknown algorithm '{}' for {} (available: {})", name,
                                 to_string(o.collective), algorithm_names(o.collective)));
  const RunRequest r = bench_request(o, entry, 1);
  // --model-only: each algorithm up to its own limit (model_rank_limit: more where it streams).
  const int limit = max_ranks > kMaxRanks ? std::min(max_ranks, model_rank_limit(o.collective, name)) : max_ranks;
  // Above kMaxModelRanks only a streamed run is allowed, and building even an empty ring
  // there would walk its 2N(N-1) places: the request's own checks are enough.
  if (o.ranks > kMaxModelRanks) return validate_request(r.spec, find_algorithm(o.collective, name), r.options, limit);
  build_schedule(r.spec, r.algorithm, r.options, limit);
}

// One (algorithm, size) point: see run_bench.
BenchRow measure_point(const BenchOptions& o, const std::string& algorithm, std::uint64_t bytes, Backend& backend,
                       const MemcpyRate& memcpy_rate) {
  BenchRow row;
  row.algorithm = algorithm;
  row.count = bytes / dtype_size(o.dtype);
  row.bytes = row.count * dtype_size(o.dtype);
  const RunRequest request = bench_request(o, algorithm, row.count);
  RunResult run = prepare_run(request);  // checked
  execute_run(run, backend, o.only_rank);  // and verified: the first warm-up
  predict_run(run, o.topology);
  row.predicted_us = run.model->prediction.total_ns / 1e3;
  backend.execute_repeatedly(run.schedule, run.dependencies, run.buffers, o.warmup);
  double total_s = 0, best_s = std::numeric_limits<double>::infinity();
  // Each iteration's time as the backend measured it, pre- through post-operations. On a
  // device that leaves out copying the buffers to and from the host, which
  // execute_repeatedly does once around all the iterations.
  for (const Execution& ex : backend.execute_repeatedly(run.schedule, run.dependencies, run.buffers, o.iterations)) {
    const double s = static_cast<double>(ex.total_ns) * 1e-9;
    total_s += s;
    best_s = std::min(best_s, s);
  }
  // Inputs are never written and the checker proved every output is rewritten by each
  // execution, so the final outputs must still match the reference.
  row.wrong = verify_outputs(run.schedule, run.buffers, input_bytes(run.schedule, run.buffers), o.only_rank).mismatches;
  if (o.sum_over_processes) row.wrong = o.sum_over_processes(row.wrong);
  const double time_s = total_s / o.iterations;
  row.time_us = time_s * 1e6;
  row.best_time_us = best_s * 1e6;
  row.moved = data_moved(run.schedule);
  const Bandwidth bw = bandwidth(request.spec, time_s * 1e9);
  row.algbw_gbps = bw.algbw_gbps;
  row.busbw_gbps = bw.busbw_gbps;
  // Best against best: memcpy's rate is its fastest trial, so the engine's rate is its
  // fastest iteration. Another process's load only ever slows either one down, and
  // comparing a mean with a best would blame that load on the engine.
  if (best_s > 0) row.moved_gbps = row.moved.total() / best_s / 1e9;
  if (memcpy_rate.gbps > 0 && best_s > 0) {
    row.memcpy_ratio = row.moved_gbps / memcpy_rate.gbps;
    row.transfer_ratio = row.moved.transfers / best_s / 1e9 / memcpy_rate.gbps;
  }
  return row;
}

}  // namespace

MemcpyRate measure_memcpy_rate(int threads, std::uint64_t bytes_per_thread, int iterations, int trials) {
  threads = resolve_threads(threads);
  iterations = std::max(1, iterations);
  trials = std::max(1, trials);
  const auto n = static_cast<std::size_t>(bytes_per_thread);
  std::vector<std::unique_ptr<std::byte[]>> src(static_cast<std::size_t>(threads)), dst(src.size());
  std::barrier sync(threads + 1);
  MemcpyRate rate{threads, bytes_per_thread, iterations, trials, 0};
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < src.size(); ++t)
    pool.emplace_back([&, t] {
      // Each thread touches its own pages first, so they are mapped (and NUMA-local)
      // before the clock starts; one untimed copy warms up.
      src[t] = std::make_unique<std::byte[]>(n);
      dst[t] = std::make_unique<std::byte[]>(n);
      std::memset(src[t].get(), static_cast<int>(t + 1), n);
      std::memcpy(dst[t].get(), src[t].get(), n);
      for (int trial = 0; trial < trials; ++trial) {
        sync.arrive_and_wait();
        for (int i = 0; i < iterations; ++i) std::memcpy(dst[t].get(), src[t].get(), n);
        sync.arrive_and_wait();
      }
    });
  for (int trial = 0; trial < trials; ++trial) {
    sync.arrive_and_wait();  // every thread is ready: start the clock
    const auto start = Clock::now();
    sync.arrive_and_wait();  // every thread is done
    const double seconds = seconds_since(start);
    if (seconds > 0) rate.gbps = std::max(rate.gbps, 2.0 * static_cast<double>(n) * threads * iterations / seconds / 1e9);
  }
  for (std::thread& worker : pool) worker.join();
  return rate;
}

DataMoved data_moved(const Schedule& s) {
  DataMoved m;
  for (const Transfer& t : s.transfers)
    m.transfers += static_cast<double>(s.bytes(t)) * (t.action == Action::copy ? 2 : 3);
  for (const LocalOp& op : s.pre_ops) m.local_ops += local_op_bytes(s, op);
  for (const LocalOp& op : s.post_ops) m.local_ops += local_op_bytes(s, op);
  return m;
}

void validate_bench_options(const BenchOptions& o, int max_ranks) {
  if (o.algorithms.empty()) throw InputError("--algorithms: give at least one algorithm");
  if (o.min_bytes > o.max_bytes)
    throw InputError(fmt::format("-b/--minbytes ({}) must not exceed -e/--maxbytes ({})", o.min_bytes, o.max_bytes));
  if (o.factor < 2 && o.min_bytes != o.max_bytes)
    throw InputError(fmt::format("-f/--stepfactor must be at least 2, got {}", o.factor));
  if (o.iterations < 1) throw InputError(fmt::format("--iters must be at least 1, got {}", o.iterations));
  if (o.warmup < 0) throw InputError(fmt::format("--warmup must not be negative, got {}", o.warmup));
  if (o.threads < 0) throw InputError(fmt::format("--threads must not be negative, got {}", o.threads));
  for (const std::string& a : o.algorithms) validate_algorithm(o, a, max_ranks);
}

BenchAlgorithm parse_bench_algorithm(std::string_view entry) {
  const std::size_t colon = entry.find(':');
  BenchAlgorithm a{std::string(entry.substr(0, colon))};
  if (colon == std::string_view::npos) return a;
  const std::string_view option = entry.substr(colon + 1);
  constexpr std::string_view key = "slices=";
  const std::string_view digits = option.starts_with(key) ? option.substr(key.size()) : std::string_view();
  if (digits.empty() || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError(fmt::format("--algorithms: '{}': after the algorithm's name only ':slices=S' may follow (S slices "
                                 "per chunk for it alone, e.g. nccl_tree:slices=16)",
                                 entry));
  a.slices = std::stoi(std::string(digits));
  return a;
}

RunRequest bench_request(const BenchOptions& o, const std::string& algorithm, std::uint64_t count) {
  RunRequest r;
  r.spec.collective = o.collective;
  r.spec.ranks = o.ranks;
  r.spec.count = count;
  r.spec.dtype = o.dtype;
  r.spec.op = o.op;
  r.spec.root = o.root;
  const BenchAlgorithm a = parse_bench_algorithm(algorithm);
  r.algorithm = a.name;
  r.options = o.algorithm_options;
  if (a.slices >= 0) r.options.slices = a.slices;
  r.seed = o.seed;
  return r;
}

std::vector<std::uint64_t> bench_sizes(const BenchOptions& o) {
  const std::uint64_t elem = dtype_size(o.dtype);
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = o.min_bytes; b <= o.max_bytes;) {
    const std::uint64_t whole = b / elem * elem;
    if (sizes.empty() || sizes.back() != whole) sizes.push_back(whole);
    if (o.factor < 2 || b > o.max_bytes / o.factor) break;  // the next size would pass max (or overflow)
    b = b == 0 ? 1 : b * o.factor;
  }
  return sizes;
}

double bench_data_moved(const BenchOptions& o) {
  double total = 0;
  const double executions = 1.0 + o.warmup + o.iterations;
  for (const std::string& algorithm : o.algorithms)
    for (std::uint64_t bytes : bench_sizes(o)) {
      const RunRequest r = bench_request(o, algorithm, bytes / dtype_size(o.dtype));
      total += data_moved(build_schedule(r.spec, r.algorithm, r.options)).total() * executions;
    }
  return total;
}

std::vector<BenchRow> run_bench(const BenchOptions& o, const MemcpyRate& memcpy_rate, const BenchCallbacks& callbacks) {
  validate_bench_options(o);
  const std::vector<std::uint64_t> sizes = bench_sizes(o);
  std::unique_ptr<Backend> backend =
      o.make_backend ? o.make_backend() : make_cpu_backend({.threads = resolve_threads(o.threads), .before_transfer = {}, .should_stop = {}, .after_transfer = {},
                                                         .fuse_forwarding = o.fuse});
  std::vector<BenchRow> rows;
  BenchProgress progress{0, sizes.size() * o.algorithms.size(), {}, 0};
  for (const std::string& algorithm : o.algorithms) {
    std::string skip_reason;
    for (std::uint64_t bytes : sizes) {
      progress.algorithm = algorithm;
      progress.bytes = bytes;
      if (callbacks.on_progress) callbacks.on_progress(progress);
      ++progress.done;
      BenchRow row;
      std::string skipped = skip_reason.empty() ? "" : "larger than a size that did not fit";
      if (skip_reason.empty()) {
        try {
          row = measure_point(o, algorithm, bytes, *backend, memcpy_rate);
        } catch (const InputError& e) {  // prepare_run refuses buffers that do not fit
          skipped = skip_reason = e.what();
        } catch (const std::bad_alloc&) {
          skipped = skip_reason = "out of memory";
        }
      }
      if (!skipped.empty()) {
        row = {};
        row.algorithm = algorithm;
        row.count = bytes / dtype_size(o.dtype);
        row.bytes = bytes;
        row.skipped = skipped;
      }
      if (callbacks.on_row) callbacks.on_row(row);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string format_bench_header(const BenchOptions& o, const MemcpyRate& m, const std::string& device) {
  const std::vector<std::uint64_t> sizes = bench_sizes(o);
  std::string out = fmt::format("# collsim bench: {} on {} ranks, {} {}, backend {}: {}\n", to_string(o.collective),
                                o.ranks, to_string(o.dtype), to_string(o.op), o.backend_name, device);
  out += fmt::format("# machine: {}, {} hardware threads, load average {} (1 min) at the start\n", cpu_model(),
                     std::thread::hardware_concurrency(), load_average());
  out += fmt::format("# sizes {} to {} bytes per rank (x{}); per size: 1 checked run, {} warm-up, {} timed iterations\n",
                     sizes.empty() ? 0 : sizes.front(), sizes.empty() ? 0 : sizes.back(), o.factor, o.warmup,
                     o.iterations);
  if (!o.reference_line.empty())  // another reference, e.g. the device copy ceiling of a GPU run
    out += "# " + o.reference_line + "\n";
  else
    out += fmt::format("# memcpy rate: {:.2f} GB/s (bytes read + written; {} threads, each copying its own {} buffer "
                       "{} times; best of {} trials)\n",
                       m.gbps, m.threads, format_bytes(static_cast<double>(m.bytes_per_thread)), m.iterations, m.trials);
  out += fmt::format("# predicted = the timing model's time (docs/timing-model.md) on {}\n",
                     describe(make_topology(o.topology, o.ranks, o.ranks)));
  out += "# time = mean of the timed iterations (algbw, busbw use it); best = the fastest one\n"
         "# moved = bytes read + written per iteration (copy 2n, reduce 3n, local ops included; local = their share)\n"
         "# rate = moved / best (best vs memcpy's best); %memcpy = rate / memcpy rate; %xfer = the same, transfers only\n";
  if (o.fuse)
    out += "# --fuse: forwarding chains run fused, tile by tile on one worker (their partial sums read back from cache; "
           "moved still counts every transfer's reads and writes)\n";
  return out;
}

std::string format_bench_algorithm_header(const std::string& algorithm) {
  std::string header = fmt::format(
      "#\n# algorithm: {}\n"
      "# {:>10} {:>12} {:>5} {:>6} {:>5} {:>11} {:>11} {:>8} {:>8} {:>7} {:>11} {:>12} {:>6} {:>8} {:>8} {:>6}\n"
      "# {:>10} {:>12} {:>5} {:>6} {:>5} {:>11} {:>11} {:>8} {:>8} {:>7} {:>11} {:>12} {:>6} {:>8} {:>8} {:>6}\n",
      algorithm, "size", "count", "type", "redop", "root", "predicted", "time", "algbw", "busbw", "#wrong", "best",
      "moved", "local", "rate", "%memcpy", "%xfer", "(B)", "(elements)", "", "", "", "(us)", "(us)", "(GB/s)", "(GB/s)",
      "", "(us)", "(B)", "(%)", "(GB/s)", "", "");
  // The units line has empty trailing columns: no trailing blanks.
  const auto units_end = header.find_last_not_of(' ', header.size() - 2);
  return header.erase(units_end + 1, header.size() - units_end - 2);
}

std::string format_bench_row(const BenchOptions& o, const BenchRow& r) {
  const int root = collective_has_root(o.collective) ? o.root : -1;
  std::string out = fmt::format("  {:>10} {:>12} {:>5} {:>6} {:>5}", r.bytes, r.count, to_string(o.dtype),
                                to_string(o.op), root);
  if (!r.skipped.empty()) return out + "  skipped: " + r.skipped + "\n";
  const auto gbps = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string("n/a"); };
  const double local_share = r.moved.total() > 0 ? 100 * r.moved.local_ops / r.moved.total() : 0;
  return out + fmt::format(" {:>11.2f} {:>11.1f} {:>8} {:>8} {:>7} {:>11.1f} {:>12.0f} {:>6.1f} {:>8.2f} {:>8.1f} {:>6.1f}\n",
                           r.predicted_us.value_or(0), r.time_us, gbps(r.algbw_gbps), gbps(r.busbw_gbps), r.wrong, r.best_time_us, r.moved.total(),
                           local_share, r.moved_gbps, 100 * r.memcpy_ratio, 100 * r.transfer_ratio);
}

}  // namespace collsim
