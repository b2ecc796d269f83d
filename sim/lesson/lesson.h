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

  // Captions. Placeholders (captions.h): {src} {dst} {chunk} {bytes} {step} {steps}
  // {phase} {phases} {ranks} {label}.
  std::string caption;                     // the phase as a whole
  std::string step_caption;                // every step that has no entry below
  std::vector<std::string> step_captions;  // step k's caption at [k-1]; "" falls back

  std::string origin;  // "file:line:column" of the [[phase]] table, or of what generated it
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
                     // whole program, or over the span of phases `phase`..`last_phase`
  span_us,           // predicted time from the first begin to the last end of phases `phase`..`last_phase`
                     // (the whole program when phase is 0), µs: one variant of a lesson that runs several
  idle_fraction,     // the fraction of that span in which rank `rank` does not compute (a pipeline's bubble)
};

// The metrics that ask about a span of phases, `phase`..`last_phase` (phase 0: the whole program).
inline bool is_span(Metric m) {
  return m == Metric::peak_memory_bytes || m == Metric::span_us || m == Metric::idle_fraction;
}

// The metrics a compute phase and the whole program (phase = 0) have.
inline bool is_timing(Metric m) { return m == Metric::time_us || m == Metric::duration_us || m == Metric::span_us; }

struct Question {
  std::string text;    // "How many bytes has rank 0 sent after step 3?"
  std::string answer;  // template for the revealed answer: "{value} bytes" ({value} is the metric)
  Metric metric = Metric::bytes_sent;
  int phase = 1;  // 1-based; 0 = the whole program (time_us only)
  int rank = 0;
  int step = 0;   // 0 = after the last step
  int chunk = 0;
  int last_phase = 0;  // span metrics (is_span): the span's last phase; 0: `phase` alone
  std::string origin;  // "file:line:column" of the [[question]] table
};

// A model for the training patterns: parameters per layer, input side first.
struct ModelLayers {
  std::string name;                       // "resnet34", or "custom"
  std::vector<std::string> layer_names;   // "conv1", "layer1.0.conv1", ..., "fc"
  std::vector<std::uint64_t> parameters;  // per layer
  std::uint64_t total() const;
};

// ResNet-34 (He et al. 2016, 1000 classes): 3-4-6-3 basic blocks; each layer is a convolution
// with its batch norm (or the final fully connected layer); 21,797,672 parameters.
ModelLayers resnet34();

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

// [training]: a pattern that generates the phases (training.cpp).
struct TrainingSpec {
  TrainingPattern pattern = TrainingPattern::ddp;
  ModelLayers model;
  DataType dtype = DataType::f32;
  std::string algorithm = "ring";  // of the all-reduce (ddp), all-gather and reduce-scatter (fsdp)
  double bucket_mb = 25;           // ddp: PyTorch's bucket_cap_mb (MiB, 2^20 bytes)
  double first_bucket_mb = 1;      // ddp: PyTorch's first bucket (_DEFAULT_FIRST_BUCKET_BYTES)
  bool broadcast_parameters = true;  // ddp: rank 0 broadcasts the initial parameters first
  double forward_us = 0;   // compute time of the whole forward pass per rank, split by parameters
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
