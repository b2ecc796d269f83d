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
//
// Partitioned (--slices P > 1), as BytePS and ps-lite run it: each shard is cut into P
// partitions, pushed one after the other, and a server sends partition p back as soon as
// every worker's push of p has arrived (BytePS server.cc, BytePSHandler: once a key's
// `updates.request.size() == NumWorkers()` it answers the pulls parked for it). So pushes of
// later partitions overlap pulls of earlier ones, each on its own direction of the links:
// step 1 pushes partition 1, step k (2..P) pushes partition k and pulls partition k-1, step
// P+1 pulls partition P. With enough server bandwidth (S = W) a worker's link carries n each
// way at once, against the ring's 2(N-1)/N·n (BytePS, OSDI 2020; docs/lessons-sources.md).
// Steps: P + 1; bytes as above.
#include <algorithm>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
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

// Servers on extra ranks W..W+S-1 unless colocated.
int extra_ranks(const CollectiveSpec&, const AlgorithmOptions& options) {
  return options.colocated ? 0 : options.servers;
}

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const Placement p{spec.ranks, options.servers, options.colocated};
  ScheduleBuilder b(spec, "parameter_server", spec.ranks + extra_ranks(spec, options));
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

  // One partition's push (every worker to every server) and pull (every server to every worker).
  // No more partitions than the smallest shard has elements: every step moves something.
  const std::uint64_t smallest = spec.count / static_cast<std::uint64_t>(p.servers);
  const int parts = static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(
      static_cast<std::uint64_t>(options.slices_or(1)), smallest)));
  auto partition = [&](int s, int q) {
    const Block sh = shard(s);
    const Block part = even_block(sh.count, static_cast<std::uint64_t>(parts), static_cast<std::uint64_t>(q));
    return Block{sh.offset + part.offset, part.count};
  };
  auto in_accumulator = [&](int s, Block part) {
    const Region whole = p.accumulator(s, shard(s));
    return Region{whole.rank, whole.buffer, whole.offset + (part.offset - shard(s).offset), part.count};
  };
  auto push = [&](int q) {
    for (int w = 0; w < p.workers; ++w)
      for (int s = 0; s < p.servers; ++s) {
        if (p.colocated && w == s) continue;  // already in the accumulator
        const Block part = partition(s, q);
        if (part.count == 0) continue;
        b.reduce(s * parts + q, {w, BufferKind::input, part.offset, part.count}, in_accumulator(s, part));
      }
  };
  auto pull = [&](int q) {
    for (int s = 0; s < p.servers; ++s)
      for (int w = 0; w < p.workers; ++w) {
        if (p.colocated && w == s) continue;  // the accumulator is this worker's output
        const Block part = partition(s, q);
        if (part.count == 0) continue;
        b.copy(s * parts + q, in_accumulator(s, part), {w, BufferKind::output, part.offset, part.count});
      }
  };
  const std::string servers = fmt::format("{} server{}", p.servers, p.servers == 1 ? "" : "s");
  if (parts == 1) {
    // Phase 1: push — gradients flow into the servers.
    b.stage("push");
    b.step(fmt::format("push: every worker sends shard s of its gradient to server s ({}), which reduces it", servers));
    push(0);
    // Phase 2: pull — reduced shards flow back to every worker.
    b.stage("pull");
    b.step("pull: every server sends its reduced shard back to every worker");
    pull(0);
  } else {
    // Partitioned: each partition's pull follows its own pushes, overlapping the next push.
    for (int q = 0; q <= parts; ++q) {
      b.stage(q == 0 ? "push" : q == parts ? "pull" : "push and pull");
      if (q == 0)
        b.step(fmt::format("push 1/{}: every worker sends partition 1 of each shard to its server ({})", parts, servers));
      else if (q == parts)
        b.step(fmt::format("pull {}/{}: every server sends partition {} back to every worker", parts, parts, parts));
      else
        b.step(fmt::format("push {0}/{1} and pull {2}/{1}: partition {0} goes in while the servers send partition {2}, "
                           "whose pushes have all arrived, back",
                           q + 1, parts, q));
      if (q < parts) push(q);
      if (q > 0) pull(q - 1);
    }
  }
  return std::move(b).finish();
}

// W pushes into each server's accumulator are serialised by their write-after-write
// dependencies; server s starts s messages late because every worker sends to the servers
// in order; the pulls then leave each server one after the other.
forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  if (s.options.slices_or(1) > 1) return std::nullopt;  // partitioned: pushes and pulls overlap, no simple form
  const double servers = s.options.servers, w = N(s), shard = n(s) / servers;
  if (!s.options.colocated) return (servers - 1) * copy(p, shard) + w * (reduce(p, shard) + copy(p, shard));
  if (servers == 1) return (w - 1) * (reduce(p, n(s)) + copy(p, n(s)));
  return std::nullopt;  // colocated servers also push and pull as workers: no simple form
}

// A star around the servers: every worker pushes to and pulls from each of them.
AlgorithmLayout layout(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  const Placement p{spec.ranks, options.servers, options.colocated};
  std::vector<int> hubs;
  for (int s = 0; s < p.servers; ++s) hubs.push_back(p.server_rank(s));
  return layouts::star(std::move(hubs));
}

void validate(const CollectiveSpec& spec, const AlgorithmOptions& options, int max_ranks) {
  if (options.servers < 1) throw InputError(fmt::format("--servers must be at least 1, got {}", options.servers));
  if (options.servers > spec.ranks)
    throw InputError(fmt::format("--servers ({}) must not exceed the number of workers --ranks ({})", options.servers,
                                 spec.ranks));
  if (!options.colocated && spec.ranks + options.servers > max_ranks)
    throw InputError(fmt::format("--ranks {} workers plus --servers {} extra servers exceed {} ranks", spec.ranks,
                                 options.servers, max_ranks));
}

}  // namespace

extern const AlgorithmInfo kAllReduceParameterServer{
    .name = "parameter_server",
    .collective = Collective::all_reduce,
    .summary = "workers push shards to S servers (extra ranks, or --colocated on workers), servers reduce and send back",
    .steps_formula = "2; partitioned (--slices P): P+1",
    .bytes_formula = "worker: n; extra server: W*n/S; colocated server: n - n/S + (W-1)*n/S",
    .used_by = "Open MPI tuned basic_linear (1) as --colocated with one server: a linear reduce to rank 0, then "
                "a linear bcast; BytePS and ps-lite partitioned (--slices P): each partition pulled once all its "
                "pushes have arrived",
    .build = &build,
    .layout = &layout,
    .closed_form = {"(S-1)(α + nβ/S) + W(2α + 2nβ/S + nγ/S)", "colocated, S = 1: (W-1)(2α + 2nβ + nγ)",
                    "any W, unpartitioned; colocated only with S = 1", &time_ns},
    .validate = &validate,
    .extra_ranks = &extra_ranks,
    .knobs = {.slices = true, .servers = true, .ranks_per_node = false},
    .streams = true,
};

}  // namespace collsim
