// Symbolic buffer contents for the checker. A contribution is (source rank, source
// element): element i of a piece holds rank q's input element i + delta for every term
// (delta, [lo, hi)) with lo <= q < hi. Terms are sorted and coalesced, so a fully reduced
// all-reduce chunk is one term however many ranks there are.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace collsim {

struct Term {
  std::int64_t delta = 0;
  int lo = 0;  // ranks [lo, hi)
  int hi = 0;
  friend bool operator==(const Term&, const Term&) = default;
};

// The terms of one contribution set. Almost every set the checker meets has one or two
// terms (a contiguous rank range, or one that wraps around a ring), so two live inline and
// only longer sets allocate: the checker copies a set for every piece of every transfer.
class TermList {
 public:
  TermList() = default;
  TermList(std::initializer_list<Term> terms) { assign(terms.begin(), terms.size()); }
  TermList(const TermList& other) { assign(other.data(), other.size()); }
  TermList& operator=(const TermList& other) {
    if (this != &other) assign(other.data(), other.size());
    return *this;
  }
  TermList(TermList&&) noexcept;
  TermList& operator=(TermList&&) noexcept;
  ~TermList() = default;

  void assign(const Term* terms, std::size_t n);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Term* data() const { return heap_ ? heap_.get() : inline_; }
  Term* data() { return heap_ ? heap_.get() : inline_; }
  const Term* begin() const { return data(); }
  const Term* end() const { return data() + size_; }
  Term* begin() { return data(); }
  Term* end() { return data() + size_; }
  friend bool operator==(const TermList& a, const TermList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr std::size_t kInline = 2;
  Term inline_[kInline];
  std::unique_ptr<Term[]> heap_;  // when more than kInline terms
  std::size_t size_ = 0;
};

class Contributions {
 public:
  Contributions() = default;
  static Contributions of_rank(int rank, std::int64_t delta = 0) { return Contributions({{delta, rank, rank + 1}}); }
  static Contributions of_ranks(int lo, int hi, std::int64_t delta = 0) {
    return lo < hi ? Contributions({{delta, lo, hi}}) : Contributions();
  }

  bool empty() const { return terms_.empty(); }
  std::span<const Term> terms() const { return {terms_.begin(), terms_.size()}; }

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
  explicit Contributions(TermList t) : terms_(std::move(t)) {}
  TermList terms_;
};

// "rank 2's input[10,20)" for one term over element range [begin, end) of a piece.
std::string describe_term(const Term& t, std::uint64_t begin, std::uint64_t end);

}  // namespace collsim
