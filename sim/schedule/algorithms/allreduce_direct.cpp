// Direct all-reduce: the naive baseline.
//
// Every rank starts from its own input (a local copy into its output), then, in one
// step, sends its whole input to every other rank, which reduces it into its output.
// Steps: 1. Bytes each rank sends: (N-1) * n — it grows with N, which is exactly the
// traffic that the ring and the trees avoid. In place the same exchange lands in scratch
// slots and a local step reduces them (same step count and bytes; (N-1) * n of scratch).
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
  for (int r = 0; r < n; ++r) b.pre_copy({r, BufferKind::input, 0, k}, {r, BufferKind::output, 0, k});
  if (spec.in_place) {
    exchange_through_scratch(b);
    return std::move(b).finish();
  }

  // The only step: all-to-all exchange of whole buffers; receivers accumulate in the
  // order the senders are listed (r+1, r+2, ...), which the engine serialises.
  b.step("exchange: every rank sends its whole buffer to every other rank, which reduces it");
  for (int dst = 0; dst < n; ++dst)
    for (int i = 1; i < n; ++i) {
      const int src = (dst + i) % n;
      b.reduce(src, {src, BufferKind::input, 0, k}, {dst, BufferKind::output, 0, k});
    }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kAllReduceDirect{
    .name = "direct",
    .collective = Collective::all_reduce,
    .summary = "every rank sends its whole buffer to every other rank; the naive baseline",
    .steps_formula = "1",
    .bytes_formula = "(N-1) * n",
    .used_by = "Open MPI tuned allgather_reduce (7, main after 5.0): an all-gather, then every rank reduces",
    .build = &build,
    .layout = &layouts::all_pairs_of,
    .closed_form = {"(N-1)(α + nβ + nγ)", "",
                    "any N", &forms::vectors_reduced_one_by_one},
};

}  // namespace collsim
