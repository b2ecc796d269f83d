// Training patterns (lesson.h): a training run of a model, expanded into the phases a
// framework issues, in the order it issues them, so that the program runner (program.cpp)
// shows which communication overlaps which compute. docs/lessons-sources.md names the
// PyTorch code each rule comes from, and what collsim simplifies.
//
//   ddp   PyTorch DistributedDataParallel, in the parts the spec lists, each collective as a
//         real PyTorch run issues it (docs/ddp-measured.md):
//         constructor: the shape check (an all-gather of each rank's tensor count, a
//           broadcast of rank 0's sizes and strides), then rank 0 broadcasts the state_dict
//           (parameters and buffers), one coalesced broadcast per dtype in buckets of
//           broadcast_bucket_mb (_sync_module_states), with NCCL's broadcast, a pipelined
//           chain;
//         first iteration: the buffers' broadcasts (broadcast_buffers, one per dtype),
//           forward layer by layer, backward in reverse; one bucket of every gradient (the
//           reducer starts with one bucket unless find_unused_parameters), all-reduced once
//           the backward has written the last gradient;
//         later iterations: the same, with the buckets rebuilt (ddp_buckets) in the order
//           the gradients became ready, each all-reduced as soon as the backward has
//           written its last tensor, while the backward goes on. The first of them (after
//           "first") broadcasts the rebuilt assignment before its buffers (two int32
//           broadcasts).
//         Gradients are averaged: the all-reduces use avg (the reducer divides each
//         gradient by the world size as it copies it into its bucket, then sums).
//   fsdp  PyTorch FullyShardedDataParallel (FULL_SHARD), one unit per layer: each rank keeps
//         1/ranks of every layer (padded to a multiple of the ranks). Forward: all-gather
//         the unit, compute, free the gathered parameters (reshard after forward). Backward
//         in reverse: all-gather again, compute the gradient, free, reduce-scatter (avg) the
//         gradient. backward_prefetch issues the next unit's all-gather before (BACKWARD_PRE)
//         or after (BACKWARD_POST) the current unit's gradient computation, forward_prefetch
//         the next forward all-gather before the current forward, and limit_all_gathers
//         makes the host wait, before each all-gather, for the free two frees back
//         (FSDP's _FreeEventQueue). Every all-gather allocates the unit's gathered
//         parameters, the compute that last uses them frees them: the memory line.
//   parameter_server   forward and backward on the workers; "push" (step 1 of the
//         parameter_server all-reduce: workers send gradient shards to the servers, which
//         sum them); the servers' SGD update; "pull" (step 2: servers send the reduced
//         shards back). Push and pull carry the same RunRequest, so the runner executes one
//         all-reduce and shows its two steps as two phases, with the update in between.
//
// Named regions (lesson.h) order the phases beyond their streams:
//   ddp   broadcasts write "params" and "buffers"; forward reads them; backward of layer L
//         writes "grad.L"; a bucket's all-reduce reads and writes the "grad.L" of the layers
//         its tensors belong to. A later iteration's first forward waits for (wait_for)
//         the previous iteration's all-reduces, as backward() returns only once they end.
//   fsdp  all-gathers write "param.L"; forward and backward of L read "param.L"; backward
//         writes "grad.L"; the reduce-scatter reads and writes "grad.L".
//   ps    forward reads "params"; backward writes "grad"; push reads "grad" and writes
//         "grad.server"; the update reads "grad.server" and writes "params.shard"; pull
//         reads "params.shard" (so it waits for the update) and writes "params".
// Compute: a layer's forward time is its multiply-adds at the device's rate (2 FLOPs per
// multiply-add, `batch` samples), its backward twice that; or the whole pass's time split
// over the layers by their multiply-adds or by their parameters.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
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

