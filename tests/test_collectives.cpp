// All-reduce (trees, recursive doubling, Rabenseifner, hierarchical), all-gather,
// reduce-scatter and all-to-all: every algorithm x ranks 1..17 (1..9 at COLLSIM_TEST_SCALE=small,
// test_support.h) x counts x data types (x ops
// where the collective reduces), through the checker and against the host reference; the
// fold-in for rank counts that are not powers of two; the double binary tree's shape; NCCL's
// PAT step by step for every N from 2 to 17; and step and byte counts against the textbook
// (Thakur, Rabenseifner & Gropp 2005).
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/schedule/algorithms/trees.h"
#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/trace/report.h"
#include "sim/run/run.h"
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
       to_string(req.spec.dtype), " ", to_string(req.spec.op), " in_place=", req.spec.in_place,
       " slices=", req.options.slices, " ranks_per_node=", req.options.ranks_per_node);
  const RunResult r = run_collective(req, cpu());
  CHECK(r.schedule.algorithm == req.algorithm);  // never a fallback to another algorithm
  REQUIRE_MESSAGE(r.verification.ok, r.verification.first_mismatch);
  CHECK(r.verification.checked == outputs_of(r.schedule));
}

struct Sweep {
  Collective collective;
  std::string algorithm;
  AlgorithmOptions options = {};
  // hierarchical: ranks per node for N ranks, or 0 to skip that N.
  std::function<int(int)> ranks_per_node = nullptr;
};

RunRequest request(const Sweep& w, int ranks, std::uint64_t count, DataType dtype, ReduceOp op, bool in_place = false) {
  RunRequest req;
  req.spec = {w.collective, ranks, count, dtype, op, 0, in_place};
  req.algorithm = w.algorithm;
  req.options = w.options;
  if (w.ranks_per_node) req.options.ranks_per_node = w.ranks_per_node(ranks);
  req.seed = static_cast<std::uint64_t>(ranks) * 7919 + count;
  return req;
}

bool skipped(const Sweep& w, int ranks) { return w.ranks_per_node && w.ranks_per_node(ranks) == 0; }

// Reducing collectives: every data type x every op. Copy-only: one type per element size.
// Counts 0, 1, 7 (prime) and 1000 (not divisible by most N) for every N; the in-place
// layout once per count where the collective has one.
void sweep(const Sweep& w) {
  const bool reduces = collective_reduces(w.collective);
  const std::vector<DataType> types = reduces ? std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes))
                                              : std::vector<DataType>{DataType::f16, DataType::i32, DataType::f64};
  const std::vector<ReduceOp> ops = reduces ? std::vector<ReduceOp>(std::begin(kAllReduceOps), std::end(kAllReduceOps))
                                            : std::vector<ReduceOp>{ReduceOp::sum};
  const int max_ranks = sweep_max_ranks();
  for (int ranks = 1; ranks <= max_ranks; ++ranks) {
    if (skipped(w, ranks)) continue;
    for (std::uint64_t count : {0u, 1u, 7u, 1000u}) {
      for (DataType dtype : types)
        for (ReduceOp op : ops) run_and_verify(request(w, ranks, count, dtype, op));
      if (collective_supports_in_place(w.collective))
        run_and_verify(request(w, ranks, count, DataType::f32, ReduceOp::sum, true));
    }
  }
}

// The large count 65 537 (prime; 4 099 at the small scale), ranks 1..17 (1..9), but only f32
// sum and i32 max — or one f32 run for copy-only collectives — to keep the suite fast.
void large_sweep(const Sweep& w) {
  const bool reduces = collective_reduces(w.collective);
  const int max_ranks = sweep_max_ranks();
  const std::uint64_t count = sweep_large_count();
  for (int ranks = 1; ranks <= max_ranks; ++ranks) {
    if (skipped(w, ranks)) continue;
    run_and_verify(request(w, ranks, count, DataType::f32, ReduceOp::sum));
    if (reduces) run_and_verify(request(w, ranks, count, DataType::i32, ReduceOp::max));
  }
}

// Every divisor G of N in turn, by N: 1, then the smallest prime factor, then N itself.
int smallest_factor(int n) {
  for (int g = 2; g < n; ++g)
    if (n % g == 0) return g;
  return n;
}

