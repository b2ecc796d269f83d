// NCCL's PAT reduce-scatter, "Parallel Aggregated Trees" (NCCL 2.23.4, read at the tag
// v2.23.4-1: PatRSAlgorithm in src/include/collectives.h, run by
// RunWorkColl<ncclFuncReduceScatter, ..., NCCL_ALGO_PAT> in src/device/reduce_scatter.h
// through Primitives::patReduce; Jeaugey, "PAT: a new algorithm for all-gather and
// reduce-scatter operations at scale", arXiv:2506.20252).
//
// PAT's all-gather (allgather_pat.cpp) run backwards: every block is reduced up its own
// binomial tree (pat.h) to the rank that owns it; the N trees run in parallel and each
// step aggregates what they all send along one distance into one message per rank. The
// near ranks come first, with the big messages; the last, far ones carry one block.
// Rank r keeps its own block's sum in its output and the partial sums of other blocks in
// scratch; the first write of each adds the rank's input of it (a reduce-copy, so nothing
// is copied there first), and a block it has received nothing of yet is sent straight from
// its input.
//   tree reduce, ceil(lg N) steps, d = 0 up to ceil(lg N)-1: rank r sends rank r+2^d its
//     partial sums of the blocks r+t with t's lowest set bit d (t = 2^d, 2^d + 2^(d+1), ...
//     < N): for each, everything r's subtree of that block's tree has added so far. r+2^d
//     reduces them in; the first, t = 2^d, is its own block. After the last step block r
//     holds all N inputs on rank r. Any N: offsets of N or more are simply not there.
// Steps: ceil(lg N). Bytes each rank sends: (N-1)/N * n (n = the whole input): every block
// but its own leaves a rank exactly once, ceil((N - 2^d)/2^(d+1)) of them in dimension d.
//
// Where collsim simplifies NCCL:
// - One message per dimension. NCCL packs a step's partial sums into the slots of its
//   connection buffer (NCCL_STEPS = 8 slots of one chunk), accumulating a block's
//   contributions in the slot as they arrive, and posts a message per full slot: when the
//   blocks are small next to a chunk, a whole dimension is one message, as here; when one
//   block fills a slot, every block is a message of its own (N-1 per chunk, up to 8 in
//   flight) — what keeps PAT's buffers bounded, at the price of more steps. NCCL stops
//   growing its aggregation at N/2, so at N = 2^k+1 (5, 9, 17, ...) even small operations
//   send the first dimension in two messages.
// - NCCL adds a rank's own input as it writes the outgoing slot (the sender reduces); here
//   the receiver adds it as it first writes its partial sum. The same additions, in another
//   place; the bytes on the wire are the same.
// - NCCL picks PAT only with one GPU per node (tuning.cc, ncclPatEnable: nNodes == nRanks,
//   the network on the host), the Simple protocol, and not for avg or a pre-multiplied sum
//   (enqueue.cc); collsim runs it on any topology and for every op (avg divides at the end).
// - NCCL's channels each run the algorithm on their share of every block; here one does
//   (--slices is not used).
#include <vector>

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
  auto input = [k](int r, int c) { return block_region(r, BufferKind::input, k, c, c + 1); };
  // Where rank r keeps its partial sum of block c: the output for its own block.
  auto partial = [k](int r, int c) {
    return c == r ? Region{r, BufferKind::output, 0, k}
                  : Region{r, BufferKind::scratch, static_cast<std::uint64_t>(c) * k, k};
  };
  // Whether rank r has written its partial sum of block c yet. Every rank does the same
  // with the blocks the same distance from its own, so that depends only on (c - r) mod N:
  // N flags, not N^2 (268 MB at 16 384 ranks).
  std::vector<char> written(static_cast<std::size_t>(n), 0);
  auto has = [&](int r, int c) -> char& { return written[static_cast<std::size_t>(mod(c - r, n))]; };
  for (int r = 0; r < n; ++r) b.set_scratch(r, static_cast<std::uint64_t>(n) * k);
  if (n == 1) b.pre_copy(input(0, 0), partial(0, 0));

  const int dims = pat::dimensions(n);
  b.stage("tree reduce");
  for (int d = 0; d < dims; ++d) {
    const int dist = 1 << d;
    const std::vector<int> ts = pat::offsets(n, d);
    const int count = static_cast<int>(ts.size());
    const std::string what =
        count == 1 ? fmt::format("its partial sum of block r+{}; rank r+{} adds it to its own block", dist, dist)
                   : fmt::format("its partial sums of the {} blocks {}; rank r+{} adds them to its own (its own block "
                                 "among them)",
                                 count, pat::offset_list(ts, 0), dist);
    b.step(fmt::format("reduce-scatter {}/{} (distance {}): every rank r sends rank r+{} {}{}", d + 1, dims, dist, dist,
                       what, d == dims - 1 ? ": block r is complete on rank r" : ""));
    for (int r = 0; r < b.senders_end(); ++r) {
      const int to = mod(r + dist, n);
      for (int t : ts) {
        const int c = mod(r + t, n);
        const Region from = has(r, c) ? partial(r, c) : input(r, c);
        if (has(to, c))
          b.reduce(c, from, partial(to, c));
        else
          b.reduce_copy(c, from, input(to, c), partial(to, c));
      }
    }
    // After the step: what the receivers wrote (kept apart so a step reads what the step
    // before left): rank r + 2^d, the blocks t - 2^d from its own.
    for (int t : ts) has(dist, t) = 1;
  }
  return std::move(b).finish();
}

// Every step's messages wait for the step before's (its first block, the receiver's own,
// got a contribution in every earlier step), so the steps add up.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  return ceil_lg(s.ranks) * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * (p.beta_ns_per_byte + p.gamma_ns_per_byte);
}

// Rank r+1 does what rank r does with the blocks one further on: the input and the partial
// sums turn by a block, the output (the rank's own block) not at all.
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return RankRotation{.ranks = 1, .elements = {spec.count, 0, spec.count}};
}

}  // namespace

extern const AlgorithmInfo kReduceScatterPat{
    .name = "pat",
    .collective = Collective::reduce_scatter,
    .summary = "NCCL's PAT: every block is reduced up its own binomial tree to its owner, the near ranks first, in "
               "ceil(lg N) steps of aggregated messages",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "NCCL ReduceScatter PAT (NCCL_ALGO=PAT, 2.23+, one GPU per node)",
    .build = &build,
    .layout = &layouts::shifts_of,
    .closed_form = {"ceil(lg N)α + (N-1)/N·n(β + γ)", "", "any N", &time_ns},
    .streams = true,
    .rotation = &rotation,
};

}  // namespace collsim
