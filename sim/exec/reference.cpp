#include "sim/exec/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/reduce_functors.h"

namespace collsim {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
double as_double(T x) {
  if constexpr (is_half_v<T>)
    return static_cast<double>(to_float(x));
  else
    return static_cast<double>(x);
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, f16>)
    return f16_from_float(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_from_float(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

template <class T>
T load(std::span<const std::byte> buf, std::uint64_t i) {
  T x;
  std::memcpy(&x, buf.data() + i * sizeof(T), sizeof(T));
  return x;
}

template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, float>) return 0x1p-24;
  if constexpr (std::is_same_v<T, double>) return 0x1p-53;
  if constexpr (std::is_same_v<T, f16>) return 0x1p-11;
  if constexpr (std::is_same_v<T, bf16>) return 0x1p-8;
  return 0;
}

// Where output element `i` of rank `rank` comes from: ranks [lo, hi) combined (in rank
// order) at input element `index`. nullopt: the element is not defined by the collective.
struct Source {
  int lo, hi;
  std::uint64_t index;
};

std::optional<Source> source_of(const Schedule& s, int rank, std::uint64_t i) {
  const CollectiveSpec& spec = s.spec;
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  switch (spec.collective) {
    case Collective::all_reduce:
    case Collective::reduce:
      return Source{0, n, i};
    case Collective::broadcast:
      return Source{spec.root, spec.root + 1, i};
    case Collective::all_gather:
    case Collective::gather: {
      const int q = static_cast<int>(i / k);
      return Source{q, q + 1, i % k};
    }
    case Collective::scatter:
      return Source{spec.root, spec.root + 1, static_cast<std::uint64_t>(rank) * k + i};
    case Collective::reduce_scatter:
      return Source{0, n, static_cast<std::uint64_t>(rank) * k + i};
    case Collective::all_to_all: {
      const int j = static_cast<int>(i / k);
      return Source{j, j + 1, static_cast<std::uint64_t>(rank) * k + i % k};
    }
    case Collective::send_recv: {  // only receivers hold an output (see output_elements)
      const int from = s.algorithm == "ring_shift" ? (rank + n - 1) % n : spec.root;
      return Source{from, from + 1, i};
    }
    case Collective::barrier:
      return std::nullopt;
  }
  return std::nullopt;
}

// The reference value of one output element and how far a correct result may be from it.
template <class T>
struct Expected {
  T value;            // exact types: compare bit for bit with this
  double real = 0;    // floating reductions: the value in double
  double tolerance = 0;
  bool exact = true;
};

template <class T, ReduceOp Op>
Expected<T> combine(const InputBytes& in, const Source& src, int n) {
  if constexpr (is_wrapping_int_v<T> || Op == ReduceOp::min || Op == ReduceOp::max) {
    const op_functor_t<T, Op> f{};
    T acc = load<T>(in[static_cast<std::size_t>(src.lo)], src.index);
    for (int q = src.lo + 1; q < src.hi; ++q) acc = f(acc, load<T>(in[static_cast<std::size_t>(q)], src.index));
    if constexpr (Op == ReduceOp::avg) acc = divide_by(acc, n);
    return {acc};
  } else {
    double acc = Op == ReduceOp::prod ? 1.0 : 0.0, magnitude = acc;
    for (int q = src.lo; q < src.hi; ++q) {
      const double x = as_double(load<T>(in[static_cast<std::size_t>(q)], src.index));
      acc = Op == ReduceOp::prod ? acc * x : acc + x;
      magnitude = Op == ReduceOp::prod ? magnitude * std::fabs(x) : magnitude + std::fabs(x);
    }
    if (Op == ReduceOp::avg) {
      acc /= n;
      magnitude /= n;
    }
    return {from_double<T>(acc), acc, (n + 1) * unit_roundoff<T>() * magnitude, false};
  }
}

std::string show(double v) { return fmt::format("{:.9g}", v); }

template <class T>
void check_element(T got, const Expected<T>& want, int rank, std::uint64_t i, Verification& v) {
  ++v.checked;
  bool good;
  if (want.exact) {
    good = std::memcmp(&got, &want.value, sizeof(T)) == 0;
  } else {
    const double err = std::fabs(as_double(got) - want.real);
    v.max_error = std::max(v.max_error, err);
    good = err <= want.tolerance;
  }
  if (good) return;
  if (v.mismatches++ == 0)
    v.first_mismatch = fmt::format("rank {} output[{}]: got {}, expected {}{}", rank, i, show(as_double(got)),
                                   show(want.exact ? as_double(want.value) : want.real),
                                   want.exact ? "" : fmt::format(" (tolerance {:.3g})", want.tolerance));
}

template <class T, ReduceOp Op>
void verify_typed(const Schedule& s, const std::vector<RankBuffers>& bufs, const InputBytes& in, int only_rank,
                  Verification& v) {
  const int n = s.spec.ranks;
  const bool reduces = collective_reduces(s.spec.collective);
  std::uint64_t longest = 0;
  std::vector<std::span<const std::byte>> out;
  for (int r = 0; r < n; ++r) {
    out.push_back(buffer_view(s, bufs, r, BufferKind::output));
    longest = std::max(longest, s.buffer_elements(r, BufferKind::output));
  }
  // Element-major, so that all-reduce computes each reference value once for all ranks.
  std::optional<Source> memo_source;
  Expected<T> want{};
  for (std::uint64_t i = 0; i < longest; ++i)
    for (int r = 0; r < n; ++r) {
      if (i >= s.buffer_elements(r, BufferKind::output) || (only_rank >= 0 && r != only_rank)) continue;
      const std::optional<Source> src = source_of(s, r, i);
      if (!src) continue;
      if (!memo_source || memo_source->lo != src->lo || memo_source->hi != src->hi || memo_source->index != src->index) {
        want = reduces ? combine<T, Op>(in, *src, n)
                       : Expected<T>{load<T>(in[static_cast<std::size_t>(src->lo)], src->index)};
        memo_source = src;
      }
      check_element(load<T>(out[static_cast<std::size_t>(r)], i), want, r, i, v);
    }
}

// Every rank's final token (its last scratch element) must be N: the max of the signals
// rank + 1, so rank N-1's signal reached it. The checker proves the full "heard from
// every rank"; this proves the engine really moved the tokens.
void verify_barrier(const Schedule& s, const std::vector<RankBuffers>& bufs, int only_rank, Verification& v) {
  v.rule = "exact: every token is N, the largest signal (the checker proved each heard from every rank)";
  const int n = s.spec.ranks;
  for (int r = 0; r < n; ++r) {
    if (only_rank >= 0 && r != only_rank) continue;
    const std::span<const std::byte> tokens = buffer_view(s, bufs, r, BufferKind::scratch);
    const std::uint64_t last = tokens.size() / sizeof(std::int32_t);
    if (last == 0) throw std::logic_error("barrier schedule without tokens");
    ++v.checked;
    const std::int32_t got = load<std::int32_t>(tokens, last - 1);
    if (got != n && v.mismatches++ == 0)
      v.first_mismatch = fmt::format("rank {} token scratch[{}]: got {}, expected {} (rank {}'s signal never arrived)",
                                     r, last - 1, got, n, n - 1);
  }
}

}  // namespace