// Per-layer times need multiply-adds where the spec uses them, and a rate with a batch.
void check_compute(const TrainingSpec& spec) {
  const ModelLayers& m = spec.model;
  const bool has_macs = m.macs.size() == m.parameters.size() && m.total_macs() > 0;
  if (!std::isfinite(spec.device_tflops) || spec.device_tflops < 0)
    fail(spec, "device_tflops", fmt::format("must be > 0 TFLOP/s, got {}", spec.device_tflops));
  if (spec.device_tflops > 0) {
    if (!has_macs)
      fail(spec, "device_tflops",
           "the model has no multiply-adds per layer (a custom model): give forward_us and backward_us instead");
    if (spec.batch < 1) fail(spec, "batch", fmt::format("must be at least 1 sample per rank, got {}", spec.batch));
    if (spec.forward_us > 0 || spec.backward_us > 0)
      fail(spec, "device_tflops", "computes the times from the multiply-adds: leave forward_us and backward_us out");
  } else if (spec.split_by_flops && !has_macs && (spec.forward_us > 0 || spec.backward_us > 0)) {
    fail(spec, "split", "the model has no multiply-adds per layer (a custom model): use split = \"parameters\"");
  }
}

// DDP's parts in the order a training run has them, each once.
void check_parts(const TrainingSpec& spec) {
  if (spec.parts.empty()) fail(spec, "iterations", "give at least one part: \"constructor\", \"first\" or \"later\"");
  for (std::size_t i = 1; i < spec.parts.size(); ++i)
    if (spec.parts[i] <= spec.parts[i - 1])
      fail(spec, "iterations", "the parts come in the order of a training run, each once: constructor, first, later");
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
  check_bucket(spec, "broadcast_bucket_mb", spec.broadcast_bucket_mb);
  check_compute(spec);
  check_parts(spec);
  if (ranks < 1 || ranks > kMaxRanks) fail(spec, "pattern", fmt::format("ranks must be between 1 and {}, got {}", kMaxRanks, ranks));
  switch (spec.pattern) {
    case TrainingPattern::ddp:
      if (!find_algorithm(Collective::all_reduce, spec.algorithm))
        fail(spec, "algorithm", fmt::format("no all-reduce algorithm '{}' (see `collsim list`)", spec.algorithm));
      break;
    case TrainingPattern::fsdp:
      if (spec.device_tflops <= 0 && (spec.forward_us <= 0 || spec.backward_us <= 0))
        fail(spec, "pattern",
             "fsdp frees a unit's gathered parameters after the compute that uses them: give device_tflops and batch, "
             "or forward_us and backward_us > 0");
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

  RunRequest request(Collective c, std::string algorithm, std::uint64_t count, ReduceOp op = ReduceOp::sum) const {
    return request(c, std::move(algorithm), count, op, spec.dtype);
  }
  RunRequest request(Collective c, std::string algorithm, std::uint64_t count, ReduceOp op, DataType dtype) const {
    RunRequest r;
    r.spec.collective = c;
    r.spec.ranks = ranks;
    r.spec.count = count;
    r.spec.dtype = dtype;
    r.spec.op = op;
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

  bool rated() const { return spec.device_tflops > 0; }
  bool computes_forward() const { return rated() || spec.forward_us > 0; }
  bool computes_backward() const { return rated() || spec.backward_us > 0; }

  // The share of `total_us` that layer `layer` takes: by its multiply-adds or its parameters.
  double share(double total_us, std::size_t layer) const {
    const ModelLayers& m = spec.model;
    if (spec.split_by_flops) return total_us * m.macs[layer] / m.total_macs();
    return total_us * static_cast<double>(params(layer)) / static_cast<double>(m.total());
  }

  // µs: 2 FLOPs per multiply-add for `batch` samples at device_tflops (10^6 FLOP per µs per TFLOP/s).
  double rated_forward_us(std::size_t layer) const {
    return 2.0 * spec.model.macs[layer] * spec.batch / (spec.device_tflops * 1e6);
  }
  double forward_us(std::size_t layer) const { return rated() ? rated_forward_us(layer) : share(spec.forward_us, layer); }
  double backward_us(std::size_t layer) const {
    return rated() ? 2 * rated_forward_us(layer) : share(spec.backward_us, layer);
  }

  // The whole pass, µs.
  double pass_us(bool backward) const {
    if (!rated()) return backward ? spec.backward_us : spec.forward_us;
    double us = 0;
    for (std::size_t i = 0; i < spec.model.parameters.size(); ++i) us += backward ? backward_us(i) : forward_us(i);
    return us;
  }

  // How a layer's time was found, for its caption.
  std::string time_reason(std::size_t layer, bool backward) const {
    const double mmacs = spec.model.macs.empty() ? 0 : spec.model.macs[layer] / 1e6;
    if (rated())
      return fmt::format("{:.1f} M multiply-adds per sample x {} samples x 2 FLOPs at {} TFLOP/s{}", mmacs, spec.batch,
                         spec.device_tflops, backward ? ", twice the forward" : "");
    if (spec.split_by_flops)
      return fmt::format("its share ({:.1f} M multiply-adds) of the {:.1f} µs {} pass, by multiply-adds", mmacs,
                         backward ? spec.backward_us : spec.forward_us, backward ? "backward" : "forward");
    return fmt::format("its share ({} parameters) of the {:.1f} µs {} pass, by parameters", params(layer),
                       backward ? spec.backward_us : spec.forward_us, backward ? "backward" : "forward");
  }

  Phase& forward(std::size_t layer, std::vector<std::string> reads) {
    const double us = forward_us(layer);
    Phase& p = compute(prefix + "forward " + names[layer], us,
                       fmt::format("Forward pass of {}: {:.2f} µs, {}.", names[layer], us, time_reason(layer, false)));
    p.reads = std::move(reads);
    return p;
  }

  Phase& backward(std::size_t layer) {
    const double us = backward_us(layer);
    Phase& p = compute(prefix + "backward " + names[layer], us,
                       fmt::format("Backward pass of {}: {:.2f} µs, {}; it writes the gradient of its {} parameters, "
                                   "grad.{}.",
                                   names[layer], us, time_reason(layer, true), params(layer), names[layer]));
    p.writes = {"grad." + names[layer]};
    return p;
  }

  std::string prefix;  // "iteration 1: " where a lesson has several parts
};

std::vector<std::string> layer_names(const ModelLayers& m) {
  if (!m.layer_names.empty()) return m.layer_names;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < m.parameters.size(); ++i) names.push_back(fmt::format("layer{}", i + 1));
  return names;
}

// --- ddp -------------------------------------------------------------------------------

Phase& ddp_broadcast(Generator& g, std::string name, DataType dtype, std::uint64_t count, std::string caption) {
  return g.collective(g.prefix + std::move(name), g.request(Collective::broadcast, "chain", count, ReduceOp::sum, dtype),
                      std::move(caption),
                      "rank {src} sends {bytes_h} of it to rank {dst}");  // (the caption line above says the step)
}

// Tensors of one dtype, as torch's _take_tensors coalesces them: a bucket closes before a
// tensor would take it past `limit` bytes. Returns each bucket's bytes.
std::vector<double> coalesced_buckets(const std::vector<double>& tensor_bytes, double limit) {
  std::vector<double> buckets;
  for (const double b : tensor_bytes) {
    if (buckets.empty() || (buckets.back() > 0 && buckets.back() + b > limit)) buckets.push_back(0);
    buckets.back() += b;
  }
  return buckets;
}

// One broadcast per coalesced bucket of one dtype (_broadcast_coalesced): `what` names the
// tensors ("state_dict", "buffers"); `region` is what the broadcasts write.
void ddp_broadcast_coalesced(Generator& g, const std::string& what, DataType dtype, const std::vector<double>& tensor_bytes,
                             const std::string& why, const std::vector<std::string>& writes) {
  const double element = dtype_size(dtype);
  const std::vector<double> buckets = coalesced_buckets(tensor_bytes, g.spec.broadcast_bucket_mb * kMiB);
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const auto count = static_cast<std::uint64_t>(std::ceil(buckets[k] / element));
    const std::string bucket = buckets.size() == 1 ? std::string() : fmt::format(" bucket {}/{}", k + 1, buckets.size());
    ddp_broadcast(g, fmt::format("broadcast {} {}{}", what, to_string(dtype), bucket), dtype, count,
                  fmt::format("{} ({} of {}{}). One broadcast per dtype: PyTorch coalesces the tensors of one dtype "
                              "into flat buckets of at most {} MiB. NCCL's broadcast is a pipelined chain: the root "
                              "sends the data once.",
                              why, format_bytes(buckets[k]), to_string(dtype),
                              buckets.size() == 1 ? std::string() : fmt::format(", bucket {} of {}", k + 1, buckets.size()),
                              g.spec.broadcast_bucket_mb))
        .writes = writes;
  }
}