// Every registered algorithm of these collectives with its default options (a new one is
// swept without editing this file), and the variants whose options change the schedule.
// All-reduce's ring, parameter_server and direct are swept with their options in
// test_algorithms.cpp.
const std::vector<Sweep>& all_sweeps() {
  static const std::vector<Sweep> sweeps = [] {
    std::vector<Sweep> v;
    for (const AlgorithmInfo& a : all_algorithms()) {
      const bool here = a.collective == Collective::all_gather || a.collective == Collective::reduce_scatter ||
                        a.collective == Collective::all_to_all ||
                        (a.collective == Collective::all_reduce && a.name != "ring" && a.name != "parameter_server" &&
                         a.name != "direct");
      if (here) v.push_back({a.collective, std::string(a.name)});  // hierarchical: the default G
    }
    v.push_back({Collective::all_reduce, "double_binary_tree", {.slices = 3}});
    v.push_back({Collective::all_reduce, "hierarchical", {}, [](int) { return 1; }});
    v.push_back({Collective::all_reduce, "hierarchical", {}, [](int n) { return smallest_factor(n); }});
    v.push_back({Collective::all_reduce, "hierarchical", {}, [](int n) { return n; }});
    return v;
  }();
  return sweeps;
}

std::string name_of(const Sweep& w) {
  return std::string(to_string(w.collective)) + " " + w.algorithm + (w.options.slices > 1 ? " sliced" : "") +
         (w.ranks_per_node ? " (G varied)" : "");
}

}  // namespace

// One test case per collective keeps ctest's parallel runs balanced.
TEST_CASE("sweep: all_reduce trees, recursive doubling, Rabenseifner") {
  for (const Sweep& w : all_sweeps())
    if (w.collective == Collective::all_reduce && w.algorithm != "hierarchical") {
      INFO(name_of(w));
      sweep(w);
    }
}

TEST_CASE("sweep: all_reduce hierarchical, several ranks per node") {
  for (const Sweep& w : all_sweeps())
    if (w.algorithm == "hierarchical") {
      INFO(name_of(w));
      sweep(w);
    }
}

TEST_CASE("sweep: all_gather") {
  for (const Sweep& w : all_sweeps())
    if (w.collective == Collective::all_gather) sweep(w);
}

TEST_CASE("sweep: reduce_scatter") {
  for (const Sweep& w : all_sweeps())
    if (w.collective == Collective::reduce_scatter) sweep(w);
}

TEST_CASE("sweep: all_to_all") {
  for (const Sweep& w : all_sweeps())
    if (w.collective == Collective::all_to_all) sweep(w);
}

TEST_CASE("large prime count (65 537, or 4 099 small): every algorithm of all_reduce, all_gather, reduce_scatter, all_to_all") {
  for (const Sweep& w : all_sweeps()) {
    INFO(name_of(w));
    large_sweep(w);
  }
}

// What the sweeps above rely on, at either scale (COLLSIM_TEST_SCALE, test_support.h).
TEST_CASE("the sweeps' scale: odd, even and power-of-two rank counts, prime large counts, and a bad value refused") {
  using collsim::testing::sweep_largest_count;
  const auto prime = [](std::uint64_t n) {
    for (std::uint64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) return false;
    return n > 1;
  };
  CHECK(sweep_max_ranks() >= 9);  // 1..9: 1, primes, 4 and 8, 6 (not a power of two), 9 (odd, above 8)
  CHECK(prime(sweep_large_count()));
  CHECK(prime(sweep_largest_count()));
  // Several elements per block even for N^2 blocks (all-to-all, direct) at the most ranks.
  CHECK(sweep_large_count() > 16 * static_cast<std::uint64_t>(sweep_max_ranks() * sweep_max_ranks()));
  CHECK(sweep_largest_count() > sweep_large_count());

  const char* was = std::getenv("COLLSIM_TEST_SCALE");
  const std::string saved = was ? was : "";
  ::setenv("COLLSIM_TEST_SCALE", "small", 1);
  CHECK(sweep_max_ranks() == 9);
  CHECK(sweep_large_count() == 4099);
  ::setenv("COLLSIM_TEST_SCALE", "full", 1);
  CHECK(sweep_max_ranks() == 17);
  CHECK(sweep_large_count() == 65537);
  ::setenv("COLLSIM_TEST_SCALE", "tiny", 1);
  CHECK_THROWS_WITH_AS(sweep_max_ranks(), "COLLSIM_TEST_SCALE='tiny': use full or small", std::invalid_argument);
  if (was)
    ::setenv("COLLSIM_TEST_SCALE", saved.c_str(), 1);
  else
    ::unsetenv("COLLSIM_TEST_SCALE");
}

