// Host (CPU) element loops: the CPU backend's data movement and the reference that the
// CUDA kernels are tested against. Plain C++; the loops use the functors of
// reduce_functors.h, so host and device results are bit-identical.
//
// Preconditions shared by all functions: `count` elements of type `dt` at each pointer
// (pointers may be null when count == 0); dst and src either do not overlap or are equal.
// Pointers need not be aligned, not even to the element size (an element-misaligned
// pointer takes a slower, memcpy-based path).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/dtype.h"

namespace collsim {

// dst[i] = src[i] (a memcpy of count * dtype_size(dt) bytes).
void host_copy(void* dst, const void* src, std::size_t count, DataType dt);

// dst[i] = op(dst[i], src[i]); avg reduces as sum (see host_divide).
void host_reduce(void* dst, const void* src, std::size_t count, DataType dt, ReduceOp op);

// dst[i] = op(a[i], b[i]): NCCL's reduce-copy, the local operand a and the received b
// summed straight into dst. dst may be a (then it is host_reduce(dst, b)); b overlaps
// neither.
void host_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt, ReduceOp op);

// dst[i] = reduce_identity(op): the starting value of an accumulation.
void host_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op);

// dst[i] = divide_by(dst[i], divisor), the avg post-operation; divisor must be > 0
// (throws std::invalid_argument otherwise).
void host_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor);

}  // namespace collsim
