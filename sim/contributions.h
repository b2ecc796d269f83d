// Symbolic buffer contents for the checker. A contribution is (source rank, source
// element): element i of a piece holds rank q's input element i + delta for every term
// (delta, [lo, hi)) with lo <= q < hi. Terms are sorted and coalesced, so a fully reduced
// all-reduce chunk is one term however many ranks there are.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsim {

struct Term {
  std::int64_t delta = 0;
  int lo = 0;  // ranks [lo, hi)
  int hi = 0;
  friend bool operator==(const Term&, const Term&) = default;
};

class Contributions {
 public:
  Contributions() = default;
  static Contributions of_rank(int rank, std::int64_t delta = 0) { return Contributions({{delta, rank, rank + 1}}); }
  static Contributions of_ranks(int lo, int hi, std::int64_t delta = 0) {
    return lo < hi ? Contributions({{delta, lo, hi}}) : Contributions();
  }

  bool empty() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

  // The same data seen from a position `shift` elements lower (moved from offset s to d:
  // shift = s - d).
  Contributions shifted(std::int64_t shift) const;

  // Adds `other`. Returns the first contribution present in both, if any (the union is
  // still formed, so an idempotent barrier can ignore it).
  std::optional<Term> add(const Contributions& other);

  // A contribution in one set but not the other, for error messages.
  friend std::optional<Term> first_difference(const Contributions& have, const Contributions& want, bool* missing);
  friend bool operator==(const Contributions&, const Contributions&) = default;

  // "rank 0..3 input[+0]" style text for messages; element positions come from the caller.
  std::string describe(std::uint64_t begin, std::uint64_t end) const;

 private:
  explicit Contributions(std::vector<Term> t) : terms_(std::move(t)) {}
  std::vector<Term> terms_;
};

// "rank 2's input[10,20)" for one term over element range [begin, end) of a piece.
std::string describe_term(const Term& t, std::uint64_t begin, std::uint64_t end);

}  // namespace collsim
