// The benchmark's bookkeeping (sizes, bytes moved, rows, bad options). Never its timings:
// speed is measured by `collsim bench`, not asserted by unit tests.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "sim/run/bench.h"
#include "sim/run/bench_model.h"
#include "sim/run/run.h"
#include "sim/run/run_estimate.h"
#include "sim/core/errors.h"

using namespace collsim;

TEST_CASE("bench sizes go from -b to -e by -f, in whole elements") {
  BenchOptions o;
  o.min_bytes = 1024;
  o.max_bytes = 4096;
  CHECK(bench_sizes(o) == std::vector<std::uint64_t>{1024, 2048, 4096});
  o.min_bytes = 6;  // f32: 6 bytes hold one whole element
  o.max_bytes = 30;
  CHECK(bench_sizes(o) == std::vector<std::uint64_t>{4, 12, 24});
  o.min_bytes = o.max_bytes = 64ull << 20;
  CHECK(bench_sizes(o) == std::vector<std::uint64_t>{64ull << 20});
  o.min_bytes = 0;
  o.max_bytes = 8;
  CHECK(bench_sizes(o) == std::vector<std::uint64_t>{0, 4, 8});
}

TEST_CASE("data moved counts a copy as 2n bytes, a reduce as 3n, local operations apart") {
  // Ring all-reduce, 4 ranks, 8 f32: 12 reduce-copies (two reads, one write) and 12 copies
  // of 2 elements (8 bytes), and no local operations: nothing is copied into the output first.
  const Schedule s = build_schedule({Collective::all_reduce, 4, 8, DataType::f32, ReduceOp::sum, 0, false}, "ring", {});
  const DataMoved m = data_moved(s);
  CHECK(m.transfers == 12 * 8 * 3 + 12 * 8 * 2);
  CHECK(m.local_ops == 0);
  CHECK(m.total() == m.transfers + m.local_ops);
  // The ring all-gather copies each rank's input into its block of the output first (4 x 32
  // bytes, read and written).
  const Schedule d = build_schedule({Collective::all_gather, 4, 8, DataType::f32, ReduceOp::sum, 0, false}, "ring", {});
  CHECK(data_moved(d).local_ops == 4 * 32 * 2);
}

TEST_CASE("a run's time estimate is its data moved at the memcpy rate, refused above ten minutes") {
  RunRequest small;
  small.spec = {Collective::all_reduce, 4, 1024, DataType::f32, ReduceOp::sum, 0};
  small.algorithm = "ring";
  const RunResult r = prepare_model_run(small);
  const RunTimeEstimate e = estimate_cpu_run(r.schedule, 1);
  CHECK(e.bytes == data_moved(r.schedule).total());
  CHECK(e.bytes < kEstimateAboveBytes);
  CHECK(e.memcpy_gbps == 0);  // too small to be worth measuring
  CHECK(e.seconds == 0);
  CHECK_NOTHROW(check_run_time(e, "--allow-long"));

  // Above 1 GB moved the rate is measured (its value is the machine's: not asserted) and
  // the bound follows from it. The schedule alone: nothing of the run is allocated.
  const Schedule big = build_schedule({Collective::all_reduce, 8, 64ull << 20, DataType::f32, ReduceOp::sum, 0, false}, "ring", {});
  const RunTimeEstimate b = estimate_cpu_run(big, 1);
  CHECK(b.bytes > kEstimateAboveBytes);
  REQUIRE(b.memcpy_gbps > 0);
  CHECK(b.seconds == doctest::Approx(b.bytes / (b.memcpy_gbps * 1e9)));

  const RunTimeEstimate slow{.bytes = 1e12, .memcpy_gbps = 1, .seconds = 1000};
  CHECK_THROWS_WITH_AS(check_run_time(slow, "--allow-long"),
                       doctest::Contains("give --allow-long to run it anyway"), InputError);
  CHECK(describe(slow).find("at this machine's memcpy rate of 1.0 GB/s") != std::string::npos);
  CHECK_NOTHROW(check_run_time({.bytes = 1e12, .memcpy_gbps = 2000, .seconds = 0.5}, "--allow-long"));
}

TEST_CASE("a bench's time is estimated from every point's data, each run 1 + warm-ups + iterations times") {
  BenchOptions o;
  o.ranks = 4;
  o.algorithms = {"ring", "direct"};
  o.min_bytes = 1024;
  o.max_bytes = 4096;
  o.warmup = 2;
  o.iterations = 3;
  double want = 0;
  for (const char* algorithm : {"ring", "direct"})
    for (std::uint64_t bytes : {1024u, 2048u, 4096u})
      want += 6.0 * data_moved(build_schedule({Collective::all_reduce, 4, bytes / 4, DataType::f32, ReduceOp::sum, 0},
                                              algorithm, {}))
                        .total();
  CHECK(bench_data_moved(o) == want);
  // A rate measured already (the bench's reference) is taken as it is, at any size.
  const RunTimeEstimate e = estimate_cpu_bytes(want, 1, 2.0);
  CHECK(e.memcpy_gbps == 2.0);
  CHECK(e.seconds == doctest::Approx(want / 2e9));
}