// The module's buffers by dtype: BatchNorm's running_mean and running_var have the model's
// dtype, num_batches_tracked is int64. Each dtype's tensors' bytes, in that order.
std::vector<std::pair<DataType, std::vector<double>>> buffer_tensors(const Generator& g) {
  const ModelLayers& m = g.spec.model;
  std::vector<double> floats, int64s;
  for (std::size_t layer = 0; layer < m.float_buffers.size(); ++layer) {
    if (m.float_buffers[layer] > 0) floats.push_back(g.bytes(m.float_buffers[layer]));
    if (layer < m.int64_buffers.size() && m.int64_buffers[layer] > 0) int64s.push_back(8.0 * static_cast<double>(m.int64_buffers[layer]));
  }
  std::vector<std::pair<DataType, std::vector<double>>> out;
  if (g.spec.dtype == DataType::i64) floats.insert(floats.end(), int64s.begin(), int64s.end()), int64s.clear();
  if (!floats.empty()) out.emplace_back(g.spec.dtype, std::move(floats));
  if (!int64s.empty()) out.emplace_back(DataType::i64, std::move(int64s));
  return out;
}

// DistributedDataParallel's constructor, as a real run issues it (docs/ddp-measured.md):
// _verify_param_shape_across_processes all-gathers each rank's number of parameter tensors
// (one int64) and broadcasts rank 0's sizes and strides (int64, two per dimension); then
// _sync_module_states broadcasts the parameters and buffers, one coalesced broadcast per
// dtype (the parameters with the floating-point buffers, then the int64 ones).
void ddp_constructor(Generator& g) {
  const ModelLayers& m = g.spec.model;
  std::size_t tensors = 0;
  std::uint64_t dims = 0;
  std::vector<double> parameter_bytes;
  for (std::size_t layer = 0; layer < m.parameters.size(); ++layer)
    for (const ModelTensor& t : layer_tensors(m, layer)) {
      ++tensors;
      dims += static_cast<std::uint64_t>(t.dims);
      parameter_bytes.push_back(g.bytes(t.elements));
    }
  g.collective(g.prefix + "all-gather parameter count", g.request(Collective::all_gather, "ring", 1, ReduceOp::sum, DataType::i64),
               fmt::format("DistributedDataParallel's constructor checks that every rank has the same model "
                           "(_verify_param_shape_across_processes): first every rank gathers every rank's number of "
                           "parameter tensors, one int64 each ({} here).",
                           tensors),
               "rank {src} sends its count to rank {dst}");
  g.collective(g.prefix + "broadcast parameter shapes", g.request(Collective::broadcast, "chain", 2 * dims, ReduceOp::sum, DataType::i64),
               fmt::format("Then rank 0 broadcasts the size and the stride of every dimension of its {} parameter tensors: "
                           "{} dimensions, {} int64. A rank whose shapes differ raises an error before any training.",
                           tensors, dims, 2 * dims),
               "rank {src} sends {bytes_h} of the shapes to rank {dst}");
  std::vector<std::pair<DataType, std::vector<double>>> by_dtype = buffer_tensors(g);
  if (!by_dtype.empty() && by_dtype.front().first == g.spec.dtype)
    by_dtype.front().second.insert(by_dtype.front().second.begin(), parameter_bytes.begin(), parameter_bytes.end());
  else
    by_dtype.insert(by_dtype.begin(), {g.spec.dtype, parameter_bytes});
  for (const auto& [dtype, bytes] : by_dtype)
    ddp_broadcast_coalesced(g, "state_dict", dtype, bytes,
                            fmt::format("Rank 0 broadcasts its {} so that every copy starts equal, once per training run "
                                        "(_sync_module_states)",
                                        dtype == g.spec.dtype ? "parameters and floating-point buffers"
                                                              : "int64 buffers (num_batches_tracked)"),
                            {"params", "buffers"});
}

