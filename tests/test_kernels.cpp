// Host tests for kernels/: 16-bit float conversions, the reduce functors, identities,
// divide_by, dtype mapping and dispatch, the host loops, and the CUDA API's behaviour on a
// machine without a device.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cuda_api.h"
#include "kernels/device_loops.h"
#include "kernels/dtype.h"
#include "kernels/half.h"
#include "kernels/host_loops.h"
#include "kernels/nccl_api.h"
#include "kernels/reduce_functors.h"

using namespace collsim;

namespace {

float f_bits(std::uint32_t u) { return detail::float_from_bits(u); }
std::uint32_t bits_f(float f) { return detail::float_bits(f); }
float pow2f(int e) { return std::ldexp(1.0f, e); }
std::uint16_t h(float x) { return f16_from_float(x).bits; }
std::uint16_t b(float x) { return bf16_from_float(x).bits; }
bool f16_is_nan(std::uint16_t u) { return (u & 0x7c00u) == 0x7c00u && (u & 0x3ffu) != 0; }
bool bf16_is_nan(std::uint16_t u) { return (u & 0x7f80u) == 0x7f80u && (u & 0x7fu) != 0; }

// Independent reference for float -> bf16: pick the nearer of the two neighbouring bf16
// values by exact distance in double (ties to the even one); above the largest finite
// value the upper neighbour stands for 2^128, so overflow rounds to inf as IEEE says.
std::uint16_t bf16_reference(float x) {
  const std::uint32_t u = bits_f(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t lo = (u & 0x7fffffffu) >> 16;
  const double ax = std::fabs(static_cast<double>(x));
  const double lo_val = std::fabs(static_cast<double>(f_bits(lo << 16)));
  const double hi_val = lo == 0x7f7fu ? std::ldexp(1.0, 128)
                                      : std::fabs(static_cast<double>(f_bits((lo + 1) << 16)));
  const double below = ax - lo_val, above = hi_val - ax;
  const bool up = above < below || (above == below && (lo & 1u));
  return static_cast<std::uint16_t>(sign | (up ? lo + 1 : lo));
}

// Values whose encodings exercise every rule of the min/max functors.
template <class T>
std::vector<T> special_values();
template <>
std::vector<float> special_values<float>() {
  return {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, pow2f(-149), -pow2f(-149),
          std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(), f_bits(0x7fc00000u), f_bits(0xffc00001u),
          f_bits(0x7f800001u)};
}
template <>
std::vector<double> special_values<double>() {
  return {0.0, -0.0, 1.0, -1.0, 2.5, std::ldexp(1.0, -1074),
          std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
          detail::bit_cast<double>(std::uint64_t{0x7ff0000000000001u})};
}
template <>
std::vector<f16> special_values<f16>() {
  return {f16{0x0000}, f16{0x8000}, f16{0x3c00}, f16{0xbc00}, f16{0x0001}, f16{0x8001},
          f16{0x7bff}, f16{0x7c00}, f16{0xfc00}, f16{0x7e00}, f16{0xfe01}, f16{0x7c01}};
}
template <>
std::vector<bf16> special_values<bf16>() {
  return {bf16{0x0000}, bf16{0x8000}, bf16{0x3f80}, bf16{0xbf80}, bf16{0x0001}, bf16{0x8001},
          bf16{0x7f7f}, bf16{0x7f80}, bf16{0xff80}, bf16{0x7fc0}, bf16{0xffc1}, bf16{0x7f81}};
}

// The encoding of any element type, zero-extended, for bit-exact comparisons.
template <class T>
std::uint64_t bits_of(T x) {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}

template <class T>
bool is_nan_elem(T x) {
  if constexpr (is_wrapping_int_v<T>) {
    return false;
  } else {
    const auto k = detail::order_key(x);
    return k != k;
  }
}

}  // namespace

// ---------------------------------------------------------------- f16 / bf16 conversions

TEST_CASE("f16: exact values to float") {
  CHECK(to_float(f16{0x3c00}) == 1.0f);
  CHECK(to_float(f16{0xc000}) == -2.0f);
  CHECK(to_float(f16{0x7bff}) == 65504.0f);
  CHECK(to_float(f16{0x0400}) == pow2f(-14));
  CHECK(to_float(f16{0x0001}) == pow2f(-24));
  CHECK(to_float(f16{0x03ff}) == 1023.0f * pow2f(-24));
  CHECK(bits_f(to_float(f16{0x8000})) == 0x80000000u);
  CHECK(to_float(f16{0x7c00}) == std::numeric_limits<float>::infinity());
  CHECK(to_float(f16{0xfc00}) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(to_float(f16{0x7e00})));
  CHECK(std::isnan(to_float(f16{0x7c01})));
  CHECK(std::signbit(to_float(f16{0xfe00})));
}

TEST_CASE("f16: exact values from float, rounding to nearest even") {
  CHECK(h(1.0f) == 0x3c00);
  CHECK(h(-2.0f) == 0xc000);
  CHECK(h(0.1f) == 0x2e66);
  CHECK(h(0.0f) == 0x0000);
  CHECK(h(-0.0f) == 0x8000);
  CHECK(h(65504.0f) == 0x7bff);
  // Ties: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 -> even (1).
  CHECK(h(1.0f + pow2f(-11)) == 0x3c00);
  CHECK(h(1.0f + 3 * pow2f(-11)) == 0x3c02);
  CHECK(h(std::nextafter(1.0f + pow2f(-11), 2.0f)) == 0x3c01);
  // Overflow: 65520 is halfway between 65504 and 65536 -> even, which is inf.
  CHECK(h(std::nextafter(65520.0f, 0.0f)) == 0x7bff);
  CHECK(h(65520.0f) == 0x7c00);
  CHECK(h(-65520.0f) == 0xfc00);
  CHECK(h(1e6f) == 0x7c00);
  CHECK(h(std::numeric_limits<float>::max()) == 0x7c00);
  CHECK(h(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(h(-std::numeric_limits<float>::infinity()) == 0xfc00);
  // Subnormals and underflow.
  CHECK(h(pow2f(-24)) == 0x0001);
  CHECK(h(pow2f(-25)) == 0x0000);  // tie -> even (0)
  CHECK(h(-pow2f(-25)) == 0x8000);
  CHECK(h(std::nextafter(pow2f(-25), 1.0f)) == 0x0001);
  CHECK(h(3 * pow2f(-25)) == 0x0002);  // 1.5 units -> 2
  CHECK(h(5 * pow2f(-25)) == 0x0002);  // 2.5 units -> 2
  CHECK(h(7 * pow2f(-25)) == 0x0004);  // 3.5 units -> 4
  CHECK(h(pow2f(-14) - pow2f(-25)) == 0x0400);  // halfway 0x3ff..0x400 -> even (normal)
  CHECK(h(1e-10f) == 0x0000);
  CHECK(h(-1e-10f) == 0x8000);
  CHECK(h(pow2f(-149)) == 0x0000);  // float subnormal input
  // NaN stays NaN, keeps its sign and is quiet.
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffffffffu, 0x7fa00000u}) {
    const std::uint16_t r = h(f_bits(nan));
    CHECK(f16_is_nan(r));
    CHECK((r & 0x0200u) != 0);
    CHECK((r >> 15) == (nan >> 31));
  }
}

TEST_CASE("bf16: exact values and rounding") {
  CHECK(to_float(bf16{0x3f80}) == 1.0f);
  CHECK(to_float(bf16{0x7f7f}) == f_bits(0x7f7f0000u));
  CHECK(to_float(bf16{0x0001}) == f_bits(0x00010000u));  // subnormal
  CHECK(b(1.0f) == 0x3f80);
  CHECK(b(-0.0f) == 0x8000);
  CHECK(b(1.0f + pow2f(-8)) == 0x3f80);           // tie -> even
  CHECK(b(1.0f + 3 * pow2f(-8)) == 0x3f82);       // tie -> even (up)
  CHECK(b(std::nextafter(1.0f + pow2f(-8), 2.0f)) == 0x3f81);
  CHECK(b(std::numeric_limits<float>::max()) == 0x7f80);  // overflow -> inf
  CHECK(b(f_bits(0x7f7f7fffu)) == 0x7f7f);
  CHECK(b(f_bits(0x7f7f8000u)) == 0x7f80);  // tie at the top -> even, which is inf
  CHECK(b(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(b(-std::numeric_limits<float>::infinity()) == 0xff80);
  CHECK(b(f_bits(0x00018000u)) == 0x0002);  // subnormal tie -> even
  CHECK(b(f_bits(0x00008000u)) == 0x0000);
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    const std::uint16_t r = b(f_bits(nan));
    CHECK(bf16_is_nan(r));
    CHECK((r >> 15) == (nan >> 31));
  }
}

TEST_CASE("f16 and bf16: every bit pattern round-trips through float") {
  for (std::uint32_t u = 0; u <= 0xffffu; ++u) {
    const auto bits = static_cast<std::uint16_t>(u);
    const std::uint16_t fr = f16_from_float(to_float(f16{bits})).bits;
    const std::uint16_t br = bf16_from_float(to_float(bf16{bits})).bits;
    if (f16_is_nan(bits)) {
      REQUIRE(f16_is_nan(fr));
    } else {
      REQUIRE(fr == bits);
    }
    if (bf16_is_nan(bits)) {
      REQUIRE(bf16_is_nan(br));
    } else {
      REQUIRE(br == bits);
    }
  }
}

#if defined(__FLT16_MAX__)
// GCC's _Float16 (software conversions in libgcc) is an independent reference.
TEST_CASE("f16: agrees with _Float16 on all halves, midpoints and sampled floats") {
  auto ref = [](float x) {
    const _Float16 r = static_cast<_Float16>(x);
    std::uint16_t u;
    std::memcpy(&u, &r, 2);
    return u;
  };
  for (std::uint32_t u = 0; u < 0x7c00u; ++u) {  // finite positive halves
    const float lo = to_float(f16{static_cast<std::uint16_t>(u)});
    const float hi = to_float(f16{static_cast<std::uint16_t>(u + 1)});
    REQUIRE(static_cast<float>(static_cast<_Float16>(lo)) == lo);
    const float mid = u + 1 == 0x7c00u ? 65520.0f : (lo + hi) / 2;  // exact in float
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      REQUIRE(h(x) == ref(x));
      REQUIRE(h(-x) == ref(-x));
    }
  }
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 997) {  // ~4.3 M floats, all exponents
    const float x = f_bits(static_cast<std::uint32_t>(u));
    if (std::isnan(x)) continue;
    REQUIRE(h(x) == ref(x));
  }
}
#endif