double input_value(const CollectiveSpec& spec, std::uint64_t seed, int rank, std::uint64_t index,
                   std::span<const double> given) {
  if (!given.empty()) return given[std::min(static_cast<std::size_t>(std::max(rank, 0)), given.size() - 1)];
  const std::uint64_t h = splitmix64(splitmix64(seed ^ (static_cast<std::uint64_t>(rank) << 40)) + index);
  const bool prod = spec.op == ReduceOp::prod;
  if (is_integer(spec.dtype)) {
    if (prod) return (h & 1 ? 1.0 : -1.0) * (h & 2 ? 3.0 : 1.0);
    return static_cast<double>(static_cast<std::int64_t>(h % 2001) - 1000);
  }
  const double unit = static_cast<double>(static_cast<std::int64_t>(h % 2049) - 1024) / 1024.0;  // [-1, 1]
  return prod ? 1.0 + unit / 64.0 : unit;
}

double input_in_type(const CollectiveSpec& spec, std::uint64_t seed, int rank, std::uint64_t index,
                     std::span<const double> given) {
  return dispatch_dtype(spec.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return as_double(from_double<T>(input_value(spec, seed, rank, index, given)));
  });
}

void fill_inputs(const Schedule& s, std::uint64_t seed, std::vector<RankBuffers>& bufs, std::span<const double> given) {
  dispatch_dtype(s.spec.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int r = 0; r < s.spec.ranks; ++r) {
      const std::span<std::byte> in = buffer_view(s, bufs, r, BufferKind::input);
      const std::uint64_t n = in.size() / sizeof(T);
      for (std::uint64_t i = 0; i < n; ++i) {
        const T x = from_double<T>(input_value(s.spec, seed, r, i, given));
        std::memcpy(in.data() + i * sizeof(T), &x, sizeof(T));
      }
    }
  });
}

