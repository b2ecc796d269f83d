// Training patterns (lesson.h): one training step of a model, expanded into the phases a
// framework issues, in the order it issues them, so that the program runner (program.cpp)
// shows which communication overlaps which compute.
//
//   ddp   PyTorch DistributedDataParallel. Optionally rank 0 first broadcasts the initial
//         parameters. Forward, layer by layer. Backward in reverse layer order; gradients
//         are grouped into buckets in that reverse order (the first bucket capped at
//         first_bucket_mb, the others at bucket_mb; a layer is never split; a bucket closes
//         when the next layer would overflow it, unless it is empty), and each bucket is
//         all-reduced as soon as the backward of its last layer has written its gradient,
//         while the backward goes on with the layers before it.
//   fsdp  PyTorch FullyShardedDataParallel (FULL_SHARD), one unit per layer: each rank keeps
//         1/ranks of every layer (padded to a multiple of the ranks). Forward: all-gather the
//         layer's parameters, compute. Backward in reverse: all-gather again (FSDP frees the
//         gathered parameters after the forward), compute, reduce-scatter the gradient so
//         that each rank keeps the reduced shard it owns.
//   parameter_server   forward and backward on the workers; "push" (step 1 of the
//         parameter_server all-reduce: workers send gradient shards to the servers, which
//         sum them); the servers' SGD update; "pull" (step 2: servers send the reduced
//         shards back). Push and pull carry the same RunRequest, so the runner executes one
//         all-reduce and shows its two steps as two phases, with the update in between.
//
// Named regions (lesson.h) order the phases beyond their streams:
//   ddp   broadcast writes "params"; forward reads "params"; backward of layer L writes
//         "grad.L"; a bucket's all-reduce reads and writes "grad.L" of its layers.
//   fsdp  all-gathers write "param.L"; forward and backward of L read "param.L"; backward
//         writes "grad.L"; the reduce-scatter reads and writes "grad.L".
//   ps    forward reads "params"; backward writes "grad"; push reads "grad" and writes
//         "grad.server"; the update reads "grad.server" and writes "params.shard"; pull
//         reads "params.shard" (so it waits for the update) and writes "params".
// Compute times are split over the layers in proportion to their parameters: a crude
// model (a convolution's FLOPs also grow with the image it slides over), but one a
// student can check by hand.
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithm.h"
#include "sim/core/errors.h"
#include "sim/lesson/lesson.h"

namespace collsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

[[noreturn]] void fail(const TrainingSpec& spec, std::string_view key, std::string_view problem) {
  throw InputError(fmt::format("{}: key 'training.{}': {}", spec.origin, key, problem));
}

void check_time(const TrainingSpec& spec, std::string_view key, double us) {
  if (!std::isfinite(us) || us < 0) fail(spec, key, fmt::format("must be >= 0 µs, got {}", us));
}

void check_bucket(const TrainingSpec& spec, std::string_view key, double mb) {
  if (!std::isfinite(mb) || mb <= 0) fail(spec, key, fmt::format("must be > 0 MiB, got {}", mb));
}

// The algorithm that all-gathers or reduce-scatters fsdp's shards: the spec's where the
// collective has it (recursive_doubling is an all-gather, recursive_halving a
// reduce-scatter), else ring.
std::string fsdp_algorithm(const TrainingSpec& spec, Collective c) {
  return find_algorithm(c, spec.algorithm) ? spec.algorithm : std::string("ring");
}