TEST_CASE("bf16: agrees with an exact-distance reference on sampled floats") {
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 499) {
    const float x = f_bits(static_cast<std::uint32_t>(u));
    if (std::isnan(x)) continue;
    REQUIRE(b(x) == bf16_reference(x));
  }
  for (std::uint32_t hi = 0; hi < 0x7f80u; ++hi) {  // every tie and its neighbours
    const std::uint32_t tie = (hi << 16) | 0x8000u;
    for (std::uint32_t u : {tie - 1, tie, tie + 1}) REQUIRE(b(f_bits(u)) == bf16_reference(f_bits(u)));
  }
}

TEST_CASE("conversions are usable in constant expressions") {
  static_assert(f16_from_float(1.0f).bits == 0x3c00);
  static_assert(to_float(f16{0x3c00}) == 1.0f);
  static_assert(bf16_from_float(-2.0f).bits == 0xc000);
  static_assert(to_float(bf16{0x3f80}) == 1.0f);
  CHECK(true);
}

// ---------------------------------------------------------------- functors

TEST_CASE("integer sum and product wrap around (and are constexpr, hence free of UB)") {
  constexpr std::int32_t i32max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t i32min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t i64min = std::numeric_limits<std::int64_t>::min();
  static_assert(Sum<std::int32_t>{}(i32max, 1) == i32min);
  static_assert(Sum<std::int32_t>{}(i32min, -1) == i32max);
  static_assert(Sum<std::int64_t>{}(i64max, 1) == i64min);
  static_assert(Sum<std::int64_t>{}(i64min, i64min) == 0);
  static_assert(Prod<std::int32_t>{}(65536, 65536) == 0);
  static_assert(Prod<std::int32_t>{}(i32max, 2) == -2);
  static_assert(Prod<std::int32_t>{}(i32min, -1) == i32min);
  static_assert(Prod<std::int64_t>{}(i64min, -1) == i64min);
  static_assert(Prod<std::int64_t>{}(3037000500, 3037000500) == -9223372036709301616);
  CHECK(Sum<std::int32_t>{}(-5, 3) == -2);
  CHECK(Prod<std::int64_t>{}(-7, 6) == -42);
  CHECK(Min<std::int32_t>{}(i32min, i32max) == i32min);
  CHECK(Max<std::int32_t>{}(i32min, i32max) == i32max);
  CHECK(Min<std::int64_t>{}(-1, 1) == -1);
  CHECK(Max<std::int64_t>{}(i64min, -1) == -1);
}