std::string given_inputs_problem(DataType t, std::span<const double> given) {
  if (given.size() > 1024) return fmt::format("at most 1024 values (one per rank), got {}", given.size());
  for (std::size_t i = 0; i < given.size(); ++i) {
    const double v = given[i];
    if (!std::isfinite(v)) return fmt::format("value {} is not a finite number", i + 1);
    if (!is_integer(t)) continue;
    // The largest doubles the type holds: i64's top, 2^63 - 1, is not a double.
    const double top = t == DataType::i32 ? 2147483647.0 : 9223372036854774784.0;
    const double bottom = t == DataType::i32 ? -2147483648.0 : -9223372036854775808.0;
    if (v != std::floor(v) || v < bottom || v > top)
      return fmt::format("value {} ({:.17g}) is no {} number: {} holds whole numbers from {} to {}", i + 1, v,
                         to_string(t), to_string(t), t == DataType::i32 ? "-2147483648" : "-9223372036854775808",
                         t == DataType::i32 ? "2147483647" : "9223372036854775807");
  }
  return "";
}

std::optional<double> exact_output_value(const Schedule& s, std::uint64_t seed, std::span<const double> given,
                                         int rank, std::uint64_t index) {
  if (s.spec.collective == Collective::barrier || index >= s.buffer_elements(rank, BufferKind::output)) return std::nullopt;
  const std::optional<Source> src = source_of(s, rank, index);
  if (!src) return std::nullopt;
  const ReduceOp op = s.spec.op;
  double acc = input_in_type(s.spec, seed, src->lo, src->index, given);
  for (int q = src->lo + 1; q < src->hi; ++q) {
    const double x = input_in_type(s.spec, seed, q, src->index, given);
    acc = op == ReduceOp::prod ? acc * x : op == ReduceOp::min ? std::min(acc, x) : op == ReduceOp::max ? std::max(acc, x) : acc + x;
  }
  if (op == ReduceOp::avg && collective_reduces(s.spec.collective)) acc /= s.spec.ranks;
  return acc;
}

InputBytes input_bytes(const Schedule& s, const std::vector<RankBuffers>& bufs) {
  InputBytes in;
  for (int r = 0; r < s.spec.ranks; ++r) in.push_back(buffer_view(s, bufs, r, BufferKind::input));
  return in;
}

Verification verify_outputs(const Schedule& s, const std::vector<RankBuffers>& bufs) {
  if (s.spec.in_place) throw std::logic_error("verify_outputs: in place, pass the inputs saved before the run");
  return verify_outputs(s, bufs, input_bytes(s, bufs));
}

Verification verify_outputs(const Schedule& s, const std::vector<RankBuffers>& bufs, const InputBytes& in, int only_rank) {
  Verification v;
  if (s.spec.collective == Collective::barrier) {
    verify_barrier(s, bufs, only_rank, v);
    v.ok = v.mismatches == 0;
    return v;
  }
  dispatch_dtype(s.spec.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_op(s.spec.op, [&](auto op) { verify_typed<T, decltype(op)::value>(s, bufs, in, only_rank, v); });
    const bool exact = is_integer(s.spec.dtype) || !collective_reduces(s.spec.collective) ||
                       s.spec.op == ReduceOp::min || s.spec.op == ReduceOp::max;
    v.rule = exact ? "exact" : fmt::format("|got - want| <= (N+1) * {:.3g} * magnitude", unit_roundoff<T>());
  });
  v.ok = v.mismatches == 0;
  return v;
}

}  // namespace collsim
