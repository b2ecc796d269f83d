// `mpirun -np N collsim run --backend mpi …` (docs/distributed.md): every process runs the
// same command line; each executes and verifies its own rank (sim/exec/mpi_backend.h), and
// rank 0 prints the summary and writes the trace files. No CLI11 here.
#pragma once
#include <string>

#include "app/cli_io.h"

namespace collsim::cli {

// A single collective on --backend mpi. Refused on every process alike, exit 2, before any
// transfer: a job whose size is not the schedule's rank count, a process started without a
// launcher for more than one rank, a lesson of several phases, --dump; an output path
// rank 0 cannot write (rank 0 says why, the others stop too). Exit 1 on every process when
// any rank's output is wrong.
int command_run_mpi(const RunPlan& plan, const std::string& scenario_path, const TraceOutputs& outputs, bool dump,
                    bool quiet);

}  // namespace collsim::cli