TEST_CASE("float and double functors are the IEEE operations") {
  CHECK(Sum<float>{}(0.1f, 0.2f) == 0.1f + 0.2f);
  CHECK(Prod<float>{}(3.0f, -0.5f) == -1.5f);
  CHECK(Sum<double>{}(0.1, 0.2) == 0.1 + 0.2);
  CHECK(Prod<double>{}(1e300, 1e300) == std::numeric_limits<double>::infinity());
  CHECK(Min<float>{}(1.0f, 2.0f) == 1.0f);
  CHECK(Max<double>{}(-1.0, -2.0) == -1.0);
  CHECK(Min<float>{}(-std::numeric_limits<float>::infinity(), -1e30f) ==
        -std::numeric_limits<float>::infinity());
}

TEST_CASE("f16 and bf16 arithmetic rounds once from float") {
  const f16 one{0x3c00}, two_m11{0x1000}, one_p1{0x3c01};
  CHECK(Sum<f16>{}(one, one).bits == 0x4000);
  CHECK(Sum<f16>{}(one, two_m11).bits == 0x3c00);     // 1 + 2^-11: tie -> even
  CHECK(Sum<f16>{}(one_p1, two_m11).bits == 0x3c02);  // tie -> even (up)
  CHECK(Sum<f16>{}(f16{0x7bff}, f16{0x7bff}).bits == 0x7c00);  // overflow -> inf
  CHECK(Sum<f16>{}(f16{0x0001}, f16{0x8001}).bits == 0x0000);
  CHECK(Prod<f16>{}(f16{0x5c00}, f16{0x5c00}).bits == 0x7c00);  // 256 * 256 = 65536 -> inf
  CHECK(Prod<f16>{}(f16{0x0400}, f16{0x1400}).bits == 0x0001);  // 2^-14 * 2^-10 = 2^-24
  CHECK(Prod<f16>{}(f16{0x0400}, f16{0x1000}).bits == 0x0000);  // 2^-25: tie -> 0
  CHECK(Prod<f16>{}(f16{0xbc00}, f16{0x4200}).bits == 0xc200);  // -1 * 3
  CHECK(Sum<bf16>{}(bf16{0x3f80}, bf16{0x3b80}).bits == 0x3f80);  // 1 + 2^-8: tie -> even
  CHECK(Sum<bf16>{}(bf16{0x3f81}, bf16{0x3b80}).bits == 0x3f82);
  CHECK(Prod<bf16>{}(bf16{0x7f7f}, bf16{0x4000}).bits == 0x7f80);  // overflow -> inf
  // Every f16 pair sum equals the float sum rounded once (sampled).
  std::mt19937 rng(1);
  for (int i = 0; i < 100000; ++i) {
    const f16 x{static_cast<std::uint16_t>(rng())}, y{static_cast<std::uint16_t>(rng())};
    const std::uint16_t s = Sum<f16>{}(x, y).bits;
    const std::uint16_t p = Prod<f16>{}(x, y).bits;
    const float fs = to_float(x) + to_float(y), fp = to_float(x) * to_float(y);
    REQUIRE(s == (std::isnan(fs) ? 0x7e00 : h(fs)));
    REQUIRE(p == (std::isnan(fp) ? 0x7e00 : h(fp)));
  }
}

