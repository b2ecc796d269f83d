#include "app/cli_mpi.h"

#include <cstdio>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/exec/backend_choice.h"
#include "sim/exec/mpi_backend.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

// Stops every process with exit status 2 when rank 0 found `problem` ("" : go on): rank 0
// says it, the others only stop (one message, not N).
struct StopQuietly {};
void stop_all_if(const std::string& rank0_problem) {
  const std::string problem = mpi_share(rank0_problem);
  if (problem.empty()) return;
  if (mpi_place().rank == 0) throw InputError(problem);
  throw StopQuietly{};
}

void check_job(const RunPlan& plan, const RunResult& prepared) {
  const MpiPlace& me = mpi_place();
  const int ranks = prepared.schedule.total_ranks;
  if (!me.launched && me.size == 1 && ranks > 1)
    throw InputError(fmt::format("--backend mpi runs one process per rank, and this one was started without mpirun: "
                                 "launch it as mpirun -np {} collsim run --backend mpi … (or srun -n {} under Slurm)",
                                 ranks, ranks));
  if (me.size != ranks)
    throw InputError(fmt::format("rank {}: the schedule has {} ranks{} but mpirun started {} process{}: give -np {} or "
                                 "--ranks {}",
                                 me.rank, ranks,
                                 ranks != plan.request.spec.ranks
                                     ? fmt::format(" ({} and {} servers)", plan.request.spec.ranks, ranks - plan.request.spec.ranks)
                                     : "",
                                 me.size, me.size == 1 ? "" : "es", ranks, me.size));
}

// Every process's verification summed on rank 0, with the first mismatch of the lowest rank that has one.
Verification merged_verification(const Verification& mine) {
  Verification v = mine;
  v.checked = mpi_sum(mine.checked);
  v.mismatches = mpi_sum(mine.mismatches);
  v.max_error = mpi_max(mine.max_error);
  v.ok = v.mismatches == 0;
  const std::vector<std::string> firsts = mpi_gather_text(mine.first_mismatch);
  v.first_mismatch.clear();
  for (const std::string& f : firsts)
    if (!f.empty()) {
      v.first_mismatch = f;
      break;
    }
  return v;
}

int run(const RunPlan& plan, const std::string& scenario_path, const TraceOutputs& outputs, bool quiet) {
  const MpiPlace& me = mpi_place();
  RunResult result = prepare_run(plan.request);  // every process alike: the same errors everywhere
  predict_run(result, plan.topology);
  check_job(plan, result);
  std::string problem;
  if (me.rank == 0) try {
      check_trace_outputs(outputs);
    } catch (const InputError& e) {
      problem = e.what();
    }
  stop_all_if(problem);
  std::unique_ptr<Backend> backend = make_backend(choose_backend("mpi", "streams"));
  execute_run(result, *backend, me.rank);
  result.verification = merged_verification(result.verification);
  if (me.rank == 0) {
    OutputFileSet files;
    stage_trace_outputs(result, plan, outputs, files);
    files.commit();
    if (quiet) {
      fmt::print("{}\n", result.verification.ok ? "verified" : "WRONG: " + result.verification.first_mismatch);
    } else {
      print_run_report(result, plan, scenario_path, outputs);
    }
    std::fflush(stdout);
  }
  return result.verification.ok ? 0 : 1;
}

}  // namespace

int command_run_mpi(const RunPlan& plan, const std::string& scenario_path, const TraceOutputs& outputs, bool dump,
                    bool quiet) {
  if (plan.lesson())
    throw InputError("--backend mpi runs a single collective; a lesson of several phases runs on cpu or cuda (the "
                     "program runner is not distributed yet)");
  if (dump) throw InputError("--dump: not with --backend mpi yet (rank 0 would need every rank's buffers)");
  try {
    return run(plan, scenario_path, outputs, quiet);
  } catch (const StopQuietly&) {
    return 2;
  }
}

}  // namespace collsim::cli
