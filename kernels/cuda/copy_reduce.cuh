// Launchers for the element kernels of copy_reduce.cu. CUDA-only header, included by .cu
// files; plain C++ code uses kernels/cuda_api.h instead. Each launcher enqueues one kernel
// (none when count == 0) and returns cudaGetLastError(), so launch failures surface here.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/dtype.h"

namespace collsim::cuda::detail {

cudaError_t launch_copy(void* dst, const void* src, std::size_t count, DataType dt,
                        cudaStream_t stream);
cudaError_t launch_reduce(void* dst, const void* src, std::size_t count, DataType dt,
                          ReduceOp op, cudaStream_t stream);
cudaError_t launch_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt,
                               ReduceOp op, cudaStream_t stream);
cudaError_t launch_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op,
                                 cudaStream_t stream);
cudaError_t launch_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor,
                          cudaStream_t stream);

}  // namespace collsim::cuda::detail