TEST_CASE_TEMPLATE("floating min/max: signed zeros, NaN, order independence", T, float, double,
                   f16, bf16) {
  const auto v = special_values<T>();
  const T zero = v[0], neg_zero = v[1];
  CHECK(bits_of(Min<T>{}(zero, neg_zero)) == bits_of(neg_zero));
  CHECK(bits_of(Min<T>{}(neg_zero, zero)) == bits_of(neg_zero));
  CHECK(bits_of(Max<T>{}(zero, neg_zero)) == bits_of(zero));
  CHECK(bits_of(Max<T>{}(neg_zero, zero)) == bits_of(zero));
  auto is_nan = [](T x) { return is_nan_elem(x); };
  for (T a : v) {
    for (T c : v) {
      const T mn = Min<T>{}(a, c), mx = Max<T>{}(a, c);
      // Commutative bit for bit.
      REQUIRE(bits_of(mn) == bits_of(Min<T>{}(c, a)));
      REQUIRE(bits_of(mx) == bits_of(Max<T>{}(c, a)));
      // NaN propagates; one NaN is returned unchanged.
      REQUIRE(is_nan(mn) == (is_nan(a) || is_nan(c)));
      REQUIRE(is_nan(mx) == (is_nan(a) || is_nan(c)));
      if (is_nan(a) && !is_nan(c)) REQUIRE(bits_of(mn) == bits_of(a));
      // The result is one of the operands unless both are NaN or both are zeros.
      if (!is_nan(a) && !is_nan(c)) {
        REQUIRE((bits_of(mn) == bits_of(a) || bits_of(mn) == bits_of(c)));
        REQUIRE(!(detail::order_key(c) < detail::order_key(mn)));
        REQUIRE(!(detail::order_key(mx) < detail::order_key(c)));
      }
      // Associative bit for bit.
      for (T e : v) {
        REQUIRE(bits_of(Min<T>{}(Min<T>{}(a, c), e)) == bits_of(Min<T>{}(a, Min<T>{}(c, e))));
        REQUIRE(bits_of(Max<T>{}(Max<T>{}(a, c), e)) == bits_of(Max<T>{}(a, Max<T>{}(c, e))));
      }
    }
  }
}

// ---------------------------------------------------------------- identities, divide_by

TEST_CASE("reduce_identity") {
  CHECK(reduce_identity<float>(ReduceOp::sum) == 0.0f);
  CHECK(!std::signbit(reduce_identity<float>(ReduceOp::avg)));
  CHECK(reduce_identity<double>(ReduceOp::prod) == 1.0);
  CHECK(reduce_identity<float>(ReduceOp::min) == std::numeric_limits<float>::infinity());
  CHECK(reduce_identity<double>(ReduceOp::max) == -std::numeric_limits<double>::infinity());
  CHECK(reduce_identity<f16>(ReduceOp::prod).bits == 0x3c00);
  CHECK(reduce_identity<f16>(ReduceOp::min).bits == 0x7c00);
  CHECK(reduce_identity<bf16>(ReduceOp::max).bits == 0xff80);
  CHECK(reduce_identity<bf16>(ReduceOp::sum).bits == 0x0000);
  CHECK(reduce_identity<std::int32_t>(ReduceOp::min) == std::numeric_limits<std::int32_t>::max());
  CHECK(reduce_identity<std::int64_t>(ReduceOp::max) == std::numeric_limits<std::int64_t>::min());
  CHECK(reduce_identity<std::int64_t>(ReduceOp::prod) == 1);
  static_assert(reduce_identity<std::int32_t>(ReduceOp::sum) == 0);
}

TEST_CASE_TEMPLATE("reduce_identity is neutral (sum: for all but -0, since -0 + +0 = +0)", T,
                   float, double, f16, bf16, std::int32_t, std::int64_t) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    T x;
    const std::uint64_t r = rng() >> (i % 64);  // small and large magnitudes
    std::memcpy(&x, &r, sizeof(T));
    if (is_nan_elem(x)) continue;  // NaN propagation is tested elsewhere
    for (ReduceOp op : kAllReduceOps) {
      const T id = reduce_identity<T>(op);
      const T r1 = dispatch_op(op, [&](auto tag) { return op_functor_t<T, decltype(tag)::value>{}(id, x); });
      const T r2 = dispatch_op(op, [&](auto tag) { return op_functor_t<T, decltype(tag)::value>{}(x, id); });
      const bool neg_zero = !is_wrapping_int_v<T> && bits_of(x) != 0 &&
                            detail::order_key(x) == detail::order_key(reduce_identity<T>(ReduceOp::sum));
      if (neg_zero && (op == ReduceOp::sum || op == ReduceOp::avg)) continue;
      REQUIRE(bits_of(r1) == bits_of(x));
      REQUIRE(bits_of(r2) == bits_of(x));
    }
  }
}

TEST_CASE("divide_by: integers truncate toward zero, floats round once") {
  static_assert(divide_by<std::int32_t>(7, 2) == 3);
  static_assert(divide_by<std::int32_t>(-7, 2) == -3);
  static_assert(divide_by<std::int32_t>(-1, 3) == 0);
  static_assert(divide_by<std::int32_t>(std::numeric_limits<std::int32_t>::min(), 1) ==
                std::numeric_limits<std::int32_t>::min());
  static_assert(divide_by<std::int64_t>(std::numeric_limits<std::int64_t>::min(), 3) ==
                -3074457345618258602);
  static_assert(divide_by<std::int64_t>(-9, 4) == -2);
  CHECK(divide_by(1.0f, 3) == 1.0f / 3.0f);
  CHECK(divide_by(-1.0, 3) == -1.0 / 3.0);
  CHECK(divide_by(f16{0x3c00}, 3).bits == 0x3555);  // 1/3 in f16
  CHECK(divide_by(bf16{0x3f80}, 3).bits == b(1.0f / 3.0f));
  CHECK(divide_by(f16{0x0001}, 2).bits == 0x0000);  // 2^-25: tie -> even
  CHECK(divide_by(f16{0x0003}, 2).bits == 0x0002);  // 1.5 units -> 2
  CHECK(divide_by(f16{0xfe01}, 4).bits == 0x7e00);  // canonical NaN
  CHECK(bits_f(divide_by(f_bits(0xffc00123u), 4)) == 0x7fc00000u);
}