// --- step counts and bytes against the textbook ---------------------------------------------

namespace {

struct Textbook {
  Collective collective;
  const char* algorithm;
  AlgorithmOptions options;
  std::function<int(int N)> steps;
  // Bytes rank r sends, given N and n (n as in `collsim list`: the all-reduce buffer, the
  // whole all-gather result, the whole reduce-scatter input, one all-to-all send buffer).
  std::function<double(int N, int r, double n)> bytes;
};

int lg(int n) { return std::countr_zero(static_cast<unsigned>(n)); }

// Children of rank r in the binomial tree on N = 2^k ranks: the rounds below r's lowest set bit.
int binomial_children(int N, int r) { return r == 0 ? lg(N) : std::countr_zero(static_cast<unsigned>(r)); }

// Double binary tree: n/2 to the parent (unless root) and to each child, in both trees.
double double_tree_bytes(int N, int r, double n) {
  double sent = 0;
  for (const BinaryTree& t : double_binary_tree(N))
    sent += n / 2 * (static_cast<double>(t.children[static_cast<std::size_t>(r)].size()) + (r == t.root ? 0 : 1));
  return sent;
}

const std::vector<Textbook>& textbook() {
  using C = Collective;
  static const std::vector<Textbook> rows = {
      {C::all_reduce, "ring", {}, [](int N) { return 2 * (N - 1); }, [](int N, int, double n) { return 2.0 * (N - 1) / N * n; }},
      {C::all_reduce, "recursive_doubling", {}, lg, [](int N, int, double n) { return n * lg(N); }},
      {C::all_reduce, "rabenseifner", {}, [](int N) { return 2 * lg(N); },
       [](int N, int, double n) { return 2.0 * (N - 1) / N * n; }},
      {C::all_reduce, "binomial_tree", {}, [](int N) { return 2 * lg(N); },
       [](int N, int r, double n) { return n * (binomial_children(N, r) + (r == 0 ? 0 : 1)); }},
      {C::all_reduce, "double_binary_tree", {}, [](int N) { return 2 * lg(N); }, double_tree_bytes},
      {C::all_reduce, "double_binary_tree", {.slices = 4}, [](int N) { return 2 * lg(N) + 3; }, double_tree_bytes},
      {C::all_reduce, "hierarchical", {.ranks_per_node = 2}, [](int N) { return 2 * (2 - 1) + 2 * (N / 2 - 1); },
       [](int N, int, double n) { return 2.0 * (N - 1) / N * n; }},
      {C::all_gather, "ring", {}, [](int N) { return N - 1; }, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_gather, "recursive_doubling", {}, lg, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_gather, "bruck", {}, lg, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_gather, "direct", {}, [](int) { return 1; }, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_gather, "pat", {}, lg, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::reduce_scatter, "ring", {}, [](int N) { return N - 1; }, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::reduce_scatter, "recursive_halving", {}, lg, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::reduce_scatter, "direct", {}, [](int N) { return N - 1; }, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::reduce_scatter, "pat", {}, lg, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_to_all, "direct", {}, [](int N) { return N - 1; }, [](int N, int, double n) { return (N - 1.0) / N * n; }},
      {C::all_to_all, "bruck", {}, lg, [](int N, int, double n) { return n / 2 * lg(N); }},
  };
  return rows;
}

}  // namespace

