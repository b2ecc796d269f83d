// Pairwise-exchange all-to-all (MPICH's MPIR_Alltoall_intra_pairwise; NCCL's all-to-all
// is its one-step variant).
//
// Every rank first copies block r of its input to block r of its output (a local copy).
// Then N-1 steps: in step k (k = 1..N-1) rank r sends block r+k of its input to rank r+k
// and receives block r of rank r-k's input into its output block r-k. Each step is a
// permutation — every rank sends one message and receives one — so no link is
// oversubscribed on a switch.
// Steps: N-1. Bytes each rank sends: (N-1)/N * n (n = one rank's send buffer, N blocks).
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
  auto block = [k](int r, BufferKind buf, int c) { return Region{r, buf, static_cast<std::uint64_t>(c) * k, k}; };
  for (int r = 0; r < n; ++r) b.pre_copy(block(r, BufferKind::input, r), block(r, BufferKind::output, r));

  for (int step = 1; step < n; ++step) {
    b.step(fmt::format("pairwise {}/{}: every rank r sends block r+{} of its input to rank r+{}", step, n - 1, step,
                       step));
    for (int r = 0; r < n; ++r) {
      const int from = (r - step + n) % n;
      b.copy(from, block(from, BufferKind::input, r), block(r, BufferKind::output, from));
    }
  }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kAllToAllDirect{
    .name = "direct",
    .collective = Collective::all_to_all,
    .summary = "pairwise exchange: in step k every rank sends block r+k straight to rank r+k",
    .steps_formula = "N-1",
    .bytes_formula = "(N-1)/N * n",
    .used_by = "Open MPI tuned alltoall pairwise (2); MPICH alltoall pairwise (partners by XOR where N is a "
                "power of two)",
    .build = &build,
    .layout = &layouts::all_pairs_of,
    .closed_form = {"(N-1)(α + nβ/N)", "",
                    "any N", &forms::blocks_one_by_one},
    .is_default = true,
};

}  // namespace collsim