// The forward pass of the first later iteration rebuilds the buckets (Reducer::rebuild_buckets,
// from _pre_forward): rank 0 broadcasts its bucket assignment, so every rank buckets alike
// (sync_bucket_indices): every tensor's index plus the bucket count, then each bucket's
// tensor count, both int32.
void ddp_rebuild_broadcasts(Generator& g, const std::vector<DdpBucket>& buckets) {
  std::size_t tensors = 0;
  for (const DdpBucket& b : buckets) tensors += b.tensors.size();
  ddp_broadcast(g, "broadcast rebuilt bucket indices", DataType::i32, tensors + 1,
                fmt::format("The buckets are rebuilt in the order the first iteration's gradients became ready. Rank 0 "
                            "broadcasts its assignment so that every rank buckets alike: the {} tensors' indices and "
                            "the number of buckets ({}), {} int32. Once per training run.",
                            tensors, buckets.size(), tensors + 1));
  ddp_broadcast(g, "broadcast rebuilt bucket sizes", DataType::i32, buckets.size(),
                fmt::format("Then the number of tensors in each of the {} buckets, {} int32.", buckets.size(), buckets.size()));
}

void ddp_bucket(Generator& g, const DdpBucket& bucket, std::size_t number, std::size_t buckets) {
  std::vector<std::string> grads;
  for (const ModelTensor& t : bucket.tensors) {
    std::string region = "grad." + g.names[t.layer];
    if (std::find(grads.begin(), grads.end(), region) == grads.end()) grads.push_back(std::move(region));
  }
  const std::string& first = bucket.tensors.front().name;
  const std::string& last = bucket.tensors.back().name;
  const std::string tensors = bucket.tensors.size() == 1 ? first : fmt::format("{} .. {}", first, last);
  const std::string limit = std::isinf(bucket.limit_bytes)
                                ? std::string("one bucket for every gradient in the first iteration")
                                : fmt::format("closed once it reached {}", format_bytes(bucket.limit_bytes));
  Phase& p = g.collective(
      fmt::format("{}all-reduce bucket {} ({})", g.prefix, number, tensors),
      g.request(Collective::all_reduce, g.spec.algorithm, bucket.elements, ReduceOp::avg),
      // (The tensors' names are in the phase's name, which the views show above this.)
      fmt::format("All-reduce bucket {} of {}: {} tensor{}, {} elements, {} ({}). DDP starts it as soon as the "
                  "backward pass has written the gradient of {}; each rank divided its gradients by the {} ranks as "
                  "it copied them into the bucket, so the sum is the average.",
                  number, buckets, bucket.tensors.size(), bucket.tensors.size() == 1 ? "" : "s",
                  bucket.elements, format_bytes(g.bytes(bucket.elements)), limit, last, g.ranks),
      // (The caption line above says the step: "In step 3/6: …".)
      fmt::format("rank {{src}} sends {{bytes_h}} of bucket {} to rank {{dst}}", number));
  p.reads = grads;
  p.writes = std::move(grads);
}

