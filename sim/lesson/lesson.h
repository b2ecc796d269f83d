// Lessons: a scenario with several phases (collectives and compute), captions and
// questions (docs/scenario-format.md, format 2). This header is the plain data that the
// scenario loader fills, the training patterns generate, the program runner executes and
// times, and the CLI, the storyboard and the GUI show. It is cheap to include.
//
// How a lesson runs (program.cpp):
//   - Every collective phase is executed for real on the backend and verified against the
//     host reference, like `collsim run`. Phases that name the same collective (equal
//     RunRequest) share one execution: the parameter-server training step's "push" and
//     "pull" are steps 1 and 2 of one parameter_server all-reduce.
//   - Compute phases are timed only (a duration per rank): they stand for a layer's
//     forward or backward pass, or a server's SGD update.
//   - The timing model places each phase per rank: compute phases on the rank's compute
//     stream, collective phases on its communication stream (one each, in file order, as
//     a framework issues them). A phase also waits for the named regions it reads and
//     writes — read after write, write after read, write after write, the same rules as
//     transfers (dependencies.h) — so communication overlaps the compute it does not
//     depend on. A collective phase is the timing model's prediction of its transfers,
//     with every rank starting when it is ready (Topology::late_ns); two collective
//     phases that overlap in time on different ranks do not contend for links
//     (documented in docs/timing-model.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/run.h"
#include "sim/model/timing_model.h"
#include "sim/model/topology.h"

namespace collsim {

enum class PhaseKind : std::uint8_t { collective, compute };

inline constexpr const char* kDefaultStream = "default";
inline constexpr const char* kComputeStream = "compute";
inline constexpr const char* kCommStream = "comm";

struct Phase {
  PhaseKind kind = PhaseKind::collective;
  std::string name;  // "all-reduce bucket 2 (layers 30-36)"; never empty after loading

  // collective: what to run. Its spec.ranks is the scenario's ranks.
  RunRequest request;
  // collective: run only steps first_step..last_step (1-based, inclusive) of the
  // collective's schedule; 0 and 0 mean all of them.
  int first_step = 0, last_step = 0;

  // compute: µs per rank, indexed by rank (size: the program's total ranks, so a parameter
  // server's extra ranks have entries too); 0 means the rank does not compute in it.
  std::vector<double> compute_us;

  // Named regions of each rank's memory ("grad.layer3", "params"): what the phase reads
  // and writes, on every rank that takes part. Nothing is implied: a phase without them
  // waits only for its stream.
  std::vector<std::string> reads, writes;

  // Streams and events (docs/timing-model.md, "Streams"). The stream of its rank the phase
  // runs on: phases on one stream run in program order, phases on different streams
  // overlap unless a region, an event or the default stream orders them. Empty: "compute"
  // for a compute phase, "comm" for a collective (ProcessGroupNCCL's own stream).
  // kDefaultStream is CUDA's legacy default stream: a phase on it starts after everything
  // issued before it on the rank's other streams, and everything issued after it on them
  // waits for it.
  std::string stream;
  // collective: the clock the views show it on first ("steps", "measured", "predicted";
  // clock_name() checked it), e.g. "predicted" where the model's serialisation is the
  // point; empty: the scenario's `clock`, else the one the viewer had.
  std::string clock;
  // Event waits (cudaStreamWaitEvent on an event recorded after each of these earlier
  // phases, indices into the program's phases): the phase starts on a rank only after
  // they have ended there. A rank that took no part in one of them does not wait for it.
  std::vector<int> wait_for;
  // Host waits (event.synchronize()): the host issues this phase, and everything after it
  // on the rank, only once these earlier phases have ended there.
  std::vector<int> host_wait_for;
  // A host synchronisation before the phase (`.item()`, torch.cuda.synchronize()): the
  // host waits for everything issued before on every stream of the rank.
  bool synchronize = false;

  // Memory the phase allocates on every rank that takes part, when it begins there
  // (name, bytes), and the allocations (by name) it frees when it ends. The program sums
  // them into a per-rank memory line (ProgramResult::memory).
  std::vector<std::pair<std::string, double>> allocates;
  std::vector<std::string> frees;

