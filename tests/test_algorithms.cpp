// Every algorithm x ranks 1..17 x counts x data types x ops: the schedule passes the
// checker, runs on the CPU backend, and matches the host reference.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "test_support.h"

using namespace collsim;
using collsim::testing::cpu;
using collsim::testing::outputs_of;

namespace {

struct Config {
  const char* name;
  AlgorithmOptions options;
};

void run_and_verify(const RunRequest& req) {
  const RunResult r = run_collective(req, cpu());
  INFO(to_string(req.spec.collective), " ", req.algorithm, " N=", req.spec.ranks, " count=", req.spec.count, " ",
       to_string(req.spec.dtype), " ", to_string(req.spec.op), " slices=", req.options.slices,
       " servers=", req.options.servers, " colocated=", req.options.colocated);
  REQUIRE_MESSAGE(r.verification.ok, r.verification.first_mismatch);
  CHECK(r.verification.checked == static_cast<std::uint64_t>(req.spec.ranks) * req.spec.count);
}

void sweep(const char* algorithm, AlgorithmOptions options, bool in_place = false) {
  for (int ranks = 1; ranks <= 17; ++ranks) {
    if (std::string(algorithm) == "parameter_server" && options.servers > ranks) continue;
    for (std::uint64_t count : {0u, 1u, 7u, 1000u})
      for (DataType dtype : kAllDataTypes)
        for (ReduceOp op : kAllReduceOps) {
          RunRequest req;
          req.spec = {Collective::all_reduce, ranks, count, dtype, op, 0, in_place};
          req.algorithm = algorithm;
          req.options = options;
          req.seed = static_cast<std::uint64_t>(ranks * 7919) + count;
          run_and_verify(req);
        }
  }
}

void large_sweep(const char* algorithm, AlgorithmOptions options) {
  for (int ranks : {1, 2, 3, 5, 8, 13, 17})
    for (auto [dtype, op] : {std::pair{DataType::f32, ReduceOp::sum}, std::pair{DataType::i32, ReduceOp::max}}) {
      if (options.servers > ranks) continue;
      RunRequest req;
      req.spec = {Collective::all_reduce, ranks, 1000003, dtype, op, 0};
      req.algorithm = algorithm;
      req.options = options;
      run_and_verify(req);
    }
}

}  // namespace

TEST_CASE("sweep: ring all-reduce") { sweep("ring", {}); }
TEST_CASE("sweep: ring all-reduce, 3 slices") { sweep("ring", {.slices = 3}); }
TEST_CASE("sweep: parameter server, 1 extra server") { sweep("parameter_server", {.servers = 1}); }
TEST_CASE("sweep: parameter server, 2 extra servers") { sweep("parameter_server", {.servers = 2}); }
TEST_CASE("sweep: parameter server, 1 colocated server") { sweep("parameter_server", {.servers = 1, .colocated = true}); }
TEST_CASE("sweep: parameter server, 2 colocated servers") { sweep("parameter_server", {.servers = 2, .colocated = true}); }
TEST_CASE("sweep: direct all-reduce") { sweep("direct", {}); }
TEST_CASE("sweep: direct all-reduce in place (through scratch slots)") { sweep("direct", {}, true); }

TEST_CASE("large counts: 1 000 003 elements, f32 sum and i32 max") {
  large_sweep("ring", {});
  large_sweep("parameter_server", {.servers = 2});
  large_sweep("parameter_server", {.servers = 2, .colocated = true});
  large_sweep("direct", {});
}

TEST_CASE("bytes sent per rank match the algorithms' formulas") {
  const std::uint64_t count = 1000, elem = 4, n = count * elem;
  for (int N = 1; N <= 17; ++N) {
    const CollectiveSpec spec{Collective::all_reduce, N, count, DataType::f32, ReduceOp::sum, 0};
    INFO("N=", N);
    // ring: 2(N-1)/N * n, within one element per chunk sent
    const Schedule ring = build_schedule(spec, "ring", {});
    for (std::uint64_t sent : bytes_sent_per_rank(ring)) {
      const double want = 2.0 * (N - 1) / N * static_cast<double>(n);
      CHECK(std::fabs(static_cast<double>(sent) - want) <= 2.0 * (N - 1) * elem);
    }
    CHECK(communication_steps(ring) == 2 * (N - 1));
    // direct: (N-1) * n
    const Schedule direct = build_schedule(spec, "direct", {});
    for (std::uint64_t sent : bytes_sent_per_rank(direct)) CHECK(sent == static_cast<std::uint64_t>(N - 1) * n);
    // parameter server with extra servers: every worker sends n and receives n; the
    // servers together receive W * n.
    for (int S : {1, 2}) {
      if (S > N) continue;
      const Schedule ps = build_schedule(spec, "parameter_server", {.servers = S});
      REQUIRE(ps.total_ranks == N + S);
      const auto sent = bytes_sent_per_rank(ps), received = bytes_received_per_rank(ps);
      std::uint64_t servers_received = 0;
      for (int r = 0; r < N; ++r) {
        CHECK(sent[static_cast<std::size_t>(r)] == n);
        CHECK(received[static_cast<std::size_t>(r)] == n);
      }
      for (int s = 0; s < S; ++s) servers_received += received[static_cast<std::size_t>(N + s)];
      CHECK(servers_received == static_cast<std::uint64_t>(N) * n);
      CHECK(communication_steps(ps) == 2);
    }
  }
}

TEST_CASE("slices pipeline the ring: same bytes, S times the steps") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 1000, DataType::f32, ReduceOp::sum, 0};
  const Schedule plain = build_schedule(spec, "ring", {});
  const Schedule sliced = build_schedule(spec, "ring", {.slices = 4});
  CHECK(sliced.step_count() == 4 * plain.step_count());
  CHECK(bytes_sent_per_rank(sliced) == bytes_sent_per_rank(plain));
  CHECK(sliced.step_labels[1] == "reduce-scatter 1/3: every rank sends one chunk to its right neighbour, which "
                                 "reduces it, slice 2/4");
}

TEST_CASE("bad requests are refused with a message naming the problem") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 8, DataType::f32, ReduceOp::sum, 0};
  CHECK_THROWS_WITH_AS(build_schedule(spec, "tree", {}), doctest::Contains("unknown algorithm 'tree'"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule(spec, "parameter_server", {.servers = 5}),
                       doctest::Contains("--servers (5) must not exceed"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule({Collective::all_reduce, 0, 8, DataType::f32, ReduceOp::sum, 0}, "ring", {}),
                       doctest::Contains("--ranks must be between 1 and"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule({Collective::all_reduce, 4, 8, DataType::f32, ReduceOp::sum, 4}, "ring", {}),
                       doctest::Contains("--root must be a rank in 0..3"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule({Collective::all_reduce, 1024, 1ull << 40, DataType::f64, ReduceOp::sum, 0}, "ring", {}),
                       doctest::Contains("absurd"), InputError);
  RunRequest big;
  big.spec = {Collective::all_reduce, 64, 1ull << 33, DataType::f32, ReduceOp::sum, 0};  // 2 TiB per rank
  CHECK_THROWS_WITH_AS(run_collective(big, cpu()), doctest::Contains("of memory is available"), InputError);
}
