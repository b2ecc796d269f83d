// Reduce functors shared by the host loops and the CUDA kernels, so that both backends
// compute bit-identical results. Plain C++ (no CUDA header); every function is COLLSIM_HD.
//
// Semantics, for every element type T in {float, double, f16, bf16, int32_t, int64_t}:
// - Integers: sum and prod wrap modulo 2^N (two's complement), computed in the unsigned
//   type so there is no undefined behaviour; the conversion back is defined since C++20.
// - f16/bf16: widen to float, apply the operation, round once to the 16-bit type (RNE).
//   Because float has at least 2p+2 significand bits for both formats, this double
//   rounding is innocuous: + - * / give the correctly rounded 16-bit result (except,
//   rarely, for bf16 results in the subnormal range, which float shares with bf16).
// - float/double: the plain IEEE operation (round to nearest even).
// - Arithmetic (sum, prod, and divide_by) whose result is NaN returns the positive
//   canonical quiet NaN (float 0x7fc00000, double 0x7ff8000000000000, f16 0x7e00,
//   bf16 0x7fc0): hardware disagrees on which NaN it produces, and the backends must not.
// - Min/Max never round and are commutative and associative bit for bit, so a reduction's
//   result does not depend on the order in which ranks are combined: -0 orders below +0
//   (min(+0,-0) = -0, max(+0,-0) = +0), and NaN propagates: if any operand is NaN the
//   result is NaN; a single NaN is returned unchanged, several are merged by bitwise OR.
// - Avg reduces as Sum; divide_by() is the post-operation.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "kernels/dtype.h"
#include "kernels/half.h"

