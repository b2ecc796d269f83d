// A piecewise-constant map over the elements [0, size) of one buffer. The checker keeps
// contribution sets in it: a buffer that a ring cuts into N chunks costs N pieces, not one
// entry per element. (The dependency analysis keeps its pieces in one flat array instead:
// it never splits one, see dependencies.cpp.)
//
// Pieces live in two flat arrays sorted by start (not in a tree of nodes), and a map can
// be cut up front at positions known in advance — the region boundaries of a schedule,
// see region_cuts in dependencies.h. Then a visit of a chunk-aligned region is a binary
// search and a linear walk with no allocation, which keeps checking a 1024-rank ring
// (2 million transfers) within its time budget. A cut nobody foresaw (a copy of several
// pieces into one region) still works: it is an insertion into the arrays.
#pragma once
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace collsim {

template <class V>
class IntervalMap {
 public:
  IntervalMap() = default;
  // `cuts`: sorted positions in (0, size) at which the map starts out split.
  explicit IntervalMap(std::uint64_t size, V initial = {}, std::span<const std::uint64_t> cuts = {}) : size_(size) {
    if (size == 0) return;
    starts_.reserve(cuts.size() + 1);
    starts_.push_back(0);
    starts_.insert(starts_.end(), cuts.begin(), cuts.end());
    values_.assign(starts_.size(), std::move(initial));
  }

  std::uint64_t size() const { return size_; }
  std::size_t piece_count() const { return starts_.size(); }

  // Calls f(begin, end, V&) for each piece of [a, b), splitting pieces at a and b first.
  template <class F>
  void visit(std::uint64_t a, std::uint64_t b, F&& f) {
    if (a >= b) return;
    std::size_t i = split(a);
    // b lies after a: an insertion at b cannot move piece i. Most regions are one piece.
    const std::size_t last = i + 1 < starts_.size() && starts_[i + 1] == b ? i + 1 : split(b, i);
    for (; i < last; ++i) f(starts_[i], end_of(i), values_[i]);
  }

  // Read-only walk over the pieces that intersect [a, b), clipped to [a, b). Neighbouring
  // pieces with equal values are reported as one: the map's cuts are bookkeeping, and a
  // message should name the whole run that is wrong.
  template <class F>
  void visit(std::uint64_t a, std::uint64_t b, F&& f) const {
    if (a >= b || a >= size_) return;
    std::size_t i = index_of(a);
    const std::size_t n = starts_.size();
    while (i < n && starts_[i] < b) {
      std::size_t j = i + 1;
      if constexpr (std::equality_comparable<V>)
        while (j < n && starts_[j] < b && values_[j] == values_[i]) ++j;
      f(std::max(a, starts_[i]), std::min(b, end_of(j - 1)), values_[i]);
      i = j;
    }
  }

 private:
  std::uint64_t end_of(std::size_t i) const { return i + 1 < starts_.size() ? starts_[i + 1] : size_; }

  // The piece that holds element pos (pos < size_), searched from index `from` on.
  // Chunked schedules cut buffers evenly, so the first guess is where pos would sit if
  // the pieces were equal; the search gallops from there and is exact after one probe
  // for an even cut, instead of lg(pieces) cache misses of a plain binary search.
  // A map not cut evenly (blocks of different sizes, cuts nobody foresaw) has the
  // piece found last time (the finger) as the better guess, as consecutive visits of one
  // map touch neighbouring chunks.
  std::size_t index_of(std::uint64_t pos, std::size_t from = 0) const {
    const std::size_t n = starts_.size();
    std::size_t guess = static_cast<std::size_t>(static_cast<double>(pos) / static_cast<double>(size_) * static_cast<double>(n));
    guess = std::clamp(guess, from, n - 1);
    if (!holds(guess, pos) && finger_ >= from && finger_ < n) guess = finger_;
    finger_ = search_from(guess, pos, from);
    return finger_;
  }

  bool holds(std::size_t i, std::uint64_t pos) const {
    return starts_[i] <= pos && (i + 1 == starts_.size() || pos < starts_[i + 1]);
  }

  // Gallops from `guess` to the piece that holds pos.
  std::size_t search_from(std::size_t guess, std::uint64_t pos, std::size_t from) const {
    const std::size_t n = starts_.size();
    std::size_t lo = guess, hi = guess + 1;  // find lo <= answer < hi
    for (std::size_t step = 1; starts_[lo] > pos; step *= 2) {
      hi = lo;
      lo = lo > from + step ? lo - step : from;
    }
    for (std::size_t step = 1; hi < n && starts_[hi] <= pos; step *= 2) {
      lo = hi;
      hi = std::min(n, hi + step);
    }
    return static_cast<std::size_t>(std::upper_bound(starts_.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     starts_.begin() + static_cast<std::ptrdiff_t>(hi), pos) -
                                    starts_.begin()) -
           1;
  }

  // Makes pos the start of a piece; returns that piece's index (piece_count() for the end).
  std::size_t split(std::uint64_t pos, std::size_t from = 0) {
    if (pos >= size_) return starts_.size();
    const std::size_t i = index_of(pos, from);
    if (starts_[i] == pos) return i;
    starts_.insert(starts_.begin() + static_cast<std::ptrdiff_t>(i) + 1, pos);
    values_.insert(values_.begin() + static_cast<std::ptrdiff_t>(i) + 1, values_[i]);
    return i + 1;
  }

  std::uint64_t size_ = 0;
  mutable std::size_t finger_ = 0;     // the piece index_of found last
  std::vector<std::uint64_t> starts_;  // starts_[0] == 0 when size_ > 0
  std::vector<V> values_;              // values_[i] holds [starts_[i], starts_[i + 1])
};

}  // namespace collsim
