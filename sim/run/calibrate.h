// `collsim calibrate` under mpirun: measures the links the job's ranks sit on (ping-pongs over
// MPI) and rank 0's reduce and copy rates, for the [topology] that calibrated_topology
// (sim/model/calibration.h) makes of them. Every process calls it, in step.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/model/calibration.h"

namespace collsim {

struct CalibrateOptions {
  std::vector<std::size_t> sizes{8, 64 << 10, 256 << 10, 1 << 20, 4 << 20};  // ascending
  int small_repeats = 20;                // sizes under 64 KiB
  int large_repeats = 5;                 // the others
  std::size_t rate_bytes = 16ull << 20;  // the reduce and copy rates' buffer
};

// Rank 0 gets the measurements; the others an empty Calibration. `progress` (rank 0) hears
// each pair before it is measured. A job of one process is an InputError; so, on rank 0 only,
// are ranks not placed host by host in equal numbers (cluster_shape) and times that give no
// fit (fit_link): the other processes then get a Calibration marked `stopped`.
using CalibrateProgress = std::function<void(const std::string& what)>;
Calibration calibrate_over_mpi(const CalibrateOptions& options, const CalibrateProgress& progress);

}  // namespace collsim
