// `mpirun -np N collsim run --backend mpi …` (docs/distributed.md): every process runs the
// same command line; each executes and verifies its own rank (sim/exec/mpi_backend.h), and
// rank 0 prints the summary and writes the trace files and the dump. No CLI11 here.
#pragma once
#include <string>

#include "app/cli/cli_lesson.h"

namespace collsim::cli {

// A collective or a lesson of several phases on --backend mpi (flags.placement and
// flags.model_only are not used). Refused on every process alike, exit 2, before any
// transfer: a job whose size is not the schedule's (the program's) rank count, a process
// started without a launcher for more than one rank, an output path or --dump folder rank 0
// cannot write (rank 0 says why, the others stop too), and what a run on one process
// refuses (--dump with a lesson). --dump: every process sends its rank's input and output
// to rank 0, which writes them with the traces, all or nothing. Exit 1 on every process
// when any rank's output is wrong.
int command_run_mpi(const RunPlan& plan, const std::string& scenario_path, const LessonRunFlags& flags);

}  // namespace collsim::cli
