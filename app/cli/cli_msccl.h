// `collsim export-msccl`: a built-in algorithm at N ranks (or a schedule written by hand)
// as an MSCCL algorithm file, for NCCL's MSCCL runtime (sim/run/msccl_export.h does the
// work; docs/msccl.md says how collsim and MSCCL map onto each other). No CLI11 here.
#pragma once
#include <string>

#include "app/cli/cli_io.h"

namespace collsim::cli {

struct MscclFlags {
  std::string out;                 // the file to write; empty: standard output
  std::string protocol = "Simple"; // the proto attribute: Simple, LL or LL128
  int channels = 1;                // spread every transfer over this many channels (1: as the schedule has them)
  std::string name;                // the name attribute; empty: collsim_ALGORITHM_N
};

// Builds and checks the schedule of `request` (at the natural count of its chunks unless
// --count is given: natural_export_count), exports it and writes it (all or nothing).
// InputError (exit 2, nothing written) when this build has no MSCCL support, for a bad
// flag, and for what MSCCL cannot say (a barrier, a parameter server's own ranks, avg).
int command_export_msccl(RunRequest request, const flags::FlagGiven& given, const MscclFlags& flags);

// Where a run's schedule is an MSCCL file: its warnings (races, needless waits) on stderr.
void print_schedule_warnings(const RunRequest& request);

}  // namespace collsim::cli
