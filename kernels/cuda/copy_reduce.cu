// Element kernels: copy, reduce, fill-identity and divide for every dtype and op. The loop
// bodies live in kernels/device_loops.h (shared with the host tests) and use the functors
// of reduce_functors.h, so results are bit-identical to the host loops.
#include "kernels/cuda/copy_reduce.cuh"
#include "kernels/device_loops.h"
#include "kernels/reduce_functors.h"

// Bit-identity with the host loops needs IEEE division and subnormals (CMake passes
// --ftz=false --prec-div=true; fast math would override both).
#if defined(__USE_FAST_MATH__)
#error "kernels/cuda/copy_reduce.cu must not be compiled with --use_fast_math"
#endif

namespace collsim::cuda::detail {
namespace {

using device::Split;

constexpr unsigned kThreads = 256;
constexpr std::size_t kMaxBlocks = 4096;  // grid-stride loops cover the rest

__device__ inline std::size_t thread_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::size_t thread_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

template <class T, class Op>
__global__ void reduce_kernel(T* dst, const T* src, Split sp, Op op) {
  device::reduce_range(dst, src, sp, op, thread_index(), thread_stride());
}

template <class T, class Op>
__global__ void reduce_copy_kernel(T* dst, const T* a, const T* b, Split sp, Op op) {
  device::reduce_copy_range(dst, a, b, sp, op, thread_index(), thread_stride());
}

template <class T>
__global__ void copy_kernel(T* dst, const T* src, Split sp) {
  device::copy_range(dst, src, sp, thread_index(), thread_stride());
}

template <class T>
__global__ void fill_kernel(T* dst, std::size_t n, T value) {
  device::fill_range(dst, n, value, thread_index(), thread_stride());
}

template <class T>
__global__ void divide_kernel(T* dst, std::size_t n, std::int64_t divisor) {
  device::divide_range(dst, n, divisor, thread_index(), thread_stride());
}

// Enough blocks for one item per thread, capped; at least one.
unsigned blocks_for(std::size_t items) {
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

// Items per thread pass: the vector count or the scalar count, whichever is larger.
template <class T>
unsigned blocks_for(const Split& sp) {
  const std::size_t scalars = device::scalar_count<T>(sp);
  return blocks_for(sp.nvec > scalars ? sp.nvec : scalars);
}

template <class T>
Split split_for(const void* dst, const void* src, std::size_t count) {
  return device::split_range<T>(reinterpret_cast<std::uintptr_t>(dst),
                                reinterpret_cast<std::uintptr_t>(src), count);
}

}  // namespace

cudaError_t launch_copy(void* dst, const void* src, std::size_t count, DataType dt,
                        cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Split sp = split_for<T>(dst, src, count);
    copy_kernel<T><<<blocks_for<T>(sp), kThreads, 0, stream>>>(
        static_cast<T*>(dst), static_cast<const T*>(src), sp);
  });
  return cudaGetLastError();
}

cudaError_t launch_reduce(void* dst, const void* src, std::size_t count, DataType dt,
                          ReduceOp op, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Split sp = split_for<T>(dst, src, count);
    dispatch_op(op, [&](auto op_tag) {
      using Op = op_functor_t<T, decltype(op_tag)::value>;
      reduce_kernel<T, Op><<<blocks_for<T>(sp), kThreads, 0, stream>>>(
          static_cast<T*>(dst), static_cast<const T*>(src), sp, Op{});
    });
  });
  return cudaGetLastError();
}

cudaError_t launch_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt,
                               ReduceOp op, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Split sp = device::split_range3<T>(reinterpret_cast<std::uintptr_t>(dst), reinterpret_cast<std::uintptr_t>(a),
                                             reinterpret_cast<std::uintptr_t>(b), count);
    dispatch_op(op, [&](auto op_tag) {
      using Op = op_functor_t<T, decltype(op_tag)::value>;
      reduce_copy_kernel<T, Op><<<blocks_for<T>(sp), kThreads, 0, stream>>>(
          static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), sp, Op{});
    });
  });
  return cudaGetLastError();
}

cudaError_t launch_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op,
                                 cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(dst), count,
                                                                reduce_identity<T>(op));
  });
  return cudaGetLastError();
}

cudaError_t launch_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor,
                          cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    divide_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(dst), count,
                                                                  divisor);
  });
  return cudaGetLastError();
}

}  // namespace collsim::cuda::detail
