// --backend auto|cpu|cuda and --placement streams|devices, shared by `collsim run` and
// `collsim bench`. No CLI11 here: the commands register the flags themselves.
#pragma once
#include <memory>
#include <string>

#include "sim/exec/backend.h"
#include "sim/exec/cuda_backend.h"

namespace collsim::cli {

struct BackendChoice {
  std::string name;         // "cpu" or "cuda": what the flag (auto included) resolved to
  CudaBackendOptions cuda;  // used when name == "cuda"
  std::string auto_reason;  // auto only: why it picked `name`, for the one line it prints
};

// Throws InputError naming the flag: an unknown backend or placement, or --backend cuda
// without a CUDA device (or in a build without CUDA).
BackendChoice choose_backend(const std::string& backend_flag, const std::string& placement_flag);

// cpu_threads: the CPU backend's workers; 0: one per hardware thread.
std::unique_ptr<Backend> make_backend(const BackendChoice& choice, int cpu_threads = 0);

}  // namespace collsim::cli
