// The pipeline training pattern (lesson.h, TrainingSpec): a model cut into p stages, stage
// s on rank s, a batch cut into m microbatches. Each stage runs every microbatch's forward
// (F) and backward (B); between stages, F's activations go forward (send_recv `direct`,
// root s -> s+1) and B's input gradients go back (`to_previous`, root s -> s-1).
//
// Schedules, the order each stage runs its Fs and Bs:
//   gpipe  F1..Fm, then B1..Bm (Huang et al. 2019, GPipe).
//   1f1b   PipeDream-flush (Narayanan et al. 2021, section 2.2): stage s runs
//          w = min(p-s-1, m) warm-up forwards, then m-w pairs (F, B), then the w backwards
//          left, so it holds at most p-s microbatches' activations instead of m.
// With equal times f and b and free communication both take (m+p-1)(f+b), and each stage
// is idle (p-1)/(m+p-1) of it: the bubble.
//
// P2p, how a message is issued (docs/timing-model.md, "Streams, events and the host"):
//   isend  isend/irecv: the message runs on a stream of its own stage pair (ProcessGroupNCCL
//          keeps a communicator and a stream per pair of peers, "lo:hi"), after an event on
//          the compute that produced the data (wait_for); the consumer waits for it through
//          the region it reads. The stage goes on computing while it sends.
//   send   blocking send/recv: the message runs on the compute stream of both stages (with
//          NCCL, wait() makes the current stream wait for the message), so neither
//          computes until it has gone.
//
// Issue order: the phases are generated in the order an ideal run (free communication)
// starts them, a message when its data is ready, ahead of computes that start at the same
// time. So every stage issues its own work in its schedule's order, and the messages of a
// stage pair in the order both sides need them.
//
// Memory: each F allocates its microbatch's activations on its stage ("activations.mbI"),
// the B of that microbatch frees them: the memory line shows GPipe holding m and 1F1B at
// most p-s microbatches on stage s.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/lesson/lesson.h"

namespace collsim {
namespace {

constexpr int kMostMicrobatches = 1024;
constexpr int kMostComputePhases = 16384;  // 2 p m: a lesson's timeline stays readable and fast

[[noreturn]] void fail(const TrainingSpec& spec, std::string_view key, std::string_view problem) {
  throw InputError(fmt::format("{}: key 'training.{}': {}", spec.origin, key, problem));
}

void check_spec(const TrainingSpec& spec, int ranks) {
  if (ranks < 1 || ranks > kMaxRanks) fail(spec, "pattern", fmt::format("ranks must be between 1 and {}, got {}", kMaxRanks, ranks));
  if (spec.stages != 0 && spec.stages != ranks)
    fail(spec, "stages",
         fmt::format("the pipeline has {} stages, one per rank, but the lesson has ranks = {}: give them equal", spec.stages,
                     ranks));
  if (spec.microbatches < 1 || spec.microbatches > kMostMicrobatches)
    fail(spec, "microbatches", fmt::format("must be between 1 and {}, got {}", kMostMicrobatches, spec.microbatches));
  if (2 * static_cast<long long>(ranks) * spec.microbatches > kMostComputePhases)
    fail(spec, "microbatches",
         fmt::format("{} stages x {} microbatches make more than {} forward and backward phases", ranks, spec.microbatches,
                     kMostComputePhases));
  for (const auto& [key, us] : {std::pair{"forward_us", spec.forward_us}, std::pair{"backward_us", spec.backward_us}})
    if (!std::isfinite(us) || us <= 0 || us > 1e12)
      fail(spec, key, fmt::format("must be > 0 µs (one stage's time for one microbatch), got {}", us));
  if (spec.activation_count < 1 || spec.activation_count > (std::uint64_t{1} << 40))
    fail(spec, "activation_count", fmt::format("must be between 1 and 2^40 elements, got {}", spec.activation_count));
  if (spec.activation_bytes > 1e18) fail(spec, "activation_bytes", "must be at most 1e18 bytes");
  if (spec.schedules.empty()) fail(spec, "schedule", "names no schedule (use \"gpipe\" or \"1f1b\")");
  if (spec.p2p.empty()) fail(spec, "p2p", "names no way to send (use \"isend\" or \"send\")");
}

// One forward or backward of one microbatch (0-based) on one stage.
struct Op {
  bool forward = true;
  int mb = 0;
};

// The order stage s runs its ops in.
std::vector<Op> stage_order(PipelineSchedule schedule, int p, int m, int s) {
  std::vector<Op> ops;
  if (schedule == PipelineSchedule::gpipe) {
    for (int i = 0; i < m; ++i) ops.push_back({true, i});
    for (int i = 0; i < m; ++i) ops.push_back({false, i});
    return ops;
  }
  const int warmup = std::min(p - s - 1, m);
  for (int i = 0; i < warmup; ++i) ops.push_back({true, i});                 // warm-up
  for (int k = 0; k < m - warmup; ++k) {                                      // steady state: 1F1B
    ops.push_back({true, warmup + k});
    ops.push_back({false, k});
  }
  for (int i = m - warmup; i < m; ++i) ops.push_back({false, i});            // cool-down
  return ops;
}

// An op placed by the ideal run: when it starts and ends with free communication.
struct Placed {
  int stage = 0;
  Op op;
  double begin = 0, end = 0;
};

// The ideal run: each stage runs its ops in order, an F once the stage before has run that
// microbatch's F, a B once the stage after has run its B. Returns the ops in no particular order.
std::vector<Placed> ideal_run(const TrainingSpec& spec, PipelineSchedule schedule, int p) {
  const int m = spec.microbatches;
  std::vector<std::vector<Op>> order(static_cast<std::size_t>(p));
  for (int s = 0; s < p; ++s) order[static_cast<std::size_t>(s)] = stage_order(schedule, p, m, s);
  // The end of F and B of (stage, microbatch); -1: not run yet.
  std::vector<std::vector<double>> f_end(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(m), -1));
  std::vector<std::vector<double>> b_end = f_end;
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free(static_cast<std::size_t>(p), 0);
  std::vector<Placed> placed;
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {
      const auto si = static_cast<std::size_t>(s);
      if (next[si] == order[si].size()) continue;
      const Op op = order[si][next[si]];
      const auto mi = static_cast<std::size_t>(op.mb);
      // What the op needs from another stage (its own earlier ops come first by order).
      const double need = op.forward ? (s == 0 ? 0 : f_end[si - 1][mi]) : (s == p - 1 ? 0 : b_end[si + 1][mi]);
      if (need < 0) continue;
      const double begin = std::max(free[si], need);
      const double end = begin + (op.forward ? spec.forward_us : spec.backward_us);
      (op.forward ? f_end : b_end)[si][mi] = end;
      free[si] = end;
      placed.push_back({s, op, begin, end});
      ++next[si];
      progress = true;
    }
  }
  if (placed.size() != static_cast<std::size_t>(2 * p * m))
    throw std::logic_error("pipeline: the schedule deadlocks");  // stage_order is wrong
  return placed;
}

