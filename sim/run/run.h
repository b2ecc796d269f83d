// One collective, end to end: build the schedule, check it, allocate and fill buffers,
// execute on a backend, verify against the host reference, predict on a topology. The
// front ends call the steps below (prepare_run or prepare_model_run, predict_run,
// execute_run); none talks to a backend directly. run_collective is prepare and execute
// in one call (the tests').
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/exec/backend.h"
#include "sim/check/buffer_history.h"
#include "sim/check/checker.h"
#include "sim/exec/reference.h"
#include "sim/exec/value_history.h"
#include "sim/model/timing_model.h"

namespace collsim {

struct RunRequest {
  CollectiveSpec spec;
  std::string algorithm;  // empty: the collective's default (default_algorithm), as run resolves it
  AlgorithmOptions options;
  std::uint64_t seed = 1;
  // Given inputs instead of the seeded ones (input_value): rank r holds
  // input_values[min(r, size - 1)] at every element; empty: seeded.
  std::vector<double> input_values{};
};

struct RunResult {
  RunRequest request;
  Schedule schedule;
  DependencyGraph dependencies;
  std::string backend;      // "cpu"
  std::string device;       // "host CPU (2 worker threads)"
  Execution execution;
  Verification verification;
  std::vector<RankBuffers> buffers;  // after the run (out of place, inputs are never written)
  std::vector<std::vector<std::byte>> inputs_before;  // in place only: every rank's input before the run
  std::optional<ModelRun> model;  // the timing model's prediction (predict_run), when one was asked for
  bool model_only = false;        // prepare_model_run: nothing was allocated or executed
  bool recorded = false;          // its execution was read from a file (a lesson trace), not run here
  bool check_skipped = false;     // model_only above kMaxRanks: the symbolic check was not run
  // Predicted while generated (run_streamed_model): `schedule` has no transfers, `totals`
  // counted them, and the prediction has no per-transfer times.
  bool streamed = false;
  std::size_t peak_window_transfers = 0;  // streamed: the most transfers held at once
  // Streamed runs of a symmetric schedule are predicted from one period of ranks instead
  // (symmetric_model_period): its ranks, P; 0 otherwise. Such a run either holds no
  // transfers (streamed, run_streamed_model) or one period's (prepare_one_period_model_run).
  int symmetric_period = 0;
  // The schedule's size as the reports say it (transfers, steps, bytes per rank), counted
  // once whether the schedule is held or streamed.
  ScheduleTotals totals;
  // What every buffer cell held when, recorded by the run's one check when asked for
  // (PrepareOptions::record_history): views read it instead of checking again.
  std::shared_ptr<const BufferHistory> history;
  // The numbers every element held after each transfer (exec/value_history.h), recorded
  // with the history when the buffers are small enough to show them (records_values), and
  // checked against the run's own outputs once it has executed: the values view's numbers.
  std::shared_ptr<const ValueHistory> values;
};

// What prepare_run does besides building and checking.
struct PrepareOptions {
  // Record the buffer history during the check, for views (the GUI, the storyboard, lesson
  // answers), and the value history where records_values says so. Off for the CLI's plain
  // run: a 1024-rank ring's history is large and unread.
  bool record_history = false;
};

// Rank `rank`'s input as before the run (what the reference and --dump use) and its
// output after it, wherever in-place aliasing stores them.
std::span<const std::byte> input_before_run(const RunResult& r, int rank);
std::span<const std::byte> output_after_run(const RunResult& r, int rank);

// The schedule of a request's algorithm: a registered one (build_algorithm_schedule), or
// "custom", the hand-written schedule in options.schedule_file, loaded and checked here so
// that a wrong one is explained (WrongScheduleError, custom_schedule.h). Not checked
// otherwise: see checker.h. `max_ranks` is kMaxRanks, or kMaxModelRanks for --model-only.
Schedule build_schedule(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                        int max_ranks = kMaxRanks);

// Builds and checks the schedule (InputError for bad requests, ScheduleError for a
// broken algorithm), refuses buffers larger than the memory this machine has
// (InputError), then runs and verifies.
RunResult run_collective(const RunRequest& request, Backend& backend);
// The two halves of run_collective, for front ends that act in between (e.g. create an
// output folder only once the request is known to be valid): prepare_run builds, checks
// and sizes the run (same errors as above) without allocating buffers; execute_run
// allocates, fills, executes and verifies.
RunResult prepare_run(const RunRequest& request, const PrepareOptions& options = {});
// `only_rank` >= 0: verify that rank's outputs only (an MPI process, which executes and
// holds only its own rank's side of the run).
void execute_run(RunResult& prepared, Backend& backend, int only_rank = -1);

// --model-only: builds the schedule (up to kMaxModelRanks ranks) and derives its
// dependencies; checks it symbolically up to kMaxRanks ranks (above, the check would cost
// more than the model, so check_skipped says it was not made); allocates and executes
// nothing. The result's verification says "not executed".
RunResult prepare_model_run(const RunRequest& request, const PrepareOptions& options = {});
// Whether a --model-only run of `request` is predicted as it is generated: above kMaxRanks
// (where the symbolic check is skipped anyway), for an algorithm that streams.
bool streams_model_run(const RunRequest& request);
// Whether a --model-only run above kMaxRanks is predicted from one period of its ranks
// (sim/model/symmetric_model.h; run_streamed_model does it): its algorithm has a rotation for
// this request, streaming or not, and the topology turns onto itself. The period, or 0 (a bad
// configuration too: the run itself says what is wrong).
int symmetric_model_period(const RunRequest& request, const TopologyConfig& config);
// A longer period (late ranks that repeat only every few hundred) would hold too much of the
// schedule to be worth it: such a run streams.
inline constexpr int kMostSymmetricPeriod = 256;
// Whether run_streamed_model predicts a --model-only run without holding its schedule: it
// streams, or it is predicted from one period. The one test the pipeline and the bench use.
bool predicted_without_schedule(const RunRequest& request, const TopologyConfig& config);
// Such a run: builds and predicts the schedule a few steps at a time (predict_streamed in
// sim/model/timing_model.h), up to kMaxStreamedRanks ranks; `progress` gets the transfers
// predicted so far after each batch (under protocol auto, each candidate counts from 0).
// Where symmetric_model_period says so, from one period of ranks instead, in a moment (no
// progress then); the result says which (symmetric_period) and is otherwise the same.
RunResult run_streamed_model(const RunRequest& request, const TopologyConfig& config,
                             const std::function<void(std::uint64_t)>& progress = {});

// A --model-only run that symmetric_model_period predicts from one period, prepared for a
// caller that predicts it more than once (a lesson places it after other phases, and asks
// for its latency and bandwidth parts): its schedule holds one period's transfers (ranks
// 0..P-1 send), its dependencies are derived as turned_to_first_period sees them, its totals
// are the whole schedule's, symmetric_period is P (holds_one_period). predict_run predicts
// it (run_model_one_period); predict_one_period (sim/model/symmetric_model.h) on any topology
// that turns onto itself by P. nullopt where symmetric_model_period is 0; InputError for a bad
// request.
std::optional<RunResult> prepare_one_period_model_run(const RunRequest& request, const TopologyConfig& config);
// Whether a run holds one period's transfers only (prepare_one_period_model_run): its views,
// per-rank counts and per-transfer questions are not the whole schedule's.
bool holds_one_period(const RunResult& r);

// The timing model on a prepared run, whole or from its one period (run_model_one_period), on
// a topology resolved for `workers` and `total_ranks` (a lesson program's may have more ranks
// than the run). InputError where a run of one period meets a topology that does not turn
// onto itself by it.
ModelRun model_of_run(const RunResult& r, const TopologyConfig& config, int workers, int total_ranks);
// One part of r's prediction alone (cost_part_ns) on the topology r->model was predicted on,
// from its one period where it holds one.
double cost_part_of_run(const RunResult& r, CostPart part);

// Runs the timing model on a prepared, and possibly executed, run (InputError for a bad
// configuration, naming the flag, key or file position it came from).
void predict_run(RunResult& r, const TopologyConfig& config);

// --- memory available for buffers ----------------------------------------------------------
// The figures that bound what this process may still allocate, as read from the machine;
// each absent where unknown or unlimited.
struct MemoryFigures {
  std::optional<std::uint64_t> mem_available;       // /proc/meminfo MemAvailable
  std::optional<std::uint64_t> address_space_limit;  // RLIMIT_AS's soft limit (ulimit -v)
  std::optional<std::uint64_t> address_space_used;   // VmSize (/proc/self/status)
  std::optional<std::uint64_t> data_limit;           // RLIMIT_DATA's soft limit (ulimit -d)
  std::optional<std::uint64_t> data_used;            // VmData (/proc/self/status)
  // A memory cgroup with a limit, this process's own or one above it: cgroup v2's memory.max
  // and memory.current (v1: memory.limit_in_bytes and memory.usage_in_bytes), and the file
  // cache the kernel would reclaim first (memory.stat's inactive_file), not counted as used.
  struct Cgroup {
    std::string path;
    std::uint64_t limit = 0;
    std::uint64_t usage = 0;
    std::uint64_t reclaimable = 0;
  };
  std::vector<Cgroup> cgroups;
};

struct AvailableMemory {
  bool known = false;
  std::uint64_t bytes = 0;  // when known (0 when a limit is already reached)
  // What sets it: "MemAvailable", "the address-space limit (ulimit -v)", "the data-segment
  // limit (ulimit -d)" or "the memory cgroup's limit (<path>)".
  std::string limit;
};

// The smallest of: MemAvailable; each rlimit minus what the process uses of it already (the
// limit itself where the use is unknown); each cgroup's limit minus its usage less the
// reclaimable cache. Not known when no figure is. A pure function of the figures.
AvailableMemory combine_memory_figures(const MemoryFigures& figures);
// This process's figures now (/proc/meminfo, getrlimit, /proc/self/status, /proc/self/cgroup
// and /sys/fs/cgroup; v2, or v1's memory controller).
MemoryFigures read_memory_figures();
// combine_memory_figures(read_memory_figures()).
AvailableMemory available_memory();
// Bytes of memory available for buffers now (available_memory()), or 0 if unknown; at least
// 1 when known, so that a reached limit refuses every allocation.
std::uint64_t available_memory_bytes();

}  // namespace collsim
