// Broadcast, reduce, gather, scatter, barrier and send_recv: every algorithm x ranks 1..17
// (1..9 at COLLSIM_TEST_SCALE=small, test_support.h) x counts x data types (x ops where the collective reduces) x roots, through the checker
// and against the host reference; the in-place layouts; barriers proved and a broken one
// rejected; step and byte counts against the textbook (Thakur, Rabenseifner & Gropp 2005).
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "sim/schedule/schedule_builder.h"
#include "test_support.h"

using namespace collsim;
using collsim::testing::cpu;
using collsim::testing::outputs_of;
using collsim::testing::sweep_large_count;
using collsim::testing::sweep_max_ranks;

namespace {

// run_collective checks the schedule (throwing ScheduleError) before it runs it.
void run_and_verify(const RunRequest& req) {
  INFO(to_string(req.spec.collective), " ", req.algorithm, " N=", req.spec.ranks, " count=", req.spec.count, " ",
       to_string(req.spec.dtype), " ", to_string(req.spec.op), " root=", req.spec.root, " in_place=", req.spec.in_place,
       " slices=", req.options.slices);
  const RunResult r = run_collective(req, cpu());
  REQUIRE_MESSAGE(r.verification.ok, r.verification.first_mismatch);
  CHECK(r.verification.checked == outputs_of(r.schedule));
}

// Roots 0, N-1 and one in the middle.
std::set<int> roots_for(int ranks) { return {0, ranks / 2, ranks - 1}; }

struct Sweep {
  Collective collective;
  std::string algorithm;
  std::vector<std::uint64_t> counts = {0, 1, 7, 1000};
  bool in_place = false;
  AlgorithmOptions options = {};
};

// Reducing collectives: every data type x every op. Copy-only: one type per element size.
void sweep(const Sweep& w) {
  const bool reduces = collective_reduces(w.collective);
  const std::vector<DataType> types = reduces
                                          ? std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes))
                                          : std::vector<DataType>{DataType::f16, DataType::f32, DataType::f64};
  const std::vector<ReduceOp> ops = reduces ? std::vector<ReduceOp>(std::begin(kAllReduceOps), std::end(kAllReduceOps))
                                            : std::vector<ReduceOp>{ReduceOp::sum};
  const int max_ranks = sweep_max_ranks();
  for (int ranks = 1; ranks <= max_ranks; ++ranks)
    for (int root : roots_for(ranks))
      for (std::uint64_t count : w.counts)
        for (DataType dtype : types)
          for (ReduceOp op : ops) {
            RunRequest req;
            req.spec = {w.collective, ranks, count, dtype, op, root, w.in_place};
            req.algorithm = w.algorithm;
            req.options = w.options;
            req.seed = static_cast<std::uint64_t>(ranks * 7919 + root * 31) + count;
            run_and_verify(req);
          }
}

// The large count 65 537 (prime, so no block or slice divides evenly; 4 099 at the small
// scale): every rank count and the three roots, but, to keep the suite fast, only one data type per element size
// with sum, plus i32 min for reductions (every type x op runs at counts up to 1000).
void large_sweep(Collective c, std::string_view algorithm, bool in_place = false) {
  std::vector<std::pair<DataType, ReduceOp>> kinds = {
      {DataType::f16, ReduceOp::sum}, {DataType::f32, ReduceOp::sum}, {DataType::f64, ReduceOp::sum}};
  if (collective_reduces(c)) kinds.push_back({DataType::i32, ReduceOp::min});
  const int max_ranks = sweep_max_ranks();
  const std::uint64_t count = sweep_large_count();
  for (int ranks = 1; ranks <= max_ranks; ++ranks)
    for (int root : roots_for(ranks))
      for (auto [dtype, op] : kinds) {
        RunRequest req;
        req.spec = {c, ranks, count, dtype, op, root, in_place};
        req.algorithm = std::string(algorithm);
        run_and_verify(req);
      }
}

