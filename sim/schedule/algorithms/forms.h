// What the algorithm files' closed forms (AlgorithmInfo::closed_form) share: the notation
// of sim/model/cost_formulas.h as code, and the forms several algorithms have in common.
// Times in ns; α in ns, β, γ, δ in ns per byte (see sim/model/timing_model.h).
//
// How each form follows from the model's rules (docs/timing-model.md has the details):
// a step in which every rank sends one message costs α + m·β for m bytes (+ m·γ when it
// is reduced), because on a switch every rank has its own ports; messages into one rank
// or out of one rank queue on that port, one after the other; local work costs m·δ (a
// copy) or m·γ (a reduce) and uses no port.
#pragma once
#include <algorithm>
#include <bit>
#include <optional>

#include "sim/schedule/algorithm.h"

namespace collsim::forms {

using Time = std::optional<double>;

inline int floor_lg(int n) { return std::bit_width(static_cast<unsigned>(n)) - 1; }
inline int ceil_lg(int n) { return n <= 1 ? 0 : std::bit_width(static_cast<unsigned>(n - 1)); }
inline int pof2(int n) { return largest_power_of_two(n); }  // N'
inline bool is_pof2(int n) { return std::has_single_bit(static_cast<unsigned>(n)); }

// The fold-in's extra blocks along the critical path (fold.h): round k of the power-of-two
// core carries min(2^k, rem) more blocks (a folded pair's virtual rank holds two), k < lg N'.
inline double fold_extra_blocks(int n) {
  const int rem = n - pof2(n);
  double extra = 0;
  for (int d = 1; d < pof2(n); d *= 2) extra += std::min(d, rem);
  return extra;
}

// Shorthands: N and n as doubles.
inline double N(const CostShape& s) { return s.ranks; }
inline double n(const CostShape& s) { return s.bytes; }

// One message of m bytes, copied or reduced on arrival.
inline double copy(const CostParams& p, double m) { return p.alpha_ns + m * p.beta_ns_per_byte; }
inline double reduce(const CostParams& p, double m) {
  return p.alpha_ns + m * (p.beta_ns_per_byte + p.gamma_ns_per_byte);
}

// N-1 messages of n/N bytes through one port (or in N-1 permutation steps).
inline Time blocks_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * copy(p, n(s) / N(s)); }
inline Time blocks_reduced_one_by_one(const CostParams& p, const CostShape& s) {
  return (N(s) - 1) * reduce(p, n(s) / N(s));
}
// N-1 whole vectors through one port.
inline Time vectors_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * copy(p, n(s)); }
inline Time vectors_reduced_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * reduce(p, n(s)); }
// A binomial tree's ceil(lg N) rounds whose blocks add up to (N-1)/N of the data.
inline Time tree_blocks(const CostParams& p, const CostShape& s) {
  return ceil_lg(s.ranks) * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
}
// One message between two ranks (a local copy with one rank).
inline Time one_message(const CostParams& p, const CostShape& s) {
  return s.ranks == 1 ? n(s) * p.delta_ns_per_byte : copy(p, n(s));
}

}  // namespace collsim::forms
