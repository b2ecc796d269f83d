// Element types and reduction operators shared by the host and the device code.
// Plain C++: included by sim/ and by .cu files alike.
#pragma once
#include <cstddef>
#include <cstdint>

// Functions usable from both host code and CUDA device code. For the host compiler
// this is plain `inline`, so sim/ never needs a CUDA header.
#if defined(__CUDACC__)
#define COLLSIM_HD __host__ __device__ inline
#else
#define COLLSIM_HD inline
#endif

namespace collsim {

enum class DataType : std::uint8_t { f32, f64, f16, bf16, i32, i64 };
enum class ReduceOp : std::uint8_t { sum, prod, min, max, avg };

inline constexpr DataType kAllDataTypes[] = {DataType::f32, DataType::f64, DataType::f16,
                                             DataType::bf16, DataType::i32, DataType::i64};
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min,
                                             ReduceOp::max, ReduceOp::avg};

COLLSIM_HD constexpr std::size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::f32: return 4;
    case DataType::f64: return 8;
    case DataType::f16: return 2;
    case DataType::bf16: return 2;
    case DataType::i32: return 4;
    case DataType::i64: return 8;
  }
  return 0;
}

COLLSIM_HD constexpr bool is_integer(DataType t) { return t == DataType::i32 || t == DataType::i64; }

}  // namespace collsim