TEST_CASE("arithmetic that yields NaN returns the canonical quiet NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan_payload = f_bits(0xffc01234u), snan = f_bits(0x7f800001u);
  CHECK(bits_f(Sum<float>{}(nan_payload, 1.0f)) == 0x7fc00000u);
  CHECK(bits_f(Sum<float>{}(1.0f, nan_payload)) == 0x7fc00000u);
  CHECK(bits_f(Sum<float>{}(nan_payload, snan)) == 0x7fc00000u);
  CHECK(bits_f(Sum<float>{}(inf, -inf)) == 0x7fc00000u);
  CHECK(bits_f(Prod<float>{}(inf, 0.0f)) == 0x7fc00000u);
  const double dinf = std::numeric_limits<double>::infinity();
  CHECK(bits_of(Sum<double>{}(dinf, -dinf)) == 0x7ff8000000000000u);
  CHECK(bits_of(Prod<double>{}(-std::numeric_limits<double>::quiet_NaN(), 2.0)) ==
        0x7ff8000000000000u);
  CHECK(Sum<f16>{}(f16{0x7c00}, f16{0xfc00}).bits == 0x7e00);
  CHECK(Prod<f16>{}(f16{0xfe3f}, f16{0x3c00}).bits == 0x7e00);
  CHECK(Sum<bf16>{}(bf16{0xffc1}, bf16{0x3f80}).bits == 0x7fc0);
  CHECK(Prod<bf16>{}(bf16{0x7f80}, bf16{0x0000}).bits == 0x7fc0);
  // Min/max do no arithmetic: a single NaN comes back unchanged.
  CHECK(bits_f(Min<float>{}(nan_payload, 1.0f)) == 0xffc01234u);
}

// ---------------------------------------------------------------- dtype mapping, dispatch

TEST_CASE("DataType <-> C++ type mapping and dispatch") {
  static_assert(std::is_same_v<elem_t<DataType::bf16>, bf16>);
  static_assert(dtype_of_v<std::int64_t> == DataType::i64);
  static_assert(sizeof(f16) == 2 && alignof(f16) == 2 && sizeof(bf16) == 2);
  for (DataType dt : kAllDataTypes) {
    const std::size_t size = dispatch_dtype(dt, [](auto tag) {
      using T = typename decltype(tag)::type;
      return sizeof(T);
    });
    CHECK(size == dtype_size(dt));
    const DataType back = dispatch_dtype(dt, [](auto tag) {
      return dtype_of_v<typename decltype(tag)::type>;
    });
    CHECK(back == dt);
  }
  for (ReduceOp op : kAllReduceOps) {
    CHECK(dispatch_op(op, [](auto tag) { return decltype(tag)::value; }) == op);
  }
  CHECK_THROWS_AS(dispatch_dtype(static_cast<DataType>(99), [](auto) { return 0; }),
                  std::invalid_argument);
  CHECK_THROWS_AS(dispatch_op(static_cast<ReduceOp>(99), [](auto) { return 0; }),
                  std::invalid_argument);
}

// ---------------------------------------------------------------- host loops

namespace {

// Random bytes are random encodings: every float class (NaN, inf, subnormal) and every
// integer, including the ones that overflow. Every third element gets a moderate value
// (random bits are mostly huge or tiny) so that sums and products do real rounding.
std::vector<unsigned char> random_bytes(std::size_t count, DataType dt, std::uint64_t seed) {
  const std::size_t esize = dtype_size(dt);
  std::vector<unsigned char> out(count * esize);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> moderate(-100.0f, 100.0f);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t r = rng();
    if (i % 3 == 0) {
      dispatch_dtype(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v{};
        if constexpr (is_half_v<T>) v = detail::half_from_float<T>(moderate(rng));
        else v = static_cast<T>(moderate(rng));
        std::memcpy(&r, &v, sizeof(T));
      });
    }
    std::memcpy(out.data() + i * esize, &r, esize);
  }
  return out;
}

// The reference: one element at a time through the functor, with memcpy accesses.
void reference_reduce(unsigned char* dst, const unsigned char* src, std::size_t count,
                      DataType dt, ReduceOp op) {
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_op(op, [&](auto op_tag) {
      const op_functor_t<T, decltype(op_tag)::value> f{};
      for (std::size_t i = 0; i < count; ++i) {
        T a, c;
        std::memcpy(&a, dst + i * sizeof(T), sizeof(T));
        std::memcpy(&c, src + i * sizeof(T), sizeof(T));
        a = f(a, c);
        std::memcpy(dst + i * sizeof(T), &a, sizeof(T));
      }
    });
  });
}

