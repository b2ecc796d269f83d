// The fold-in that lets power-of-two algorithms (recursive doubling, recursive halving,
// Rabenseifner) run on any rank count, as MPICH does (Thakur, Rabenseifner & Gropp 2005).
//
// With N' = 2^floor(lg N) and rem = N - N', the first 2*rem ranks pair up as (0,1),
// (2,3), ...:
//   fold-in, 1 step:  each even rank of a pair sends its data to its odd partner (which
//                     reduces it, or stores it) and then sits the core out;
//   core:             the N' remaining ranks run the power-of-two algorithm as virtual
//                     ranks 0..N'-1 (odd rank r of a pair is r/2, rank r >= 2*rem is r - rem);
//   fold-out, 1 step: each odd rank sends the result back to its even partner.
// So a rank count that is not a power of two pays two extra steps, and the paired ranks
// one extra message each; a power of two skips both steps.
//
// Virtual ranks keep the rank order, and virtual rank v stands for the real ranks
// [first_rank(v), first_rank(v + 1)) — two of them for v < rem, one otherwise — so a
// group of consecutive virtual ranks always covers consecutive real ranks (and their
// consecutive blocks, for all-gather and reduce-scatter).
#pragma once
#include <bit>
#include <string>

#include <fmt/format.h>

#include "sim/core/types.h"

namespace collsim {

struct Fold {
  int ranks = 1;
  int pof2 = 1;  // N'
  int rem = 0;   // N - N'

  explicit Fold(int n) : ranks(n), pof2(largest_power_of_two(n)), rem(n - pof2) {}

  bool active() const { return rem > 0; }
  int rounds() const { return std::countr_zero(static_cast<unsigned>(pof2)); }  // lg N'
  bool sits_out(int r) const { return r < 2 * rem && r % 2 == 0; }
  int real_rank(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // The first real rank virtual rank v stands for; first_rank(N') == N.
  int first_rank(int v) const { return v < rem ? 2 * v : v + rem; }

  // "rank r xor 4", or for a folded count "its partner (virtual rank v xor 4)".
  std::string partner(int distance) const {
    return active() ? fmt::format("its partner (virtual rank v xor {})", distance) : fmt::format("rank r xor {}", distance);
  }

  // "(0,1), (2,3)", shortened to "(0,1), (2,3), ..., (8,9)" for many pairs.
  std::string pairs() const {
    std::string text;
    for (int p = 0; p < rem; ++p) {
      if (rem > 3 && p == 2) {
        text += ", ...";
        p = rem - 1;
      }
      text += fmt::format("{}({},{})", text.empty() ? "" : ", ", 2 * p, 2 * p + 1);
    }
    return text;
  }
  // `what` is said of the even rank of a pair: "reduces its vector into".
  std::string fold_in_label(const char* what) const {
    return fmt::format("fold-in: {} is not a power of two; in the pair{} {} the even rank {} the odd one and sits out, "
                       "so {} ranks go on",
                       ranks, rem == 1 ? "" : "s", pairs(), what, pof2);
  }
  // `what` is said of the odd rank of a pair: "sends the result to".
  std::string fold_out_label(const char* what) const {
    return fmt::format("fold-out: in the pair{} {} the odd rank {} the even one", rem == 1 ? "" : "s", pairs(), what);
  }
};

}  // namespace collsim
