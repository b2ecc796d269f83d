// NCCL's PAT all-gather, "Parallel Aggregated Trees" (NCCL 2.23.4, read at the tag
// v2.23.4-1: PatAGAlgorithm in src/include/collectives.h, run by
// RunWorkColl<ncclFuncAllGather, ..., NCCL_ALGO_PAT> in src/device/all_gather.h through
// Primitives::patCopy; Jeaugey, "PAT: a new algorithm for all-gather and reduce-scatter
// operations at scale", arXiv:2506.20252).
//
// Bruck's all-gather with its dimensions reversed: the far ranks first, the big messages
// last and to the near ranks. Every rank's block is broadcast along its own binomial tree
// (pat.h); the N trees run in parallel and each step aggregates what they all send along
// one distance into one message per rank.
//   start, local: rank r copies its input to its output block r (NCCL does it as it sends).
//   tree broadcast, ceil(lg N) steps, d = ceil(lg N)-1 down to 0: rank r sends rank
//     r-2^d the blocks of ranks r+s it holds with s a multiple of 2^(d+1) and s+2^d < N —
//     its own and those it received in the steps before (1, 2, 4, ... blocks for N a power
//     of two); they land at their place in r-2^d's output, so no rotation is needed. Any
//     N: a block r+s that r-2^d would already have (s+2^d >= N) is left out.
// Steps: ceil(lg N). Bytes each rank sends: (N-1)/N * n (n = the whole result): rank r
// sends ceil((N - 2^d)/2^(d+1)) blocks in dimension d, N-1 in all — Bruck's bytes and steps.
//
// Where collsim simplifies NCCL:
// - One message per dimension. NCCL packs a step's blocks into the slots of its connection
//   buffer (NCCL_STEPS = 8 slots of one chunk) and posts a message per full slot: when the
//   blocks are small next to a chunk, a whole dimension is one message, as here; when one
//   block fills a slot, every block is a message of its own (N-1 per chunk, up to 8 in
//   flight, the trees walked one after the other) — what keeps PAT's buffers bounded, at
//   the price of more steps. NCCL stops growing its aggregation at N/2, so at N = 2^k+1
//   (5, 9, 17, ...) even small operations send the last dimension in two messages.
// - NCCL picks PAT only with one GPU per node (tuning.cc, ncclPatEnable: nNodes == nRanks,
//   the network on the host) and the Simple protocol; collsim runs it on any topology.
// - NCCL's channels each run the algorithm on their share of every block; here one does
//   (--slices is not used).
#include <fmt/format.h>

#include "sim/schedule/algorithms/pat.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "pat");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto block = [k](int r, int c) { return Region{r, BufferKind::output, static_cast<std::uint64_t>(c) * k, k}; };
  for (int r = 0; r < n; ++r) b.pre_copy({r, BufferKind::input, 0, k}, block(r, r));

  const int dims = pat::dimensions(n);
  b.stage("tree broadcast");
  for (int d = dims - 1, round = 1; d >= 0; --d, ++round) {
    const int dist = 1 << d;
    const std::vector<int> ts = pat::offsets(n, d);  // what r-2^d receives: its blocks r-2^d+t
    const int count = static_cast<int>(ts.size());
    const std::string what =
        count == 1 ? "its own block"
                   : fmt::format("the {} blocks of ranks {} (its own and those it received before)", count,
                                 pat::offset_list(ts, dist));
    b.step(fmt::format("all-gather {}/{} (distance {}): every rank r sends rank r-{} {}{}", round, dims, dist, dist,
                       what, d == 0 ? ": every rank has every block" : ""));
    for (int r = 0; r < b.senders_end(); ++r) {
      const int to = mod(r - dist, n);
      for (int t : ts) {
        const int c = mod(r + t - dist, n);
        b.copy(c, block(r, c), block(to, c));
      }
    }
  }
  return std::move(b).finish();
}

// Rank r+1 does what rank r does with the blocks one further on: the output turns by a
// block, the input (the rank's own block) not at all.
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return RankRotation{.ranks = 1, .elements = {0, spec.count, 0}};
}

}  // namespace

extern const AlgorithmInfo kAllGatherPat{
    .name = "pat",
    .collective = Collective::all_gather,
    .summary = "NCCL's PAT: Bruck with the far ranks first; every block goes down its own binomial tree, in "
               "ceil(lg N) steps of aggregated messages",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "NCCL AllGather PAT (NCCL_ALGO=PAT, 2.23+, one GPU per node)",
    .build = &build,
    .layout = &layouts::shifts_of,
    .closed_form = {"ceil(lg N)α + (N-1)/N·nβ", "", "any N", &forms::tree_blocks},
    .rotation = &rotation,
};

}  // namespace collsim
