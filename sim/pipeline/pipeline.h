// The one order in which every front end runs a collective or a lesson (docs/design.md,
// "The run pipeline"):
//
//   1. build and check      every schedule (prepare_run, prepare_model_run, prepare_program)
//   2. the front end's look  at what was built (PipelineHooks::built: the storyboard refuses
//                            a schedule it cannot draw)
//   3. predict               on the topology (predict_run, predict_program)
//   4. the front end's word  before anything is allocated, executed or written
//                            (PipelineHooks::backend: it checks its output paths, makes its
//                            folders, says what will run, and gives the backend)
//   5. execute and verify    (execute_run, execute_program; an MPI job's verification merged
//                            across its processes), skipped for a model-only run
//   6. the trace             of one collective (make_trace), when asked for
//
// A bad request, schedule or topology is refused (InputError, ScheduleError) in 1 to 3, so
// before the front end has written anything. The front ends (app/cli, app/views' loader,
// app/web) each make one call here and print or draw what comes back; none calls the
// steps above itself. The request is plain data: no flag spellings; the front ends turn
// their flags, menus and forms into it.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sim/exec/backend.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/run/run.h"
#include "sim/trace/trace.h"

namespace collsim {

struct PipelineRequest {
  // One collective: what runs. Unused for a program (the scenario's phases say what runs).
  RunRequest run{};
  // The scenario the run came from, if any: the trace's title, and its description
  // rendered for the run (lesson_description). The caller keeps it alive for the call.
  const Scenario* scenario = nullptr;
  // Run every phase of *scenario as one program (a lesson) instead of `run`.
  bool program = false;
  // What the prediction runs on (a program: its collective phases and compute).
  TopologyConfig topology{};
  // Build, check and predict only: nothing is allocated or executed (PipelineHooks::backend
  // still has its word, and must give no backend), and the verification says "not executed".
  // A scenario with [run] model_only must be run so (the front ends ask for it).
  bool model_only = false;
  // Record each run's buffer history and, for buffers small enough to show their numbers,
  // its value history: what the views read (the app, the storyboard, the page).
  bool record_history = false;
  // Make the trace of one collective (PipelineResult::trace). Off for the CLI's plain run
  // that writes no trace file: a 1024-rank ring's trace is a second copy of its schedule.
  bool want_trace = true;
  // One process of an MPI job: execute and verify this rank's side only (execute_run); the
  // job's verifications are then merged (rank 0 holds every process's; every process of the
  // job must make the same call).
  int only_rank = -1;
  // A program: keep each run's buffers once verified (execute_program's keep_buffers).
  bool keep_buffers = false;
  // One collective outside a scenario: the trace's title and description as given.
  std::string title{}, description{};
};

struct PipelineResult {
  std::shared_ptr<RunResult> run;          // one collective: built, checked, predicted, executed
  std::shared_ptr<ProgramResult> program;  // a program: every phase
  std::optional<Trace> trace;              // one collective, when want_trace
  bool executed() const;                   // step 5 ran
  bool verified() const;                   // executed, and every output right
};

struct PipelineHooks {
  // Step 2: each schedule built (a program: every distinct collective's).
  std::function<void(const Schedule&)> built{};
  // Step 4, for every run (a model-only one too): the front end's checks before anything is
  // written, and the backend to execute on. Null, or giving null, executes nothing: the
  // result is then the model-only one of steps 1 to 3.
  std::function<std::unique_ptr<Backend>(const PipelineResult&)> backend{};
  // A program: after each distinct collective has run (execute_program's progress).
  ProgramProgress program_progress{};
  // A streamed model-only run (streams_model_run, in place of `built`): the transfers
  // predicted so far, after each batch.
  std::function<void(std::uint64_t)> streamed{};
};

// Runs `request` in the order above.
PipelineResult run_pipeline(const PipelineRequest& request, const PipelineHooks& hooks = {});

// The trace's description of a single collective run: the scenario's description
// rendered for `schedule` (lesson_description), or `given` outside a scenario.
std::string run_description(const Scenario* scenario, const Schedule& schedule, const std::string& given);

}  // namespace collsim
