// The CPU engine runs each transfer once its dependencies are done: no barrier between steps.
#include <doctest/doctest.h>

#include <algorithm>

#include <numeric>

#include <mutex>

#include <atomic>
#include <cstring>
#include <chrono>
#include <thread>

#include "sim/run/run.h"
#include "sim/exec/mpi_backend.h"
#include "sim/exec/value_history.h"
#include "sim/core/errors.h"
#include "kernels/reduce_functors.h"

using namespace collsim;

namespace {

// Every transfer that depends on `root`, directly or through others.
std::vector<bool> dependants_of(const DependencyGraph& g, std::size_t root) {
  std::vector<bool> reached(g.size(), false);
  reached[root] = true;
  for (std::size_t t = root + 1; t < g.size(); ++t)  // dependencies always point backwards
    for (std::uint32_t d : g.dependencies_of(t))
      if (reached[d]) reached[t] = true;
  reached[root] = false;
  return reached;
}

}  // namespace

TEST_CASE("a delayed transfer holds up only its dependants") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 6, 6000, DataType::f32, ReduceOp::sum, 0};
  req.algorithm = "ring";
  const std::size_t delayed = 0;  // step 1: rank 0 sends chunk 0 to rank 1
  auto backend = make_cpu_backend({.threads = 2, .before_transfer = [&](std::size_t i) {
                                     if (i == delayed) std::this_thread::sleep_for(std::chrono::milliseconds(300));
                                   },
                                   .should_stop = {}, .after_transfer = {}});
  const RunResult r = run_collective(req, *backend);
  REQUIRE(r.verification.ok);
  const std::vector<bool> waits = dependants_of(r.dependencies, delayed);
  const TransferTiming& slow = r.execution.timings[delayed];
  int dependants = 0, others = 0;
  for (std::size_t t = 0; t < r.schedule.transfers.size(); ++t) {
    if (t == delayed) continue;
    const TransferTiming& x = r.execution.timings[t];
    if (waits[t]) {
      ++dependants;
      CHECK(x.begin_ns >= slow.end_ns);
    } else {
      ++others;
      CHECK(x.end_ns <= slow.end_ns);  // the free worker ran them while the delayed one slept
    }
  }
  // A ring chunk's whole journey depends on its first hop; the other chunks do not.
  CHECK(dependants > 0);
  CHECK(others > 0);
  CHECK(slow.begin_ns >= 300'000'000);  // the hook slept before the transfer began
}

TEST_CASE("the progress hook counts every transfer once, up to the schedule's total") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 6, 600, DataType::f32, ReduceOp::sum, 0};
  req.algorithm = "ring";
  std::mutex m;
  std::vector<std::size_t> seen;
  std::size_t total_seen = 0;
  auto backend = make_cpu_backend({.threads = 2,
                                   .before_transfer = {},
                                   .should_stop = {},
                                   .after_transfer = [&](std::size_t done, std::size_t total) {
                                     const std::lock_guard lock(m);
                                     seen.push_back(done);
                                     total_seen = total;
                                   }});
  const RunResult r = run_collective(req, *backend);
  REQUIRE(r.verification.ok);
  CHECK(total_seen == r.schedule.transfers.size());
  std::sort(seen.begin(), seen.end());
  std::vector<std::size_t> every(r.schedule.transfers.size());
  std::iota(every.begin(), every.end(), std::size_t{1});
  CHECK(seen == every);  // 1, 2, ..., total: each count once
}

TEST_CASE("every transfer is recorded with a worker and ordered times") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 5, 1001, DataType::bf16, ReduceOp::avg, 0};
  req.algorithm = "parameter_server";
  req.options.servers = 2;
  auto backend = make_cpu_backend({.threads = 3, .before_transfer = {}, .should_stop = {}, .after_transfer = {}});
  const RunResult r = run_collective(req, *backend);
  REQUIRE(r.verification.ok);
  REQUIRE(r.execution.timings.size() == r.schedule.transfers.size());
  for (std::size_t t = 0; t < r.schedule.transfers.size(); ++t) {
    const TransferTiming& x = r.execution.timings[t];
    CHECK(x.begin_ns <= x.end_ns);
    CHECK(x.end_ns <= r.execution.total_ns);
    CHECK(x.worker >= 0);
    CHECK(x.worker < 3);
    for (std::uint32_t d : r.dependencies.dependencies_of(t)) CHECK(r.execution.timings[d].end_ns <= x.begin_ns);
  }
}

TEST_CASE("a stopped execution skips the transfers not yet started and says so") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 8, 4096, DataType::f32, ReduceOp::sum, 0};
  RunResult run = prepare_run(req);
  std::atomic<std::size_t> started{0};
  const std::size_t stop_after = 5;
  auto backend = make_cpu_backend({.threads = 2,
                                   .before_transfer = [&](std::size_t) { ++started; },
                                   .should_stop = [&] { return started.load() >= stop_after; }, .after_transfer = {}});
  CHECK_THROWS_AS(execute_run(run, *backend), ExecutionStopped);
  // Two workers may each pass the check once more before they see the other's start.
  CHECK(started.load() >= stop_after);
  CHECK(started.load() <= stop_after + 2);
  CHECK(started.load() < run.schedule.transfers.size());

  // Without a stop, the same backend options run every transfer and verify.
  started = 0;
  auto unstopped = make_cpu_backend({.threads = 2, .before_transfer = [&](std::size_t) { ++started; }, .should_stop = {}, .after_transfer = {}});
  CHECK(run_collective(req, *unstopped).verification.ok);
  CHECK(started.load() == run.schedule.transfers.size());
}

