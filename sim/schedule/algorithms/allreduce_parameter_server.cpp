// Parameter-server all-reduce (Li et al., OSDI 2014), the pattern of PS training.
//
// W workers (ranks 0..W-1) hold the gradients; S servers each own one contiguous shard
// of the vector. Servers are extra ranks W..W+S-1 or, with --colocated, workers 0..S-1.
//   1. push, 1 step: every worker sends shard s of its gradient to server s, which
//      reduces it into its accumulator. An extra server's accumulator starts as the op's
//      identity (a pre-operation), so every push is a reduce; a colocated server starts
//      from its own shard instead.
//   2. pull, 1 step: every server sends its reduced shard back to every worker.
// Steps: 2. Bytes each worker sends: n, and receives n. Each extra server receives
// W * n / S and sends the same — with S = 1 that server's link carries W times what a
// worker's does: the bottleneck a ring avoids. A colocated server keeps its own shard
// (sends n - n/S as a worker) and sends its shard to the W-1 others: (W-1) * n/S more.
#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/core/errors.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

struct Placement {
  int workers;
  int servers;
  bool colocated;
  int server_rank(int s) const { return colocated ? s : workers + s; }
  // Where server s accumulates its shard.
  Region accumulator(int s, Block shard) const {
    return colocated ? Region{s, BufferKind::output, shard.offset, shard.count}
                     : Region{workers + s, BufferKind::scratch, 0, shard.count};
  }
};

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const Placement p{spec.ranks, options.servers, options.colocated};
  ScheduleBuilder b(spec, "parameter_server", p.colocated ? p.workers : p.workers + p.servers);
  auto shard = [&](int s) { return even_block(spec.count, static_cast<std::uint64_t>(p.servers), static_cast<std::uint64_t>(s)); };

  // Accumulators start empty (identity) on extra servers, or from the server's own shard.
  for (int s = 0; s < p.servers; ++s) {
    const Block sh = shard(s);
    if (p.colocated) {
      b.pre_copy({s, BufferKind::input, sh.offset, sh.count}, p.accumulator(s, sh));
    } else {
      b.set_scratch(p.server_rank(s), sh.count);
      b.pre_fill_identity(p.accumulator(s, sh));
    }
  }

  // Phase 1: push — gradients flow into the servers.
  b.step(fmt::format("push: every worker sends shard s of its gradient to server s ({} server{}), which reduces it",
                     p.servers, p.servers == 1 ? "" : "s"));
  for (int w = 0; w < p.workers; ++w)
    for (int s = 0; s < p.servers; ++s) {
      if (p.colocated && w == s) continue;  // already in the accumulator
      const Block sh = shard(s);
      b.reduce(s, {w, BufferKind::input, sh.offset, sh.count}, p.accumulator(s, sh));
    }

  // Phase 2: pull — reduced shards flow back to every worker.
  b.step("pull: every server sends its reduced shard back to every worker");
  for (int s = 0; s < p.servers; ++s)
    for (int w = 0; w < p.workers; ++w) {
      if (p.colocated && w == s) continue;  // the accumulator is this worker's output
      const Block sh = shard(s);
      b.copy(s, p.accumulator(s, sh), {w, BufferKind::output, sh.offset, sh.count});
    }
  return std::move(b).finish();
}

}  // namespace

extern const AlgorithmInfo kAllReduceParameterServer{
    "parameter_server", Collective::all_reduce,
    "workers push shards to S servers (extra ranks, or --colocated on workers), servers reduce and send back",
    "2", "worker: n; extra server: W*n/S; colocated server: n - n/S + (W-1)*n/S", &build};

}  // namespace collsim