// The generator's state for one variant.
struct Variant {
  const TrainingSpec& spec;
  int p;
  PipelineSchedule schedule;
  PipelineP2p p2p;
  std::string prefix;  // "1f1b, isend: " when the lesson has several variants
  std::vector<Phase>& phases;

  double activation_bytes() const {
    return spec.activation_bytes >= 0 ? spec.activation_bytes
                                      : static_cast<double>(spec.activation_count * dtype_size(spec.dtype));
  }

  std::size_t compute(const Placed& x) {
    const int mb = x.op.mb + 1;
    const std::string tag = fmt::format("mb{}", mb);
    Phase ph;
    ph.kind = PhaseKind::compute;
    ph.compute_us.assign(static_cast<std::size_t>(p), 0.0);
    ph.compute_us[static_cast<std::size_t>(x.stage)] = x.op.forward ? spec.forward_us : spec.backward_us;
    ph.origin = spec.origin;
    if (x.op.forward) {
      ph.name = fmt::format("{}stage {}: forward {}", prefix, x.stage, mb);
      if (x.stage > 0) ph.reads = {"x." + tag};        // the activations received from stage s-1
      if (x.stage < p - 1) ph.writes = {"y." + tag};   // the activations for stage s+1
      ph.allocates = {{"activations." + tag, activation_bytes()}};
      ph.caption = fmt::format("Stage {} runs its layers forward on microbatch {} and keeps their activations ({}) "
                               "for the backward.",
                               x.stage, mb, format_bytes(activation_bytes()));
    } else {
      ph.name = fmt::format("{}stage {}: backward {}", prefix, x.stage, mb);
      if (x.stage < p - 1) ph.reads = {"dy." + tag};   // the gradient received from stage s+1
      if (x.stage > 0) ph.writes = {"dx." + tag};      // the gradient for stage s-1
      ph.frees = {"activations." + tag};
      ph.caption = fmt::format("Stage {} runs microbatch {} backward and frees its activations.", x.stage, mb);
    }
    phases.push_back(std::move(ph));
    return phases.size() - 1;
  }

