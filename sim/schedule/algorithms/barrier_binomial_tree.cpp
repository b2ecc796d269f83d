// Binomial-tree barrier: a gather of signals to rank 0, then a broadcast of the release
// (MPICH's old MPI_Barrier for small N; the tree in Thakur, Rabenseifner & Gropp 2005).
//
// Barriers move no data, only signals (see ScheduleBuilder: one-element i32 tokens
// combined with max, counted as 0 bytes). Each rank has one token, its own signal at
// first. Two phases, on the binomial tree of rooted.h with rank 0 as the root:
//   1. arrive, ceil(lg N) steps: in round k every rank whose lowest set bit is 2^k sends
//      its token (its whole subtree has arrived) to rank r - 2^k, which merges it in.
//      Then rank 0's token has heard from everyone.
//   2. release, ceil(lg N) steps: the same edges backwards, farthest first: every rank
//      that holds the full token copies it to rank r + 2^k.
// Any N works as it is: a subtree that would reach past rank N-1 is cut off there
// (N = 6: arrive 1->0, 3->2, 5->4; 2->0; 4->0; release 0->4; 0->2; 0->1, 2->3, 4->5).
// Steps: 2 ceil(lg N). Bytes each rank sends: 0 (zero-byte signals: one up, one per
// child down).
#include <fmt/format.h>

#include <bit>

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
  auto token = [](int r) { return Region{r, BufferKind::scratch, 0, 1}; };
  for (int r = 0; r < n; ++r) {
    b.set_scratch(r, 1);
    b.pre_signal(token(r));
  }

  // Phase 1: arrive — signals of ever larger subtrees flow to rank 0.
  b.stage("arrive");
  for (int k = 0; k < rounds; ++k) {
    const int d = 1 << k;
    b.step(fmt::format("arrive {}/{}: every rank {} mod {} signals rank r-{} that its subtree has arrived", k + 1,
                       rounds, d, 2 * d, d));
    for (int r = d; r < n; r += 2 * d) b.reduce(r, token(r), token(Rooted::parent(r)));
  }
  // Phase 2: release — the full token flows back down the same tree.
  b.stage("release");
  for (int k = rounds - 1; k >= 0; --k) {
    const int d = 1 << k;
    b.step(fmt::format("release {}/{}: every released rank r with r mod {} = 0 releases rank r+{}", rounds - k, rounds,
                       2 * d, d));
    for (int c = d; c < n; c += 2 * d) b.copy(Rooted::parent(c), token(Rooted::parent(c)), token(c));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) { return 2 * forms::ceil_lg(s.ranks) * p.alpha_ns; }

// The binomial tree rooted at rank 0 that signals climb and the release comes down.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::trees({Rooted{spec.ranks, 0}.binomial_tree()});
}

}  // namespace

extern const AlgorithmInfo kBarrierBinomialTree{
    .name = "binomial_tree",
    .collective = Collective::barrier,
    .summary = "signals gather up a binomial tree to rank 0, the release comes back down it",
    .steps_formula = "2 ceil(lg N)",
    .bytes_formula = "0 (zero-byte signals)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"2 ceil(lg N)α", "",
                    "any N", &time_ns},
};

}  // namespace collsim