TEST_CASE("verification catches a wrong result") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 4, 100, DataType::i32, ReduceOp::sum, 0};
  RunResult r = run_collective(req, *make_cpu_backend());
  REQUIRE(r.verification.ok);
  r.buffers[2].output[4 * 17] ^= std::byte{1};  // flip one bit of rank 2, element 17
  const Verification v = verify_outputs(r.schedule, r.buffers);
  CHECK_FALSE(v.ok);
  CHECK(v.mismatches == 1);
  CHECK(v.first_mismatch.find("rank 2 output[17]") != std::string::npos);
}

TEST_CASE("inputs are deterministic per (seed, rank, index) and prod inputs stay near 1") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 10, DataType::f32, ReduceOp::prod, 0};
  CHECK(input_value(spec, 1, 2, 3) == input_value(spec, 1, 2, 3));
  CHECK(input_value(spec, 1, 2, 3) != input_value(spec, 2, 2, 3));
  for (int i = 0; i < 1000; ++i) {
    const double v = input_value(spec, 5, i % 7, static_cast<std::uint64_t>(i));
    CHECK(v >= 1.0 - 1.0 / 64);
    CHECK(v <= 1.0 + 1.0 / 64);
  }
}

TEST_CASE("the value history replays a run bit for bit: its final numbers are the backend's outputs") {
  // f16 with inputs whose sums round (2048 + 1 + ...), so a different order would show.
  for (const AlgorithmInfo& algo : all_algorithms()) {
    if (algo.collective != Collective::all_reduce && algo.collective != Collective::reduce_scatter) continue;
    for (const int ranks : {3, 4, 5}) {
      CAPTURE(algo.name);
      CAPTURE(ranks);
      RunRequest r;
      r.spec.collective = algo.collective;
      r.spec.ranks = ranks;
      r.spec.count = 7;
      r.spec.dtype = DataType::f16;
      r.spec.op = ReduceOp::avg;
      r.algorithm = std::string(algo.name);
      r.input_values = {2048, 1, 3};
      RunResult run;
      try {
        run = run_collective(r, *make_cpu_backend());
      } catch (const InputError&) {
        continue;  // the algorithm does not take this rank count (a power of two only)
      }
      REQUIRE(run.verification.ok);
      const ValueHistory values = ValueHistory::record(run.schedule, r.seed, r.input_values);
      for (int rank = 0; rank < ranks; ++rank) {
        const std::span<const std::byte> out = output_after_run(run, rank);
        for (std::uint64_t e = 0; e < out.size() / 2; ++e) {
          f16 x;
          std::memcpy(&x, out.data() + 2 * e, 2);
          const Region at = storage_of(run.schedule, {rank, BufferKind::output, e, 1});
          CHECK(values.value(at.rank, at.buffer, at.offset, values.transfer_count(), true) ==
                static_cast<double>(to_float(x)));
        }
      }
    }
  }
}

TEST_CASE("fused forwarding chains: the same bits, one chain per ring chunk, records spanning the chain") {
  for (int n : {2, 3, 8}) {
    for (DataType dt : {DataType::f32, DataType::bf16, DataType::i64}) {
      CAPTURE(n);
      CAPTURE(static_cast<int>(dt));
      RunRequest req;
      req.spec = {Collective::all_reduce, n, 100003, dt, ReduceOp::sum, 0};  // chunks of many tiles, uneven
      req.algorithm = "ring";
      auto plain = make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {}});
      auto fused = make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {},
                                     .fuse_forwarding = true});
      const RunResult a = run_collective(req, *plain), b = run_collective(req, *fused);
      REQUIRE(a.verification.ok);
      REQUIRE(b.verification.ok);
      CHECK(a.execution.fused_transfers == 0);
      for (int r = 0; r < n; ++r) CHECK(a.buffers[static_cast<std::size_t>(r)].output == b.buffers[static_cast<std::size_t>(r)].output);
      // Chunk c's 2(N-1) transfers (its reduce-scatter hops, then its all-gather copies,
      // which also wait for the reduce-scatter's read of their destinations) wait only for
      // each other: one chain per chunk.
      CHECK(b.execution.fused_transfers == b.schedule.transfers.size() - static_cast<std::size_t>(n));
      // A fused transfer ran with its chain: it may begin before its predecessor ends, but
      // never before that one begins.
      for (std::size_t t = 0; t < b.schedule.transfers.size(); ++t)
        for (std::uint32_t d : b.dependencies.dependencies_of(t))
          CHECK(b.execution.timings[d].begin_ns <= b.execution.timings[t].begin_ns);
    }
  }
  // Nothing to fuse where no transfer forwards another's destination whole (direct).
  RunRequest direct;
  direct.spec = {Collective::all_reduce, 4, 1000, DataType::f32, ReduceOp::sum, 0};
  direct.algorithm = "direct";
  auto fused = make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {},
                                 .fuse_forwarding = true});
  const RunResult r = run_collective(direct, *fused);
  CHECK(r.verification.ok);
  CHECK(r.execution.fused_transfers == 0);
}

TEST_CASE("an MPI failure is an MpiError: the sentence names the rank and the call, and the fields keep them") {
  const MpiError e(2, "MPI_Waitsome", 17, "MPI_ERR_TRUNCATE: message truncated");
  CHECK(std::string(e.what()) == "rank 2: MPI_Waitsome failed: MPI_ERR_TRUNCATE: message truncated");
  CHECK(e.rank == 2);
  CHECK(e.call == "MPI_Waitsome");
  CHECK(e.code == 17);
  CHECK(e.text == "MPI_ERR_TRUNCATE: message truncated");
  const std::runtime_error& as_runtime = e;  // front ends that catch runtime_error still print it
  CHECK(std::string(as_runtime.what()).starts_with("rank 2: "));
}