namespace collsim {

template <class T>
inline constexpr bool is_element_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, f16> ||
    std::is_same_v<T, bf16> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

template <class T>
inline constexpr bool is_wrapping_int_v =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

namespace detail {

template <class H>
COLLSIM_HD constexpr H half_from_float(float x) {
  if constexpr (std::is_same_v<H, f16>)
    return f16_from_float(x);
  else
    return bf16_from_float(x);
}

// Which NaN an arithmetic operation returns differs between machines (x86 returns an
// operand's payload, and which operand depends on the compiler's register choice; CUDA
// returns 0x7fffffff), so arithmetic results that are NaN are replaced by the positive
// canonical quiet NaN. One compare and select; it does not prevent vectorisation.
COLLSIM_HD constexpr float canonical(float r) {
  return r != r ? float_from_bits(0x7fc00000u) : r;
}
COLLSIM_HD constexpr double canonical(double r) {
  return r != r ? bit_cast<double>(std::uint64_t{0x7ff8000000000000u}) : r;
}

// Apply a float operation to two 16-bit operands, rounding once.
template <class H, class F>
COLLSIM_HD constexpr H half_op(H a, H b, F f) {
  return half_from_float<H>(canonical(f(to_float(a), to_float(b))));
}

template <class I>
using unsigned_of = std::make_unsigned_t<I>;

template <class T>
struct BitsOf;
template <> struct BitsOf<float> { using type = std::uint32_t; };
template <> struct BitsOf<double> { using type = std::uint64_t; };
template <> struct BitsOf<f16> { using type = std::uint16_t; };
template <> struct BitsOf<bf16> { using type = std::uint16_t; };

// Bitwise OR / AND of two floating values' encodings.
template <class T>
COLLSIM_HD constexpr T bits_or(T a, T b) {
  using U = typename BitsOf<T>::type;
  return bit_cast<T>(static_cast<U>(bit_cast<U>(a) | bit_cast<U>(b)));
}
template <class T>
COLLSIM_HD constexpr T bits_and(T a, T b) {
  using U = typename BitsOf<T>::type;
  return bit_cast<T>(static_cast<U>(bit_cast<U>(a) & bit_cast<U>(b)));
}

// Ordering key: the value itself for float/double, the widened value for 16-bit types.
template <class T>
COLLSIM_HD constexpr auto order_key(T x) {
  if constexpr (is_half_v<T>)
    return to_float(x);
  else
    return x;
}

// Floating min/max with the rules documented at the top. When neither operand orders
// below the other they are equal or at least one is NaN. Equal values have equal
// encodings except +-0, where OR picks -0 (min) and AND picks +0 (max). A single NaN is
// returned as is; two NaNs are ORed (still a NaN: all-ones exponent, non-zero mantissa),
// so the result of a reduction is the OR of all its NaN operands, in any order.
// Written as flat selects and bit operations so that GCC if-converts and vectorises the
// loops with plain SSE2 (deeper nesting defeats its if-conversion).
template <class T>
COLLSIM_HD constexpr T float_min(T a, T b) {
  const auto ka = order_key(a), kb = order_key(b);
  const bool a_nan = ka != ka, b_nan = kb != kb;
  const T tie = a_nan == b_nan ? bits_or(a, b) : a_nan ? a : b;
  return ka < kb ? a : kb < ka ? b : tie;
}
template <class T>
COLLSIM_HD constexpr T float_max(T a, T b) {
  const auto ka = order_key(a), kb = order_key(b);
  const bool a_nan = ka != ka, b_nan = kb != kb;
  const T both = a_nan ? bits_or(a, b) : bits_and(a, b);
  const T tie = a_nan == b_nan ? both : a_nan ? a : b;
  return ka > kb ? a : kb > ka ? b : tie;
}

}  // namespace detail

template <class T>
struct Sum {
  static_assert(is_element_type_v<T>, "unsupported element type");
  COLLSIM_HD constexpr T operator()(T a, T b) const {
    if constexpr (is_half_v<T>)
      return detail::half_op(a, b, [](float x, float y) { return x + y; });
    else if constexpr (is_wrapping_int_v<T>)
      return static_cast<T>(static_cast<detail::unsigned_of<T>>(a) +
                            static_cast<detail::unsigned_of<T>>(b));
    else
      return detail::canonical(a + b);
  }
};

template <class T>
struct Prod {
  static_assert(is_element_type_v<T>, "unsupported element type");
  COLLSIM_HD constexpr T operator()(T a, T b) const {
    if constexpr (is_half_v<T>)
      return detail::half_op(a, b, [](float x, float y) { return x * y; });
    else if constexpr (is_wrapping_int_v<T>)
      return static_cast<T>(static_cast<detail::unsigned_of<T>>(a) *
                            static_cast<detail::unsigned_of<T>>(b));
    else
      return detail::canonical(a * b);
  }
};

template <class T>
struct Min {
  static_assert(is_element_type_v<T>, "unsupported element type");
  COLLSIM_HD constexpr T operator()(T a, T b) const {
    if constexpr (is_wrapping_int_v<T>)
      return b < a ? b : a;
    else
      return detail::float_min(a, b);
  }
};

template <class T>
struct Max {
  static_assert(is_element_type_v<T>, "unsupported element type");
  COLLSIM_HD constexpr T operator()(T a, T b) const {
    if constexpr (is_wrapping_int_v<T>)
      return a < b ? b : a;
    else
      return detail::float_max(a, b);
  }
};

// The functor that combines two elements for a ReduceOp; avg accumulates as a sum.
template <class T, ReduceOp Op>
struct OpFunctor;
template <class T>
struct OpFunctor<T, ReduceOp::sum> { using type = Sum<T>; };
template <class T>
struct OpFunctor<T, ReduceOp::avg> { using type = Sum<T>; };
template <class T>
struct OpFunctor<T, ReduceOp::prod> { using type = Prod<T>; };
template <class T>
struct OpFunctor<T, ReduceOp::min> { using type = Min<T>; };
template <class T>
struct OpFunctor<T, ReduceOp::max> { using type = Max<T>; };
template <class T, ReduceOp Op>
using op_functor_t = typename OpFunctor<T, Op>::type;

// Special values per element type, written as bit patterns where needed so that no
// host-only std::numeric_limits call appears in device code.
template <class T>
struct ElementLimits;
template <>
struct ElementLimits<float> {
  COLLSIM_HD static constexpr float from_int(int v) { return static_cast<float>(v); }
  COLLSIM_HD static constexpr float top() { return detail::float_from_bits(0x7f800000u); }
  COLLSIM_HD static constexpr float bottom() { return detail::float_from_bits(0xff800000u); }
};
template <>
struct ElementLimits<double> {
  COLLSIM_HD static constexpr double from_int(int v) { return static_cast<double>(v); }
  COLLSIM_HD static constexpr double top() {
    return detail::bit_cast<double>(std::uint64_t{0x7ff0000000000000u});
  }
  COLLSIM_HD static constexpr double bottom() {
    return detail::bit_cast<double>(std::uint64_t{0xfff0000000000000u});
  }
};
template <>
struct ElementLimits<f16> {
  COLLSIM_HD static constexpr f16 from_int(int v) { return f16_from_float(static_cast<float>(v)); }
  COLLSIM_HD static constexpr f16 top() { return f16{0x7c00u}; }
  COLLSIM_HD static constexpr f16 bottom() { return f16{0xfc00u}; }
};
template <>
struct ElementLimits<bf16> {
  COLLSIM_HD static constexpr bf16 from_int(int v) { return bf16_from_float(static_cast<float>(v)); }
  COLLSIM_HD static constexpr bf16 top() { return bf16{0x7f80u}; }
  COLLSIM_HD static constexpr bf16 bottom() { return bf16{0xff80u}; }
};
template <>
struct ElementLimits<std::int32_t> {
  COLLSIM_HD static constexpr std::int32_t from_int(int v) { return v; }
  COLLSIM_HD static constexpr std::int32_t top() { return INT32_MAX; }
  COLLSIM_HD static constexpr std::int32_t bottom() { return INT32_MIN; }
};
template <>
struct ElementLimits<std::int64_t> {
  COLLSIM_HD static constexpr std::int64_t from_int(int v) { return v; }
  COLLSIM_HD static constexpr std::int64_t top() { return INT64_MAX; }
  COLLSIM_HD static constexpr std::int64_t bottom() { return INT64_MIN; }
};

// The neutral element of `op`: sum/avg 0, prod 1, min +inf (integers: the maximum),
// max -inf (integers: the minimum).
template <class T>
COLLSIM_HD constexpr T reduce_identity(ReduceOp op) {
  using L = ElementLimits<T>;
  switch (op) {
    case ReduceOp::prod: return L::from_int(1);
    case ReduceOp::min: return L::top();
    case ReduceOp::max: return L::bottom();
    case ReduceOp::sum:
    case ReduceOp::avg: break;
  }
  return L::from_int(0);
}

// Avg post-operation: x / n for n > 0. Integers truncate toward zero (C++ division; the
// int32 case divides in 64 bits, so no overflow is possible). 16-bit floats divide in
// float and round once; float/double divide by n converted to T (exact for n < 2^24).
template <class T>
COLLSIM_HD constexpr T divide_by(T x, std::int64_t n) {
  static_assert(is_element_type_v<T>, "unsupported element type");
  if constexpr (is_half_v<T>)
    return detail::half_from_float<T>(detail::canonical(to_float(x) / static_cast<float>(n)));
  else if constexpr (is_wrapping_int_v<T>)
    return static_cast<T>(static_cast<std::int64_t>(x) / n);
  else
    return detail::canonical(x / static_cast<T>(n));
}

// ---- DataType <-> C++ type mapping ----

template <DataType D>
struct ElemType;
template <> struct ElemType<DataType::f32> { using type = float; };
template <> struct ElemType<DataType::f64> { using type = double; };
template <> struct ElemType<DataType::f16> { using type = f16; };
template <> struct ElemType<DataType::bf16> { using type = bf16; };
template <> struct ElemType<DataType::i32> { using type = std::int32_t; };
template <> struct ElemType<DataType::i64> { using type = std::int64_t; };
template <DataType D>
using elem_t = typename ElemType<D>::type;

template <class T>
struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DataType value = DataType::f32; };
template <> struct DTypeOf<double> { static constexpr DataType value = DataType::f64; };
template <> struct DTypeOf<f16> { static constexpr DataType value = DataType::f16; };
template <> struct DTypeOf<bf16> { static constexpr DataType value = DataType::bf16; };
template <> struct DTypeOf<std::int32_t> { static constexpr DataType value = DataType::i32; };
template <> struct DTypeOf<std::int64_t> { static constexpr DataType value = DataType::i64; };
template <class T>
inline constexpr DataType dtype_of_v = DTypeOf<T>::value;

