// Which backend runs a collective — --backend auto|cpu|cuda and --placement
// streams|devices, shared by `collsim run`, `collsim bench` and lessons — and the device
// queries the front ends need (how many GPUs, the device copy ceiling, NCCL's own
// all-reduce as the bench's reference row). The front ends call these; only sim/exec
// talks to kernels/' CUDA and NCCL API. The flags' names appear in the messages because
// the values come from them; the commands register the flags themselves.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sim/exec/backend.h"
#include "sim/exec/cuda_backend.h"
#include "sim/exec/mpi_backend.h"

namespace collsim {

struct BackendChoice {
  std::string name;         // "cpu" or "cuda": what the flag (auto included) resolved to
  CudaBackendOptions cuda;  // used when name == "cuda"
  MpiBackendOptions mpi;    // used when name == "mpi"
  std::string auto_reason;  // auto only: why it picked `name`, for the one line it prints
};

// Throws InputError naming the flag: an unknown backend or placement, or --backend cuda
// without a CUDA device (or in a build without CUDA).
BackendChoice choose_backend(const std::string& backend_flag, const std::string& placement_flag);

// cpu_threads: the CPU backend's workers; 0: one per hardware thread. cpu_progress: the
// CPU backend's after_transfer (CpuBackendOptions).
std::unique_ptr<Backend> make_backend(const BackendChoice& choice, int cpu_threads = 0,
                                      std::function<void(std::size_t, std::size_t)> cpu_progress = {});

// CUDA devices present (0 without a driver, a device or the CUDA backend).
int cuda_device_count();

// The device copy ceiling of the bench's header: collsim's copy kernel and
// cudaMemcpyAsync on 1 GiB buffers (a quarter of the free memory on a small GPU).
DeviceCopyRate measure_device_copy_ceiling(int device);

// NCCL's all-reduce as the bench's reference row: why it cannot run here (empty: it can),
// and its time on `gpus` GPUs (one NCCL rank each, in place, outputs not checked; throws
// std::runtime_error on an NCCL or CUDA error).
std::string why_no_nccl_reference(Collective collective);
struct NcclTime {
  double mean_us = 0, best_us = 0;
};
NcclTime time_nccl_all_reduce(int gpus, std::uint64_t count, DataType dtype, ReduceOp op, int warmup, int iterations);

}  // namespace collsim