TEST_CASE("step counts and bytes sent per rank equal the textbook values for N = 2, 4, 8, 16") {
  const std::uint64_t count = 4096;  // divisible by every block and slice count below
  for (const Textbook& row : textbook())
    for (int N : {2, 4, 8, 16}) {
      INFO(to_string(row.collective), " ", row.algorithm, " slices=", row.options.slices, " N=", N);
      const CollectiveSpec spec{row.collective, N, count, DataType::f32, ReduceOp::sum, 0};
      const Schedule s = build_schedule(spec, row.algorithm, row.options);
      CHECK(communication_steps(s) == row.steps(N));
      const bool whole_vector = row.collective == Collective::all_reduce;
      const double n = static_cast<double>(count * 4) * (whole_vector ? 1 : N);
      const std::vector<std::uint64_t> sent = bytes_sent_per_rank(s);
      for (int r = 0; r < N; ++r) {
        INFO("rank ", r);
        CHECK(static_cast<double>(sent[static_cast<std::size_t>(r)]) == row.bytes(N, r, n));
      }
    }
}

TEST_CASE("Bruck all-gather takes ceil(lg N) steps for every N") {
  for (int N = 1; N <= 40; ++N) {
    const Schedule s = build_schedule({Collective::all_gather, N, 3, DataType::f32, ReduceOp::sum, 0}, "bruck", {});
    CHECK(communication_steps(s) == std::bit_width(static_cast<unsigned>(N - 1)));
  }
}

// --- PAT (NCCL 2.23's Parallel Aggregated Trees): any N, no fold ---------------------------

TEST_CASE("PAT all-gather and reduce-scatter for every N from 2 to 17: checked, right on the CPU, ceil(lg N) steps") {
  for (Collective c : {Collective::all_gather, Collective::reduce_scatter})
    for (int N = 2; N <= 17; ++N) {
      INFO(to_string(c), " pat N=", N);
      const int dims = std::bit_width(static_cast<unsigned>(N - 1));
      const std::uint64_t count = 6;
      const Schedule s = build_schedule({c, N, count, DataType::f32, ReduceOp::sum, 0}, "pat", {});
      CHECK_NOTHROW(check_schedule(s));  // the symbolic checker: every output holds exactly its contributions
      CHECK(communication_steps(s) == dims);
      CHECK(static_cast<int>(s.step_labels.size()) == dims);
      // Every rank sends N-1 blocks in all: (N-1)/N of n, as the ring, for every N.
      for (std::uint64_t sent : bytes_sent_per_rank(s)) CHECK(sent == static_cast<std::uint64_t>(N - 1) * count * 4);
      // Step i is dimension d (all-gather: far first, d = dims-1-i, to r-2^d; reduce-scatter:
      // near first, d = i, to r+2^d): one message per rank, of the ceil((N-2^d)/2^(d+1))
      // blocks whose offset has lowest set bit d.
      for (int i = 0; i < dims; ++i) {
        const int d = c == Collective::all_gather ? dims - 1 - i : i;
        const int to = c == Collective::all_gather ? N - (1 << d) : 1 << d;
        const std::uint64_t blocks = static_cast<std::uint64_t>((N - (1 << d) + (2 << d) - 1) / (2 << d));
        std::vector<std::uint64_t> elements(static_cast<std::size_t>(N), 0);
        for (const Transfer& t : s.transfers) {
          if (t.step != i || t.is_local()) continue;
          CHECK(t.dst == (t.src + to) % N);
          elements[static_cast<std::size_t>(t.src)] += t.count;
        }
        for (std::uint64_t e : elements) CHECK(e == blocks * count);
      }
      // Run on the CPU backend against the host reference: sums and maxima, floats and
      // integers, counts that N does and does not divide, and the in-place layout.
      for (std::uint64_t n : {1u, 7u, 1000u}) {
        RunRequest req;
        req.algorithm = "pat";
        req.seed = static_cast<std::uint64_t>(N) * 31 + n;
        for (auto [dtype, op] : {std::pair{DataType::f32, ReduceOp::sum}, std::pair{DataType::i32, ReduceOp::max},
                                 std::pair{DataType::f64, ReduceOp::avg}}) {
          req.spec = {c, N, n, dtype, collective_reduces(c) ? op : ReduceOp::sum, 0};
          run_and_verify(req);
        }
        req.spec = {c, N, n, DataType::f32, ReduceOp::sum, 0, true};
        run_and_verify(req);
      }
    }
}

