// Hierarchical all-reduce for ranks grouped into nodes, as Horovod's hierarchical allreduce
// (HOROVOD_HIERARCHICAL_ALLREDUCE=1; horovod/common/ops/nccl_operations.cc,
// NCCLHierarchicalAllreduce: ncclReduceScatter in the node, MPI_Allreduce across, ncclAllGather
// in the node; the middle part is a ring here). NCCL's own algorithms are `ring` and
// `nccl_tree`. G ranks per node (--ranks-per-node), M = N/G nodes, rank = node * G + local index. Fast links inside a node, slow ones between nodes, so
// only 1/G of the vector should cross the slow links. Three phases, each a ring:
//   1. intra-node reduce-scatter, G-1 steps: inside every node the ring of its G ranks
//      reduces block l (of G blocks) onto local rank l; its first step sends the inputs and
//      every receiver adds its own input as it writes (reduce-copies: no pre-copy);
//   2. inter-node all-reduce, 2(M-1) steps: the M ranks with the same local index l form a
//      ring across the nodes and all-reduce block l (reduce-scatter then all-gather of
//      its M sub-blocks);
//   3. intra-node all-gather, G-1 steps: inside every node the ring shares the G finished
//      blocks.
// Rings work for any G and M, so no fold-in is needed; N must be a multiple of G.
// Steps: 2(G-1) + 2(M-1). Bytes each rank sends: 2(G-1)/G * n inside its node plus
// 2(M-1)/(M G) * n across nodes — 2(N-1)/N * n in all, the ring's total, but only
// 2(M-1)/N * n of it on the slow links instead of the ring's 2(N-1)/N * n.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/nodes.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

struct Grid {
  const CollectiveSpec& spec;
  int g, m;  // ranks per node, nodes
  int rank(int node, int local) const { return node * g + local; }
  Block block(int l) const {
    return even_block(spec.count, static_cast<std::uint64_t>(g), static_cast<std::uint64_t>(l));
  }
  Block sub(int l, int j) const {
    return sub_block(block(l), static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(j));
  }
};

// The ranks per node G it uses: options.ranks_per_node, or its default.
int ranks_per_node(int ranks, const AlgorithmOptions& options) {
  if (options.ranks_per_node > 0) return options.ranks_per_node;
  // Default: the smallest divisor of N that is at least sqrt(N) — two nodes for 4, 6 or 8 ranks.
  for (int g = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(ranks)))); g < ranks; ++g)
    if (ranks % g == 0) return g;
  return ranks;
}

// One ring hop of `part` from `source` of rank `from` into rank `to`'s output. A
// reduce-copy adds `to`'s own input as it writes (NCCL's recvReduceCopy): a reduce-scatter
// ring whose hops each land in a block the receiver has not written yet needs no copy of
// the input first.
void hop(ScheduleBuilder& b, Action action, BufferKind source, int chunk, int from, int to, Block part) {
  const Region at{from, source, part.offset, part.count}, into{to, BufferKind::output, part.offset, part.count};
  if (action == Action::reduce_copy)
    b.reduce_copy(chunk, at, {to, BufferKind::input, part.offset, part.count}, into);
  else
    b.add(action, chunk, at, into);
}

// Phases 1 and 3: one ring step inside every node; local rank l sends block block_of(l).
// The nodes whose ranks send: all, or those the builder keeps (KeepSendersBelow).
int sending_nodes(const ScheduleBuilder& b, const Grid& grid) {
  return std::min(grid.m, (b.senders_end() + grid.g - 1) / grid.g);
}

template <class BlockOf>
void intra_step(ScheduleBuilder& b, const Grid& grid, Action action, BufferKind source, BlockOf block_of) {
  for (int node = 0; node < sending_nodes(b, grid); ++node)
    for (int l = 0; l < grid.g; ++l) {
      const int c = block_of(l);
      hop(b, action, source, c * grid.m, grid.rank(node, l), grid.rank(node, mod(l + 1, grid.g)), grid.block(c));
    }
}

