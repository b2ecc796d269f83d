// All-reduce ring, parameter server and direct x ranks 1..17 (1..9 at COLLSIM_TEST_SCALE=small,
// test_support.h) x counts x data types x ops:
// the schedule passes the checker, runs on the CPU backend, and matches the host
// reference. And what every registered algorithm's file says about it: its layout (valid
// for N = 1..17, trees whose edges the schedule's transfers follow), its extra ranks, and
// the one default per collective that runs when no algorithm is named.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/run/run.h"
#include "sim/schedule/algorithms/trees.h"
#include "sim/trace/report.h"
#include "test_support.h"

using namespace collsim;
using collsim::testing::cpu;
using collsim::testing::outputs_of;
using collsim::testing::sweep_largest_count;
using collsim::testing::sweep_max_ranks;

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
  const int max_ranks = sweep_max_ranks();
  for (int ranks = 1; ranks <= max_ranks; ++ranks) {
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

// 1 000 003 elements (prime; 40 009 at the small scale), at the rank counts up to the scale's.
void large_sweep(const char* algorithm, AlgorithmOptions options) {
  for (int ranks : {1, 2, 3, 5, 8, 13, 17})
    for (auto [dtype, op] : {std::pair{DataType::f32, ReduceOp::sum}, std::pair{DataType::i32, ReduceOp::max}}) {
      if (options.servers > ranks || ranks > sweep_max_ranks()) continue;
      RunRequest req;
      req.spec = {Collective::all_reduce, ranks, sweep_largest_count(), dtype, op, 0};
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
// Partitioned as BytePS runs it: each partition's pull follows its own pushes (issue 34).
TEST_CASE("sweep: parameter server, 2 colocated servers, 3 partitions") {
  sweep("parameter_server", {.slices = 3, .servers = 2, .colocated = true});
}
TEST_CASE("sweep: direct all-reduce") { sweep("direct", {}); }
TEST_CASE("sweep: direct all-reduce in place (through scratch slots)") { sweep("direct", {}, true); }

TEST_CASE("large prime counts (1 000 003 elements, or 40 009 small), f32 sum and i32 max") {
  large_sweep("ring", {});
  large_sweep("parameter_server", {.servers = 2});
  large_sweep("parameter_server", {.servers = 2, .colocated = true});
  large_sweep("parameter_server", {.slices = 4, .servers = 3});
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
                                 "adds its own input of that chunk and writes the sum to its output, slice 2/4");
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

// --- what each algorithm's file says about it ----------------------------------------------

namespace {

// The option sets every algorithm's layout and extra ranks are checked with (each
// algorithm ignores the options it has no use for).
std::vector<AlgorithmOptions> option_sets(const AlgorithmInfo& a, int ranks) {
  std::vector<AlgorithmOptions> sets{{}};
  if (a.name == "parameter_server" && ranks >= 2) {
    sets.push_back({.servers = 2});
    sets.push_back({.servers = 2, .colocated = true});
  }
  if (a.name == "hierarchical") sets.push_back({.ranks_per_node = 1});
  return sets;
}

// Roots 0, one in the middle and N-1.
std::set<int> roots_of(int ranks) { return {0, ranks / 2, ranks - 1}; }

// Whether a tree over `ranks` ranks is well formed: parents in range, the root's -1, and
// every rank reaches the root (so no cycle and no rank left out).
void check_tree(const TreeShape& t, int ranks) {
  REQUIRE(t.parent.size() == static_cast<std::size_t>(ranks));
  REQUIRE(t.root >= 0);
  REQUIRE(t.root < ranks);
  CHECK(t.parent[static_cast<std::size_t>(t.root)] == -1);
  for (int r = 0; r < ranks; ++r) {
    INFO("rank ", r);
    int at = r, hops = 0;
    while (at != t.root && hops <= ranks) {
      const int up = t.parent[static_cast<std::size_t>(at)];
      REQUIRE(up >= 0);  // only the root has no parent
      REQUIRE(up < ranks);
      at = up;
      ++hops;
    }
    CHECK(at == t.root);  // reached within N hops: acyclic
  }
}

bool is_permutation_of_ranks(std::vector<int> order, int ranks) {
  std::vector<int> all(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) all[static_cast<std::size_t>(r)] = r;
  std::sort(order.begin(), order.end());
  return order == all;
}

void check_layout(const AlgorithmLayout& l, int ranks, int total_ranks) {
  INFO("layout ", to_string(l.shape));
  switch (l.shape) {
    case LayoutShape::ring:
    case LayoutShape::all_pairs:
    case LayoutShape::hypercube:
    case LayoutShape::shifts:
    case LayoutShape::hierarchy: CHECK(is_permutation_of_ranks(l.order, ranks)); break;
    case LayoutShape::chain: {
      REQUIRE(!l.order.empty());
      std::set<int> seen;
      for (int r : l.order) {
        CHECK(r >= 0);
        CHECK(r < ranks);
        CHECK(seen.insert(r).second);  // no rank twice
      }
      break;
    }
    case LayoutShape::trees:
      REQUIRE(!l.trees.empty());
      for (const TreeShape& t : l.trees) check_tree(t, ranks);
      break;
    case LayoutShape::star: {
      REQUIRE(!l.hubs.empty());
      std::set<int> seen;
      for (int h : l.hubs) {
        CHECK(h >= 0);
        CHECK(h < total_ranks);
        CHECK(seen.insert(h).second);
      }
      break;
    }
  }
  if (l.shape == LayoutShape::hierarchy) {
    REQUIRE(l.group_size > 0);
    CHECK(ranks % l.group_size == 0);
  }
}

// Whether a and b are a rank and its parent in one of the trees.
bool tree_edge(const std::vector<TreeShape>& trees, int a, int b) {
  for (const TreeShape& t : trees)
    if (t.parent[static_cast<std::size_t>(a)] == b || t.parent[static_cast<std::size_t>(b)] == a) return true;
  return false;
}

}  // namespace

TEST_CASE("every registered algorithm's layout is valid for N = 1..17, and its extra ranks are the schedule's") {
  for (const AlgorithmInfo& a : all_algorithms()) {
    INFO(to_string(a.collective), " ", a.name);
    CHECK_MESSAGE(static_cast<bool>(a.layout), "give the algorithm's file its layout (AlgorithmInfo)");
    for (int ranks = 1; ranks <= 17; ++ranks)
      for (int root : collective_has_root(a.collective) ? roots_of(ranks) : std::set<int>{0})
        for (const AlgorithmOptions& options : option_sets(a, ranks)) {
          INFO("N=", ranks, " root=", root, " servers=", options.servers, " colocated=", options.colocated,
               " ranks_per_node=", options.ranks_per_node);
          const CollectiveSpec spec{a.collective, ranks, 64, DataType::f32, ReduceOp::sum, root};
          const Schedule s = build_schedule(spec, a.name, options);
          CHECK(schedule_total_ranks(spec, a.name, options) == s.total_ranks);
          check_layout(algorithm_layout(spec, a.name, options), ranks, s.total_ranks);
        }
  }
}

TEST_CASE("tree-shaped algorithms send only along the edges of their trees") {
  int tree_algorithms = 0;
  for (const AlgorithmInfo& a : all_algorithms()) {
    const CollectiveSpec probe{a.collective, 8, 64, DataType::f32, ReduceOp::sum, 0};
    if (algorithm_layout(probe, a.name, {}).shape != LayoutShape::trees) continue;
    ++tree_algorithms;
    INFO(to_string(a.collective), " ", a.name);
    for (int ranks = 1; ranks <= 17; ++ranks)
      for (int root : collective_has_root(a.collective) ? roots_of(ranks) : std::set<int>{0}) {
        INFO("N=", ranks, " root=", root);
        const CollectiveSpec spec{a.collective, ranks, 1000, DataType::f32, ReduceOp::sum, root};
        const AlgorithmLayout l = algorithm_layout(spec, a.name, {});
        REQUIRE(l.shape == LayoutShape::trees);
        for (const Transfer& x : build_schedule(spec, a.name, {}).transfers) {
          INFO("transfer ", x.src, " -> ", x.dst, " in step ", x.step);
          if (x.src != x.dst) CHECK(tree_edge(l.trees, x.src, x.dst));
        }
      }
  }
  // The binomial trees of all_reduce, broadcast, reduce, gather, scatter and barrier, and
  // the double binary tree and NCCL's tree (chains under a double binary tree).
  CHECK(tree_algorithms == 8);
}

// NCCL's primitives (issue 20): a reduction's first write adds the receiver's own input on
// its way (reduce_copy), so no output starts as a copy of the input. The exceptions are
// named: the parameter server's accumulators; recursive doubling's fold when N is not a
// power of two (its core starts from every rank's combined partial); and, in the double
// binary tree, a parent whose first two children arrive in one step (the next case).
TEST_CASE("reducing algorithms pre-copy nothing out of place, N = 2..12, every option set") {
  auto exempt = [](const AlgorithmInfo& a, int ranks) {
    const std::string_view name = a.name;
    return name == "parameter_server" || (name == "recursive_doubling" && (ranks & (ranks - 1)) != 0) ||
           name == "double_binary_tree";
  };
  int checked = 0;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (!collective_reduces(a.collective)) continue;
    for (int ranks = 2; ranks <= 12; ++ranks) {
      if (exempt(a, ranks)) continue;
      for (int root : collective_has_root(a.collective) ? roots_of(ranks) : std::set<int>{0})
        for (const AlgorithmOptions& options : option_sets(a, ranks)) {
          INFO(to_string(a.collective), " ", a.name, " N=", ranks, " root=", root, " ranks_per_node=",
               options.ranks_per_node, " slices=", options.slices_or(1));
          const Schedule s = build_schedule({a.collective, ranks, 64, DataType::f32, ReduceOp::sum, root}, a.name, options);
          CHECK(s.pre_ops.empty());
          CHECK(std::any_of(s.transfers.begin(), s.transfers.end(),
                            [](const Transfer& t) { return t.action == Action::reduce_copy; }));
          ++checked;
        }
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("double binary tree: only a parent whose first two children arrive together pre-copies its half") {
  for (int ranks = 2; ranks <= 17; ++ranks) {
    CAPTURE(ranks);
    const std::array<BinaryTree, 2> trees = double_binary_tree(ranks);
    const Schedule s = build_schedule({Collective::all_reduce, ranks, 64, DataType::f32, ReduceOp::sum, 0},
                                      "double_binary_tree", {});
    std::size_t expected = 0;
    for (int t = 0; t < 2; ++t) {
      const BinaryTree& tree = trees[static_cast<std::size_t>(t)];
      for (int p = 0; p < ranks; ++p) {
        std::vector<int> heights;
        for (int c : tree.children[static_cast<std::size_t>(p)]) heights.push_back(tree.height[static_cast<std::size_t>(c)]);
        const bool together = heights.size() == 2 && heights[0] == heights[1];
        const auto pre = std::find_if(s.pre_ops.begin(), s.pre_ops.end(), [&](const LocalOp& op) {
          return op.target == Region{p, BufferKind::output, 32u * static_cast<std::uint64_t>(t), 32} &&
                 op.source == Region{p, BufferKind::input, 32u * static_cast<std::uint64_t>(t), 32};
        });
        CHECK((pre != s.pre_ops.end()) == together);
        expected += together;
      }
    }
    CHECK(s.pre_ops.size() == expected);
    CHECK(expected < static_cast<std::size_t>(ranks));  // less than half the old whole-buffer pre-copies
  }
}

TEST_CASE("a transfer in a sentence: a reduce-copy names the receiver's own input") {
  const Schedule ring = build_schedule({Collective::all_reduce, 3, 6, DataType::f32, ReduceOp::sum, 0}, "ring", {});
  const Transfer& first = ring.transfers.front();
  REQUIRE(first.action == Action::reduce_copy);
  CHECK(transfer_sentence(first) == fmt::format("rank {} adds rank {}'s chunk {} to its own input and writes the sum to "
                                                "its output[{},{})",
                                                first.dst, first.src, first.chunk, first.dst_offset, first.dst_offset + 2));
  const Transfer& last = ring.transfers.back();
  REQUIRE(last.action == Action::copy);
  CHECK(transfer_sentence(last) == fmt::format("rank {} copies chunk {} into rank {}'s output[{},{})", last.src, last.chunk,
                                               last.dst, last.dst_offset, last.dst_offset + 2));
  const Schedule direct = build_schedule({Collective::all_reduce, 3, 4, DataType::f32, ReduceOp::sum, 0}, "direct", {});
  const auto reduce = std::find_if(direct.transfers.begin(), direct.transfers.end(),
                                   [](const Transfer& t) { return t.action == Action::reduce; });
  REQUIRE(reduce != direct.transfers.end());
  CHECK(transfer_sentence(*reduce) ==
        fmt::format("rank {} adds rank {}'s chunk {} into its output[0,4)", reduce->dst, reduce->src, reduce->chunk));
  Transfer elsewhere = first;  // an operand at other offsets than the destination is named in full
  elsewhere.operand_offset = 4;
  CHECK(transfer_sentence(elsewhere).find("to its own input[4,6) and writes") != std::string::npos);
}

TEST_CASE("double binary tree on 8 ranks: two trees over all ranks, interior ranks disjoint, transfers on their edges") {
  const CollectiveSpec spec{Collective::all_reduce, 8, 1000, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmLayout l = algorithm_layout(spec, "double_binary_tree", {});
  REQUIRE(l.shape == LayoutShape::trees);
  REQUIRE(l.trees.size() == 2);
  std::vector<std::set<int>> interior(2);
  for (std::size_t t = 0; t < 2; ++t) {
    check_tree(l.trees[t], 8);
    for (int r = 0; r < 8; ++r)
      if (const int up = l.trees[t].parent[static_cast<std::size_t>(r)]; up >= 0) interior[t].insert(up);
  }
  for (int r : interior[0]) CHECK(interior[1].count(r) == 0);  // interior in at most one tree
  CHECK(interior[0].size() + interior[1].size() >= 6);           // N - 2 interior ranks in all, and no tree is a star
  // The trees drawn are the trees the schedule sends along (trees.h), and each half of the
  // vector (chunk 0: tree 0, chunk 1: tree 1) moves only on its own tree's edges.
  const std::array<BinaryTree, 2> built = double_binary_tree(8);
  for (std::size_t t = 0; t < 2; ++t) {
    CHECK(l.trees[t].root == built[t].root);
    CHECK(l.trees[t].parent == built[t].parent);
  }
  const Schedule s = build_schedule(spec, "double_binary_tree", {});
  REQUIRE(!s.transfers.empty());
  for (const Transfer& x : s.transfers) {
    INFO("transfer ", x.src, " -> ", x.dst, " chunk ", x.chunk);
    REQUIRE((x.chunk == 0 || x.chunk == 1));
    CHECK(tree_edge({l.trees[static_cast<std::size_t>(x.chunk)]}, x.src, x.dst));
  }
}

TEST_CASE("NCCL's tree on 2 nodes of 8: chains under a double binary tree, only the nodes' GPU 0 on the network") {
  const CollectiveSpec spec{Collective::all_reduce, 16, 1000, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmOptions options{.slices = 4, .ranks_per_node = 8};
  const AlgorithmLayout l = algorithm_layout(spec, "nccl_tree", options);
  REQUIRE(l.shape == LayoutShape::trees);
  REQUIRE(l.trees.size() == 2);
  for (std::size_t t = 0; t < 2; ++t) {
    check_tree(l.trees[t], 16);
    // Inside a node a chain: local rank l hangs under l - 1 (NCCL's tree.up, connect.cc).
    for (int r = 0; r < 16; ++r)
      if (r % 8 != 0) CHECK(l.trees[t].parent[static_cast<std::size_t>(r)] == r - 1);
  }
  // Between the two nodes, one tree each way: node 0 under node 1 in one, node 1 under node 0
  // in the other (the double binary tree of 2 nodes).
  const std::set<std::pair<int, int>> roots{{l.trees[0].root, l.trees[0].parent[8 - static_cast<std::size_t>(l.trees[0].root)]},
                                            {l.trees[1].root, l.trees[1].parent[8 - static_cast<std::size_t>(l.trees[1].root)]}};
  CHECK(roots == std::set<std::pair<int, int>>{{0, 0}, {8, 8}});
  // Only GPU 0 of each node crosses the network; half t of the vector (chunks t*S..t*S+S-1)
  // moves only on tree t's edges.
  const Schedule s = build_schedule(spec, "nccl_tree", options);
  REQUIRE(!s.transfers.empty());
  for (const Transfer& x : s.transfers) {
    INFO("transfer ", x.src, " -> ", x.dst, " chunk ", x.chunk);
    if (x.src / 8 != x.dst / 8) CHECK(((x.src == 0 && x.dst == 8) || (x.src == 8 && x.dst == 0)));
    REQUIRE((x.chunk >= 0 && x.chunk < 8));
    CHECK(tree_edge({l.trees[static_cast<std::size_t>(x.chunk / 4)]}, x.src, x.dst));
  }
  // Without --ranks-per-node: one node, a single chain, the same for both trees.
  const AlgorithmLayout one = algorithm_layout(spec, "nccl_tree", {});
  for (int r = 1; r < 16; ++r) CHECK(one.trees[0].parent[static_cast<std::size_t>(r)] == r - 1);
  CHECK(one.trees[0].parent == one.trees[1].parent);
}

TEST_CASE("NCCL's tree refuses a --ranks-per-node that does not split the ranks into nodes") {
  const CollectiveSpec spec{Collective::all_reduce, 16, 1000, DataType::f32, ReduceOp::sum, 0};
  CHECK_THROWS_WITH_AS(build_schedule(spec, "nccl_tree", {.ranks_per_node = 3}),
                       doctest::Contains("--ranks-per-node 3 must divide --ranks 16"), InputError);
  CHECK_THROWS_WITH_AS(build_schedule(spec, "nccl_tree", {.ranks_per_node = 32}),
                       doctest::Contains("--ranks-per-node 32 must divide --ranks 16"), InputError);
  CHECK_NOTHROW(build_schedule(spec, "nccl_tree", {.ranks_per_node = 1}));  // 16 nodes of 1 GPU
}

TEST_CASE("parameter server: a star around its servers, extra ranks or colocated workers") {
  const CollectiveSpec spec{Collective::all_reduce, 6, 1000, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmLayout extra = algorithm_layout(spec, "parameter_server", {.servers = 2});
  CHECK(extra.shape == LayoutShape::star);
  CHECK(extra.hubs == std::vector<int>{6, 7});
  CHECK(algorithm_layout(spec, "parameter_server", {.servers = 2, .colocated = true}).hubs == std::vector<int>{0, 1});
  CHECK(schedule_total_ranks(spec, "parameter_server", {.servers = 2}) == 8);
  CHECK(schedule_total_ranks(spec, "parameter_server", {.servers = 2, .colocated = true}) == 6);
  // Every transfer has a server at one end.
  for (const Transfer& x : build_schedule(spec, "parameter_server", {.servers = 2}).transfers)
    CHECK((x.src >= 6 || x.dst >= 6));
  const AlgorithmLayout h = algorithm_layout({Collective::all_reduce, 8, 8, DataType::f32, ReduceOp::sum, 0},
                                             "hierarchical", {});
  CHECK(h.shape == LayoutShape::hierarchy);
  CHECK(h.group_size == 4);  // the default G: the smallest divisor of 8 at least sqrt(8)
}

TEST_CASE("every collective has exactly one default algorithm, and runs it when none is named") {
  for (Collective c : kAllCollectives) {
    INFO(to_string(c));
    int defaults = 0;
    for (const AlgorithmInfo& a : all_algorithms()) defaults += a.collective == c && a.is_default ? 1 : 0;
    CHECK(defaults == 1);
    const AlgorithmInfo& d = default_algorithm(c);
    CHECK(d.collective == c);
    CHECK(d.is_default);
    CHECK(algorithm_or_default(c, "") == d.name);
    CHECK(algorithm_or_default(c, "direct") == "direct");  // a name given is kept

    RunRequest req;  // no algorithm named
    req.spec = {c, 5, c == Collective::barrier ? 0u : 100u, DataType::f32, ReduceOp::sum, 1};
    CHECK(req.algorithm.empty());
    const RunResult r = run_collective(req, cpu());
    CHECK(r.request.algorithm == d.name);
    CHECK(r.schedule.algorithm == d.name);
    CHECK(r.verification.ok);
    CHECK(prepare_model_run(req).request.algorithm == d.name);

    // A scenario file that names no algorithm runs the collective's default too.
    const Scenario s =
        parse_scenario(fmt::format("format = 1\n[collective]\ncollective = \"{}\"\n", to_string(c)), "t.toml");
    CHECK(s.request.algorithm == d.name);
    REQUIRE(s.phases.size() == 1);
    CHECK(s.phases[0].request.algorithm == d.name);
  }
  CHECK(default_algorithm(Collective::all_reduce).name == "ring");
  CHECK(default_algorithm(Collective::broadcast).name == "binomial_tree");
}

TEST_CASE("an algorithm's knobs say which options its schedule depends on") {
  // A knob the algorithm declares it does not read must not change its schedule; one it
  // reads must (for some value), so the views never show a dead control or hide a live one.
  const CollectiveSpec spec{Collective::all_reduce, 8, 64, DataType::f32, ReduceOp::sum, 0};
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.collective != Collective::all_reduce) continue;
    CAPTURE(a.name);
    // Who sends to whom, in order: differs when the option changed the schedule.
    const auto transfers = [&](AlgorithmOptions o) {
      std::vector<std::pair<int, int>> pairs;
      for (const Transfer& t : build_schedule(spec, a.name, o).transfers) pairs.emplace_back(t.src, t.dst);
      return pairs;
    };
    const auto base = transfers({});
    const bool servers_change = transfers({.servers = 2}) != base;
    const bool rpn_change = transfers({.ranks_per_node = 2}) != base;
    CHECK(a.knobs.servers == servers_change);
    CHECK(a.knobs.ranks_per_node == rpn_change);
    CHECK(algorithm_knobs(a.collective, a.name).servers == a.knobs.servers);
  }
  CHECK(algorithm_knobs(Collective::all_reduce, "custom").slices);  // the defaults for a hand-written one
}

TEST_CASE("Schedule::step_first gives every step its first transfer, for every algorithm") {
  for (const AlgorithmInfo& a : all_algorithms()) {
    for (int ranks : {1, 2, 5, 8}) {
      CAPTURE(a.name);
      CAPTURE(ranks);
      const CollectiveSpec spec{a.collective, ranks, 7, DataType::f32, ReduceOp::sum, 0};
      Schedule s;
      try {
        s = build_schedule(spec, a.name, {});
      } catch (const InputError&) {
        continue;  // a rank count this algorithm refuses (e.g. hierarchical's groups)
      }
      const std::vector<std::size_t> firsts = s.step_firsts();
      REQUIRE(firsts.size() == static_cast<std::size_t>(s.step_count()) + 1);
      CHECK(firsts.front() == 0);
      CHECK(firsts.back() == s.transfers.size());
      for (int k = 0; k < s.step_count(); ++k) {
        CHECK(s.step_first(k) == firsts[static_cast<std::size_t>(k)]);
        for (std::size_t i = firsts[static_cast<std::size_t>(k)]; i < firsts[static_cast<std::size_t>(k) + 1]; ++i)
          CHECK(s.transfers[i].step == k);
      }
      CHECK(s.step_first(s.step_count()) == s.transfers.size());
    }
  }
}