TEST_CASE("PAT takes ceil(lg N) steps for every N, all-gather's labels name the far ranks first") {
  for (int N = 1; N <= 40; ++N)
    for (Collective c : {Collective::all_gather, Collective::reduce_scatter}) {
      const Schedule s = build_schedule({c, N, 3, DataType::f32, ReduceOp::sum, 0}, "pat", {});
      CHECK(communication_steps(s) == std::bit_width(static_cast<unsigned>(N - 1)));
    }
  const Schedule ag = build_schedule({Collective::all_gather, 13, 3, DataType::f32, ReduceOp::sum, 0}, "pat", {});
  REQUIRE(ag.step_labels.size() == 4);
  CHECK(ag.step_labels[0] == "all-gather 1/4 (distance 8): every rank r sends rank r-8 its own block");
  CHECK(ag.step_labels[3].starts_with("all-gather 4/4 (distance 1): every rank r sends rank r-1 the 6 blocks of ranks "
                                      "r, r+2, ..., r+10"));
  const Schedule rs = build_schedule({Collective::reduce_scatter, 13, 3, DataType::f32, ReduceOp::sum, 0}, "pat", {});
  REQUIRE(rs.step_labels.size() == 4);
  CHECK(rs.step_labels[0].starts_with("reduce-scatter 1/4 (distance 1): every rank r sends rank r+1 its partial sums "
                                      "of the 6 blocks r+1, r+3, ..., r+11"));
  CHECK(rs.step_labels[3].ends_with("block r is complete on rank r"));
}

// --- non-powers of two: the fold-in ---------------------------------------------------------

TEST_CASE("rank counts that are not powers of two fold in and out, in labelled steps") {
  const struct {
    Collective collective;
    const char* algorithm;
    int core_steps;  // for N = 6: N' = 4
  } folded[] = {{Collective::all_reduce, "recursive_doubling", 2},
                {Collective::all_reduce, "rabenseifner", 4},
                {Collective::all_gather, "recursive_doubling", 2},
                {Collective::reduce_scatter, "recursive_halving", 2}};
  for (const auto& f : folded) {
    INFO(to_string(f.collective), " ", f.algorithm);
    const Schedule s = build_schedule({f.collective, 6, 10, DataType::f32, ReduceOp::sum, 0}, f.algorithm, {});
    CHECK(s.algorithm == f.algorithm);
    CHECK(communication_steps(s) == f.core_steps + 2);
    CHECK(s.step_labels.front().starts_with("fold-in: 6 is not a power of two"));
    CHECK(s.step_labels.back().starts_with("fold-out"));
    // The even ranks of the pairs (0, 2) send only in the fold-in.
    for (const Transfer& t : s.transfers)
      if (!t.is_local() && (t.src == 0 || t.src == 2)) CHECK(t.step == 0);
    const std::string table = format_step_table(s);
    CHECK(table.find("fold-in") != std::string::npos);
    CHECK(table.find("fold-out") != std::string::npos);
    // A power of two has neither step.
    const Schedule p = build_schedule({f.collective, 8, 10, DataType::f32, ReduceOp::sum, 0}, f.algorithm, {});
    for (const std::string& label : p.step_labels) CHECK(label.find("fold") == std::string::npos);
  }
}

TEST_CASE("step table: every column under its heading, at 6 ranks of Rabenseifner (long ranges) and rank 1100 to 1101") {
  // A send from rank 1100 to 1101 of 1200: four-digit ranks in one transfer (a ring of 1200
  // ranks would build 2.9 M, too many for the sanitizer passes).
  const std::vector<std::pair<CollectiveSpec, std::string>> cases = {
      {{Collective::all_reduce, 6, 1 << 20, DataType::f32, ReduceOp::sum, 0}, "rabenseifner"},
      {{Collective::send_recv, 1200, 1 << 20, DataType::f32, ReduceOp::sum, 1100}, "direct"}};
  for (const auto& one : cases) {
    const CollectiveSpec& spec = one.first;  // named, not bound: INFO captures them (clang 14)
    const std::string& algorithm = one.second;
    INFO(algorithm, " on ", spec.ranks);
    const std::string table = format_step_table(build_schedule(spec, algorithm, {}, kMaxModelRanks));
    std::vector<std::string> lines;
    for (std::size_t at = 0, end; at < table.size(); at = end + 1) {
      end = table.find('\n', at);
      lines.push_back(table.substr(at, end - at));
    }
    REQUIRE(lines.size() > 2);
    const std::string& header = lines[1];
    const std::size_t action = header.find("action"), bytes_end = header.find("bytes") + 5;
    std::size_t rows = 0;
    for (const std::string& line : lines) {
      if (line.size() < 6 || line[4] < '0' || line[4] > '9') continue;  // step captions, the heading
      ++rows;
      CHECK(line[action - 1] == ' ');  // the elements end before the action's column
      CHECK(std::isalpha(static_cast<unsigned char>(line[action])));  // the action starts under "action"
      REQUIRE(line.size() == bytes_end);  // the bytes end under "bytes"'s end
      CHECK(std::isdigit(static_cast<unsigned char>(line[bytes_end - 1])));
      if (rows > 500) break;
    }
    CHECK(rows > 0);
  }
}

