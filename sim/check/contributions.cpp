#include "sim/check/contributions.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace collsim {
namespace {

bool before(const Term& a, const Term& b) { return std::tie(a.delta, a.lo) < std::tie(b.delta, b.lo); }

// Sorted terms with equal delta and touching/overlapping rank ranges merged, in place;
// returns the new length.
std::size_t coalesce(Term* terms, std::size_t n) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (out > 0 && terms[out - 1].delta == terms[i].delta && terms[i].lo <= terms[out - 1].hi) {
      terms[out - 1].hi = std::max(terms[out - 1].hi, terms[i].hi);
    } else {
      terms[out++] = terms[i];
    }
  }
  return out;
}

}  // namespace

TermList::TermList(TermList&& other) noexcept : heap_(std::move(other.heap_)), size_(other.size_) {
  std::copy(other.inline_, other.inline_ + kInline, inline_);
  other.size_ = 0;
}

TermList& TermList::operator=(TermList&& other) noexcept {
  if (this == &other) return *this;
  heap_ = std::move(other.heap_);
  std::copy(other.inline_, other.inline_ + kInline, inline_);
  size_ = other.size_;
  other.size_ = 0;
  return *this;
}

void TermList::assign(const Term* terms, std::size_t n) {
  if (n <= kInline) {
    std::copy(terms, terms + n, inline_);  // before freeing: terms may live in heap_
    heap_.reset();
  } else {
    auto fresh = std::make_unique<Term[]>(n);
    std::copy(terms, terms + n, fresh.get());
    heap_ = std::move(fresh);
  }
  size_ = n;
}

Contributions Contributions::shifted(std::int64_t shift) const {
  Contributions c = *this;
  for (Term& t : c.terms_) t.delta += shift;
  return c;
}

std::optional<Term> Contributions::add(const Contributions& other) {
  // Merge into a stack buffer when it fits: this runs once per piece of every reduce.
  const std::size_t n = terms_.size() + other.terms_.size();
  Term local[16];
  std::unique_ptr<Term[]> large = n > 16 ? std::make_unique<Term[]>(n) : nullptr;
  Term* merged = large ? large.get() : local;
  std::merge(terms_.begin(), terms_.end(), other.terms_.begin(), other.terms_.end(), merged, before);
  std::optional<Term> overlap;
  for (std::size_t i = 1; i < n && !overlap; ++i) {
    const Term& a = merged[i - 1];
    const Term& b = merged[i];
    if (a.delta == b.delta && b.lo < a.hi) overlap = Term{b.delta, b.lo, std::min(a.hi, b.hi)};
  }
  terms_.assign(merged, coalesce(merged, n));
  return overlap;
}

std::optional<Term> first_difference(const Contributions& have, const Contributions& want, bool* missing) {
  // Walk both sorted, coalesced lists; report a rank range covered by one and not the other.
  auto covered = [](const TermList& terms, std::int64_t delta, int rank) {
    for (const Term& t : terms)
      if (t.delta == delta && t.lo <= rank && rank < t.hi) return true;
    return false;
  };
  for (const Term& w : want.terms_)
    for (int q = w.lo; q < w.hi; ++q)
      if (!covered(have.terms_, w.delta, q)) {
        *missing = true;
        return Term{w.delta, q, q + 1};
      }
  for (const Term& h : have.terms_)
    for (int q = h.lo; q < h.hi; ++q)
      if (!covered(want.terms_, h.delta, q)) {
        *missing = false;
        return Term{h.delta, q, q + 1};
      }
  return std::nullopt;
}

std::string describe_term(const Term& t, std::uint64_t begin, std::uint64_t end) {
  const std::int64_t a = static_cast<std::int64_t>(begin) + t.delta;
  const std::int64_t b = static_cast<std::int64_t>(end) + t.delta;
  const std::string ranks = t.hi - t.lo == 1 ? fmt::format("rank {}'s", t.lo) : fmt::format("ranks {}..{}'", t.lo, t.hi - 1);
  return fmt::format("{} input[{},{})", ranks, a, b);
}

std::string Contributions::describe(std::uint64_t begin, std::uint64_t end) const {
  if (terms_.empty()) return "nothing";
  std::string text;
  for (const Term& t : terms_) text += (text.empty() ? "" : " + ") + describe_term(t, begin, end);
  return text;
}

}  // namespace collsim
