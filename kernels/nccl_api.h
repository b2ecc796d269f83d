// NCCL's own all-reduce, as the reference row of `collsim bench --backend cuda` when two
// or more GPUs are present. Plain C++ like cuda_api.h: built from kernels/cuda/nccl_api.cpp
// when CMake finds NCCL next to the CUDA toolkit (COLLSIM_HAVE_NCCL=1), otherwise from
// kernels/nccl_api_stub.cpp, where available() is false and the rest throws.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/dtype.h"

namespace collsim::nccl {

// A failed NCCL or CUDA call of the reference, or the reference asked for in a build
// without NCCL: the sentence and its fields.
struct NcclError : std::runtime_error {
  NcclError(const std::string& message, std::string call, std::string error)
      : std::runtime_error(message), call(std::move(call)), error(std::move(error)) {}
  std::string call;   // "ncclCommInitAll(...)"; without NCCL "collsim::nccl::time_all_reduce"
  std::string error;  // ncclGetErrorString's or cudaGetErrorName's text; "" without NCCL
};

bool available() noexcept;  // collsim was built with NCCL

struct AllReduceTime {
  double mean_us = 0;  // per call, over the timed iterations
  double best_us = 0;  // the fastest timed iteration
};

// One process drives GPUs 0..devices-1, one NCCL rank each (ncclCommInitAll), all-reducing
// `count` elements in place per GPU: `warmup` untimed calls, then `iterations` timed ones,
// each waited for on every GPU. NCCL and CUDA errors throw NcclError naming the
// call, the file and the line. The outputs are not checked: this only times NCCL.
AllReduceTime time_all_reduce(int devices, std::size_t count, DataType dt, ReduceOp op, int warmup, int iterations);

}  // namespace collsim::nccl
