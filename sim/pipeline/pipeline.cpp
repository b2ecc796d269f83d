#include "sim/pipeline/pipeline.h"

#include <stdexcept>

#include "sim/exec/mpi_backend.h"
#include "sim/lesson/captions.h"

namespace collsim {
namespace {

PrepareOptions prepare_options(const PipelineRequest& r) { return {.record_history = r.record_history}; }

// Step 4: the front end's word and its backend; null when there is no hook or it gives none.
std::unique_ptr<Backend> backend_for(const PipelineRequest& request, const PipelineHooks& hooks,
                                     const PipelineResult& so_far) {
  if (!hooks.backend) return nullptr;
  std::unique_ptr<Backend> backend = hooks.backend(so_far);
  if (backend && request.model_only) throw std::logic_error("run_pipeline: a backend for a model-only run");
  return backend;
}

// One process of an MPI job verified its own rank: every process's verification summed on
// rank 0, with the first mismatch of the lowest rank that has one. Every process calls it,
// in the same order (mpi_backend.h's collectives).
Verification merged_across_job(const Verification& mine) {
  Verification v = mine;
  v.checked = mpi_sum(mine.checked);
  v.mismatches = mpi_sum(mine.mismatches);
  v.max_error = mpi_max(mine.max_error);
  v.ok = v.mismatches == 0;
  v.first_mismatch.clear();
  for (const std::string& first : mpi_gather_text(mine.first_mismatch))
    if (!first.empty()) {
      v.first_mismatch = first;
      break;
    }
  return v;
}

void run_one(const PipelineRequest& request, const PipelineHooks& hooks, PipelineResult& out) {
  // Built and predicted together, a few steps at a time, or from one period of ranks; a trace
  // needs every transfer held.
  if (request.model_only && !request.want_trace && predicted_without_schedule(request.run, request.topology)) {
    out.run = std::make_shared<RunResult>(run_streamed_model(request.run, request.topology, hooks.streamed));
    return;
  }
  out.run = std::make_shared<RunResult>(request.model_only ? prepare_model_run(request.run, prepare_options(request))
                                                           : prepare_run(request.run, prepare_options(request)));
  RunResult& run = *out.run;
  if (hooks.built) hooks.built(run.schedule);
  predict_run(run, request.topology);
  if (const std::unique_ptr<Backend> backend = backend_for(request, hooks, out)) {
    execute_run(run, *backend, request.only_rank);
    if (request.only_rank >= 0) run.verification = merged_across_job(run.verification);
  }
  if (!request.want_trace) return;
  const std::string title = request.scenario ? request.scenario->title : request.title;
  out.trace = make_trace(run, title, run_description(request.scenario, run.schedule, request.description));
}

void run_program(const PipelineRequest& request, const PipelineHooks& hooks, PipelineResult& out) {
  const Scenario& s = *request.scenario;
  out.program = std::make_shared<ProgramResult>(prepare_program(s, request.model_only, prepare_options(request)));
  ProgramResult& p = *out.program;
  if (hooks.built)
    for (const std::size_t k : first_phases_of_runs(p)) hooks.built(p.phases[k].run->schedule);
  predict_program(p, s, request.topology);
  if (const std::unique_ptr<Backend> backend = backend_for(request, hooks, out)) {
    execute_program(p, *backend, hooks.program_progress, request.keep_buffers, request.only_rank);
    if (request.only_rank >= 0)
      for (const std::size_t k : first_phases_of_runs(p)) {
        Verification& v = p.phases[k].run->verification;
        v = merged_across_job(v);
      }
  }
}

}  // namespace

bool PipelineResult::executed() const {
  if (program) return program->executed;
  return run && !run->model_only && !run->backend.empty();  // execute_run names the backend
}

bool PipelineResult::verified() const {
  if (program) return program->verified();
  return executed() && run->verification.ok;
}

std::string run_description(const Scenario* scenario, const Schedule& schedule, const std::string& given) {
  if (!scenario) return given;
  return lesson_description(*scenario, single_run_facts(*scenario, schedule));
}

PipelineResult run_pipeline(const PipelineRequest& request, const PipelineHooks& hooks) {
  if (request.program && !request.scenario)
    throw std::invalid_argument("run_pipeline: a program needs its scenario");
  if (request.scenario && request.scenario->model_only && !request.model_only)
    throw std::logic_error("run_pipeline: the scenario runs on the model alone ([run] model_only): ask for model_only");
  PipelineResult out;
  if (request.program)
    run_program(request, hooks, out);
  else
    run_one(request, hooks, out);
  return out;
}

}  // namespace collsim