// One iteration: the buffers' broadcast, forward, backward with the buckets' all-reduces.
// Returns the indices of its all-reduce phases.
std::vector<int> ddp_iteration(Generator& g, DdpPart part, bool rebuilds, const std::vector<int>& previous_all_reduces) {
  const ModelLayers& m = g.spec.model;
  const std::size_t layers = m.parameters.size();
  const std::vector<DdpBucket> buckets = ddp_buckets(g.spec, part);
  if (rebuilds) ddp_rebuild_broadcasts(g, buckets);
  if (g.spec.broadcast_buffers)
    for (const auto& [dtype, bytes] : buffer_tensors(g))
      ddp_broadcast_coalesced(g, "buffers", dtype, bytes,
                              fmt::format("Before the forward pass (broadcast_buffers=True), rank 0 broadcasts the "
                                          "module's {}, so every copy normalises alike",
                                          dtype == g.spec.dtype ? "BatchNorm running_mean and running_var"
                                                                : "num_batches_tracked counters"),
                              {"buffers"});
  if (g.computes_forward())
    for (std::size_t i = 0; i < layers; ++i) {
      Phase& f = g.forward(i, {"params", "buffers"});
      // backward() returned only once the previous iteration's all-reduces had ended.
      if (i == 0) f.wait_for = previous_all_reduces;
    }
  std::vector<int> all_reduces;
  std::size_t next = 0;  // the next bucket to all-reduce: DDP reduces them in order
  for (std::size_t i = layers; i-- > 0;) {
    if (g.computes_backward()) g.backward(i);
    while (next < buckets.size() && buckets[next].tensors.back().layer == i) {
      all_reduces.push_back(static_cast<int>(g.phases.size()));
      ddp_bucket(g, buckets[next], next + 1, buckets.size());
      ++next;
    }
  }
  return all_reduces;
}