// Every registered algorithm of `c`, with its default options: a new algorithm is swept
// without editing this file.
void sweep_every(Collective c, std::vector<std::uint64_t> counts = {0, 1, 7, 1000}, bool in_place = false) {
  int algorithms = 0;
  for (const AlgorithmInfo& a : all_algorithms())
    if (a.collective == c) {
      INFO(to_string(c), " ", a.name);
      sweep({c, std::string(a.name), counts, in_place});
      ++algorithms;
    }
  CHECK(algorithms >= 1);
}

}  // namespace

TEST_CASE("sweep: broadcast, every algorithm") { sweep_every(Collective::broadcast); }
TEST_CASE("sweep: broadcast chain, 1 and 3 slices") {
  sweep({.collective = Collective::broadcast, .algorithm = "chain", .options = {.slices = 1}});
  sweep({.collective = Collective::broadcast, .algorithm = "chain", .options = {.slices = 3}});
}
TEST_CASE("sweep: reduce, every algorithm") { sweep_every(Collective::reduce); }
TEST_CASE("sweep: gather, every algorithm") { sweep_every(Collective::gather); }
TEST_CASE("sweep: scatter, every algorithm") { sweep_every(Collective::scatter); }
TEST_CASE("sweep: send_recv, every algorithm") { sweep_every(Collective::send_recv); }
TEST_CASE("sweep: barriers, every algorithm (count, type and op do not apply)") {
  sweep_every(Collective::barrier, {0, 1000});
}

TEST_CASE("sweep: in place — broadcast and reduce, every algorithm, all_reduce ring") {
  sweep_every(Collective::broadcast, {0, 1, 7, 1000}, true);
  sweep_every(Collective::reduce, {0, 1, 7, 1000}, true);
  sweep({.collective = Collective::all_reduce, .algorithm = "ring", .in_place = true});
  sweep({.collective = Collective::all_reduce, .algorithm = "ring", .in_place = true, .options = {.slices = 2}});
}

TEST_CASE("large prime count (65 537, or 4 099 small): every algorithm here but the barriers, every rank count, three roots") {
  for (const AlgorithmInfo& a : all_algorithms())
    if (collective_has_root(a.collective) && a.collective != Collective::barrier) large_sweep(a.collective, a.name);
  large_sweep(Collective::broadcast, "scatter_allgather", true);
  large_sweep(Collective::reduce, "ring", true);
}

TEST_CASE("in place: input and output share storage, and the reference sees the inputs from before the run") {
  RunRequest req;
  req.spec = {Collective::all_reduce, 5, 100, DataType::i32, ReduceOp::sum, 0, true};
  req.algorithm = "ring";
  const RunResult r = run_collective(req, cpu());
  REQUIRE(r.verification.ok);
  CHECK(r.buffers[2].input.empty());  // the inner buffer of the alias has no storage
  CHECK(r.buffers[2].output.size() == 400);
  // input_before_run (what --dump writes) is the input as filled, not the result.
  for (int rank = 0; rank < 5; ++rank)
    for (std::uint64_t i : {0u, 57u, 99u}) {
      std::int32_t x;
      std::memcpy(&x, input_before_run(r, rank).data() + 4 * i, 4);
      CHECK(x == static_cast<std::int32_t>(input_value(req.spec, req.seed, rank, i)));
    }
  // Out of place nothing is saved: the inputs were never written.
  req.spec.in_place = false;
  CHECK(run_collective(req, cpu()).inputs_before.empty());
}

