// Pipelined chain broadcast (the pipeline of Thakur, Rabenseifner & Gropp 2005; NCCL's
// "tree" is a chain per node, pipelined the same way).
//
// Ranks form a chain root -> root+1 -> ... -> root+N-1 and the buffer is cut into S
// slices (--slices; default N, so the pipeline shows and fills). One phase:
//   pipeline, N-2+S steps: in step t, hop i of the chain (rank root+i to root+i+1)
//   carries slice t-i, when that slice exists. Slice 1 reaches the end after N-1 steps;
//   every later step delivers one more slice there.
// A step is not a barrier: each slice moves on as soon as it has arrived (the derived
// dependencies), so a real run overlaps the hops exactly as the step table shows.
// Any N works as it is (the chain has N-1 hops). With S = 1 it is the plain chain: N-1
// steps, each moving the whole buffer one hop.
// Steps: N-2+S. Bytes each rank sends: n (the whole buffer, slice by slice), the last
// rank nothing. For large n the time tends to n/bandwidth, independent of N, once S >> N.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/rooted.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// The slices it uses when --slices is 0: N, so the pipeline shows and fills.
int default_slices(const CollectiveSpec& spec) { return spec.ranks; }

// "0 -> 1 -> 2" in full up to 4 ranks, "0 -> 1 -> ... -> 5" beyond.
std::string chain_text(const Rooted& t) {
  std::string text = std::to_string(t.root);
  for (int v = 1; v < t.ranks; ++v) {
    if (t.ranks > 4 && v == 2) {
      text += " -> ...";
      v = t.ranks - 1;
    }
    text += " -> " + std::to_string(t.real(v));
  }
  return text;
}

std::string step_label(const Rooted& t, int step, int steps, int first_slice, int last_slice, int slices) {
  const std::string which = first_slice == last_slice
                                ? fmt::format("slice {}/{} moves", first_slice + 1, slices)
                                : fmt::format("slices {}-{}/{} each move", first_slice + 1, last_slice + 1, slices);
  return fmt::format("pipeline {}/{}: {} one hop down the chain {}", step + 1, steps, which, chain_text(t));
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  ScheduleBuilder b(spec, "chain");
  const Rooted t{spec.ranks, spec.root};
  const int slices = options.slices_or(default_slices(spec));
  const std::uint64_t k = spec.count;
  b.pre_copy({t.root, BufferKind::input, 0, k}, {t.root, BufferKind::output, 0, k});
  auto slice = [&](int v, int s) {
    const Block part = even_block(k, static_cast<std::uint64_t>(slices), static_cast<std::uint64_t>(s));
    return Region{t.real(v), v == 0 ? BufferKind::input : BufferKind::output, part.offset, part.count};
  };

  // The only phase: the pipeline. Hop i carries slice step - i.
  const int hops = t.ranks - 1, steps = hops > 0 ? hops - 1 + slices : 0;
  for (int step = 0; step < steps; ++step) {
    const int first_hop = std::max(0, step - slices + 1), last_hop = std::min(hops - 1, step);
    b.step(step_label(t, step, steps, step - last_hop, step - first_hop, slices));
    for (int i = first_hop; i <= last_hop; ++i) b.copy(step - i, slice(i, step - i), slice(i + 1, step - i));
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double slices = s.options.slices_or(1);
  return s.ranks < 2 ? 0 : (N(s) - 2 + slices) * copy(p, n(s) / slices);
}

// root -> root+1 -> ... -> root+N-1.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions&) {
  return layouts::chain(layouts::ranks_from(spec.ranks, spec.root));
}

AlgorithmOptions resolve(const CollectiveSpec& spec, AlgorithmOptions options) {
  if (options.slices == 0) options.slices = default_slices(spec);
  return options;
}

}  // namespace

extern const AlgorithmInfo kBroadcastChain{
    .name = "chain",
    .collective = Collective::broadcast,
    .summary = "slices flow down a chain of ranks, every hop busy at once; S = --slices (default N)",
    .steps_formula = "N-2+S",
    .bytes_formula = "n (all but the last rank)",
    .used_by = "NCCL Broadcast (its only algorithm, Ring: a chain along the ring, in chunks); Open MPI tuned "
                "bcast pipeline (3)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"(N-2+S)(α + nβ/S)", "",
                    "any N >= 2", &time_ns},
    .resolve = &resolve,
    .streams = true,
};

}  // namespace collsim