void ddp(Generator& g) {
  const bool several = g.spec.parts.size() > 1;
  std::vector<int> previous;
  bool after_first = false;  // the buckets are rebuilt in the iteration after the first
  for (const DdpPart part : g.spec.parts) {
    // Later iterations are all alike: the lesson shows one, iteration 2.
    if (several) g.prefix = part == DdpPart::constructor ? "constructor: " : part == DdpPart::first ? "iteration 1: " : "iteration 2: ";
    const std::size_t first = g.phases.size();
    if (part == DdpPart::constructor)
      ddp_constructor(g);
    else
      previous = ddp_iteration(g, part, after_first && part == DdpPart::later, previous);
    after_first = part == DdpPart::first;
    const char* group = part == DdpPart::constructor ? "constructor" : part == DdpPart::first ? "iteration 1" : "iteration 2";
    for (std::size_t k = first; k < g.phases.size(); ++k) g.phases[k].group = group;
  }
}

// --- fsdp ------------------------------------------------------------------------------

// FSDP's state while it issues one step: which units are gathered (all-gather issued,
// not yet freed), and the free events of the rate limiter (limit_all_gathers).
struct FsdpState {
  const FsdpOptions& options;
  std::vector<bool> gathered;
  std::deque<int> free_events;  // phases after which a unit was freed, oldest first
};

constexpr std::size_t kInflightAllGathers = 2;  // FSDP's _FreeEventQueue limit

