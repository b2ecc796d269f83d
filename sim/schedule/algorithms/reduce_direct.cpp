// Direct reduce: the naive baseline.
//
// Every other rank sends its whole input to the root, which reduces them in, one after
// the other. The first (rank root+1's) is added to the root's own input as it is written
// to the output (a reduce-copy: no copy of the input first), in a step of its own because
// the writes of one step to one region must commute; the other N-2 follow in the second.
// Steps are not barriers: every rank sends at once.
// Steps: 2 (1 for N = 2). Bytes each rank sends: n, the root nothing — but the root receives (N-1) * n
// through one link, which the trees and the ring spread out.
#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "direct");
  const std::uint64_t k = spec.count;
  const Region acc{spec.root, BufferKind::output, 0, k};
  auto input = [&](int i) {
    const int r = (spec.root + i) % spec.ranks;
    return Region{r, BufferKind::input, 0, k};
  };
  if (spec.ranks == 1) b.pre_copy(input(0), acc);

  // Everyone sends to the root, which accumulates in the order listed.
  b.step("send 1/2: the root's right neighbour sends its whole buffer to the root, which adds its own input and "
         "writes the sum to its output");
  if (spec.ranks > 1) b.reduce_copy(input(1).rank, input(1), input(0), acc);
  b.step("send 2/2: every other rank sends its whole buffer to the root, which reduces it");
  for (int i = 2; i < spec.ranks; ++i) b.reduce(input(i).rank, input(i), acc);
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kReduceDirect{
    .name = "direct",
    .collective = Collective::reduce,
    .summary = "every rank sends its whole buffer to the root, which reduces them; the naive baseline",
    .steps_formula = "2 (1 for N = 2)",
    .bytes_formula = "n (every rank but the root)",
    .used_by = "Open MPI tuned reduce linear (1)",
    .build = &build,
    .layout = &layouts::root_star,
    .closed_form = {"(N-1)(α + nβ + nγ)", "",
                    "any N", &forms::vectors_reduced_one_by_one},
    .streams = true,
};

}  // namespace collsim