TEST_CASE("fold-in bytes: the even rank of a pair sends n once, the odd one n more than the core") {
  // N = 6: pairs (0,1), (2,3); ranks 4, 5 run only the core on N' = 4.
  const CollectiveSpec spec{Collective::all_reduce, 6, 8, DataType::f32, ReduceOp::sum, 0};
  const double n = 8 * 4;
  const std::vector<std::uint64_t> rd = bytes_sent_per_rank(build_schedule(spec, "recursive_doubling", {}));
  CHECK(rd == std::vector<std::uint64_t>{32, 3 * 32, 32, 3 * 32, 2 * 32, 2 * 32});  // n lg N' (+ n)
  const std::vector<std::uint64_t> rab = bytes_sent_per_rank(build_schedule(spec, "rabenseifner", {}));
  const auto core = static_cast<std::uint64_t>(2.0 * 3 / 4 * n);  // 2(N'-1)/N' n
  CHECK(rab == std::vector<std::uint64_t>{32, core + 32, 32, core + 32, core, core});
}

// --- the double binary tree -----------------------------------------------------------------

TEST_CASE("double binary tree: every rank is an interior node of at most one tree, N = 1..1024") {
  for (int N = 1; N <= 1024; ++N) {
    INFO("N=", N);
    const std::array<BinaryTree, 2> trees = double_binary_tree(N);
    for (const BinaryTree& t : trees) {
      // A tree: one root, every other rank reaches it, at most two children each.
      int roots = 0;
      for (int r = 0; r < N; ++r) {
        const std::size_t i = static_cast<std::size_t>(r);
        roots += t.parent[i] < 0 ? 1 : 0;
        REQUIRE(t.children[i].size() <= 2);
        int hops = 0;
        for (int up = r; up != t.root; up = t.parent[static_cast<std::size_t>(up)]) REQUIRE(++hops <= N);
        CHECK(t.depth[i] == hops);
      }
      CHECK(roots == 1);
      const int height = t.height[static_cast<std::size_t>(t.root)];
      CHECK(height == (N % 2 == 0 ? std::bit_width(static_cast<unsigned>(N - 1)) : std::bit_width(static_cast<unsigned>(N)) - 1));
    }
    for (int r = 0; r < N; ++r) CHECK_FALSE((trees[0].interior(r) && trees[1].interior(r)));
  }
}

TEST_CASE("double binary tree: the schedule's reduce edges make no rank a parent in both halves") {
  for (int N = 1; N <= 17; ++N)
    for (int slices : {1, 3}) {
      INFO("N=", N, " slices=", slices);
      const std::uint64_t count = 100;
      const Schedule s = build_schedule({Collective::all_reduce, N, count, DataType::f32, ReduceOp::sum, 0},
                                        "double_binary_tree", {.slices = slices});
      std::vector<int> parent_in(static_cast<std::size_t>(N), 0);  // bit t: a parent in tree t's half
      for (const Transfer& t : s.transfers)
        if (t.action == Action::reduce) parent_in[static_cast<std::size_t>(t.dst)] |= t.dst_offset < count / 2 ? 1 : 2;
      for (int r = 0; r < N; ++r) CHECK(parent_in[static_cast<std::size_t>(r)] != 3);
      // Each rank sends at most 2n: n/2 up and down in both trees, two children in one.
      for (std::uint64_t sent : bytes_sent_per_rank(s)) CHECK(sent <= 2 * count * 4);
    }
}

// --- hierarchical -----------------------------------------------------------------------------