void fsdp_gather(Generator& g, FsdpState& st, std::size_t layer, std::string_view pass, std::string_view why) {
  if (st.gathered[layer]) return;
  st.gathered[layer] = true;
  const std::uint64_t p = g.params(layer), n = static_cast<std::uint64_t>(g.ranks);
  const std::uint64_t shard = (p + n - 1) / n;
  const std::string padding =
      p % n == 0 ? std::string() : fmt::format(" (padded from {} to {} x {} elements)", p, n, shard);
  const std::string& name = g.names[layer];
  std::vector<int> host_wait;
  if (st.options.limit_all_gathers && st.free_events.size() >= kInflightAllGathers) {
    host_wait = {st.free_events.front()};
    st.free_events.pop_front();
  }
  Phase& ag = g.collective(
      fmt::format("{}all-gather {} ({})", g.prefix, name, pass),
      g.request(Collective::all_gather, fsdp_algorithm(g.spec, Collective::all_gather), shard),
      // (The layer's name is in the phase's name, which the views show above this.)
      fmt::format("{}: every rank gathers these parameters: each holds a shard of {} elements{}, and ends with "
                  "all {} ({}).{}",
                  why, shard, padding, p, format_bytes(g.bytes(n * shard)),
                  host_wait.empty() ? ""
                                    : fmt::format(" limit_all_gathers: the host first waits until the unit freed in "
                                                  "phase {} is free, so that at most {} all-gathers are in flight.",
                                                  host_wait.front() + 1, kInflightAllGathers)),
      fmt::format("rank {{src}} sends {{bytes_h}} of the parameters of {} to rank {{dst}}", name));
  ag.writes = {"param." + name};
  ag.allocates = {{"param." + name, g.bytes(n * shard)}};
  ag.host_wait_for = std::move(host_wait);
}

// The compute phase `phase` was the last to use the unit's gathered parameters: it frees them.
void fsdp_free(Generator& g, FsdpState& st, std::size_t layer, int phase) {
  g.phases[static_cast<std::size_t>(phase)].frees.push_back("param." + g.names[layer]);
  st.gathered[layer] = false;
  st.free_events.push_back(phase);
}

void fsdp_reduce_scatter(Generator& g, std::size_t layer) {
  const std::uint64_t n = static_cast<std::uint64_t>(g.ranks);
  const std::uint64_t shard = (g.params(layer) + n - 1) / n;
  const std::string& name = g.names[layer];
  Phase& p = g.collective(fmt::format("{}reduce-scatter {} gradient", g.prefix, name),
                          g.request(Collective::reduce_scatter, fsdp_algorithm(g.spec, Collective::reduce_scatter), shard, ReduceOp::avg),
                          fmt::format("Each rank keeps the average over all ranks of its own shard of the gradient "
                                      "({} elements), the only part its optimizer updates.",
                                      shard),
                          fmt::format("rank {{src}} sends {{bytes_h}} of the gradient of {} to rank {{dst}}", name));
  p.reads = {"grad." + name};
  p.writes = p.reads;
}

void fsdp_forward(Generator& g, FsdpState& st) {
  const std::size_t layers = g.spec.model.parameters.size();
  for (std::size_t i = 0; i < layers; ++i) {
    fsdp_gather(g, st, i, "forward", "Before its forward");  // (the phase's name says whose)
    if (st.options.forward_prefetch && i + 1 < layers)
      fsdp_gather(g, st, i + 1, "forward", "forward_prefetch, before the forward of " + g.names[i]);
    g.forward(i, {"param." + g.names[i]});
    fsdp_free(g, st, i, static_cast<int>(g.phases.size()) - 1);  // reshard after forward
  }
}

void fsdp_backward(Generator& g, FsdpState& st) {
  const BackwardPrefetch prefetch = st.options.backward_prefetch;
  for (std::size_t i = g.spec.model.parameters.size(); i-- > 0;) {
    fsdp_gather(g, st, i, "backward", "Before its backward");
    if (prefetch == BackwardPrefetch::backward_pre && i > 0)
      fsdp_gather(g, st, i - 1, "backward", "BACKWARD_PRE, before the gradient computation of " + g.names[i]);
    g.backward(i).reads = {"param." + g.names[i]};
    fsdp_free(g, st, i, static_cast<int>(g.phases.size()) - 1);
    if (prefetch == BackwardPrefetch::backward_post && i > 0)
      fsdp_gather(g, st, i - 1, "backward", "BACKWARD_POST, after the gradient computation of " + g.names[i]);
    fsdp_reduce_scatter(g, i);
  }
}

