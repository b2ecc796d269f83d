#include "sim/check/buffer_history.h"

#include <algorithm>
#include <limits>

namespace collsim {
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

// Collects what the checker's observer reports, then cuts the cells and files the changes.
class BufferHistory::Recorder {
 public:
  explicit Recorder(const Schedule& s) : events_(rows_for(s)) {}
  SymbolicObserver observer() {
    return [this](std::size_t transfer, const Region& piece, const Contributions* c) {
      const int row = h_.row_of(piece.rank, piece.buffer);
      if (row < 0) return;
      events_[static_cast<std::size_t>(row)].push_back(
          {marker(transfer), piece.offset, piece.end(), c != nullptr, c ? *c : Contributions()});
    };
  }
  BufferHistory finish(const Schedule& s);

 private:
  // Lays out the rows in h_; returns how many there are.
  std::size_t rows_for(const Schedule& s) {
    h_.row_index_.assign(static_cast<std::size_t>(s.total_ranks) * 3, -1);
    for (int r = 0; r < s.total_ranks; ++r) {
      const std::vector<BufferKind> kinds = recorded_buffers(s, r);
      for (BufferKind b : kinds) {
        h_.row_index_[buffer_slot(r, b)] = static_cast<int>(h_.rows_.size());
        // An input never changes: a view may leave it out, unless it is all the rank has.
        const bool optional = b == BufferKind::input && kinds.size() > 1;
        h_.rows_.push_back({r, b, storage_elements(s, r, b), 0, 0, optional});
      }
    }
    return h_.rows_.size();
  }
  void cut_cells();
  void file_changes();

  BufferHistory h_;
  std::vector<std::vector<Event>> events_;  // per row, in the order reported
};

void BufferHistory::Recorder::cut_cells() {
  for (std::size_t row = 0; row < h_.rows_.size(); ++row) {
    const std::vector<std::uint64_t> cuts = cuts_of(events_[row], h_.rows_[row].elements);
    h_.rows_[row].first_cell = static_cast<std::uint32_t>(h_.cells_.size());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) h_.cells_.push_back({cuts[i], cuts[i + 1], 0, 0, 0});
    h_.rows_[row].cell_count = static_cast<std::uint32_t>(h_.cells_.size()) - h_.rows_[row].first_cell;
  }
}

// Two passes: count each cell's changes, then place them (compressed rows).
void BufferHistory::Recorder::file_changes() {
  for (std::size_t row = 0; row < h_.rows_.size(); ++row)
    for (const Event& e : events_[row]) {
      const auto [first, last] = h_.cells_in(static_cast<int>(row), e.begin, e.end);
      for (std::uint32_t c = first; c < last; ++c) ++h_.cells_[c].change_count;
    }
  std::uint32_t next = 0;
  for (BufferCell& c : h_.cells_) {
    c.first_change = next;
    next += c.change_count;
    c.change_count = 0;
  }
  h_.changes_.resize(next);
  for (std::size_t row = 0; row < h_.rows_.size(); ++row) {
    for (Event& e : events_[row]) {
      const auto [first, last] = h_.cells_in(static_cast<int>(row), e.begin, e.end);
      for (std::uint32_t c = first; c < last; ++c) {
        BufferCell& cell = h_.cells_[c];
        h_.changes_[cell.first_change + cell.change_count++] = {e.transfer, e.written, cell.begin == e.begin,
                                                                cell.end == e.end, e.contributions};
        if (e.written) cell.target = std::max(cell.target, ranks_of(e.contributions).count);
      }
    }
    std::vector<Event>().swap(events_[row]);  // free as we go: a large trace has millions
  }
}

BufferHistory BufferHistory::Recorder::finish(const Schedule& s) {
  cut_cells();
  file_changes();
  h_.transfer_count_ = s.transfers.size();
  h_.step_end_.assign(static_cast<std::size_t>(std::max(s.step_count(), 0)), 0);
  for (const Transfer& t : s.transfers)
    if (t.step >= 0 && t.step < s.step_count()) ++h_.step_end_[static_cast<std::size_t>(t.step)];
  for (std::size_t k = 1; k < h_.step_end_.size(); ++k) h_.step_end_[k] += h_.step_end_[k - 1];
  return std::move(h_);
}

BufferHistory BufferHistory::record(const Schedule& s, CheckReport* report) {
  Recorder recorder(s);
  CheckReport checked = check_schedule(s, recorder.observer());
  if (report) *report = std::move(checked);
  return recorder.finish(s);
}

BufferHistory BufferHistory::record_until_error(const Schedule& s, std::optional<CheckError>& error,
                                                CheckReport* report) {
  Recorder recorder(s);
  error.reset();
  try {
    CheckReport checked = check_schedule(s, recorder.observer());
    if (report) *report = std::move(checked);
  } catch (const CheckError& e) {
    error = e;  // the records up to the failure are what an explanation needs
  }
  return recorder.finish(s);
}

BufferHistory BufferHistory::window(std::span<const std::size_t> source, bool keep_final) const {
  BufferHistory w;
  w.rows_ = rows_;
  w.row_index_ = row_index_;
  w.cells_ = cells_;
  w.changes_.reserve(changes_.size());
  const std::size_t first = source.empty() ? 0 : source.front();
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    BufferCell& out = w.cells_[c];
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
  w.number_window_steps(*this, source);
  return w;
}