void check_spec(const TrainingSpec& spec, int ranks) {
  const ModelLayers& m = spec.model;
  if (m.parameters.empty()) fail(spec, "model", "the model has no layers");
  if (!m.layer_names.empty() && m.layer_names.size() != m.parameters.size())
    fail(spec, "model", fmt::format("{} layer names for {} layers", m.layer_names.size(), m.parameters.size()));
  for (std::size_t i = 0; i < m.parameters.size(); ++i)
    if (m.parameters[i] == 0) fail(spec, "model", fmt::format("layer {} has 0 parameters; every layer needs at least 1", i + 1));
  // Bounded before anything sums or multiplies them, as build_schedule bounds --count.
  constexpr std::uint64_t kMostBytes = std::uint64_t{1} << 50;
  const std::uint64_t most_parameters = kMostBytes / dtype_size(spec.dtype);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    if (m.parameters[i] > most_parameters - total)
      fail(spec, "model", fmt::format("layers 1..{} have more than {} parameters of {} (2^50 bytes): too many to "
                                      "simulate",
                                      i + 1, most_parameters, to_string(spec.dtype)));
    total += m.parameters[i];
  }
  check_bucket(spec, "bucket_mb", spec.bucket_mb);
  check_bucket(spec, "first_bucket_mb", spec.first_bucket_mb);
  check_time(spec, "forward_us", spec.forward_us);
  check_time(spec, "backward_us", spec.backward_us);
  check_time(spec, "update_us", spec.update_us);
  if (ranks < 1 || ranks > kMaxRanks) fail(spec, "pattern", fmt::format("ranks must be between 1 and {}, got {}", kMaxRanks, ranks));
  switch (spec.pattern) {
    case TrainingPattern::ddp:
      if (!find_algorithm(Collective::all_reduce, spec.algorithm))
        fail(spec, "algorithm", fmt::format("no all-reduce algorithm '{}' (see `collsim list`)", spec.algorithm));
      break;
    case TrainingPattern::fsdp:
      if (ranks < 2) fail(spec, "pattern", fmt::format("fsdp shards the model over the ranks: it needs at least 2, got {}", ranks));
      if (!find_algorithm(Collective::all_gather, spec.algorithm) && !find_algorithm(Collective::reduce_scatter, spec.algorithm))
        fail(spec, "algorithm", fmt::format("no all-gather or reduce-scatter algorithm '{}' (see `collsim list`)", spec.algorithm));
      break;
    case TrainingPattern::parameter_server:
    case TrainingPattern::pipeline: break;
  }
  const bool servers_used = spec.pattern == TrainingPattern::parameter_server ||
                            (spec.pattern == TrainingPattern::ddp && algorithm_knobs(Collective::all_reduce, spec.algorithm).servers);
  if (servers_used && (spec.servers < 1 || spec.servers > ranks))
    fail(spec, "servers", fmt::format("must be between 1 and the {} worker ranks, got {}", ranks, spec.servers));
  if (servers_used && ranks + spec.servers > kMaxRanks)
    fail(spec, "servers", fmt::format("{} workers plus {} servers exceed {} ranks", ranks, spec.servers, kMaxRanks));
}

// The generator's shared state: the spec, the ranks and the phases so far.
struct Generator {
  const TrainingSpec& spec;
  int ranks;        // workers
  int total_ranks;  // workers plus extra parameter servers
  std::vector<std::string> names;
  std::vector<Phase> phases;

  std::uint64_t params(std::size_t layer) const { return spec.model.parameters[layer]; }
  double bytes(std::uint64_t elements) const { return static_cast<double>(elements * dtype_size(spec.dtype)); }

  RunRequest request(Collective c, std::string algorithm, std::uint64_t count) const {
    RunRequest r;
    r.spec.collective = c;
    r.spec.ranks = ranks;
    r.spec.count = count;
    r.spec.dtype = spec.dtype;
    r.spec.op = ReduceOp::sum;
    r.algorithm = std::move(algorithm);
    if (algorithm_knobs(c, r.algorithm).servers) r.options.servers = spec.servers;
    r.seed = 1;
    return r;
  }

  Phase& collective(std::string name, RunRequest r, std::string caption, std::string step_caption) {
    Phase p;
    p.kind = PhaseKind::collective;
    p.name = std::move(name);
    p.request = std::move(r);
    p.caption = std::move(caption);
    p.step_caption = std::move(step_caption);
    p.origin = spec.origin;
    return phases.emplace_back(std::move(p));
  }

  // A compute phase of `us` on every worker rank (extra server ranks idle).
  Phase& compute(std::string name, double us, std::string caption) {
    Phase p;
    p.kind = PhaseKind::compute;
    p.name = std::move(name);
    p.compute_us.assign(static_cast<std::size_t>(total_ranks), 0.0);
    for (int r = 0; r < ranks; ++r) p.compute_us[static_cast<std::size_t>(r)] = us;
    p.caption = std::move(caption);
    p.origin = spec.origin;
    return phases.emplace_back(std::move(p));
  }

  // The share of `total_us` that layer `layer` takes: proportional to its parameters.
  double share(double total_us, std::size_t layer) const {
    return total_us * static_cast<double>(params(layer)) / static_cast<double>(spec.model.total());
  }

  void forward(std::size_t layer, std::vector<std::string> reads) {
    const double us = share(spec.forward_us, layer);
    compute("forward " + names[layer], us,
            fmt::format("Forward pass of {} ({} parameters): {:.2f} µs of the {:.1f} µs forward pass, its share of the "
                        "model's parameters.",
                        names[layer], params(layer), us, spec.forward_us))
        .reads = std::move(reads);
  }

  Phase& backward(std::size_t layer) {
    const double us = share(spec.backward_us, layer);
    Phase& p = compute("backward " + names[layer], us,
                       fmt::format("Backward pass of {}: {:.2f} µs; it writes the gradient of its {} parameters, "
                                   "grad.{}.",
                                   names[layer], us, params(layer), names[layer]));
    p.writes = {"grad." + names[layer]};
    return p;
  }
};