void fsdp(Generator& g) {
  for (const FsdpOptions& options : g.spec.fsdp) {
    g.prefix = options.name.empty() ? "" : options.name + ": ";
    const std::size_t first = g.phases.size();
    FsdpState st{options, std::vector<bool>(g.spec.model.parameters.size(), false), {}};
    fsdp_forward(g, st);
    fsdp_backward(g, st);
    for (std::size_t k = first; k < g.phases.size(); ++k) g.phases[k].group = options.name;
    // The next step starts from scratch: an optimizer step and a loss.item() in between.
    if (first > 0) g.phases[first].synchronize = true;
  }
}

// --- parameter server ------------------------------------------------------------------

void parameter_server(Generator& g) {
  const TrainingSpec& s = g.spec;
  const std::uint64_t total = s.model.total();
  const double forward_us = g.pass_us(false), backward_us = g.pass_us(true);
  if (forward_us > 0)
    g.compute("forward", forward_us,
              fmt::format("The {} workers run the forward pass ({:.1f} µs); the servers wait.", g.ranks, forward_us))
        .reads = {"params"};
  if (backward_us > 0)
    g.compute("backward", backward_us,
              fmt::format("The workers run the backward pass ({:.1f} µs) and hold the whole gradient.", backward_us))
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

std::vector<ModelTensor> gradient_ready_order(const ModelLayers& m) {
  std::vector<ModelTensor> ready;
  for (std::size_t layer = m.parameters.size(); layer-- > 0;) {
    std::vector<ModelTensor> tensors = layer_tensors(m, layer);
    std::reverse(tensors.begin(), tensors.end());
    // Reversed, a BatchNorm's bias precedes its weight: put the weight first.
    for (std::size_t k = 0; k + 1 < tensors.size(); ++k)
      if (tensors[k].batch_norm && tensors[k + 1].batch_norm) std::swap(tensors[k], tensors[k + 1]), ++k;
    ready.insert(ready.end(), tensors.begin(), tensors.end());
  }
  return ready;
}

std::vector<DdpBucket> ddp_buckets(const TrainingSpec& spec, DdpPart part) {
  const std::vector<ModelTensor> ready = gradient_ready_order(spec.model);
  std::vector<DdpBucket> buckets;
  if (part == DdpPart::constructor) return buckets;
  const double element = dtype_size(spec.dtype);
  const bool one = part == DdpPart::first;
  const double limits[] = {one ? std::numeric_limits<double>::infinity() : spec.first_bucket_mb * kMiB,
                           one ? std::numeric_limits<double>::infinity() : spec.bucket_mb * kMiB};
  DdpBucket open;
  for (const ModelTensor& t : ready) {
    open.tensors.push_back(t);  // the tensor goes in first; then the bucket may close
    open.elements += t.elements;
    open.limit_bytes = limits[buckets.empty() ? 0 : 1];
    if (static_cast<double>(open.elements) * element >= open.limit_bytes) {
      buckets.push_back(std::move(open));
      open = DdpBucket{};
    }
  }
  if (!open.tensors.empty()) buckets.push_back(std::move(open));
  return buckets;
}

std::vector<Phase> training_phases(const TrainingSpec& spec, int ranks) {
  if (spec.pattern == TrainingPattern::pipeline) return pipeline_phases(spec, ranks);  // pipeline.cpp
  check_spec(spec, ranks);
  const bool extra_servers = spec.pattern == TrainingPattern::parameter_server ||
                             (spec.pattern == TrainingPattern::ddp && algorithm_knobs(Collective::all_reduce, spec.algorithm).servers);
  Generator g{spec, ranks, ranks + (extra_servers ? spec.servers : 0), layer_names(spec.model), {}, {}};
  switch (spec.pattern) {
    case TrainingPattern::ddp: ddp(g); break;
    case TrainingPattern::fsdp: fsdp(g); break;
    case TrainingPattern::parameter_server: parameter_server(g); break;
    case TrainingPattern::pipeline: break;  // above
  }
  return std::move(g.phases);
}

}  // namespace collsim