TEST_CASE("in place: NCCL's layouts for all_gather and reduce_scatter") {
  const CollectiveSpec ag{Collective::all_gather, 4, 10, DataType::f32, ReduceOp::sum, 0, true};
  const Schedule s = build_schedule(ag, "ring", {});
  CHECK(storage_of(s, {2, BufferKind::input, 3, 4}) == Region{2, BufferKind::output, 23, 4});
  CHECK(storage_elements(s, 2, BufferKind::input) == 0);
  CHECK(may_write(s, {2, BufferKind::input, 0, 10}));
  const CollectiveSpec rs{Collective::reduce_scatter, 4, 10, DataType::f32, ReduceOp::sum, 0, true};
  const Schedule t = build_schedule(rs, "ring", {});
  CHECK(storage_of(t, {3, BufferKind::output, 0, 10}) == Region{3, BufferKind::input, 30, 10});
  CHECK(may_write(t, {3, BufferKind::input, 30, 10}));
  CHECK_FALSE(may_write(t, {3, BufferKind::input, 20, 10}));  // another rank's block stays read-only
  // reduce: only the root holds both buffers, so only the root aliases them.
  const Schedule u = build_schedule({Collective::reduce, 4, 10, DataType::f32, ReduceOp::sum, 1, true}, "direct", {});
  CHECK(in_place_alias(u, 1).has_value());
  CHECK_FALSE(in_place_alias(u, 0).has_value());
}

TEST_CASE("in place: all_gather and reduce_scatter ring prove the block-r layouts") {
  for (Collective c : {Collective::all_gather, Collective::reduce_scatter})
    for (int ranks = 1; ranks <= 9; ++ranks)
      for (std::uint64_t count : {0u, 1u, 7u, 100u})
        for (auto [dtype, op] : {std::pair{DataType::f32, ReduceOp::sum}, std::pair{DataType::i32, ReduceOp::max}}) {
          RunRequest req;
          req.spec = {c, ranks, count, dtype, op, 0, true};
          req.algorithm = "ring";
          run_and_verify(req);
        }
}

TEST_CASE("in place: the checker rejects a schedule that reads a buffer another transfer overwrites") {
  // Each rank reduces the other's input into its own output — fine out of place, but in
  // place rank 0's output IS its input, read by the other transfer of the same step.
  const CollectiveSpec spec{Collective::all_reduce, 2, 1, DataType::f32, ReduceOp::sum, 0, true};
  ScheduleBuilder b(spec, "hand-made");
  b.step("exchange");
  b.reduce(1, {1, BufferKind::input, 0, 1}, {0, BufferKind::output, 0, 1});
  b.reduce(0, {0, BufferKind::input, 0, 1}, {1, BufferKind::output, 0, 1});
  std::string msg;
  try {
    check_schedule(std::move(b).finish());
  } catch (const ScheduleError& e) {
    msg = e.what();
  }
  CHECK(msg.find("reads what an earlier transfer of the same step writes") != std::string::npos);
  CHECK(msg.find("in place: the input and the output share storage") != std::string::npos);
  // The same schedule out of place is correct.
  ScheduleBuilder o({Collective::all_reduce, 2, 1, DataType::f32, ReduceOp::sum, 0}, "hand-made");
  for (int r = 0; r < 2; ++r) o.pre_copy({r, BufferKind::input, 0, 1}, {r, BufferKind::output, 0, 1});
  o.step("exchange");
  o.reduce(1, {1, BufferKind::input, 0, 1}, {0, BufferKind::output, 0, 1});
  o.reduce(0, {0, BufferKind::input, 0, 1}, {1, BufferKind::output, 0, 1});
  CHECK_NOTHROW(check_schedule(std::move(o).finish()));
}

TEST_CASE("in place: unsupported collectives are refused naming --in-place") {
  for (auto case_ :
       {std::pair{Collective::gather, "direct"}, std::pair{Collective::scatter, "direct"},
        std::pair{Collective::send_recv, "ring_shift"}, std::pair{Collective::barrier, "dissemination"}}) {
    const Collective c = case_.first;  // not bound: INFO captures it (clang 14)
    const char* a = case_.second;
    INFO(to_string(c));
    CHECK_THROWS_WITH_AS(build_schedule({c, 4, 8, DataType::f32, ReduceOp::sum, 0, true}, a, {}),
                         doctest::Contains("--in-place"), InputError);
  }
}

