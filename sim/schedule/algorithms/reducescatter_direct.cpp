// Pairwise-exchange reduce-scatter (MPICH's MPIR_Reduce_scatter_intra_pairwise).
//
// N-1 steps: in step k (k = 1..N-1) rank r receives block r of the input of rank r-k and
// reduces it into its output — while sending its own block r+k to rank r+k. In step 1 the
// receiver adds block r of its own input as it writes (a reduce-copy), so nothing is
// copied into the output first. Every rank
// sends one block and receives one block per step, each to and from a different rank.
// Steps: N-1. Bytes each rank sends: (N-1)/N * n (n = the whole input) — the ring's bytes
// and steps, but every block goes straight to its owner: no partial sums are forwarded.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto input_block = [k](int r, int c) { return Region{r, BufferKind::input, static_cast<std::uint64_t>(c) * k, k}; };
  if (n == 1) b.pre_copy(input_block(0, 0), {0, BufferKind::output, 0, k});

  for (int step = 1; step < n; ++step) {
    b.step(fmt::format("pairwise {}/{}: every rank r sends block r+{} of its input to rank r+{}, which reduces it",
                       step, n - 1, step, step));
    for (int r = 0; r < n; ++r) {
      const int from = (r - step + n) % n;
      const Region into{r, BufferKind::output, 0, k};
      if (step == 1)
        b.reduce_copy(from, input_block(from, r), input_block(r, r), into);
      else
        b.reduce(from, input_block(from, r), into);
    }
  }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kReduceScatterDirect{
    .name = "direct",
    .collective = Collective::reduce_scatter,
    .summary = "pairwise exchange: in step k every rank sends block r+k of its input straight to rank r+k",
    .steps_formula = "N-1",
    .bytes_formula = "(N-1)/N * n",
    .build = &build,
    .layout = &layouts::all_pairs_of,
    .closed_form = {"(N-1)(α + nβ/N + nγ/N)", "",
                    "any N", &forms::blocks_reduced_one_by_one},
    .streams = true,
};

}  // namespace collsim