// memcmp that accepts the null data() of an empty vector.
bool same_bytes(const void* a, const void* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

constexpr std::size_t kGuard = 64;  // bytes around each region that must stay untouched
constexpr unsigned char kGuardByte = 0xa5;

// A region of `bytes` bytes starting `offset` bytes past a 64-byte boundary, with guards.
struct Region {
  std::vector<unsigned char> storage;
  std::size_t offset;
  Region(const std::vector<unsigned char>& data, std::size_t off)
      : storage(kGuard + off + data.size() + kGuard + 64, kGuardByte), offset(0) {
    const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    offset = (64 - base % 64) % 64 + kGuard + off;
    if (!data.empty()) std::memcpy(storage.data() + offset, data.data(), data.size());
  }
  unsigned char* data() { return storage.data() + offset; }
  bool guards_intact(std::size_t bytes) const {
    for (std::size_t i = 0; i < storage.size(); ++i) {
      if ((i < offset || i >= offset + bytes) && storage[i] != kGuardByte) return false;
    }
    return true;
  }
};

const std::size_t kSizes[] = {0, 1, 7, 65, 1000003};

// Byte offsets of (dst, src): whole elements (aligned to the element, not to 16 bytes) and,
// where the element is wider than a byte, odd offsets that misalign the element itself.
std::vector<std::pair<std::size_t, std::size_t>> offsets_for(DataType dt, std::size_t count) {
  const std::size_t e = dtype_size(dt);
  if (count > 100000) return {{0, 0}, {e, 3 * e}, {1, 3}};
  return {{0, 0}, {e, e}, {e, 0}, {0, 3 * e}, {5 * e, 2 * e}, {1, 0}, {3, 1}, {0, e + 1}};
}

}  // namespace

TEST_CASE("host_reduce matches the functors elementwise for every dtype, op, size, offset") {
  for (DataType dt : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (std::size_t count : kSizes) {
        const auto a = random_bytes(count, dt, 11 + count);
        const auto c = random_bytes(count, dt, 23 + count);
        auto expected = a;
        reference_reduce(expected.data(), c.data(), count, dt, op);
        for (const auto& offsets : offsets_for(dt, count)) {
          const std::size_t doff = offsets.first, soff = offsets.second;
          CAPTURE(static_cast<int>(dt));
          CAPTURE(static_cast<int>(op));
          CAPTURE(count);
          CAPTURE(doff);
          CAPTURE(soff);
          Region dst(a, doff), src(c, soff);
          host_reduce(count ? dst.data() : nullptr, count ? src.data() : nullptr, count, dt, op);
          REQUIRE(same_bytes(dst.data(), expected.data(), expected.size()));
          REQUIRE(dst.guards_intact(expected.size()));
          REQUIRE(same_bytes(src.data(), c.data(), c.size()));
        }
      }
    }
  }
}

TEST_CASE("host_reduce with dst == src computes op(x, x)") {
  for (DataType dt : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (std::size_t off : {std::size_t{0}, dtype_size(dt), std::size_t{1}}) {
        const auto a = random_bytes(1001, dt, 5);
        auto expected = a;
        reference_reduce(expected.data(), a.data(), 1001, dt, op);
        Region r(a, off);
        host_reduce(r.data(), r.data(), 1001, dt, op);
        REQUIRE(same_bytes(r.data(), expected.data(), a.size()));
      }
    }
  }
}

namespace {

// Expected results of fill and divide, element by element through the functors.
std::vector<unsigned char> expected_fill(std::size_t count, DataType dt, ReduceOp op) {
  std::vector<unsigned char> out(count * dtype_size(dt));
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T id = reduce_identity<T>(op);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(out.data() + i * sizeof(T), &id, sizeof(T));
  });
  return out;
}

std::vector<unsigned char> expected_divide(std::vector<unsigned char> data, DataType dt,
                                           std::int64_t divisor) {
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t at = 0; at < data.size(); at += sizeof(T)) {
      T v;
      std::memcpy(&v, data.data() + at, sizeof(T));
      v = divide_by(v, divisor);
      std::memcpy(data.data() + at, &v, sizeof(T));
    }
  });
  return data;
}

}  // namespace

TEST_CASE("host_copy, host_fill_identity and host_divide") {
  for (DataType dt : kAllDataTypes) {
    const std::size_t e = dtype_size(dt);
    for (std::size_t count : kSizes) {
      const auto a = random_bytes(count, dt, 99);
      for (std::size_t off : {std::size_t{0}, e, std::size_t{1}}) {
        CAPTURE(static_cast<int>(dt));
        CAPTURE(count);
        CAPTURE(off);
        const std::vector<unsigned char> zeros(a.size(), 0);
        Region dst(zeros, off);
        host_copy(count ? dst.data() : nullptr, count ? a.data() : nullptr, count, dt);
        REQUIRE(same_bytes(dst.data(), a.data(), a.size()));
        REQUIRE(dst.guards_intact(a.size()));

        for (ReduceOp op : kAllReduceOps) {
          CAPTURE(static_cast<int>(op));
          Region fill(a, off);
          host_fill_identity(count ? fill.data() : nullptr, count, dt, op);
          REQUIRE(same_bytes(fill.data(), expected_fill(count, dt, op).data(), a.size()));
          REQUIRE(fill.guards_intact(a.size()));
        }

        for (std::int64_t divisor : {1, 3, 8}) {
          CAPTURE(divisor);
          Region div(a, off);
          host_divide(count ? div.data() : nullptr, count, dt, divisor);
          REQUIRE(same_bytes(div.data(), expected_divide(a, dt, divisor).data(), a.size()));
          REQUIRE(div.guards_intact(a.size()));
        }
      }
    }
  }
  float x = 1.0f;
  CHECK_THROWS_AS(host_divide(&x, 1, DataType::f32, 0), std::invalid_argument);
  CHECK_THROWS_AS(host_divide(&x, 1, DataType::f32, -2), std::invalid_argument);
}

// ---------------------------------------------------------------- device loops on the host

