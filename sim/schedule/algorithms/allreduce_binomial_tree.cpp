// Binomial-tree all-reduce: a binomial reduce to rank 0, then a binomial broadcast from
// it (MPICH's fallback of reduce + bcast; the textbook tree).
//   1. reduce, ceil(lg N) steps: in step k every rank whose lowest set bit is 2^k sends
//      its partial vector to the rank 2^k below it, which reduces it in (its first time
//      adding its own input, written straight to its output: no pre-copy). Halving the
//      number of active ranks each step, rank 0 ends with the full reduction.
//   2. broadcast, ceil(lg N) steps: the same edges backwards, largest distance first; in
//      each step every rank that already holds the result copies it to the rank 2^k above.
// A binomial tree needs no fold-in: a rank whose partner would be N or more simply has no
// partner in that step, so any rank count works as it is.
// Steps: 2 ceil(lg N). Bytes each rank sends: n to its parent (all but rank 0), plus n to
// each of its children: rank 0 sends ceil(lg N) * n, a leaf n — the root's link is the
// bottleneck, which the double binary tree fixes.
#include <bit>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/rooted.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "binomial_tree");
  const int n = spec.ranks;
  const int rounds = std::bit_width(static_cast<unsigned>(n - 1));  // ceil(lg N)
  const std::uint64_t k = spec.count;
  auto out = [k](int r) { return Region{r, BufferKind::output, 0, k}; };
  auto in = [k](int r) { return Region{r, BufferKind::input, 0, k}; };
  if (n == 1) b.pre_copy(in(0), out(0));

  // Phase 1: reduce — partial sums flow down to rank 0. A rank that has received nothing
  // yet sends its input; a parent's first receive adds its own input and writes the sum to
  // its output (a reduce-copy), so nothing is copied into the outputs first.
  std::vector<bool> summed(static_cast<std::size_t>(n), false);
  b.stage("reduce");
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << round;
    b.step(fmt::format("reduce {}/{}: every rank r with r mod {} = {} sends its partial vector to rank r-{}, which "
                       "reduces it",
                       round + 1, rounds, 2 * d, d, d));
    for (int r = d; r < n; r += 2 * d) {
      const int parent = Rooted::parent(r);
      const Region from = summed[static_cast<std::size_t>(r)] ? out(r) : in(r);
      if (summed[static_cast<std::size_t>(parent)])
        b.reduce(r, from, out(parent));
      else
        b.reduce_copy(r, from, in(parent), out(parent));
      summed[static_cast<std::size_t>(parent)] = true;
    }
  }
  // Phase 2: broadcast — the result flows back up the same tree, farthest subtree first.
  b.stage("broadcast");
  for (int round = rounds - 1; round >= 0; --round) {
    const int d = 1 << round;
    b.step(fmt::format("broadcast {}/{}: every rank r with r mod {} = 0 copies the result to rank r+{}",
                       rounds - round, rounds, 2 * d, d));
    for (int r = d; r < n; r += 2 * d) b.copy(0, out(Rooted::parent(r)), out(r));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  return 2 * ceil_lg(s.ranks) * copy(p, n(s)) + ceil_lg(s.ranks) * n(s) * p.gamma_ns_per_byte;
}

// The binomial tree rooted at rank 0 that both phases send along.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, 0}.binomial_tree()});
}

}  // namespace

extern const AlgorithmInfo kAllReduceBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::all_reduce,
    .summary = "binomial-tree reduce to rank 0, then binomial-tree broadcast; simple, but rank 0's link carries lg N vectors",
    .steps_formula = "2 ceil(lg N)",
    .bytes_formula = "n * (1 + children); rank 0: ceil(lg N) * n",
    .used_by = "Open MPI tuned nonoverlapping (2) where its reduce and bcast pick binomial trees",
    .build = &build,
    .layout = &layout,
    .closed_form = {"2 ceil(lg N)(α + nβ) + ceil(lg N)·nγ", "",
                    "any N", &time_ns},
};

}  // namespace collsim