// A window's steps are numbered from its first (as PhaseRun::schedule's are).
void BufferHistory::number_window_steps(const BufferHistory& whole, std::span<const std::size_t> source) {
  transfer_count_ = source.size();
  step_end_.clear();
  if (source.empty()) return;
  const int first = whole.step_of(source.front());
  for (std::size_t i = 0; i < source.size(); ++i) {
    const auto k = static_cast<std::size_t>(whole.step_of(source[i]) - first);
    if (step_end_.size() <= k) step_end_.resize(k + 1, i);
    step_end_[k] = i + 1;
  }
}

int BufferHistory::step_of(std::size_t transfer) const {
  return static_cast<int>(std::upper_bound(step_end_.begin(), step_end_.end(), transfer) - step_end_.begin());
}

std::size_t BufferHistory::transfers_before_step(int k) const {
  if (k <= 0) return 0;
  return k > step_count() ? transfer_count_ : step_end_[static_cast<std::size_t>(k - 1)];
}

namespace {

// Whether a change counts once transfers [0, done) and, with_final, the post-operations ran.
bool happened(const CellChange& c, std::size_t done, bool with_final) {
  if (c.transfer == kInitialState) return true;
  if (c.transfer == kFinalState) return with_final;
  return c.transfer < done;
}

}  // namespace

const CellChange* BufferHistory::state(std::uint32_t cell, std::size_t done, bool with_final) const {
  const CellChange* last = nullptr;
  for (const CellChange& c : changes_of(cell))  // in execution order
    if (happened(c, done, with_final)) last = &c;
  return last;
}

const CellChange* BufferHistory::state_after_step(std::uint32_t cell, int k) const {
  return state(cell, transfers_before_step(k), k >= step_count());
}

std::optional<std::size_t> BufferHistory::last_writer(std::uint32_t cell, std::size_t done, bool with_final) const {
  const CellChange* c = state(cell, done, with_final);
  if (!c || c->transfer == kInitialState || c->transfer == kFinalState) return std::nullopt;
  return c->transfer;
}

// A boundary between two cells existed by then when some write made by then began or
// ended there (the checker's pieces only ever split).
std::vector<HistoryPiece> BufferHistory::pieces(const Region& r, std::size_t done, bool with_final) const {
  const int row = row_of(r.rank, r.buffer);
  if (row < 0) return {{r.offset, r.end(), nullptr}};
  const auto [first, last] = cells_in(row, r.offset, r.end());
  std::vector<HistoryPiece> out;
  bool cut = true;  // a boundary before cell c
  for (std::uint32_t c = first; c < last; ++c) {
    bool opens = false, closes = false;
    for (const CellChange& ch : changes_of(c))
      if (happened(ch, done, with_final)) opens |= ch.opens, closes |= ch.closes;
    const BufferCell& cell = cells_[c];
    const CellChange* now = state(c, done, with_final);
    if (cut || opens || out.empty())
      out.push_back({std::max(cell.begin, r.offset), std::min(cell.end, r.end()), now});
    else
      out.back().end = std::min(cell.end, r.end()), out.back().change = now;
    cut = closes;
  }
  return out;
}

std::uint64_t BufferHistory::ranks_ever(std::uint32_t cell) const {
  std::uint64_t mask = 0;
  for (const CellChange& c : changes_of(cell))
    if (c.written) mask |= ranks_of(c.contributions).mask;
  return mask;
}

int BufferHistory::row_of(int rank, BufferKind buffer) const {
  const std::size_t slot = buffer_slot(rank, buffer);
  return rank >= 0 && slot < row_index_.size() ? row_index_[slot] : -1;
}

std::pair<std::uint32_t, std::uint32_t> BufferHistory::cells_in(int row, std::uint64_t begin, std::uint64_t end) const {
  const BufferRow& r = rows_[static_cast<std::size_t>(row)];
  const auto first = cells_.begin() + r.first_cell, last = first + r.cell_count;
  const auto lo = std::upper_bound(first, last, begin, [](std::uint64_t v, const BufferCell& c) { return v < c.end; });
  const auto hi = std::lower_bound(lo, last, end, [](const BufferCell& c, std::uint64_t v) { return c.begin < v; });
  return {static_cast<std::uint32_t>(lo - cells_.begin()), static_cast<std::uint32_t>(hi - cells_.begin())};
}

std::vector<double> BufferHistory::change_keys(std::span<const double> transfer_end, double final_time) const {
  std::vector<double> keys(changes_.size());
  for (const BufferCell& cell : cells_) {
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
  const BufferCell& c = cells_[cell];
  const auto first = keys.begin() + c.first_change, last = first + c.change_count;
  const auto it = std::upper_bound(first, last, t);  // first change after t
  const std::size_t index = it == first ? c.first_change : static_cast<std::size_t>(it - keys.begin()) - 1;
  return changes_[index];
}

std::shared_ptr<const BufferHistory> history_or_record(std::shared_ptr<const BufferHistory> recorded,
                                                       const Schedule& s) {
  return recorded ? recorded : std::make_shared<const BufferHistory>(BufferHistory::record(s));
}

}  // namespace collsim