TEST_CASE("split_range: the vector body is 16-byte aligned in both buffers") {
  for (std::uintptr_t d = 0; d < 64; d += 2) {
    for (std::uintptr_t s = 0; s < 64; s += 2) {
      for (std::size_t n : {0u, 1u, 5u, 8u, 9u, 100u}) {
        const device::Split sp = device::split_range<f16>(d, s, n);
        REQUIRE(sp.head + sp.nvec * device::kLanes<f16> <= n);
        REQUIRE(device::scalar_count<f16>(sp) == n - sp.nvec * 8);
        if ((d - s) % 16 != 0) {
          REQUIRE(sp.nvec == 0);
        } else if (sp.nvec > 0) {
          REQUIRE((d + 2 * sp.head) % 16 == 0);
          REQUIRE((s + 2 * sp.head) % 16 == 0);
          REQUIRE(n - sp.head - sp.nvec * 8 < 8);  // tail shorter than a vector
        }
      }
    }
  }
}

namespace {

// Runs one kernel body for every thread of an emulated grid of `threads` threads, in order
// (threads touch disjoint elements, so the order does not matter).
template <class Body>
void emulate_grid(std::size_t threads, Body body) {
  for (std::size_t t = 0; t < threads; ++t) body(t, threads);
}

}  // namespace

TEST_CASE("kernel bodies (device_loops.h) on the host match host_reduce / host_copy") {
  for (DataType dt : kAllDataTypes) {
    const std::size_t e = dtype_size(dt);
    for (std::size_t count : {0u, 1u, 7u, 65u, 1000u}) {
      const auto a = random_bytes(count, dt, 3 + count);
      const auto c = random_bytes(count, dt, 4 + count);
      // Element offsets from a 64-byte boundary: aligned, equally misaligned, different.
      for (const auto& misalign : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {3, 3},
                                   {1, 0}, {0, 3}, {2, 5}}) {
        const std::size_t dm = misalign.first, sm = misalign.second;
        for (std::size_t threads : {1u, 3u, 256u, 2048u}) {
          CAPTURE(static_cast<int>(dt));
          CAPTURE(count);
          CAPTURE(dm);
          CAPTURE(sm);
          CAPTURE(threads);
          Region src(c, sm * e);
          for (ReduceOp op : kAllReduceOps) {
            auto want = a;
            host_reduce(want.data(), c.data(), count, dt, op);
            Region dst(a, dm * e);
            dispatch_dtype(dt, [&](auto tag) {
              using T = typename decltype(tag)::type;
              auto* d = reinterpret_cast<T*>(dst.data());
              const auto* s = reinterpret_cast<const T*>(src.data());
              const device::Split sp = device::split_range<T>(
                  reinterpret_cast<std::uintptr_t>(d), reinterpret_cast<std::uintptr_t>(s), count);
              dispatch_op(op, [&](auto op_tag) {
                const op_functor_t<T, decltype(op_tag)::value> f{};
                emulate_grid(threads, [&](std::size_t t, std::size_t n) {
                  device::reduce_range(d, s, sp, f, t, n);
                });
              });
            });
            REQUIRE(same_bytes(dst.data(), want.data(), want.size()));
            REQUIRE(dst.guards_intact(want.size()));
          }
          const std::vector<unsigned char> zeros(a.size(), 0);
          Region copy(zeros, dm * e);
          dispatch_dtype(dt, [&](auto tag) {
            using T = typename decltype(tag)::type;
            auto* d = reinterpret_cast<T*>(copy.data());
            const auto* s = reinterpret_cast<const T*>(src.data());
            const device::Split sp = device::split_range<T>(
                reinterpret_cast<std::uintptr_t>(d), reinterpret_cast<std::uintptr_t>(s), count);
            emulate_grid(threads, [&](std::size_t t, std::size_t n) {
              device::copy_range(d, s, sp, t, n);
            });
          });
          REQUIRE(same_bytes(copy.data(), c.data(), c.size()));
          REQUIRE(copy.guards_intact(c.size()));
        }
      }
    }
  }
}

TEST_CASE("fill and divide kernel bodies on the host match the host loops") {
  for (DataType dt : kAllDataTypes) {
    const std::size_t count = 1001;
    const auto a = random_bytes(count, dt, 8);
    for (ReduceOp op : kAllReduceOps) {
      auto want = a, got = a;
      host_fill_identity(want.data(), count, dt, op);
      dispatch_dtype(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        emulate_grid(300, [&](std::size_t t, std::size_t n) {
          device::fill_range(reinterpret_cast<T*>(got.data()), count, reduce_identity<T>(op), t, n);
        });
      });
      REQUIRE(want == got);
    }
    auto want = a, got = a;
    host_divide(want.data(), count, dt, 7);
    dispatch_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      emulate_grid(300, [&](std::size_t t, std::size_t n) {
        device::divide_range(reinterpret_cast<T*>(got.data()), count, 7, t, n);
      });
    });
    REQUIRE(want == got);
  }
}

// ---------------------------------------------------------------- CUDA API without a device

