// A piecewise-constant map over the elements [0, size) of one buffer. The checker keeps
// contribution sets in it and the dependency analysis keeps last writers and readers:
// a buffer that a ring cuts into N chunks costs N pieces, not one entry per element.
#pragma once
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

namespace collsim {

template <class V>
class IntervalMap {
 public:
  IntervalMap() = default;
  explicit IntervalMap(std::uint64_t size, V initial = {}) : size_(size) {
    if (size > 0) pieces_.emplace(0, std::move(initial));
  }

  std::uint64_t size() const { return size_; }
  std::size_t piece_count() const { return pieces_.size(); }

  // Calls f(begin, end, V&) for each piece of [a, b), splitting pieces at a and b first.
  template <class F>
  void visit(std::uint64_t a, std::uint64_t b, F&& f) {
    if (a >= b) return;
    auto it = split(a);
    const auto last = split(b);
    for (; it != last; ++it) f(it->first, end_of(it), it->second);
  }

  // Read-only walk over the pieces that intersect [a, b), clipped to [a, b).
  template <class F>
  void visit(std::uint64_t a, std::uint64_t b, F&& f) const {
    if (a >= b || pieces_.empty()) return;
    auto it = std::prev(pieces_.upper_bound(a));
    for (; it != pieces_.end() && it->first < b; ++it)
      f(std::max(a, it->first), std::min(b, end_of(it)), it->second);
  }

 private:
  using Map = std::map<std::uint64_t, V>;

  template <class It>
  std::uint64_t end_of(It it) const {
    const auto next = std::next(it);
    return next == pieces_.end() ? size_ : next->first;
  }

  typename Map::iterator split(std::uint64_t pos) {
    if (pos >= size_) return pieces_.end();
    auto it = std::prev(pieces_.upper_bound(pos));
    if (it->first == pos) return it;
    return pieces_.emplace_hint(std::next(it), pos, it->second);
  }

  std::uint64_t size_ = 0;
  Map pieces_;
};

}  // namespace collsim