// Phase 2: one ring step across the nodes for every local index l; node i sends sub-block
// sub_of(i) of block l.
template <class SubOf>
void inter_step(ScheduleBuilder& b, const Grid& grid, Action action, BufferKind source, SubOf sub_of) {
  for (int l = 0; l < grid.g; ++l)
    for (int node = 0; node < sending_nodes(b, grid); ++node) {
      const int j = sub_of(node);
      hop(b, action, source, l * grid.m + j, grid.rank(node, l), grid.rank(mod(node + 1, grid.m), l), grid.sub(l, j));
    }
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  ScheduleBuilder b(spec, "hierarchical");
  const int g = ranks_per_node(spec.ranks, options);
  const Grid grid{spec, g, spec.ranks / g};
  if (spec.ranks == 1) b.pre_copy({0, BufferKind::input, 0, spec.count}, {0, BufferKind::output, 0, spec.count});

  // Phase 1: intra-node reduce-scatter — block l ends reduced over the node on local rank l.
  b.stage("intra-node reduce-scatter");
  for (int k = 0; k < g - 1; ++k) {
    b.step(fmt::format("intra-node reduce-scatter {}/{}: inside each of the {} nodes every rank sends one block to its "
                       "right neighbour, which reduces it",
                       k + 1, g - 1, grid.m));
    intra_step(b, grid, Action::reduce_copy, k == 0 ? BufferKind::input : BufferKind::output,
               [&](int l) { return mod(l - k - 1, g); });
  }
  // Phase 2: inter-node ring all-reduce of block l among the ranks with local index l.
  b.stage("inter-node reduce-scatter");
  for (int k = 0; k < grid.m - 1; ++k) {
    b.step(fmt::format("inter-node reduce-scatter {}/{}: the ranks with the same local index form a ring across the "
                       "nodes; each sends one piece of its block to the next node, which reduces it",
                       k + 1, grid.m - 1));
    // With one rank per node this is the first reduction, a ring of reduce-copies that
    // starts from the inputs; otherwise block l is already reduced over the node.
    inter_step(b, grid, g == 1 ? Action::reduce_copy : Action::reduce,
               g == 1 && k == 0 ? BufferKind::input : BufferKind::output, [&](int i) { return mod(i - k, grid.m); });
  }
  b.stage("inter-node all-gather");
  for (int k = 0; k < grid.m - 1; ++k) {
    b.step(fmt::format("inter-node all-gather {}/{}: across the nodes each rank forwards a finished piece of its block",
                       k + 1, grid.m - 1));
    inter_step(b, grid, Action::copy, BufferKind::output, [&](int i) { return mod(i + 1 - k, grid.m); });
  }
  // Phase 3: intra-node all-gather of the G finished blocks.
  b.stage("intra-node all-gather");
  for (int k = 0; k < g - 1; ++k) {
    b.step(fmt::format("intra-node all-gather {}/{}: inside each node every rank forwards a finished block to its "
                       "right neighbour",
                       k + 1, g - 1));
    intra_step(b, grid, Action::copy, BufferKind::output, [&](int l) { return mod(l - k, g); });
  }
  return std::move(b).finish();
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double g = s.options.ranks_per_node, m = N(s) / g, share = (N(s) - 1) / N(s) * n(s);
  return 2 * (g - 1 + m - 1) * p.alpha_ns + 2 * share * p.beta_ns_per_byte + share * p.gamma_ns_per_byte;
}

// G consecutive ranks per node.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  return {LayoutShape::hierarchy, layouts::ranks_from(spec.ranks), {}, {}, ranks_per_node(spec.ranks, options)};
}

void validate(const CollectiveSpec& spec, const AlgorithmOptions& options, int) {
  nodes::validate_ranks_per_node(spec, options);
}

AlgorithmOptions resolve(const CollectiveSpec& spec, AlgorithmOptions options) {
  options.ranks_per_node = ranks_per_node(spec.ranks, options);
  return options;
}

// Node i+1 does what node i does, each piece of the across-node rings one sub-block further
// around its block (the blocks inside the nodes stay): where the sub-blocks are equal.
std::optional<RankRotation> rotation(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const auto n = static_cast<std::uint64_t>(spec.ranks);
  const int g = ranks_per_node(spec.ranks, options);
  if (spec.count % n != 0) return std::nullopt;
  const std::uint64_t sub = spec.count / n, block = spec.count / static_cast<std::uint64_t>(g);
  return RankRotation{.ranks = g, .elements = {sub, sub, 0}, .within = {block, block, 0}};
}

}  // namespace

extern const AlgorithmInfo kAllReduceHierarchical{
    .name = "hierarchical",
    .collective = Collective::all_reduce,
    .summary = "Horovod's hierarchical allreduce: --ranks-per-node G, ring reduce-scatter inside each node, ring all-reduce "
        "across nodes, ring all-gather inside",
    .steps_formula = "2(G-1) + 2(N/G-1)",
    .bytes_formula = "2(N-1)/N * n; across nodes only 2(N/G-1)/N * n",
    .used_by = "Horovod HOROVOD_HIERARCHICAL_ALLREDUCE=1 (MPI between nodes)",
    .build = &build,
    .layout = &layout,
    .closed_form = {"2(G-1 + N/G-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ", "",
                    "any N = G·(N/G)", &time_ns},
    .validate = &validate,
    .resolve = &resolve,
    .knobs = {.slices = true, .servers = false, .ranks_per_node = true},
    .streams = true,
    .rotation = &rotation,
};

}  // namespace collsim
