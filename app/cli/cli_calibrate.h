// `mpirun -np N collsim calibrate --out cluster.toml` (docs/netlab.md): measures the links the
// job's ranks sit on and writes the [topology] that --topology-file reads. No CLI11 here.
#pragma once
#include <string>

namespace collsim::cli {

struct CalibrateFlags {
  std::string out;                // the topology file (rank 0 writes it)
  std::string max_size = "4M";    // the largest ping-pong
  int repeats = 5;                // ping-pongs per size of 64 KiB and more (20 below)
};

// Every process runs it; rank 0 checks --out before measuring (every process stops alike
// when it cannot be written), prints each path's fit and writes the file whole. Exit 2 for
// bad flags or a job that cannot be calibrated, 0 otherwise.
int command_calibrate(const CalibrateFlags& flags);

}  // namespace collsim::cli