std::vector<std::string> layer_names(const ModelLayers& m) {
  if (!m.layer_names.empty()) return m.layer_names;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < m.parameters.size(); ++i) names.push_back(fmt::format("layer{}", i + 1));
  return names;
}

// --- ddp -------------------------------------------------------------------------------

// PyTorch DDP's buckets: layer indices in reverse layer order (the order the backward pass
// produces gradients), the first bucket capped at first_bucket_mb, the rest at bucket_mb.
std::vector<std::vector<std::size_t>> ddp_buckets(const Generator& g) {
  std::vector<std::vector<std::size_t>> buckets(1);
  double size = 0;
  for (std::size_t i = g.spec.model.parameters.size(); i-- > 0;) {
    const double cap = (buckets.size() == 1 ? g.spec.first_bucket_mb : g.spec.bucket_mb) * kMiB;
    const double b = g.bytes(g.params(i));
    if (!buckets.back().empty() && size + b > cap) {
      buckets.emplace_back();
      size = 0;
    }
    buckets.back().push_back(i);
    size += b;
  }
  return buckets;
}

void ddp_broadcast(Generator& g) {
  const char* algorithm = find_algorithm(Collective::broadcast, "binomial_tree") ? "binomial_tree" : "direct";
  const std::uint64_t total = g.spec.model.total();
  g.collective("broadcast parameters", g.request(Collective::broadcast, algorithm, total),
               fmt::format("DDP starts from the same model everywhere: rank 0 broadcasts all {} parameters ({}) to the "
                           "other ranks.",
                           total, format_bytes(g.bytes(total))),
               "broadcast parameters, step {step}/{steps}: {label}")
      .writes = {"params"};
}

void ddp_bucket(Generator& g, const std::vector<std::size_t>& bucket, std::size_t number, std::size_t buckets) {
  std::uint64_t count = 0;
  std::vector<std::string> grads;
  for (std::size_t i : bucket) {
    count += g.params(i);
    grads.push_back("grad." + g.names[i]);
  }
  const std::string& first = g.names[bucket.front()];
  const std::string& last = g.names[bucket.back()];
  const std::string layers = bucket.size() == 1 ? first : fmt::format("{} .. {}", first, last);
  const double cap = number == 1 ? g.spec.first_bucket_mb : g.spec.bucket_mb;
  Phase& p = g.collective(
      fmt::format("all-reduce bucket {} ({})", number, layers),
      g.request(Collective::all_reduce, g.spec.algorithm, count),
      fmt::format("All-reduce bucket {} of {}: layer{} {}, {} parameters, {} (cap {} MiB). DDP starts it as soon as "
                  "the backward pass has written the gradient of {}, while the backward goes on with the layers "
                  "before it.",
                  number, buckets, bucket.size() == 1 ? "" : "s", layers, count, format_bytes(g.bytes(count)), cap, last),
      fmt::format("bucket {}, step {{step}}/{{steps}}: {{label}} (rank {{src}} sends {{bytes}} B to rank {{dst}})", number));
  p.reads = grads;
  p.writes = std::move(grads);
}

void ddp(Generator& g) {
  const std::size_t layers = g.spec.model.parameters.size();
  if (g.spec.broadcast_parameters) ddp_broadcast(g);
  if (g.spec.forward_us > 0)
    for (std::size_t i = 0; i < layers; ++i) g.forward(i, {"params"});
  const auto buckets = ddp_buckets(g);
  std::size_t next = 0;  // the next bucket to all-reduce
  for (std::size_t i = layers; i-- > 0;) {
    if (g.spec.backward_us > 0) g.backward(i);
    // Buckets hold descending layer indices: this one is ready once its last layer is.
    if (buckets[next].back() == i) {
      ddp_bucket(g, buckets[next], next + 1, buckets.size());
      ++next;
    }
  }
}

// --- fsdp ------------------------------------------------------------------------------

void fsdp_gather(Generator& g, std::size_t layer, std::string_view pass) {
  const std::uint64_t p = g.params(layer), n = static_cast<std::uint64_t>(g.ranks);
  const std::uint64_t shard = (p + n - 1) / n;
  const std::string padding =
      p % n == 0 ? std::string() : fmt::format(" (padded from {} to {} x {} elements)", p, n, shard);
  const std::string& name = g.names[layer];
  g.collective(fmt::format("all-gather {} ({})", name, pass),
               g.request(Collective::all_gather, fsdp_algorithm(g.spec, Collective::all_gather), shard),
               fmt::format("Before the {} of {}, every rank all-gathers its parameters: each holds a shard of {} "
                           "elements{}, and ends with all {} ({}).",
                           pass, name, shard, padding, p, format_bytes(g.bytes(p))),
               fmt::format("all-gather {}, step {{step}}/{{steps}}: {{label}}", name))
      .writes = {"param." + name};
}

