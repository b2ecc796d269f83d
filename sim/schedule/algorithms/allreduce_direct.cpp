// Direct all-reduce: the naive baseline.
//
// Every rank sends its whole input to every other rank, which reduces it into its output.
// The first buffer a rank receives (from rank r+1) is added to its own input as it is
// written (a reduce-copy: no copy of the input first), in a step of its own because the
// writes of one step to one region must commute; the other N-2 follow in the second step.
// Steps are not barriers, so every rank still sends everything at once.
// Steps: 2 (1 for N = 2). Bytes each rank sends: (N-1) * n — it grows with N, which is
// exactly the traffic that the ring and the trees avoid. In place the same exchange lands in scratch
// slots and a local step reduces them (same step count and bytes; (N-1) * n of scratch).
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// In place, a rank's buffer is both what the others read and what it reduces into, so
// the exchange lands in N-1 scratch slots first and a local step reduces them.
void exchange_through_scratch(ScheduleBuilder& b) {
  const int n = b.spec().ranks;
  const std::uint64_t k = b.spec().count;
  const auto slot = [&](int dst, int i) { return Region{dst, BufferKind::scratch, static_cast<std::uint64_t>(i - 1) * k, k}; };
  for (int r = 0; r < n; ++r) b.set_scratch(r, static_cast<std::uint64_t>(n - 1) * k);
  b.stage("exchange");
  b.step("exchange: every rank sends its whole buffer to every other rank, into a scratch slot");
  for (int dst = 0; dst < n; ++dst)
    for (int i = 1; i < n; ++i) b.copy((dst + i) % n, {(dst + i) % n, BufferKind::input, 0, k}, slot(dst, i));
  b.stage("reduce");
  b.step("local: every rank reduces the N-1 received buffers into its own");
  for (int dst = 0; dst < n; ++dst)
    for (int i = 1; i < n; ++i) b.reduce((dst + i) % n, slot(dst, i), {dst, BufferKind::output, 0, k});
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  if (n == 1) {  // nothing to exchange
    b.pre_copy({0, BufferKind::input, 0, k}, {0, BufferKind::output, 0, k});
    return std::move(b).finish();
  }
  if (spec.in_place) {
    exchange_through_scratch(b);
    return std::move(b).finish();
  }

  // All-to-all exchange of whole buffers; receivers accumulate in the order the senders
  // are listed (r+1, r+2, ...), which the engine serialises.
  auto input = [k](int r) { return Region{r, BufferKind::input, 0, k}; };
  auto output = [k](int r) { return Region{r, BufferKind::output, 0, k}; };
  b.step("exchange 1/2: every rank sends its whole buffer to its left neighbour, which adds its own input and writes "
         "the sum to its output");
  for (int dst = 0; dst < n; ++dst) b.reduce_copy((dst + 1) % n, input((dst + 1) % n), input(dst), output(dst));
  b.step(fmt::format("exchange 2/2: every rank sends its whole buffer to the {} other ranks, which reduce it into "
                     "their outputs",
                     n - 2));
  for (int dst = 0; dst < n; ++dst)
    for (int i = 2; i < n; ++i) b.reduce((dst + i) % n, input((dst + i) % n), output(dst));
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kAllReduceDirect{
    .name = "direct",
    .collective = Collective::all_reduce,
    .summary = "every rank sends its whole buffer to every other rank; the naive baseline",
    .steps_formula = "2 (1 for N = 2)",
    .bytes_formula = "(N-1) * n",
    .used_by = "Open MPI tuned allgather_reduce (7, main after 5.0): an all-gather, then every rank reduces",
    .build = &build,
    .layout = &layouts::all_pairs_of,
    .closed_form = {"(N-1)(α + nβ + nγ)", "",
                    "any N", &forms::vectors_reduced_one_by_one},
    .streams = true,
};

}  // namespace collsim