TEST_CASE("cuda API: queries never throw, round trips fail loudly without a device") {
  const int n = cuda::device_count();
  CHECK(n >= 0);
  CHECK(cuda::device_name(-1).empty());
  CHECK(cuda::device_name(n).empty());
#if defined(COLLSIM_HAVE_CUDA)
  CHECK(cuda::built_with_cuda());
#else
  CHECK_FALSE(cuda::built_with_cuda());
  CHECK(n == 0);
#endif
  if (n > 0) return;  // the GPU test covers the device paths
  float a[4] = {1, 2, 3, 4}, c[4] = {1, 1, 1, 1};
  try {
    cuda::reduce_on_device(a, c, 4, DataType::f32, ReduceOp::sum);
    FAIL("reduce_on_device succeeded without a device");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    if (cuda::built_with_cuda()) {
      CHECK(msg.find("cudaMalloc") != std::string::npos);  // names the call ...
      CHECK(msg.find("cuda_api.cu:") != std::string::npos);  // ... and where it is
    } else {
      CHECK(msg.find("built without CUDA") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(cuda::copy_on_device(a, c, 4, DataType::f32), std::runtime_error);
  CHECK(a[0] == 1.0f);  // untouched
}

TEST_CASE("cuda API: a failure is a CudaError whose fields name the call and the runtime's code") {
  if (cuda::device_count() > 0) return;  // the GPU test covers the device paths
  float a[4] = {1, 2, 3, 4}, c[4] = {1, 1, 1, 1};
  try {
    cuda::reduce_on_device(a, c, 4, DataType::f32, ReduceOp::sum);
    FAIL("reduce_on_device succeeded without a device");
  } catch (const cuda::CudaError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(e.call) != std::string::npos);  // the sentence says the same call
    if (cuda::built_with_cuda()) {
      CHECK(e.call.starts_with("cudaMalloc"));
      CHECK(e.code != 0);  // cudaSuccess is 0
      CHECK(e.code_name.starts_with("cudaError"));
      CHECK(std::string(e.what()).find(e.code_name) != std::string::npos);
    } else {
      CHECK(e.call == "collsim::cuda::reduce_on_device");
      CHECK(e.code == 0);
      CHECK(e.code_name.empty());
    }
  }
}

TEST_CASE("nccl reference: without two GPUs, time_all_reduce throws an NcclError naming its call") {
  if (cuda::device_count() >= 2) return;  // the GPU test times NCCL for real
  try {
    nccl::time_all_reduce(2, 4, DataType::f32, ReduceOp::sum, 0, 1);
    FAIL("time_all_reduce succeeded without two GPUs");
  } catch (const nccl::NcclError& e) {
    INFO(e.what());
    CHECK_FALSE(e.call.empty());
    CHECK(std::string(e.what()).find(e.call) != std::string::npos);
    if (!nccl::available()) {
      CHECK(e.call == "collsim::nccl::time_all_reduce");
      CHECK(e.error.empty());
    }
  }
}

TEST_CASE("host_reduce_copy and its kernel body write op(a, b) to a third place, bit for bit host_reduce's") {
  for (DataType dt : kAllDataTypes) {
    const std::size_t e = dtype_size(dt);
    for (std::size_t count : {0u, 1u, 7u, 65u, 1000u}) {
      const auto a = random_bytes(count, dt, 31 + count);
      const auto b = random_bytes(count, dt, 37 + count);
      // Element offsets of (dst, a, b): all aligned alike, one misaligned, all different, bytes misaligned.
      for (const auto& offsets : {std::tuple<std::size_t, std::size_t, std::size_t>{0, 0, 0}, {1, 1, 1}, {0, 1, 0},
                                  {2, 0, 5}, {3, 3, 0}}) {
        const std::size_t dm = std::get<0>(offsets), am = std::get<1>(offsets), bm = std::get<2>(offsets);  // CAPTURE takes them (clang 14)
        for (ReduceOp op : kAllReduceOps) {
          CAPTURE(static_cast<int>(dt));
          CAPTURE(count);
          CAPTURE(dm);
          CAPTURE(am);
          CAPTURE(bm);
          CAPTURE(static_cast<int>(op));
          auto want = a;
          host_reduce(want.data(), b.data(), count, dt, op);  // the two-step form: copy a, then reduce b into it
          const std::vector<unsigned char> zeros(a.size(), 0);
          Region x(a, am * e), y(b, bm * e), host(zeros, dm * e), device_out(zeros, dm * e);
          host_reduce_copy(count ? host.data() : nullptr, count ? x.data() : nullptr, count ? y.data() : nullptr, count, dt, op);
          REQUIRE(same_bytes(host.data(), want.data(), want.size()));
          REQUIRE(host.guards_intact(want.size()));
          REQUIRE(same_bytes(x.data(), a.data(), a.size()));  // the operands are only read
          REQUIRE(same_bytes(y.data(), b.data(), b.size()));
          dispatch_dtype(dt, [&](auto tag) {
            using T = typename decltype(tag)::type;
            auto* d = reinterpret_cast<T*>(device_out.data());
            const auto* p = reinterpret_cast<const T*>(x.data());
            const auto* q = reinterpret_cast<const T*>(y.data());
            const device::Split sp = device::split_range3<T>(reinterpret_cast<std::uintptr_t>(d), reinterpret_cast<std::uintptr_t>(p),
                                                             reinterpret_cast<std::uintptr_t>(q), count);
            if (dm != am || dm != bm) REQUIRE(sp.nvec == 0);  // vectors only where all three are aligned alike
            dispatch_op(op, [&](auto op_tag) {
              const op_functor_t<T, decltype(op_tag)::value> f{};
              emulate_grid(257, [&](std::size_t t, std::size_t n) { device::reduce_copy_range(d, p, q, sp, f, t, n); });
            });
          });
          REQUIRE(same_bytes(device_out.data(), want.data(), want.size()));
          REQUIRE(device_out.guards_intact(want.size()));
        }
      }
    }
  }
  // dst == a: the reduce itself.
  const auto a = random_bytes(1001, DataType::f32, 1), b = random_bytes(1001, DataType::f32, 2);
  auto want = a, got = a;
  host_reduce(want.data(), b.data(), 1001, DataType::f32, ReduceOp::max);
  host_reduce_copy(got.data(), got.data(), b.data(), 1001, DataType::f32, ReduceOp::max);
  CHECK(same_bytes(got.data(), want.data(), want.size()));
}
