#include "app/cli/cli_mpi.h"

#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/exec/backend_choice.h"
#include "sim/exec/mpi_backend.h"
#include "sim/core/output_files.h"
#include "sim/pipeline/pipeline.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

// The MPI backend with --timeout.
BackendChoice mpi_choice(double timeout_s) {
  BackendChoice choice = choose_backend("mpi", "streams");
  choice.mpi.stall_timeout_s = timeout_s;
  return choice;
}

// The job's size against the rank count of what runs (`workers` of them, the rest servers).
void check_job(int ranks, int workers, std::string_view what) {
  const MpiPlace& me = mpi_place();
  if (!me.launched && me.size == 1 && ranks > 1)
    throw InputError(fmt::format("--backend mpi runs one process per rank, and this one was started without mpirun: "
                                 "launch it as mpirun -np {} collsim run --backend mpi … (or srun -n {} under Slurm)",
                                 ranks, ranks));
  if (me.size != ranks) {
    const int servers = ranks - workers, fitting_workers = me.size - servers;
    // The same on every process: rank 0 says it for the job (the others' messages are empty).
    if (me.rank != 0) throw InputError("");
    throw InputError(fmt::format("the {} has {} ranks{} but mpirun started {} process{}: give -np {}{}", what, ranks, servers > 0 ? fmt::format(" ({} and {} servers)", workers, servers) : "",
                                 me.size, me.size == 1 ? "" : "es", ranks,
                                 fitting_workers > 0 ? fmt::format(" or --ranks {}", fitting_workers) : ""));
  }
}

// Rank 0 checks the output paths and the dump folder; every process stops alike if one is bad.
void check_outputs_on_rank0(const TraceOutputs& outputs, const std::string& dump) {
  std::string problem;
  if (mpi_place().rank == 0) try {
      check_trace_outputs(outputs);
      if (!dump.empty()) ensure_writable_folder(dump, "--dump");
    } catch (const InputError& e) {
      problem = e.what();
    }
  mpi_stop_all_if(problem);
}

// --dump on rank 0: each process's input (as before the run) and output, collected one
// process at a time and staged with the traces. A staging error (a full disk) is kept
// until every process has sent, then every process stops with it.
void stage_dump(const RunResult& r, const std::filesystem::path& dir, OutputFileSet& files) {
  const int me = mpi_place().rank;
  std::string problem;
  for (const BufferKind b : {BufferKind::input, BufferKind::output}) {
    const std::span<const std::byte> mine = !dumps_buffer(r.schedule, me, b) ? std::span<const std::byte>{}
                                            : b == BufferKind::input ? input_before_run(r, me)
                                                                     : output_after_run(r, me);
    mpi_collect_bytes(mine, [&](int rank, std::span<const std::byte> bytes) {
      if (bytes.empty() || !problem.empty()) return;
      try {
        files.stage(dump_file(dir, rank, b), bytes);
      } catch (const InputError& e) {
        problem = e.what();
      }
    });
  }
  mpi_stop_all_if(problem);
}

int run_collective(const RunPlan& plan, const std::string& scenario_path, const LessonRunFlags& f) {
  const MpiPlace& me = mpi_place();
  std::string questions;
  PipelineRequest request = pipeline_request(plan, f.outputs.any() && me.rank == 0);  // every process alike: the same errors everywhere
  request.only_rank = me.rank;
  PipelineHooks hooks;
  hooks.backend = [&](const PipelineResult& checked) {
    questions = single_collective_questions(plan, f.answers);
    check_job(checked.run->schedule.total_ranks, plan.request.spec.ranks, "schedule");
    check_outputs_on_rank0(f.outputs, f.dump);
    return make_backend(mpi_choice(f.timeout));
  };
  const PipelineResult run = run_pipeline(request, hooks);  // the job's verification merged on rank 0
  const RunResult& result = *run.run;
  OutputFileSet files;  // on rank 0: the dump and the traces land together or not at all
  if (!f.dump.empty()) stage_dump(result, f.dump, files);
  if (me.rank == 0) {
    if (run.trace) stage_trace(*run.trace, f.outputs, files);
    files.commit();
    if (f.quiet) {
      print_quiet_verdict(result.verification);
    } else {
      print_run_report(result, plan, scenario_path, f.outputs, f.dump);
      fmt::print("{}", questions);
    }
    std::fflush(stdout);
  }
  return result.verification.ok ? 0 : 1;
}

// A lesson: every process executes its own rank of each distinct collective, in the same
// order (a process past a collective's ranks sits it out); rank 0 reports the program with
// every rank's verification merged.
int run_lesson(const RunPlan& plan, const std::string& path, const LessonRunFlags& f) {
  const MpiPlace& me = mpi_place();
  const Scenario& s = *plan.scenario;
  LessonRun l = run_lesson_pipeline(
      plan, path, f,
      [&](const ProgramResult& p, const std::string& description) {
        check_job(p.total_ranks, program_workers(p), "lesson");
        check_outputs_on_rank0(f.outputs, "");
        std::unique_ptr<Backend> backend = make_backend(mpi_choice(f.timeout));
        if (me.rank == 0 && !f.quiet) print_lesson_title(s, path, description);
        return backend;
      },
      me.rank, me.rank == 0);  // the job's verifications merged on rank 0
  if (me.rank != 0) return l.program->verified() ? 0 : 1;
  OutputFileSet files;
  stage_lesson_outputs(s, *l.program, f.outputs, files);
  files.commit();
  const int status = report_lesson(s, l, f);
  std::fflush(stdout);
  return status;
}

}  // namespace

int command_run_mpi(const RunPlan& plan, const std::string& scenario_path, const LessonRunFlags& flags) {
  try {
    return plan.lesson() ? run_lesson(plan, scenario_path, flags) : run_collective(plan, scenario_path, flags);
  } catch (const MpiStopped&) {
    return 2;
  }
}

}  // namespace collsim::cli