void fsdp_reduce_scatter(Generator& g, std::size_t layer) {
  const std::uint64_t n = static_cast<std::uint64_t>(g.ranks);
  const std::uint64_t shard = (g.params(layer) + n - 1) / n;
  const std::string& name = g.names[layer];
  Phase& p = g.collective(fmt::format("reduce-scatter {} gradient", name),
                          g.request(Collective::reduce_scatter, fsdp_algorithm(g.spec, Collective::reduce_scatter), shard),
                          fmt::format("The gradient of {} is reduce-scattered: each rank keeps the sum over all ranks "
                                      "of its own shard ({} elements), the only part its optimizer updates.",
                                      name, shard),
                          fmt::format("reduce-scatter {}, step {{step}}/{{steps}}: {{label}}", name));
  p.reads = {"grad." + name};
  p.writes = p.reads;
}

void fsdp(Generator& g) {
  const std::size_t layers = g.spec.model.parameters.size();
  for (std::size_t i = 0; i < layers; ++i) {
    fsdp_gather(g, i, "forward");
    if (g.spec.forward_us > 0) g.forward(i, {"param." + g.names[i]});
  }
  for (std::size_t i = layers; i-- > 0;) {
    fsdp_gather(g, i, "backward");
    if (g.spec.backward_us > 0) g.backward(i).reads = {"param." + g.names[i]};
    fsdp_reduce_scatter(g, i);
  }
}

// --- parameter server ------------------------------------------------------------------

void parameter_server(Generator& g) {
  const TrainingSpec& s = g.spec;
  const std::uint64_t total = s.model.total();
  if (s.forward_us > 0)
    g.compute("forward", s.forward_us,
              fmt::format("The {} workers run the forward pass ({:.1f} µs); the servers wait.", g.ranks, s.forward_us))
        .reads = {"params"};
  if (s.backward_us > 0)
    g.compute("backward", s.backward_us,
              fmt::format("The workers run the backward pass ({:.1f} µs) and hold the whole gradient.", s.backward_us))
        .writes = {"grad"};

  const RunRequest all_reduce = g.request(Collective::all_reduce, "parameter_server", total);
  // Each server owns about 1/S of the vector and exchanges it with every worker.
  const double shard = g.bytes(total) / s.servers;
  const std::string per_server = format_bytes(shard * g.ranks), per_worker = format_bytes(g.bytes(total));
  Phase& push = g.collective(
      "push", all_reduce,
      fmt::format("Push: every worker sends each of the {} server{} its shard of the gradient, {} in all; each server "
                  "receives {} and sums what the {} workers send.",
                  s.servers, s.servers == 1 ? "" : "s", per_worker, per_server, g.ranks),
      "push: rank {src} sends {bytes} B of its gradient to server rank {dst}");
  push.first_step = push.last_step = 1;
  push.reads = {"grad"};
  push.writes = {"grad.server"};

  if (s.update_us > 0) {
    Phase& update = g.compute("SGD update", 0,
                              fmt::format("Each server applies the summed gradient to its shard of the parameters "
                                          "({:.1f} µs); the workers wait for the new parameters.",
                                          s.update_us));
    for (int r = g.ranks; r < g.total_ranks; ++r) update.compute_us[static_cast<std::size_t>(r)] = s.update_us;
    update.reads = {"grad.server"};
    update.writes = {"params.shard"};
  }

  Phase& pull = g.collective(
      "pull", all_reduce,
      fmt::format("Pull: every server sends its updated shard back to each of the {} workers: {} out of each server, "
                  "{} into each worker.",
                  g.ranks, per_server, per_worker),
      "pull: server rank {src} sends {bytes} B of parameters to rank {dst}");
  pull.first_step = pull.last_step = 2;
  pull.reads = {"params.shard"};
  pull.writes = {"params"};
}

}  // namespace

std::vector<Phase> training_phases(const TrainingSpec& spec, int ranks) {
  if (spec.pattern == TrainingPattern::pipeline) return pipeline_phases(spec, ranks);  // pipeline.cpp
  check_spec(spec, ranks);
  const bool extra_servers = spec.pattern == TrainingPattern::parameter_server ||
                             (spec.pattern == TrainingPattern::ddp && algorithm_knobs(Collective::all_reduce, spec.algorithm).servers);
  Generator g{spec, ranks, ranks + (extra_servers ? spec.servers : 0), layer_names(spec.model), {}};
  switch (spec.pattern) {
    case TrainingPattern::ddp: ddp(g); break;
    case TrainingPattern::fsdp: fsdp(g); break;
    case TrainingPattern::parameter_server: parameter_server(g); break;
    case TrainingPattern::pipeline: break;  // above
  }
  return std::move(g.phases);
}

}  // namespace collsim
