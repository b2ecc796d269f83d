// Ring reduce: a ring reduce-scatter, then a gather of the reduced chunks to the root
// (the reduce half of the ring all-reduce; Rabenseifner's reduce with a ring instead of
// recursive halving, as in Thakur, Rabenseifner & Gropp 2005).
//
// The buffer is cut into N chunks; ranks form a ring r -> r+1. Every rank works on a
// full-length accumulator: the root's output, a scratch buffer elsewhere. Two phases:
//   1. reduce-scatter, N-1 steps: in step k rank r sends chunk (r-k) mod N (from its input
//      in the first step) to its right neighbour, which adds its own input of the chunk and
//      writes the sum to its accumulator (a reduce-copy: no local copies first). Afterwards
//      rank r holds the fully reduced chunk (r+1) mod N.
//   2. gather, 1 step: every rank but the root sends its finished chunk to the root's
//      output (the root's own finished chunk is already there).
// Any N works as it is; counts below N leave some chunks empty and their sends dropped.
// Steps: N (N-1 + 1). Bytes each rank sends: (N-1)/N * n + n/N = n; the root
// (N-1)/N * n. Every link carries about n, none (N-1) * n as in the direct reduce, but
// the root receives n - n/N in the last step through one link.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "ring");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto accumulator = [&](int r) { return r == spec.root ? BufferKind::output : BufferKind::scratch; };
  auto chunk = [&](int r, int c) {
    const Block part = even_block(k, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(c));
    return Region{r, accumulator(r), part.offset, part.count};
  };
  auto input = [&](int r, int c) { return Region{r, BufferKind::input, chunk(r, c).offset, chunk(r, c).count}; };
  for (int r = 0; r < n; ++r)
    if (r != spec.root) b.set_scratch(r, k);
  if (n == 1) b.pre_copy({0, BufferKind::input, 0, k}, {0, BufferKind::output, 0, k});

  b.stage("reduce-scatter");
  // Phase 1: reduce-scatter — partial sums travel around the ring. The first step sends
  // inputs; every receiver adds its own input of the chunk as it writes (a reduce-copy).
  for (int step = 0; step < n - 1; ++step) {
    b.step(fmt::format("reduce-scatter {}/{}: every rank sends one chunk to its right neighbour, which adds its own "
                       "input of that chunk",
                       step + 1, n - 1));
    for (int r = 0; r < n; ++r) {
      const int c = mod(r - step, n), to = mod(r + 1, n);
      b.reduce_copy(c, step == 0 ? input(r, c) : chunk(r, c), input(to, c), chunk(to, c));
    }
  }

  // Phase 2: gather — the finished chunks go to the root.
  b.stage("gather");
  b.step("gather: every rank but the root sends its fully reduced chunk to the root");
  for (int r = 0; r < n; ++r) {
    const int c = mod(r + 1, n);
    if (r != spec.root) b.copy(c, chunk(r, c), chunk(spec.root, c));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  return forms::blocks_reduced_one_by_one(p, s).value() + forms::blocks_one_by_one(p, s).value();
}

}  // namespace

extern const AlgorithmInfo kReduceRing{
    .name = "ring",
    .collective = Collective::reduce,
    .summary = "a ring reduce-scatter, then every rank sends its reduced chunk to the root",
    .steps_formula = "N",
    .bytes_formula = "n (the root: (N-1)/N * n)",
    .build = &build,
    .layout = &layouts::ring_of,
    .closed_form = {"2(N-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ", "",
                    "any N", &time_ns},
    .streams = true,
};

}  // namespace collsim