  // Captions: templates over the run's facts (captions.h, text.h). A step's own caption is
  // its step_captions entry, else its most specific stage caption, else step_caption.
  std::string caption;                     // the phase as a whole
  std::string step_caption;                // every step that has no caption of its own
  std::vector<std::string> step_captions;  // step k's caption at [k-1]; "" falls back. Fixed
                                           // step numbers: only for ranks_fixed lessons
  struct StageCaption {
    std::string at;     // the steps it is for: "reduce_scatter.last" (check_stage_selector)
    std::string text;
    std::string where;  // "file:line:column: key 'collective.stage_captions[2]'"
  };
  std::vector<StageCaption> stage_captions;
  // Where each caption was written, for messages ("file:line:column: key '...'"); empty
  // for a phase a program generated.
  std::string caption_where, step_caption_where;
  std::vector<std::string> step_captions_where;

  std::string origin;  // "file:line:column" of the [[phase]] table, or of what generated it
  // The group of consecutive phases it belongs to ("gpipe isend", "iteration 2", an FSDP
  // comparison's name): lesson text and questions name a group's span ({gpipe_isend.first},
  // `phases = "gpipe_isend"`), which moves when --ranks changes the phase count. "": none.
  std::string group;
};

// The stream a phase runs on: its own, or its kind's.
inline std::string_view phase_stream(const Phase& phase) {
  if (!phase.stream.empty()) return phase.stream;
  return phase.kind == PhaseKind::compute ? kComputeStream : kCommStream;
}

// What a question's answer is computed from (captions.h, answer_question).
enum class Metric : std::uint8_t {
  bytes_sent,        // bytes rank `rank` has sent to other ranks after step `step` of phase `phase`
  bytes_received,    // the same, received
  transfers,         // transfers of the phase (up to step `step` when given)
  steps,             // steps of the phase
  time_us,           // predicted end of the phase (or the whole program when phase is 0), µs
  duration_us,       // predicted length of the phase: its last rank's end minus its first rank's begin
                     // (the whole program, which starts at 0, when phase is 0), µs
  busbw_gbps,        // predicted bus bandwidth of the phase
  contributions,     // how many ranks' contributions rank `rank`'s chunk `chunk` holds after step `step`
  peak_memory_bytes, // the most memory rank `rank` holds at once (the allocations phases name): over the
                     // whole program, or over the span `phases = [first, last]`
  latency_us,        // the phase's collective predicted alone with only latency (α) counting, µs
  bandwidth_us,      // ... with only bandwidth, reduction and copy (β, γ, δ) counting, µs
                     // (cost_part_ns, sim/model/timing_model.h)
  idle_fraction,     // the fraction of the whole program, or of the span, in which rank `rank` does not
                     // compute (a pipeline's bubble)
  value,             // the number element `element` of rank `rank`'s output holds after step `step`, in the
                     // run's type, rounded or wrapped as the run computed it (ValueHistory, sim/exec/value_history.h)
  exact_value,       // the exact result at that element: the inputs combined in double, never rounded or wrapped
                     // (exact_output_value, sim/exec/reference.h)
  holders,           // how many ranks hold some of the data after step `step`: the root of a rooted collective
                     // and every rank that has received bytes from another (a broadcast's spread, from the
                     // transfers, whatever the algorithm)
};

// The metrics of one element's number.
inline bool is_element_value(Metric m) { return m == Metric::value || m == Metric::exact_value; }

// The metrics of a rank over the whole program, or over a span `phases = [first, last]`.
inline bool is_span(Metric m) { return m == Metric::peak_memory_bytes || m == Metric::idle_fraction; }

// The metrics a compute phase and the whole program (phase = 0) have; they take a span too.
inline bool is_timing(Metric m) { return m == Metric::time_us || m == Metric::duration_us; }

struct Question {
  std::string text;    // "How many bytes has rank 0 sent after step 3?"
  std::string answer;  // template for the revealed answer: "{value} bytes" ({value} is the metric)
  Metric metric = Metric::bytes_sent;
  int phase = 1;  // 1-based; 0 = the whole program (time_us only)
  // time_us, duration_us and the span metrics (is_span): phases phase..last_phase as one
  // span (`phases = [a, b]`); 0 = phase alone.
  int last_phase = 0;
  // phase, or the span, as an expression or a group's name ("gpipe_isend"): evaluated for each
  // run (captions.h). Empty: the numbers above.
  std::string phase_expr, span_group;
  int rank = 0;
  int step = 0;   // 0 = after the last step
  int chunk = 0;
  // rank, step and chunk as expressions over the run's facts ("ranks-1",
  // "reduce_scatter.last"), when the file gave a string: evaluated for each run, so the
  // question asks about the same thing at every rank count. Empty: the number above.
  std::string rank_expr, step_expr, chunk_expr;
  std::uint64_t element = 0;  // value, exact_value: the element of the rank's output
  std::string origin;  // "file:line:column" of the [[question]] table
};

// One parameter tensor of a model, as module.parameters() lists it ("layer1.0.bn1.bias").
struct ModelTensor {
  std::string name;
  std::uint64_t elements = 0;
  std::size_t layer = 0;  // the index of the layer it belongs to (one compute phase)
  int dims = 1;           // its shape's dimensions: a convolution's weight 4, a linear one's 2
  // A BatchNorm's weight or bias: both gradients come from one autograd node, and PyTorch
  // makes the weight's ready before the bias's (measured: docs/ddp-measured.md).
  bool batch_norm = false;
};

// A model for the training patterns: layers, input side first. A "layer" is what one
// compute phase stands for (a convolution with its batch norm, or a linear layer).
struct ModelLayers {
  std::string name;                       // "resnet34", or "custom"
  std::vector<std::string> layer_names;   // "conv1", "layer1.0.conv1", ..., "fc"
  std::vector<std::uint64_t> parameters;  // per layer: the sum of its tensors
  // Per layer, its parameter tensors in registration order (empty for a custom model, which
  // has one tensor per layer, "<layer>.weight"; layer_tensors() fills it in).
  std::vector<std::vector<ModelTensor>> tensors;
  // Per layer, the f32 buffers (BatchNorm running_mean and running_var) and the int64 ones
  // (num_batches_tracked) that DDP broadcasts with broadcast_buffers; 0 for a custom model.
  std::vector<std::uint64_t> float_buffers, int64_buffers;
  // Per layer, multiply-adds of the forward pass for one sample (empty: unknown, as for a
  // custom model). BatchNorm, ReLU and pooling are not counted.
  std::vector<double> macs;
  int image_size = 0;  // the input's side the MACs are for (resnet34: 224 unless the lesson says)
  std::uint64_t total() const;
  double total_macs() const;
  std::uint64_t buffer_bytes() const;  // all buffers, f32 and int64
};

// A layer's tensors: its own, or "<layer>.weight" holding all its parameters.
std::vector<ModelTensor> layer_tensors(const ModelLayers& m, std::size_t layer);

// ResNet-34 (He et al. 2016, 1000 classes) as torchvision builds it: 3-4-6-3 basic blocks;
// each layer is a convolution with its batch norm (or the final fully connected layer);
// 21,797,672 parameters in 110 tensors; MACs for an image_size x image_size RGB input.
ModelLayers resnet34(int image_size = 224);

enum class TrainingPattern : std::uint8_t { ddp, fsdp, parameter_server, pipeline };

// pipeline: the order in which each stage runs its microbatches' forward (F) and backward (B).
enum class PipelineSchedule : std::uint8_t {
  gpipe,  // GPipe (Huang et al. 2019): every F, then every B
  ofob,   // 1F1B, PipeDream-flush (Narayanan et al. 2021): p-s-1 warm-up Fs on stage s, then F B pairs, then the Bs left
};
// pipeline: how stages pass activations forward and gradients back.
enum class PipelineP2p : std::uint8_t {
  isend,  // isend/irecv: on a stream of the stage pair, after an event on the compute that produced the data
  send,   // blocking send/recv: on the compute stream, which waits for the message
};

// FSDP's BackwardPrefetch: when the next unit's all-gather is issued in the backward pass.
enum class BackwardPrefetch : std::uint8_t {
  backward_pre,   // before the current unit's gradient computation (PyTorch's default)
  backward_post,  // after it, once the current unit's parameters are freed
  none,           // not prefetched: when the next unit's backward needs it
};

// FSDP's options, PyTorch's defaults (FullyShardedDataParallel.__init__, PyTorch >= 2.1).
struct FsdpOptions {
  std::string name;  // shown before each phase's name when a lesson compares several ("" : none)
  BackwardPrefetch backward_prefetch = BackwardPrefetch::backward_pre;
  bool forward_prefetch = false;
  bool limit_all_gathers = true;
};

// DDP's parts of a training run, in the order they happen.
enum class DdpPart : std::uint8_t {
  constructor,  // DistributedDataParallel(...): the shape check, then rank 0 broadcasts the state_dict
  first,        // the first iteration: one bucket of every gradient
  later,        // iterations after the first: buckets rebuilt in gradient-ready order (after
                // "first": the forward first broadcasts the rebuilt buckets)
};

// [training]: a pattern that generates the phases (training.cpp).
struct TrainingSpec {
  TrainingPattern pattern = TrainingPattern::ddp;
  ModelLayers model;
  DataType dtype = DataType::f32;
  std::string algorithm = "ring";  // of the all-reduce (ddp), all-gather and reduce-scatter (fsdp)
  // ddp
  std::vector<DdpPart> parts = {DdpPart::later};
  double bucket_mb = 25;            // PyTorch's bucket_cap_mb (MiB, 2^20 bytes)
  double first_bucket_mb = 1;       // PyTorch's first bucket (_DEFAULT_FIRST_BUCKET_BYTES)
  bool broadcast_buffers = true;    // rank 0 broadcasts the module's buffers before each forward
  double broadcast_bucket_mb = 250; // the constructor's coalesced broadcast buckets
  // fsdp: one training step per entry, one after the other (a host synchronisation in
  // between), so that one lesson compares FSDP's options side by side.
  std::vector<FsdpOptions> fsdp = {FsdpOptions{}};
  // Compute. Either per-layer times from each layer's multiply-adds (device_tflops > 0: a
  // multiply-add is 2 FLOPs, `batch` samples per rank, backward = 2 x forward), or the
  // forward_us and backward_us of the whole pass split over the layers by their MACs
  // (split_by_flops) or by their parameters.
  double device_tflops = 0;
  int batch = 0;
  bool split_by_flops = true;
  double forward_us = 0;   // compute time of the whole forward pass per rank
  double backward_us = 0;  // the same for the backward pass
  int servers = 1;         // parameter_server: S servers (extra ranks)
  double update_us = 0;    // parameter_server: each server's SGD update of its shard
  std::string origin;      // "file:line:column" of [training]

