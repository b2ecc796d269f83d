#include "app/gui/buffer_history.h"

#include <algorithm>
#include <limits>

namespace collsim::gui {
namespace {

// What the observer reported for one piece of a displayed buffer.
struct Event {
  std::uint32_t transfer;
  std::uint64_t begin, end;
  bool written;
  Contributions contributions;
};

std::size_t buffer_slot(int rank, BufferKind b) { return static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b); }

// A rank's rows: its input, output and scratch storage, those that exist.
std::vector<BufferKind> recorded_buffers(const Schedule& s, int rank) {
  std::vector<BufferKind> kinds;
  for (BufferKind b : kAllBufferKinds)
    if (storage_elements(s, rank, b) > 0) kinds.push_back(b);
  return kinds;
}

std::uint32_t marker(std::size_t transfer) {
  if (transfer == kBeforeTransfers) return kInitialState;
  if (transfer == kAfterTransfers) return kFinalState;
  return static_cast<std::uint32_t>(transfer);
}

// The cut positions of one buffer: every event boundary, plus 0 and the size.
std::vector<std::uint64_t> cuts_of(const std::vector<Event>& events, std::uint64_t size) {
  std::vector<std::uint64_t> cuts{0, size};
  for (const Event& e : events) {
    cuts.push_back(e.begin);
    cuts.push_back(e.end);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

}  // namespace

RankSet ranks_of(const Contributions& c) {
  // Terms are sorted by (delta, lo): collect the rank ranges and merge them across deltas.
  std::pair<int, int> local[16];
  std::vector<std::pair<int, int>> heap;
  const std::span<const Term> terms = c.terms();
  std::pair<int, int>* ranges = local;
  if (terms.size() > 16) {
    heap.resize(terms.size());
    ranges = heap.data();
  }
  for (std::size_t i = 0; i < terms.size(); ++i) ranges[i] = {terms[i].lo, terms[i].hi};
  std::sort(ranges, ranges + terms.size());
  RankSet set;
  int covered = std::numeric_limits<int>::min();
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const int lo = std::max(ranges[i].first, covered), hi = ranges[i].second;
    if (hi <= lo) continue;
    set.count += hi - lo;
    for (int q = lo; q < hi && q < 64; ++q) set.mask |= std::uint64_t{1} << q;
    covered = hi;
  }
  return set;
}

BufferHistory BufferHistory::record(const Schedule& s) {
  BufferHistory h;
  h.row_index_.assign(static_cast<std::size_t>(s.total_ranks) * 3, -1);
  for (int r = 0; r < s.total_ranks; ++r) {
    const std::vector<BufferKind> kinds = recorded_buffers(s, r);
    for (BufferKind b : kinds) {
      h.row_index_[buffer_slot(r, b)] = static_cast<int>(h.rows_.size());
      // An input never changes: a view may leave it out, unless it is all the rank has.
      const bool optional = b == BufferKind::input && kinds.size() > 1;
      h.rows_.push_back({r, b, storage_elements(s, r, b), 0, 0, optional});
    }
  }

  std::vector<std::vector<Event>> events(h.rows_.size());
  check_schedule(s, [&](std::size_t transfer, const Region& piece, const Contributions* c) {
    const int row = h.row_of(piece.rank, piece.buffer);
    if (row < 0) return;
    events[static_cast<std::size_t>(row)].push_back(
        {marker(transfer), piece.offset, piece.end(), c != nullptr, c ? *c : Contributions()});
  });

  for (std::size_t row = 0; row < h.rows_.size(); ++row) {
    const std::vector<std::uint64_t> cuts = cuts_of(events[row], h.rows_[row].elements);
    h.rows_[row].first_cell = static_cast<std::uint32_t>(h.cells_.size());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) h.cells_.push_back({cuts[i], cuts[i + 1], 0, 0, 0});
    h.rows_[row].cell_count = static_cast<std::uint32_t>(h.cells_.size()) - h.rows_[row].first_cell;
  }

