// `collsim run`: the flags only it has, and the run of one collective (a lesson goes on to
// cli_lesson.h, --backend mpi to cli_mpi.h, --model-only to cli_model.h). No CLI11 here
// (cli_main.cpp registers the flags into RunFlags and FileArgs).
#pragma once
#include <cstdint>
#include <string>

#include "app/cli/cli_io.h"
#include "app/flags/run_flags.h"
#include "app/flags/topology_flags.h"

namespace collsim::cli {

struct RunFlags {
  std::string backend = "auto", placement = "streams", dump;
  bool allow_long = false;
  std::uint64_t seed = 1;
  bool quiet = false;
  bool answers = false;  // a scenario's questions: show the answers
  double timeout = 0;    // --timeout (s, --backend mpi): abort a job whose transfers stall this long; 0: none
};

// A scenario file (optional) and the output files of `collsim run`.
struct FileArgs {
  std::string scenario;
  cli::TraceOutputs outputs;
};

int command_run(const flags::SpecFlags& sf, const RunFlags& rf, const FileArgs& fa, const flags::ModelFlags& mf,
                const flags::FlagGiven& given);

}  // namespace collsim::cli