// Empty value standing for an element type: `[](auto tag) { using T = typename
// decltype(tag)::type; ... }`.
template <class T>
struct TypeTag {
  using type = T;
};

// Call f(TypeTag<T>{}) for the C++ type of `dt`, so a runtime dtype is switched on once
// and the work inside f is a fully typed template. Host only.
template <class F>
decltype(auto) dispatch_dtype(DataType dt, F&& f) {
  switch (dt) {
    case DataType::f32: return std::forward<F>(f)(TypeTag<float>{});
    case DataType::f64: return std::forward<F>(f)(TypeTag<double>{});
    case DataType::f16: return std::forward<F>(f)(TypeTag<f16>{});
    case DataType::bf16: return std::forward<F>(f)(TypeTag<bf16>{});
    case DataType::i32: return std::forward<F>(f)(TypeTag<std::int32_t>{});
    case DataType::i64: return std::forward<F>(f)(TypeTag<std::int64_t>{});
  }
  throw std::invalid_argument("dispatch_dtype: invalid DataType value");
}

template <ReduceOp Op>
using OpTag = std::integral_constant<ReduceOp, Op>;

// Call f(OpTag<op>{}) with the op as a compile-time constant
// (`op_functor_t<T, decltype(tag)::value>` gives the functor). Host only.
template <class F>
decltype(auto) dispatch_op(ReduceOp op, F&& f) {
  switch (op) {
    case ReduceOp::sum: return std::forward<F>(f)(OpTag<ReduceOp::sum>{});
    case ReduceOp::prod: return std::forward<F>(f)(OpTag<ReduceOp::prod>{});
    case ReduceOp::min: return std::forward<F>(f)(OpTag<ReduceOp::min>{});
    case ReduceOp::max: return std::forward<F>(f)(OpTag<ReduceOp::max>{});
    case ReduceOp::avg: return std::forward<F>(f)(OpTag<ReduceOp::avg>{});
  }
  throw std::invalid_argument("dispatch_op: invalid ReduceOp value");
}

}  // namespace collsim
