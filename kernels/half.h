// 16-bit floating-point storage types (IEEE binary16 and bfloat16) with software
// conversions that behave identically on the host and in CUDA device code.
//
// Why software and not cuda_fp16.h / _Float16: sim/ must never see a CUDA header, and the
// CPU and CUDA backends must produce bit-identical results, so both use this one
// implementation. All conversions round to nearest, ties to even, keep ±0 and ±inf,
// overflow to ±inf, produce and consume subnormals (no flush to zero), and turn a NaN into a
// quiet NaN of the same sign (the payload's top bits are kept where they fit).
#pragma once
#include <cstdint>

#include "kernels/dtype.h"

namespace collsim {

struct f16 {
  std::uint16_t bits;
};
struct bf16 {
  std::uint16_t bits;
};

namespace detail {

// Type punning that is valid in constant expressions and in device code. g++ >= 11, clang
// and nvcc 13 (host and device passes) all have the builtin; the union is a fallback that
// GCC-compatible compilers document as supported.
#if defined(__has_builtin)
#if __has_builtin(__builtin_bit_cast)
#define COLLSIM_HAS_BUILTIN_BIT_CAST 1
#endif
#endif

template <class To, class From>
COLLSIM_HD constexpr To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
#if defined(COLLSIM_HAS_BUILTIN_BIT_CAST)
  return __builtin_bit_cast(To, from);
#else
  union {
    From f;
    To t;
  } u{from};
  return u.t;
#endif
}

COLLSIM_HD constexpr std::uint32_t float_bits(float f) { return bit_cast<std::uint32_t>(f); }
COLLSIM_HD constexpr float float_from_bits(std::uint32_t u) { return bit_cast<float>(u); }

// Shift `mant` right by `shift` (1..31) bits, rounding to nearest, ties to even.
COLLSIM_HD constexpr std::uint32_t shift_right_rne(std::uint32_t mant, std::uint32_t shift) {
  const std::uint32_t kept = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

// |x| (as float bits, exponent below binary16's normal range) to a binary16 subnormal or 0.
COLLSIM_HD constexpr std::uint32_t f16_subnormal_bits(std::uint32_t ax) {
  const std::uint32_t exp = ax >> 23;
  // value = mant * 2^(exp-150) = (mant >> (126-exp)) units of 2^-24; below 2^-25 it is 0.
  if (exp < 102) return 0;  // < 2^-25: rounds to zero
  const std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;  // exp>=102 is normal in float
  return shift_right_rne(mant, 126u - exp);  // may round up to 0x400, the smallest normal
}

}  // namespace detail

COLLSIM_HD constexpr f16 f16_from_float(float value) {
  const std::uint32_t x = detail::float_bits(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)  // NaN: quiet it, keep the payload's top 9 bits
    return f16{static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x1ffu))};
  if (ax >= 0x477ff000u)  // >= 65520 (halfway above 65504, ties to the even inf) or inf
    return f16{static_cast<std::uint16_t>(sign | 0x7c00u)};
  if (ax < 0x38800000u)  // below 2^-14: subnormal or zero
    return f16{static_cast<std::uint16_t>(sign | detail::f16_subnormal_bits(ax))};
  // Normal: rebias the exponent (127 -> 15), drop 13 mantissa bits; a carry out of the
  // mantissa correctly bumps the exponent.
  const std::uint32_t h = detail::shift_right_rne(ax, 13) - ((127u - 15u) << 10);
  return f16{static_cast<std::uint16_t>(sign | h)};
}

COLLSIM_HD constexpr float to_float(f16 h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exp = (h.bits >> 10) & 0x1fu;
  const std::uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0x1f) return detail::float_from_bits(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return detail::float_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24 is exact in float (and a float normal, so no FTZ issue).
  const float magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;
  return detail::float_from_bits(sign | detail::float_bits(magnitude));
}

COLLSIM_HD constexpr bf16 bf16_from_float(float value) {
  const std::uint32_t x = detail::float_bits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)  // NaN: truncating could give inf, so set quiet bit
    return bf16{static_cast<std::uint16_t>((x >> 16) | 0x0040u)};
  // bfloat16 is float's top half: add just under half an ulp plus the kept lsb so that the
  // truncation rounds to nearest even; a carry overflows to inf exactly when it should.
  const std::uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return bf16{static_cast<std::uint16_t>(rounded >> 16)};
}

COLLSIM_HD constexpr float to_float(bf16 b) {
  return detail::float_from_bits(static_cast<std::uint32_t>(b.bits) << 16);
}

}  // namespace collsim
