// The CPU benchmark's measurements, as a library so the CLI, the GUI or a script can run
// them. Never used by unit tests to assert timings: speed is judged by ratios against a
// reference measured in the same run (here: the machine's memcpy rate with as many threads).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/run/run.h"
#include "sim/model/topology.h"

namespace collsim {

// The memcpy rate: `threads` threads each copy their own buffer of `bytes_per_thread`
// bytes into another, `iterations` times, all at once; rate = (bytes read + bytes
// written) / time, the way the benchmark counts a collective's data movement. The best
// of `trials` such measurements: a shared machine only ever makes memcpy look slower,
// and a reference that is too low would flatter the engine.
struct MemcpyRate {
  int threads = 0;
  std::uint64_t bytes_per_thread = 0;
  int iterations = 0;
  int trials = 0;
  double gbps = 0;  // 1e9 bytes per second, read + written
};
MemcpyRate measure_memcpy_rate(int threads, std::uint64_t bytes_per_thread, int iterations, int trials = 3);

// Bytes one execution of a schedule reads plus writes. A copy of n bytes reads n and
// writes n; a reduce reads both operands and writes one (3n). Local pre/post operations
// are counted apart: copy 2n, divide 2n, fill_identity and signal n (written only).
struct DataMoved {
  double transfers = 0;
  double local_ops = 0;
  double total() const { return transfers + local_ops; }
};
DataMoved data_moved(const Schedule& s);

struct BenchOptions {
  Collective collective = Collective::all_reduce;
  std::vector<std::string> algorithms{"ring"};
  int ranks = 8;
  std::uint64_t min_bytes = 1024;               // per rank: count * type size
  std::uint64_t max_bytes = 256ull << 20;
  std::uint64_t factor = 2;                     // sizes min, min*f, min*f^2, ... <= max
  DataType dtype = DataType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  AlgorithmOptions algorithm_options;
  int iterations = 20;
  int warmup = 5;
  int threads = 0;  // CPU backend workers and memcpy threads; 0: one per hardware thread
  bool fuse = false;  // CPU backend: fuse forwarding chains (CpuBackendOptions::fuse_forwarding)
  // The backend measured: empty make_backend means the CPU backend with `threads` workers.
  std::string backend_name = "cpu";
  std::function<std::unique_ptr<Backend>()> make_backend;
  // Non-empty: the rate passed as MemcpyRate is another reference (a GPU's device copy
  // ceiling), and this is the header line that says what it is.
  std::string reference_line;
  std::uint64_t seed = 1;
  TopologyConfig topology;  // the timing model's: every row also gets the predicted time (bench_model.h)
  // Across MPI processes (--backend mpi): this process verifies only its own rank, and the
  // wrong elements are summed over every process (every process calls it, in step).
  int only_rank = -1;
  std::function<std::uint64_t(std::uint64_t)> sum_over_processes;
};

// Throws InputError naming the flag (--ranks, -b, -e, -f, --iters, ...) for bad options,
// including an unknown algorithm for the collective. `max_ranks`: kMaxRanks for a measured
// bench, kMaxModelRanks for `--model-only`.
void validate_bench_options(const BenchOptions& o, int max_ranks = kMaxRanks);

// An --algorithms entry: an algorithm's name, or its name with slices of its own
// ("nccl_tree:slices=16"), which win over --slices for it: a pipelined tree beside an
// unsliced ring. InputError naming --algorithms for anything else after the ':'.
struct BenchAlgorithm {
  std::string name;
  int slices = -1;  // -1: --slices's
};
BenchAlgorithm parse_bench_algorithm(std::string_view entry);

// The run one point of the bench measures: `algorithm` (an --algorithms entry) at `count`
// elements per block.
RunRequest bench_request(const BenchOptions& o, const std::string& algorithm, std::uint64_t count);

// The sizes a run measures, in bytes per rank (whole elements only, duplicates dropped).
std::vector<std::uint64_t> bench_sizes(const BenchOptions& o);

// The bytes the whole bench will read and write (data_moved of every point's schedule, for
// its checked run, its warm-ups and its timed iterations): what its time is estimated from
// before it starts (run_estimate.h). Builds every point's schedule.
double bench_data_moved(const BenchOptions& o);

struct BenchRow {
  std::string algorithm;
  std::uint64_t bytes = 0;  // per rank: count * type size
  std::uint64_t count = 0;
  double time_us = 0;       // mean over the timed iterations, pre- through post-operations
  double best_time_us = 0;  // the fastest timed iteration
  std::optional<double> algbw_gbps, busbw_gbps;  // nccl-tests definitions; nullopt at time 0
  std::uint64_t wrong = 0;  // output elements that differ from the reference after the last iteration
  std::optional<double> predicted_us;  // the timing model's time for the run, on BenchOptions::topology
  DataMoved moved;          // per iteration
  double moved_gbps = 0;    // moved.total() / the fastest iteration's time (best vs memcpy's best)
  double memcpy_ratio = 0;  // moved_gbps / the memcpy rate
  double transfer_ratio = 0;  // the same, counting the transfers' bytes only
  std::string skipped;      // non-empty: not run, and why (e.g. not enough memory)
};

struct BenchProgress {
  std::size_t done = 0, total = 0;  // (algorithm, size) points
  std::string algorithm;
  std::uint64_t bytes = 0;
};

struct BenchCallbacks {
  std::function<void(const BenchRow&)> on_row;             // after each measured point
  std::function<void(const BenchProgress&)> on_progress;  // before each point
};

// Measures every algorithm at every size: one checked, verified run (also the first
// warm-up), `warmup - 1` more untimed executions, `iterations` timed ones on the same
// buffers, then verification of the final outputs. A size whose buffers do not fit in
// memory is reported as skipped and the algorithm's larger sizes are skipped too.
std::vector<BenchRow> run_bench(const BenchOptions& o, const MemcpyRate& memcpy_rate, const BenchCallbacks& callbacks = {});

// The nccl-tests-style table: comment lines describing the run and the memcpy rate, then
// per algorithm a column header and one row per size (root is -1 for collectives without
// one, as in nccl-tests).
std::string format_bench_header(const BenchOptions& o, const MemcpyRate& memcpy_rate, const std::string& device);
std::string format_bench_algorithm_header(const std::string& algorithm);
std::string format_bench_row(const BenchOptions& o, const BenchRow& row);

}  // namespace collsim