TEST_CASE("hierarchical: --ranks-per-node must divide --ranks, only 1/G of the vector crosses nodes") {
  const CollectiveSpec spec{Collective::all_reduce, 6, 12, DataType::f32, ReduceOp::sum, 0};
  CHECK_THROWS_WITH_AS(build_schedule(spec, "hierarchical", {.ranks_per_node = 4}), doctest::Contains("--ranks-per-node"),
                       InputError);
  CHECK_THROWS_WITH_AS(build_schedule(spec, "hierarchical", {.ranks_per_node = 12}), doctest::Contains("--ranks-per-node"),
                       InputError);
  CHECK_THROWS_WITH_AS(build_schedule(spec, "ring", {.ranks_per_node = -1}), doctest::Contains("--ranks-per-node"),
                       InputError);
  // 8 ranks as 2 nodes x 4: 2(G-1) + 2(M-1) = 8 steps; bytes between nodes: 2(M-1)/N * n.
  const CollectiveSpec big{Collective::all_reduce, 8, 4096, DataType::f32, ReduceOp::sum, 0};
  const Schedule s = build_schedule(big, "hierarchical", {.ranks_per_node = 4});
  CHECK(communication_steps(s) == 8);
  std::uint64_t across = 0;
  for (const Transfer& t : s.transfers)
    if (t.src / 4 != t.dst / 4) across += s.bytes(t);
  CHECK(across == 8 * (2 * (2 - 1) * 4096 * 4 / 8));
  // The default G: the smallest divisor of N that is at least sqrt(N).
  CHECK(build_schedule(big, "hierarchical", {}).step_count() == 8);
}

// --- the catalogue ----------------------------------------------------------------------------

TEST_CASE("collsim list shows every algorithm with its formulas and the busbw factor") {
  const std::string catalogue = format_catalogue();
  for (const AlgorithmInfo& a : all_algorithms()) {
    INFO(a.name);
    CHECK(catalogue.find(std::string(a.steps_formula)) != std::string::npos);
    CHECK(catalogue.find(std::string(a.bytes_formula)) != std::string::npos);
  }
  // Each collective's default is marked once, on its own algorithm's summary line.
  for (Collective c : kAllCollectives) {
    const AlgorithmInfo& d = default_algorithm(c);
    const std::string mark = fmt::format("{} (the default for {})", d.summary, to_string(c));
    INFO(mark);
    CHECK(catalogue.find(mark) != std::string::npos);
    const std::string tag = fmt::format("(the default for {})", to_string(c));
    CHECK(catalogue.find(tag) == catalogue.rfind(tag));  // only one algorithm carries it
  }
  // The "used by" column: each algorithm's libraries, on their own line of its block.
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.used_by.empty()) continue;
    INFO(a.name);
    CHECK(catalogue.find(fmt::format("used by {}\n", a.used_by)) != std::string::npos);
  }
  for (const char* section : {"all_reduce (busbw = algbw * 2(N-1)/N)", "all_gather (busbw = algbw * (N-1)/N)",
                              "reduce_scatter (busbw = algbw * (N-1)/N)", "all_to_all (busbw = algbw * (N-1)/N)"})
    CHECK(catalogue.find(section) != std::string::npos);
}

TEST_CASE("each 'used by' entry names its library, and docs/lessons-sources.md backs the algorithm's") {
  const std::string sources =
      read_text_file(std::filesystem::path(COLLSIM_SOURCE_DIR) / "docs" / "lessons-sources.md", "sources");
  const std::array<std::string_view, 6> libraries = {"NCCL ", "Gloo ", "Open MPI ", "MPICH ", "Horovod ", "BytePS "};
  int described = 0;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.used_by.empty()) continue;
    ++described;
    INFO(a.name, " (", to_string(a.collective), "): ", a.used_by);
    std::string_view rest = a.used_by;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find("; "), rest.size());
      const std::string_view entry = rest.substr(0, end);
      CHECK(std::any_of(libraries.begin(), libraries.end(), [&](std::string_view l) { return entry.starts_with(l); }));
      rest.remove_prefix(std::min(rest.size(), end + 2));
    }
    // Section 11's table has a row for it: "| `all_reduce ring` | ...".
    CHECK(sources.find(fmt::format("| `{} {}` |", to_string(a.collective), a.name)) != std::string::npos);
  }
  CHECK(described >= 20);
}
