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
#include <vector>

#include "sim/run/run.h"
#include "sim/model/timing_model.h"
#include "sim/model/topology.h"

namespace collsim {

enum class PhaseKind : std::uint8_t { collective, compute };

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

  // Captions. Placeholders (captions.h): {src} {dst} {chunk} {bytes} {step} {steps}
  // {phase} {phases} {ranks} {label}.
  std::string caption;                     // the phase as a whole
  std::string step_caption;                // every step that has no entry below
  std::vector<std::string> step_captions;  // step k's caption at [k-1]; "" falls back

  std::string origin;  // "file:line:column" of the [[phase]] table, or of what generated it
};

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
  latency_us,        // the phase's collective predicted alone with only latency (α) counting, µs
  bandwidth_us,      // ... with only bandwidth, reduction and copy (β, γ, δ) counting, µs
                     // (split_latency_bandwidth, sim/model/timing_model.h)
};

// The metrics a compute phase and the whole program (phase = 0) have.
inline bool is_timing(Metric m) { return m == Metric::time_us || m == Metric::duration_us; }

struct Question {
  std::string text;    // "How many bytes has rank 0 sent after step 3?"
  std::string answer;  // template for the revealed answer: "{value} bytes" ({value} is the metric)
  Metric metric = Metric::bytes_sent;
  int phase = 1;  // 1-based; 0 = the whole program (time_us only)
  int rank = 0;
  int step = 0;   // 0 = after the last step
  int chunk = 0;
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

enum class TrainingPattern : std::uint8_t { ddp, fsdp, parameter_server };

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
};

// Expands a pattern into phases on `ranks` ranks (InputError naming spec.origin when the
// model or a figure is impossible). Deterministic; names and captions explain each phase.
std::vector<Phase> training_phases(const TrainingSpec& spec, int ranks);

}  // namespace collsim