  // pipeline (pipeline.cpp): stage s is rank s; forward_us and backward_us are one stage's
  // time for one microbatch. Every schedule x p2p pair is a variant, generated in that
  // order (schedule-major), each after a host synchronisation, so one lesson compares them.
  std::vector<PipelineSchedule> schedules{PipelineSchedule::gpipe};
  std::vector<PipelineP2p> p2p{PipelineP2p::isend};
  int stages = 0;                              // 0: the lesson's ranks; else it must equal them
  int microbatches = 4;                        // m, per training step
  std::uint64_t activation_count = 1u << 20;   // elements (dtype) a stage sends per microbatch, and their gradient back
  double activation_bytes = -1;                // memory a stage keeps per microbatch from its F to its B; < 0: the message's
};

// The tensors in the order their gradients become ready in the backward pass: reverse
// registration order (the backward visits the layers from the output back), except that a
// BatchNorm's weight comes before its bias, as PyTorch runs it (docs/ddp-measured.md).
std::vector<ModelTensor> gradient_ready_order(const ModelLayers& m);

// PyTorch DDP's gradient buckets (Reducer, compute_bucket_assignment_by_size): tensors in
// the order their gradients become ready (gradient_ready_order), each
// added to the open bucket, which closes once its size reaches its limit (the first
// bucket's first_bucket_mb, then bucket_mb). The first iteration has one bucket of all.
struct DdpBucket {
  std::vector<ModelTensor> tensors;  // in the order they were added
  std::uint64_t elements = 0;
  double limit_bytes = 0;            // the limit it was filled against (infinity: the first iteration's)
};
std::vector<DdpBucket> ddp_buckets(const TrainingSpec& spec, DdpPart part);

// Expands a pattern into phases on `ranks` ranks (InputError naming spec.origin when the
// model or a figure is impossible). Deterministic; names and captions explain each phase.
// Their wait_for and host_wait_for count the generated phases from 0; the loader moves them
// past the file's own phases.
std::vector<Phase> training_phases(const TrainingSpec& spec, int ranks);
// The pipeline pattern's phases (pipeline.cpp); training_phases calls it.
std::vector<Phase> pipeline_phases(const TrainingSpec& spec, int ranks);
std::string_view to_string(PipelineSchedule s);  // "gpipe", "1f1b"
std::string_view to_string(PipelineP2p p);       // "isend", "send"

}  // namespace collsim
