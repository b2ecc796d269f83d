#include "app/cli/cli_run.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "app/cli/cli_model.h"
#include "app/cli/cli_mpi.h"
#include "app/cli/cli_progress.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/exec/backend_choice.h"
#include "sim/pipeline/pipeline.h"
#include "sim/run/run.h"
#include "sim/run/run_estimate.h"

namespace collsim::cli {
namespace {

// DIR/rank<r>.in.bin and DIR/rank<r>.out.bin, raw little-endian arrays, staged in
// `files` with the run's other outputs: all or nothing.
void dump_buffers(const RunResult& r, const std::filesystem::path& dir, OutputFileSet& files) {
  for (int rank = 0; rank < r.schedule.spec.ranks; ++rank) {
    // Inputs as before the run (in place, the run overwrote them); outputs after it.
    if (cli::dumps_buffer(r.schedule, rank, BufferKind::input))
      files.stage(cli::dump_file(dir, rank, BufferKind::input), input_before_run(r, rank));
    if (cli::dumps_buffer(r.schedule, rank, BufferKind::output))
      files.stage(cli::dump_file(dir, rank, BufferKind::output), output_after_run(r, rank));
  }
}

}  // namespace

int command_run(const flags::SpecFlags& sf, const RunFlags& rf, const FileArgs& fa, const flags::ModelFlags& mf,
                const flags::FlagGiven& given) {
  const cli::RunPlan plan = [&] {
    RunRequest r = flags::to_request(sf, given);
    r.seed = rf.seed;
    return cli::plan_run(fa.scenario, r, rf.backend, given, flags::topology_flags(mf, given));
  }();
  if (rf.timeout != 0 && plan.backend != "mpi")
    throw InputError(fmt::format("--timeout: only --backend mpi waits on other processes (this run is on {})", plan.backend));
  if (plan.backend == "mpi") {
    if (mf.model_only) throw InputError("--model-only executes nothing: leave out --backend mpi");
    LessonRunFlags f{rf.placement, fa.outputs, rf.dump, false, rf.quiet, rf.answers};
    f.timeout = rf.timeout;
    return cli::command_run_mpi(plan, fa.scenario, f);
  }
  const bool model_only = mf.model_only || plan.model_only();
  if (plan.lesson())
    return cli::command_run_lesson(plan, fa.scenario,
                                   {rf.placement, fa.outputs, rf.dump, model_only, rf.quiet, rf.answers, rf.allow_long});
  // A single collective's questions are answered from the model, before anything runs.
  const std::string questions = cli::single_collective_questions(plan, rf.answers);
  if (model_only) {
    const int status = cli::command_model_only(plan, fa.scenario, fa.outputs, rf.dump, rf.quiet);
    if (!rf.quiet) fmt::print("{}", questions);
    return status;
  }
  // The pipeline checks everything (a bad topology included) before the backend hook, which
  // checks the outputs before touching the file system or printing anything.
  cli::TransferProgress progress("run");
  PipelineHooks hooks;
  hooks.backend = [&](const PipelineResult& checked) {
    const BackendChoice choice = choose_backend(plan.backend, rf.placement);
    cli::check_trace_outputs(fa.outputs);  // before the dump folder is created
    const RunTimeEstimate estimate = choice.name == "cpu" ? estimate_cpu_run(checked.run->schedule) : RunTimeEstimate{};
    if (!rf.allow_long) check_run_time(estimate, "--allow-long");
    const bool long_run = estimate.seconds > kSayEstimateSeconds;
    std::unique_ptr<Backend> backend =
        make_backend(choice, 0, long_run ? std::function<void(std::size_t, std::size_t)>(std::ref(progress)) : nullptr);
    if (!rf.dump.empty()) ensure_writable_folder(rf.dump, "--dump");
    if (plan.backend == "auto" && !rf.quiet)
      fmt::print("backend auto: using {} ({}): {}\n", backend->name(), choice.auto_reason, backend->device_name());
    if (long_run && !rf.quiet) {
      fmt::print(stderr, "estimated: {}\n", describe(estimate));
      std::fflush(stdout);
    }
    return backend;
  };
  const PipelineResult run = run_pipeline(cli::pipeline_request(plan, fa.outputs.any()), hooks);
  progress.clear();
  const RunResult& result = *run.run;
  OutputFileSet files;  // the dump and the traces land together or not at all
  if (!rf.dump.empty()) dump_buffers(result, rf.dump, files);
  if (run.trace) cli::stage_trace(*run.trace, fa.outputs, files);
  files.commit();
  if (rf.quiet) {
    cli::print_quiet_verdict(result.verification);
  } else {
    cli::print_run_report(result, plan, fa.scenario, fa.outputs, rf.dump);
    fmt::print("{}", questions);
  }
  return result.verification.ok ? 0 : 1;
}

}  // namespace collsim::cli