  // Two passes: count each cell's changes, then place them (compressed rows).
  for (std::size_t row = 0; row < h.rows_.size(); ++row)
    for (const Event& e : events[row]) {
      const auto [first, last] = h.cells_in(static_cast<int>(row), e.begin, e.end);
      for (std::uint32_t c = first; c < last; ++c) ++h.cells_[c].change_count;
    }
  std::uint32_t next = 0;
  for (Cell& c : h.cells_) {
    c.first_change = next;
    next += c.change_count;
    c.change_count = 0;
  }
  h.changes_.resize(next);
  for (std::size_t row = 0; row < h.rows_.size(); ++row) {
    for (Event& e : events[row]) {
      const auto [first, last] = h.cells_in(static_cast<int>(row), e.begin, e.end);
      for (std::uint32_t c = first; c < last; ++c) {
        Cell& cell = h.cells_[c];
        h.changes_[cell.first_change + cell.change_count++] = {e.transfer, e.written, e.contributions};
        if (e.written) cell.target = std::max(cell.target, ranks_of(e.contributions).count);
      }
    }
    std::vector<Event>().swap(events[row]);  // free as we go: a large trace has millions
  }
  return h;
}

BufferHistory BufferHistory::window(std::span<const std::size_t> source, bool keep_final) const {
  BufferHistory w;
  w.rows_ = rows_;
  w.row_index_ = row_index_;
  w.cells_ = cells_;
  w.changes_.reserve(changes_.size());
  const std::size_t first = source.empty() ? 0 : source.front();
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    Cell& out = w.cells_[c];
    out.first_change = static_cast<std::uint32_t>(w.changes_.size());
    out.target = 0;
    CellChange initial;  // the last change before the window (the recorded initial state at least)
    std::vector<CellChange> inside;
    for (const CellChange& ch : changes_of(static_cast<std::uint32_t>(c))) {
      if (ch.transfer == kInitialState || (ch.transfer != kFinalState && ch.transfer < first)) {
        initial = ch;
        initial.transfer = kInitialState;
        continue;
      }
      if (ch.transfer == kFinalState) {
        if (keep_final) inside.push_back(ch);
        continue;
      }
      const auto it = std::lower_bound(source.begin(), source.end(), std::size_t{ch.transfer});
      if (it == source.end() || *it != ch.transfer) continue;  // after the window
      inside.push_back(ch);
      inside.back().transfer = static_cast<std::uint32_t>(it - source.begin());
    }
    inside.insert(inside.begin(), initial);
    for (const CellChange& ch : inside)
      if (ch.written) out.target = std::max(out.target, ranks_of(ch.contributions).count);
    w.changes_.insert(w.changes_.end(), inside.begin(), inside.end());
    out.change_count = static_cast<std::uint32_t>(inside.size());
  }
  return w;
}

int BufferHistory::row_of(int rank, BufferKind buffer) const {
  const std::size_t slot = buffer_slot(rank, buffer);
  return rank >= 0 && slot < row_index_.size() ? row_index_[slot] : -1;
}

std::pair<std::uint32_t, std::uint32_t> BufferHistory::cells_in(int row, std::uint64_t begin, std::uint64_t end) const {
  const BufferRow& r = rows_[static_cast<std::size_t>(row)];
  const auto first = cells_.begin() + r.first_cell, last = first + r.cell_count;
  const auto lo = std::upper_bound(first, last, begin, [](std::uint64_t v, const Cell& c) { return v < c.end; });
  const auto hi = std::lower_bound(lo, last, end, [](const Cell& c, std::uint64_t v) { return c.begin < v; });
  return {static_cast<std::uint32_t>(lo - cells_.begin()), static_cast<std::uint32_t>(hi - cells_.begin())};
}

std::vector<double> BufferHistory::change_keys(std::span<const double> transfer_end, double final_time) const {
  std::vector<double> keys(changes_.size());
  for (const Cell& cell : cells_) {
    double running = -std::numeric_limits<double>::infinity();
    for (std::uint32_t i = cell.first_change; i < cell.first_change + cell.change_count; ++i) {
      const std::uint32_t t = changes_[i].transfer;
      const double at = t == kInitialState ? -std::numeric_limits<double>::infinity()
                        : t == kFinalState ? final_time
                                           : transfer_end[t];
      running = std::max(running, at);
      keys[i] = running;
    }
  }
  return keys;
}

const CellChange& BufferHistory::change_at(std::uint32_t cell, std::span<const double> keys, double t) const {
  const Cell& c = cells_[cell];
  const auto first = keys.begin() + c.first_change, last = first + c.change_count;
  const auto it = std::upper_bound(first, last, t);  // first change after t
  const std::size_t index = it == first ? c.first_change : static_cast<std::size_t>(it - keys.begin()) - 1;
  return changes_[index];
}

}  // namespace collsim::gui