TEST_CASE("bad combinations are refused: an algorithm of another collective, a root outside the ranks") {
  CHECK_THROWS_WITH_AS(build_schedule({Collective::broadcast, 4, 8, DataType::f32, ReduceOp::sum, 0}, "bruck", {}),
                       doctest::Contains("unknown algorithm 'bruck' for broadcast"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule({Collective::reduce, 4, 8, DataType::f32, ReduceOp::sum, 4}, "ring", {}),
                       doctest::Contains("--root must be a rank in 0..3"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule({Collective::gather, 4, 8, DataType::f32, ReduceOp::sum, -1}, "direct", {}),
                       doctest::Contains("--root"), InputError);
}

TEST_CASE("send_recv: direct holds buffers on the root and root+1 only, to_previous on the root and root-1, ring_shift on every rank") {
  const CollectiveSpec spec{Collective::send_recv, 5, 8, DataType::f32, ReduceOp::sum, 4};
  const Schedule d = build_schedule(spec, "direct", {});
  for (int r = 0; r < 5; ++r) {
    CHECK(d.buffer_elements(r, BufferKind::input) == (r == 4 ? 8u : 0u));
    CHECK(d.buffer_elements(r, BufferKind::output) == (r == 0 ? 8u : 0u));
  }
  const Schedule back = build_schedule(spec, "to_previous", {});
  for (int r = 0; r < 5; ++r) {
    CHECK(back.buffer_elements(r, BufferKind::input) == (r == 4 ? 8u : 0u));
    CHECK(back.buffer_elements(r, BufferKind::output) == (r == 3 ? 8u : 0u));
  }
  const Schedule s = build_schedule(spec, "ring_shift", {});
  for (int r = 0; r < 5; ++r) {
    CHECK(s.buffer_elements(r, BufferKind::input) == 8);
    CHECK(s.buffer_elements(r, BufferKind::output) == 8);
  }
}

TEST_CASE("barrier: tokens are zero-byte signals, and a barrier that misses one rank is rejected") {
  const CollectiveSpec spec{Collective::barrier, 6, 1000, DataType::f64, ReduceOp::prod, 0};
  for (const char* a : {"dissemination", "binomial_tree"}) {
    Schedule s = build_schedule(spec, a, {});
    CHECK(s.spec.count == 0);
    CHECK(s.spec.dtype == DataType::i32);
    for (std::uint64_t b : bytes_sent_per_rank(s)) CHECK(b == 0);
    CHECK_NOTHROW(check_schedule(s));  // dissemination: the last round repeats signals, allowed
    // Drop the first signal that rank 5 sends: its arrival never reaches anyone.
    const auto it = std::find_if(s.transfers.begin(), s.transfers.end(),
                                 [](const Transfer& t) { return t.src == 5 && !t.is_local(); });
    REQUIRE(it != s.transfers.end());
    s.transfers.erase(it);
    std::string msg;
    try {
      check_schedule(s);
    } catch (const ScheduleError& e) {
      msg = e.what();
    }
    INFO(a, ": ", msg);
    CHECK(msg.find("lacks rank 5's") != std::string::npos);
    CHECK(msg.find("scratch[") != std::string::npos);
  }
  // The summary has no bandwidth for a barrier.
  CHECK_FALSE(bandwidth(build_schedule(spec, "dissemination", {}).spec, 1000).algbw_gbps.has_value());
}

TEST_CASE("barrier: a token that reaches a rank twice is fine, but data reduced twice is not") {
  // Dissemination on 3 ranks: round 2 brings rank r's own signal back to it.
  const Schedule s = build_schedule({Collective::barrier, 3, 0, DataType::i32, ReduceOp::max, 0}, "dissemination", {});
  CHECK_NOTHROW(check_schedule(s));
  CHECK(run_collective({.spec = s.spec, .algorithm = "dissemination", .options = {}}, cpu()).verification.ok);
}

namespace {

// n: bytes of the whole vector (broadcast, reduce, send_recv: the buffer; gather: the
// result; scatter: the input). Expected bytes sent by root-relative rank v.
struct Row {
  Collective collective;
  const char* algorithm;
  AlgorithmOptions options;
  std::function<int(int N)> steps;
  std::function<double(int N, int v, double n)> bytes;
};

int lg(int n) { return std::bit_width(static_cast<unsigned>(n - 1)); }
int lowbit(int v) { return v & -v; }

const std::vector<Row>& textbook() {
  static const std::vector<Row> rows = {
      {Collective::broadcast,
       "binomial_tree",
       {},
       [](int N) { return lg(N); },
       [](int N, int v, double n) {  // one send per child: v < 2^k sends in rounds k..lg N - 1
         int children = 0;
         for (int d = 1; d < N; d *= 2) children += v < d ? 1 : 0;
         return children * n;
       }},
      {Collective::broadcast,
       "chain",
       {.slices = 5},
       [](int N) { return N - 2 + 5; },
       [](int N, int v, double n) { return v == N - 1 ? 0 : n; }},
      {Collective::broadcast,
       "chain",
       {},
       [](int N) { return N - 2 + N; },  // default S = N
       [](int N, int v, double n) { return v == N - 1 ? 0 : n; }},
      {Collective::broadcast,
       "scatter_allgather",
       {},
       [](int N) { return lg(N) + N - 1; },
       [](int N, int v, double n) {  // scatter: the subtree below v but v's own block; ring: N-1 blocks
         const int below = v == 0 ? N - 1 : lowbit(v) - 1;
         return (below + N - 1) * n / N;
       }},
      {Collective::broadcast,
       "direct",
       {},
       [](int) { return 1; },
       [](int N, int v, double n) { return v == 0 ? (N - 1) * n : 0; }},
      {Collective::reduce,
       "binomial_tree",
       {},
       [](int N) { return lg(N); },
       [](int, int v, double n) { return v == 0 ? 0 : n; }},
      {Collective::reduce,
       "ring",
       {},
       [](int N) { return N; },
       [](int N, int v, double n) { return v == 0 ? (N - 1) * n / N : n; }},
      {Collective::reduce, "direct", {}, [](int N) { return N == 2 ? 1 : 2; }, [](int, int v, double n) { return v == 0 ? 0 : n; }},
      {Collective::gather,
       "binomial_tree",
       {},
       [](int N) { return lg(N); },
       [](int N, int v, double n) { return v == 0 ? 0 : lowbit(v) * n / N; }},
      {Collective::gather,
       "direct",
       {},
       [](int) { return 1; },
       [](int N, int v, double n) { return v == 0 ? 0 : n / N; }},
      {Collective::scatter,
       "binomial_tree",
       {},
       [](int N) { return lg(N); },
       [](int N, int v, double n) { return (v == 0 ? N - 1 : lowbit(v) - 1) * n / N; }},
      {Collective::scatter,
       "direct",
       {},
       [](int) { return 1; },
       [](int N, int v, double n) { return v == 0 ? (N - 1) * n / N : 0; }},
      {Collective::barrier, "dissemination", {}, [](int N) { return lg(N); }, [](int, int, double) { return 0.0; }},
      {Collective::barrier, "binomial_tree", {}, [](int N) { return 2 * lg(N); }, [](int, int, double) { return 0.0; }},
      {Collective::send_recv, "direct", {}, [](int) { return 1; }, [](int, int v, double n) { return v == 0 ? n : 0; }},
      {Collective::send_recv, "ring_shift", {}, [](int) { return 1; }, [](int, int, double n) { return n; }},
      {Collective::send_recv, "to_previous", {}, [](int) { return 1; }, [](int, int v, double n) { return v == 0 ? n : 0; }},
  };
  return rows;
}

}  // namespace

TEST_CASE("step counts and bytes sent per rank match the textbook for power-of-two N") {
  for (const Row& row : textbook())
    for (int N : {2, 4, 8, 16})
      for (int root : {0, N - 1}) {
        // K a multiple of N * slices, so every block and slice is whole.
        const std::uint64_t k = 16 * 5 * 16;
        const CollectiveSpec spec{row.collective, N, k, DataType::f32, ReduceOp::sum, root};
        const Schedule s = build_schedule(spec, row.algorithm, row.options);
        INFO(to_string(row.collective), " ", row.algorithm, " N=", N, " root=", root);
        CHECK(communication_steps(s) == row.steps(N));
        const bool whole_result = row.collective == Collective::gather || row.collective == Collective::scatter;
        const double n = static_cast<double>(k * 4) * (whole_result ? N : 1);
        const std::vector<std::uint64_t> sent = bytes_sent_per_rank(s);
        for (int r = 0; r < N; ++r) {
          const int v = (r - root + N) % N;
          INFO("rank ", r, " (root-relative ", v, ")");
          CHECK(static_cast<double>(sent[static_cast<std::size_t>(r)]) == row.bytes(N, v, n));
        }
      }
}

TEST_CASE("dissemination barrier: ceil(lg N) steps for every N, binomial barrier 2 ceil(lg N)") {
  for (int N = 1; N <= 33; ++N) {
    const CollectiveSpec spec{Collective::barrier, N, 0, DataType::i32, ReduceOp::max, 0};
    CHECK(communication_steps(build_schedule(spec, "dissemination", {})) == lg(N));
    CHECK(communication_steps(build_schedule(spec, "binomial_tree", {})) == 2 * lg(N));
  }
}

TEST_CASE("N = 6: every step of every rooted algorithm is labelled, and the trees say why N is special") {
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (!collective_has_root(a.collective) && a.collective != Collective::barrier) continue;
    const Schedule s = build_schedule({a.collective, 6, 12, DataType::f32, ReduceOp::sum, 2}, a.name, {});
    INFO(to_string(a.collective), " ", a.name);
    CHECK_NOTHROW(check_schedule(s));
    for (const std::string& label : s.step_labels) CHECK(label.size() > 10);
  }
  const auto labels = [](Collective c, const char* a) {
    std::string all;
    for (const std::string& l : build_schedule({c, 6, 12, DataType::f32, ReduceOp::sum, 0}, a, {}).step_labels)
      all += l + "\n";
    return all;
  };
  CHECK(labels(Collective::broadcast, "binomial_tree").find("only 2 of the 4 have one, as N = 6") != std::string::npos);
  CHECK(labels(Collective::reduce, "binomial_tree").find("N = 6 is not a power of two") != std::string::npos);
  CHECK(labels(Collective::gather, "binomial_tree").find("N = 6 is not a power of two") != std::string::npos);
  CHECK(labels(Collective::scatter, "binomial_tree").find("N = 6 is not a power of two") != std::string::npos);
  CHECK(labels(Collective::barrier, "dissemination").find("some signals arrive twice") != std::string::npos);
  CHECK(labels(Collective::broadcast, "chain").find("0 -> 1 -> ... -> 5") != std::string::npos);
}

TEST_CASE("--slices 0 resolves to the algorithm's default, and the run records it") {
  const CollectiveSpec spec{Collective::broadcast, 6, 600, DataType::f32, ReduceOp::sum, 0};
  CHECK(resolve_options(spec, "chain", {}).slices == 6);
  CHECK(resolve_options(spec, "binomial_tree", {}).slices == 1);
  CHECK(resolve_options(spec, "chain", {.slices = 2}).slices == 2);
  const RunResult r = run_collective({.spec = spec, .algorithm = "chain", .options = {}}, cpu());
  CHECK(r.request.options.slices == 6);
  CHECK(communication_steps(r.schedule) == 6 - 2 + 6);
}
