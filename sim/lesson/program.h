// Running a lesson: every phase of a Scenario (lesson.h), executed, verified and timed as
// one program. The CLI (`collsim run LESSON.toml`), the storyboard and the GUI call this;
// lesson.h's header comment states the rules of the timing.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/exec/backend.h"
#include "sim/lesson/lesson.h"
#include "sim/run/run.h"
#include "sim/run/run_estimate.h"
#include "sim/lesson/scenario.h"
#include "sim/model/timing_model.h"
#include "sim/trace/trace.h"

namespace collsim {

struct PhaseRun {
  int phase = 0;  // index into Scenario::phases
  // collective: the run of its whole collective (built, checked, and once executed:
  // verified against the host reference). Phases with equal requests share it.
  std::shared_ptr<RunResult> run;
  // collective: the phase's own part of run->schedule: the transfers of its steps, steps
  // renumbered so that its first step is step 0 (shown as step 1), labels kept; the
  // pre-operations when it starts at the collective's first step, the post-operations when
  // it ends at its last (the whole schedule when it runs every step).
  Schedule schedule;
  std::vector<std::size_t> source_transfer;  // for each transfer here, its index in run->schedule
  // Predicted, in program time (ns since the program began): per transfer of `schedule`,
  // and per rank (size total_ranks; begin == end == -1 when the rank takes no part).
  std::vector<double> begin_ns, end_ns;
  std::vector<double> rank_begin_ns, rank_end_ns;
  double begin() const;  // earliest rank begin; 0 when nobody takes part
  double end() const;    // latest rank end
};

// Memory a rank holds from time_ns on (the allocations its phases name), until the next point.
struct MemoryPoint {
  double time_ns = 0;
  double bytes = 0;
};

struct ProgramResult {
  int total_ranks = 0;           // the ranks of the largest schedule (parameter servers included)
  std::vector<PhaseRun> phases;  // one per Scenario::phases, same order
  bool executed = false;         // execute_program ran (false: model only)
  bool predicted = false;        // predict_program ran
  TopologyConfig topology_config;  // the configuration predict_program was given
  Topology topology;             // what predict_program predicted on (a collective phase: under
                                 // its run's protocol, run->model->topology; auto differs per run)
  double total_ns = 0;           // the last phase end on any rank
  // Per rank, ns: time busy computing, time with its communication stream busy, and the
  // communication time not hidden behind compute (the overlap lesson's figure).
  std::vector<double> compute_ns, communication_ns, exposed_communication_ns;
  // Per rank: the memory line (empty when no phase allocates on the rank), its peak and
  // when the peak begins.
  std::vector<std::vector<MemoryPoint>> memory;
  std::vector<double> peak_memory_bytes, peak_memory_ns;
  // Every executed collective verified (false until executed).
  bool verified() const;
};

// The streams a program's phases run on, one lane each per rank, as every view draws them
// (the app's and the page's program timeline, the Chrome trace's tracks): compute and comm
// first, used or not, then the lesson's other streams in the order they first appear.
struct StreamLane {
  std::string stream;  // its name in the lesson: "compute", "comm", "default", "p2p 0:1"
  std::string label;   // a lane's short name: "compute", "comm", "default", "p2p 0:1"
  std::string about;   // what it is: "CUDA's legacy default stream: waits for ... "
};
struct StreamLanes {
  std::vector<StreamLane> lanes;
  std::vector<std::size_t> lane_of_phase;  // per phase of the scenario: index into lanes
};
StreamLanes stream_lanes(const Scenario& s);

// The first phase of every distinct collective, in phase order: the order execute_program
// runs them in, and how the exports and the CLI number them.
std::vector<std::size_t> first_phases_of_runs(const ProgramResult& p);
// The worker ranks: the largest collective's spec.ranks (parameter servers excluded), or
// total_ranks when the program has no collective.
int program_workers(const ProgramResult& p);
// How long execute_program takes on the CPU at least: every distinct collective's data at
// the memcpy rate (run_estimate.h), for the CLI's refusal and the app's progress text.
RunTimeEstimate estimate_cpu_program(const ProgramResult& p);

// Builds and checks every collective phase (InputError naming the phase's origin for a bad
// request or step range, or a compute array longer than the program's ranks), refuses a
// program whose buffers (all distinct collectives together) do not fit in memory;
// allocates nothing. model_only (--model-only, or the file's [run] model_only): prepare_model_run
// instead of prepare_run, no memory check, and execute_program is refused. `options` go to every run (the GUI asks
// for the buffer history); a question about contributions asks for it too.
ProgramResult prepare_program(const Scenario& s, bool model_only = false, const PrepareOptions& options = {});
// The views (the app, the storyboard, the page), the exports and `explain` show every
// transfer or step of every phase, which a lesson above kMaxRanks does not hold (its phases
// are predicted from one node's transfers): InputError naming --ranks there, saying `what`
// shows it ("the views show every transfer"). prepare_program checks it when asked for the
// histories, the exports when they write, the CLI and the app before any work.
void check_lesson_viewable(const Scenario& s, std::string_view what = "the views show every transfer");
// Allocates, executes and verifies each distinct collective once, in phase order,
// calling `progress(done, total)` after each; frees each run's buffers once verified
// unless keep_buffers (the GUI's values view wants them). `only_rank` >= 0 (one process of
// an MPI job, mpi_backend.h): execute_run's, each collective allocates and verifies that rank only.
using ProgramProgress = std::function<void(int done, int total)>;
void execute_program(ProgramResult& p, Backend& backend, const ProgramProgress& progress = {}, bool keep_buffers = false,
                     int only_rank = -1);
// Predicts every phase on the topology (InputError for a bad configuration), and each
// distinct collective alone from time 0 on the same topology (run->model, for the
// single-run summaries).
void predict_program(ProgramResult& p, const Scenario& s, const TopologyConfig& config);

// --- a phase's own trace, and the exports (program_trace.cpp) -------------------------
// Whether collective phase `pr` runs every step of its collective (false for a compute phase).
bool phase_runs_every_step(const PhaseRun& pr);
// What a collective phase's view shows: its run's trace cut to the phase's transfers,
// measured times from the phase's first transfer and predicted ones from its begin; the
// bandwidths, busiest links and closed form only when it runs its whole collective (those
// of a part mean nothing), and the buffer and value histories only then (a part's view
// takes its window of the whole history). A single-collective scenario's is make_trace's,
// unchanged. `description` is the lesson's, rendered (lesson_description).
Trace phase_trace(const Scenario& s, const ProgramResult& p, std::size_t k, const std::string& description);

// Each export returns a whole file's text.
// Chrome trace-event JSON: one process per rank with a "compute" and a "communication"
// track (a slice per phase) and a "transfers" track (a slice per transfer received), all
// at predicted times; instant events mark phase boundaries.
std::string program_to_chrome(const Scenario& s, const ProgramResult& p);
// One row per transfer with its phase, and one row per compute slice (RFC 4180).
std::string program_to_csv(const Scenario& s, const ProgramResult& p);
// The lesson trace, "collsim-lesson" version 2 (docs/trace-format.md): title, the lesson's
// own text with the ranks, seed and topology it ran with, phases with per-rank predicted
// begin/end, and each collective phase's transfers with predicted and measured times.
inline constexpr std::string_view kLessonTraceFormat = "collsim-lesson";
inline constexpr int kLessonTraceVersion = 2;
std::string program_to_json(const Scenario& s, const ProgramResult& p);

// --- reading a lesson trace back (lesson_trace.cpp) ------------------------------------
// A lesson trace opened again: the lesson rebuilt from the text it carries, at the ranks,
// seed and topology it ran with, prepared (model only: nothing allocated or run) and
// predicted here, checked against every request and transfer the file recorded, then
// given the file's measured times, backends, devices and verifications. Exporting it again
// gives the file's bytes (the round trip the tests hold).
struct ImportedLesson {
  Scenario scenario;
  ProgramResult program;
  // Empty, or what the reader should know: "the predictions are this collsim's: the file's
  // (written by collsim 0.0.9) differ at phase 3, transfer 12 (1000 ns here, 1200 ns there)".
  std::string note;
};
// Every error is an InputError naming the file and the key ("x.lesson.json: key
// 'phases[2].transfers[5].src': ..."), or the line of the lesson text it carries.
// `options` as prepare_program's (the views ask for the histories).
ImportedLesson parse_lesson_trace(std::string_view text, const std::string& source_name, const PrepareOptions& options = {});
ImportedLesson load_lesson_trace(const std::filesystem::path& path, const PrepareOptions& options = {});
// Whether a file is a lesson trace: JSON whose "format" is "collsim-lesson". False for
// anything unreadable or unparsable (the reader it goes to then says what is wrong).
bool is_lesson_trace(const std::filesystem::path& path);

}  // namespace collsim