TEST_CASE("a tiny bench run gives one verified row per algorithm and size") {
  BenchOptions o;
  o.algorithms = {"ring", "direct"};
  o.ranks = 3;
  o.min_bytes = 64;
  o.max_bytes = 128;
  o.iterations = 1;
  o.warmup = 0;
  o.threads = 2;
  int rows_seen = 0, progress_seen = 0;
  const auto rows = run_bench(o, MemcpyRate{2, 1, 1, 1, 10.0},
                              {[&](const BenchRow&) { ++rows_seen; }, [&](const BenchProgress&) { ++progress_seen; }});
  REQUIRE(rows.size() == 4);
  CHECK(rows_seen == 4);
  CHECK(progress_seen == 4);
  for (const BenchRow& r : rows) {
    CHECK(r.skipped.empty());
    CHECK(r.wrong == 0);
    CHECK(r.count * 4 == r.bytes);
    CHECK(r.moved.transfers > 0);
  }
  CHECK(rows[0].algorithm == "ring");
  CHECK(rows[3].algorithm == "direct");
  CHECK(rows[3].bytes == 128);
  CHECK(format_bench_row(o, rows[0]).find("   64 ") != std::string::npos);
}

namespace {

// The CPU backend, but every execution reports a total time of 0 ns: a clock too coarse
// for the run, which must give no bandwidth rather than an infinite one.
class ZeroTimeBackend : public Backend {
 public:
  std::string name() const override { return "zero-time"; }
  std::string device_name() const override { return "test"; }
  Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& buffers) override {
    Execution e = cpu_->execute(s, deps, buffers);
    e.total_ns = 0;
    return e;
  }

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend({.threads = 1, .before_transfer = {}, .should_stop = {}, .after_transfer = {}});
};

BenchOptions tiny_bench(Collective c, const std::string& algorithm) {
  BenchOptions o;
  o.collective = c;
  o.algorithms = {algorithm};
  o.ranks = 3;
  o.min_bytes = o.max_bytes = 64;
  o.iterations = 2;
  o.warmup = 0;
  o.threads = 1;
  if (c == Collective::barrier) {  // a barrier's tokens: i32 max
    o.dtype = DataType::i32;
    o.op = ReduceOp::max;
  }
  return o;
}

}  // namespace

TEST_CASE("a bench row timed at 0 ns has no algbw or busbw (not an infinite one)") {
  BenchOptions o = tiny_bench(Collective::all_reduce, "ring");
  o.make_backend = [] { return std::make_unique<ZeroTimeBackend>(); };
  const auto rows = run_bench(o, MemcpyRate{1, 1, 1, 1, 10.0});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].skipped.empty());
  CHECK(rows[0].time_us == 0);
  CHECK_FALSE(rows[0].algbw_gbps);
  CHECK_FALSE(rows[0].busbw_gbps);
  // The same point on the real CPU backend does get one, so the check above can fail.
  o.make_backend = nullptr;
  const auto timed = run_bench(o, MemcpyRate{1, 1, 1, 1, 10.0});
  REQUIRE(timed.size() == 1);
  REQUIRE(timed[0].time_us > 0);
  CHECK(timed[0].algbw_gbps);
}

TEST_CASE("a bench row of a barrier has no algbw or busbw, as its run summary has none") {
  const auto rows = run_bench(tiny_bench(Collective::barrier, "dissemination"), MemcpyRate{1, 1, 1, 1, 10.0});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].skipped.empty());
  CHECK(rows[0].time_us > 0);
  CHECK_FALSE(rows[0].algbw_gbps);
  CHECK_FALSE(rows[0].busbw_gbps);
}

TEST_CASE("bad bench options are refused naming the flag") {
  const auto error = [](BenchOptions o) -> std::string {
    try {
      validate_bench_options(o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  BenchOptions o;
  o.algorithms = {"ring", "rong"};
  CHECK(error(o).starts_with("--algorithms: unknown algorithm 'rong'"));
  o = {};
  o.min_bytes = 2048;
  o.max_bytes = 1024;
  CHECK(error(o).starts_with("-b/--minbytes"));
  o = {};
  o.iterations = 0;
  CHECK(error(o).starts_with("--iters"));
  o = {};
  o.ranks = 0;
  CHECK(error(o).find("--ranks") != std::string::npos);
}

// An --algorithms entry may carry its own slices ("nccl_tree:slices=16"): a pipelined tree
// beside an unsliced ring (lesson 22's comparison). Each point is that algorithm's run with
// those slices, whatever --slices says for the others; its rows keep the entry as their name.
TEST_CASE("an algorithm's own slices in a bench win over --slices for it alone") {
  BenchOptions o;
  o.ranks = 8;
  o.min_bytes = o.max_bytes = 64 << 10;
  o.algorithms = {"ring", "nccl_tree:slices=4"};
  o.algorithm_options.slices = 2;
  REQUIRE_NOTHROW(validate_bench_options(o));
  const RunRequest tree = bench_request(o, "nccl_tree:slices=4", 16384);
  CHECK(tree.algorithm == "nccl_tree");
  CHECK(tree.options.slices == 4);
  CHECK(bench_request(o, "ring", 16384).options.slices == 2);
  TopologyConfig t;
  const std::vector<SweepPoint> points = predict_sweep(o, t);
  REQUIRE(points.size() == 2);
  CHECK(points[1].algorithm == "nccl_tree:slices=4");
  RunRequest alone = tree;
  RunResult r = prepare_model_run(alone);
  predict_run(r, t);
  CHECK(points[1].predicted_us == doctest::Approx(r.model->prediction.total_ns / 1000));
  for (const char* bad : {"nccl_tree:16", "nccl_tree:slices=", "nccl_tree:slices=x", "nccl_tree:chunks=2"}) {
    o.algorithms = {bad};
    CHECK_THROWS_WITH_AS(validate_bench_options(o), doctest::Contains("only ':slices=S' may follow"), InputError);
  }
  o.algorithms = {"nccl_tre:slices=4"};
  CHECK_THROWS_WITH_AS(validate_bench_options(o), doctest::Contains("unknown algorithm 'nccl_tre'"), InputError);
}
