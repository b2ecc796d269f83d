// kernels/nccl_api.h on top of NCCL (single process, one rank per GPU).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/nccl_api.h"

namespace collsim::nccl {
namespace {

[[noreturn]] void fail(const std::string& what, const char* call, const char* file, int line) {
  throw NcclError(std::string("NCCL reference: ") + call + " failed with " + what + " at " + file + ":" +
                      std::to_string(line),
                  call, what);
}

#define COLLSIM_NCCL_CHECK(call)                                                                 \
  do {                                                                                           \
    const ncclResult_t collsim_res_ = (call);                                                    \
    if (collsim_res_ != ncclSuccess) fail(ncclGetErrorString(collsim_res_), #call, __FILE__, __LINE__); \
  } while (0)

#define COLLSIM_NCCL_CUDA_CHECK(call)                                                                     \
  do {                                                                                                    \
    const cudaError_t collsim_err_ = (call);                                                              \
    if (collsim_err_ != cudaSuccess) fail(cudaGetErrorName(collsim_err_), #call, __FILE__, __LINE__);     \
  } while (0)

ncclDataType_t nccl_type(DataType dt) {
  switch (dt) {
    case DataType::f32: return ncclFloat32;
    case DataType::f64: return ncclFloat64;
    case DataType::f16: return ncclFloat16;
    case DataType::bf16: return ncclBfloat16;
    case DataType::i32: return ncclInt32;
    case DataType::i64: return ncclInt64;
  }
  throw std::invalid_argument("NCCL reference: unknown data type");
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;
  }
  throw std::invalid_argument("NCCL reference: unknown reduce op");
}

// Communicators, streams and buffers of every GPU, released on every path.
struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> buffers;

  ~Ranks() {
    for (std::size_t d = 0; d < streams.size(); ++d) {
      (void)cudaSetDevice(static_cast<int>(d));
      if (streams[d] != nullptr) (void)cudaStreamSynchronize(streams[d]);
      if (d < buffers.size() && buffers[d] != nullptr) (void)cudaFree(buffers[d]);
      if (streams[d] != nullptr) (void)cudaStreamDestroy(streams[d]);
    }
    for (ncclComm_t c : comms)
      if (c != nullptr) (void)ncclCommDestroy(c);
  }
};

void all_reduce_once(Ranks& r, std::size_t count, DataType dt, ReduceOp op) {
  COLLSIM_NCCL_CHECK(ncclGroupStart());
  for (std::size_t d = 0; d < r.comms.size(); ++d)
    COLLSIM_NCCL_CHECK(ncclAllReduce(r.buffers[d], r.buffers[d], count, nccl_type(dt), nccl_op(op), r.comms[d], r.streams[d]));
  COLLSIM_NCCL_CHECK(ncclGroupEnd());
}

void wait_all(const Ranks& r) {
  for (std::size_t d = 0; d < r.streams.size(); ++d) {
    COLLSIM_NCCL_CUDA_CHECK(cudaSetDevice(static_cast<int>(d)));
    COLLSIM_NCCL_CUDA_CHECK(cudaStreamSynchronize(r.streams[d]));
  }
}

}  // namespace

bool available() noexcept { return true; }

AllReduceTime time_all_reduce(int devices, std::size_t count, DataType dt, ReduceOp op, int warmup, int iterations) {
  Ranks r;
  const auto n = static_cast<std::size_t>(devices);
  r.comms.assign(n, nullptr);
  r.streams.assign(n, nullptr);
  r.buffers.assign(n, nullptr);
  for (int d = 0; d < devices; ++d) {
    COLLSIM_NCCL_CUDA_CHECK(cudaSetDevice(d));
    COLLSIM_NCCL_CUDA_CHECK(cudaStreamCreateWithFlags(&r.streams[static_cast<std::size_t>(d)], cudaStreamNonBlocking));
    const std::size_t bytes = std::max<std::size_t>(count * dtype_size(dt), 1);
    COLLSIM_NCCL_CUDA_CHECK(cudaMalloc(&r.buffers[static_cast<std::size_t>(d)], bytes));
    COLLSIM_NCCL_CUDA_CHECK(cudaMemset(r.buffers[static_cast<std::size_t>(d)], 0, bytes));
  }
  COLLSIM_NCCL_CHECK(ncclCommInitAll(r.comms.data(), devices, nullptr));  // GPUs 0..devices-1
  for (int i = 0; i < warmup; ++i) all_reduce_once(r, count, dt, op);
  wait_all(r);
  AllReduceTime t;
  double total = 0, best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    all_reduce_once(r, count, dt, op);
    wait_all(r);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    total += us;
    best = std::min(best, us);
  }
  t.mean_us = iterations > 0 ? total / iterations : 0;
  t.best_us = iterations > 0 ? best : 0;
  return t;
}

}  // namespace collsim::nccl