  // The message that F (to stage s+1) or B (to stage s-1) of `x` produced; phase `producer`.
  void message(const Placed& x, std::size_t producer) {
    const int mb = x.op.mb + 1, to = x.op.forward ? x.stage + 1 : x.stage - 1;
    const std::string tag = fmt::format("mb{}", mb);
    Phase ph;
    ph.kind = PhaseKind::collective;
    ph.request.spec.collective = Collective::send_recv;
    ph.request.spec.ranks = p;
    ph.request.spec.count = spec.activation_count;
    ph.request.spec.dtype = spec.dtype;
    ph.request.spec.root = x.stage;  // the sender
    ph.request.algorithm = x.op.forward ? "direct" : "to_previous";
    ph.request.seed = 1;
    const char* what = x.op.forward ? "activations" : "gradient";
    const bool isend = p2p == PipelineP2p::isend;
    ph.name = fmt::format("{}{} {} {}: stage {} -> {}", prefix, isend ? "isend" : "send", what, mb, x.stage, to);
    ph.reads = {(x.op.forward ? "y." : "dx.") + tag};
    ph.writes = {(x.op.forward ? "x." : "dy.") + tag};
    if (isend) {
      ph.stream = fmt::format("p2p {}:{}", std::min(x.stage, to), std::max(x.stage, to));
      ph.wait_for = {static_cast<int>(producer)};
    } else {
      ph.stream = kComputeStream;
    }
    ph.caption = isend ? fmt::format("Stage {} isends the {} of microbatch {} to stage {} on the pair's own stream, "
                                     "and computes on while it goes.",
                                     x.stage, what, mb, to)
                       : fmt::format("Stage {} sends the {} of microbatch {} to stage {} with a blocking send: both "
                                     "stages' compute streams wait for the message.",
                                     x.stage, what, mb, to);
    ph.step_caption = fmt::format("rank {{src}} sends {{bytes}} B of microbatch {} {} to rank {{dst}}", mb, what);
    ph.origin = spec.origin;
    phases.push_back(std::move(ph));
  }

  void generate() {
    std::vector<Placed> run = ideal_run(spec, schedule, p);
    // Issue order: by ideal time; a message (at its producer's end) before a compute that
    // starts then; then by stage. A message comes after its producer, which starts earlier.
    struct Item {
      double time;
      int kind;  // 0: a message, 1: a compute
      int stage;
      std::size_t op;  // index into run
    };
    std::vector<Item> items;
    for (std::size_t k = 0; k < run.size(); ++k) {
      items.push_back({run[k].begin, 1, run[k].stage, k});
      const bool sends = run[k].op.forward ? run[k].stage < p - 1 : run[k].stage > 0;
      if (sends) items.push_back({run[k].end, 0, run[k].stage, k});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return std::tie(a.time, a.kind, a.stage, a.op) < std::tie(b.time, b.kind, b.stage, b.op);
    });
    const std::size_t first = phases.size();
    std::vector<std::size_t> phase_of(run.size());
    for (const Item& item : items) {
      if (item.kind == 1)
        phase_of[item.op] = compute(run[item.op]);
      else
        message(run[item.op], phase_of[item.op]);
    }
    // A variant after another starts once the host has seen the one before end, as a
    // training loop's next step does (the loss is read, the optimizer has stepped).
    if (first > 0) phases[first].synchronize = true;
  }
};

}  // namespace

std::string_view to_string(PipelineSchedule s) { return s == PipelineSchedule::gpipe ? "gpipe" : "1f1b"; }
std::string_view to_string(PipelineP2p p) { return p == PipelineP2p::isend ? "isend" : "send"; }

std::vector<Phase> pipeline_phases(const TrainingSpec& spec, int ranks) {
  check_spec(spec, ranks);
  std::vector<Phase> phases;
  const bool several = spec.schedules.size() * spec.p2p.size() > 1;
  for (const PipelineSchedule schedule : spec.schedules)
    for (const PipelineP2p p2p : spec.p2p) {
      const std::string prefix = several ? fmt::format("{}, {}: ", to_string(schedule), to_string(p2p)) : "";
      const std::size_t first = phases.size();
      Variant{spec, ranks, schedule, p2p, prefix, phases}.generate();
      for (std::size_t k = first; k < phases.size(); ++k)
        phases[k].group = fmt::format("{} {}", to_string(schedule), to_string(p2p));
    }
  return phases;
}

}  // namespace collsim
