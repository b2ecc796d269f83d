// Every buffer cut into cells, and each cell's history of contribution sets: the one record
// of what every buffer holds when, which every view reads (the app's buffers panel, the
// storyboard, lesson captions, the explanation of a wrong hand-written schedule) instead of
// replaying the checker itself (docs/design.md, "The buffer history").
//
// The cells are the finest partition of a buffer's elements that the schedule induces:
// every boundary of every piece the schedule checker ever wrote there (a ring's N chunks,
// Rabenseifner's halving blocks, a copy of several chunks at once). The history is
// recorded from the checker's own symbolic execution (check_schedule's observer), during
// the one check a run makes (prepare_run with record_history): one change per transfer
// that wrote the cell. The state at step k or time t is then the last change that
// happened by then — one binary search per cell, so scrubbing never replays the schedule
// from the start. These change lists are the per-step keyframes, stored per cell instead
// of per step, which keeps a million-transfer trace to one change per transfer instead of
// a snapshot of every cell per step.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/check/checker.h"
#include "sim/schedule/schedule.h"

namespace collsim {

// Change markers besides transfer indices.
inline constexpr std::uint32_t kInitialState = 0xFFFFFFFEu;  // after the pre-operations
inline constexpr std::uint32_t kFinalState = 0xFFFFFFFFu;    // written by a post-operation

struct CellChange {
  std::uint32_t transfer = kInitialState;
  bool written = false;  // false: nothing was ever written here (an empty cell)
  // Whether the piece the checker wrote began at this cell's begin / ended at its end: a
  // cell boundary that no write made before some moment did not exist yet then (pieces).
  bool opens = true, closes = true;
  Contributions contributions;
};

// One buffer of real storage (storage_of) of one rank, as drawn in the buffers panel:
// every rank's input, output and scratch that have storage, in rank order.
struct BufferRow {
  int rank = 0;
  BufferKind buffer = BufferKind::output;
  std::uint64_t elements = 0;
  std::uint32_t first_cell = 0, cell_count = 0;
  bool optional = false;  // an input next to the rank's other buffers: it never changes
};

struct BufferCell {
  std::uint64_t begin = 0, end = 0;  // elements
  std::uint32_t first_change = 0, change_count = 0;
  int target = 0;  // the most ranks it ever holds: what "complete" means for it ("4/4")
};

// The distinct ranks a contribution set holds: how many, and which of ranks 0..63.
struct RankSet {
  int count = 0;
  std::uint64_t mask = 0;  // bit q: rank q contributes (q < 64)
  bool has(int rank) const { return rank >= 0 && rank < 64 && (mask >> rank & 1) != 0; }
};
RankSet ranks_of(const Contributions& c);

// A stretch of a region as the checker held it at some moment (BufferHistory::pieces):
// elements [begin, end) of real storage and the change in effect there, null when nothing
// was recorded (a check that failed before its first write).
struct HistoryPiece {
  std::uint64_t begin = 0, end = 0;
  const CellChange* change = nullptr;
};

class BufferHistory {
 public:
  // Runs the schedule checker once, with an observer, and records what it sees; its report
  // goes to `report` when given (a run keeps the dependencies). Throws CheckError (from the
  // checker) when the schedule is broken.
  static BufferHistory record(const Schedule& s, CheckReport* report = nullptr);
  // The same, but a broken schedule's history is kept up to the failure and its error
  // stored in `error` instead of thrown: what explains a wrong hand-written schedule.
  static BufferHistory record_until_error(const Schedule& s, std::optional<CheckError>& error,
                                          CheckReport* report = nullptr);
  // The history of a window of the recorded schedule's transfers, for a lesson phase that
  // runs some of a collective's steps (a sub-schedule cannot be checked on its own: it
  // reads what earlier steps wrote). `source[i]` is the recorded index of the window's
  // transfer i (ascending). What transfers before the window wrote becomes the initial
  // state, changes after it are dropped, and the post-operations' only when `keep_final`
  // (the window ends at the last step). Cells keep their bounds; targets are the window's.
  BufferHistory window(std::span<const std::size_t> source, bool keep_final) const;

  std::span<const BufferRow> rows() const { return rows_; }
  std::span<const BufferCell> cells() const { return cells_; }
  std::span<const CellChange> changes() const { return changes_; }
  std::span<const CellChange> changes_of(std::uint32_t cell) const {
    const BufferCell& c = cells_[cell];
    return {changes_.data() + c.first_change, c.change_count};
  }
  // The row that shows (rank, buffer of real storage), or -1.
  int row_of(int rank, BufferKind buffer) const;
  // The cells [first, last) of `row` that overlap elements [begin, end).
  std::pair<std::uint32_t, std::uint32_t> cells_in(int row, std::uint64_t begin, std::uint64_t end) const;

  // --- states by order of execution --------------------------------------------------
  std::size_t transfer_count() const { return transfer_count_; }
  int step_count() const { return static_cast<int>(step_end_.size()); }
  // How many transfers run in steps [0, k): the schedule's transfers are in step order.
  std::size_t transfers_before_step(int k) const;
  // The change in effect in `cell` once the pre-operations and transfers [0, done) have
  // run, and the post-operations when `with_final`; null when nothing was recorded.
  const CellChange* state(std::uint32_t cell, std::size_t done, bool with_final) const;
  // The same after the first k steps (0: only the pre-operations); the post-operations
  // count from k = step_count() on.
  const CellChange* state_after_step(std::uint32_t cell, int k) const;
  // The transfer that last wrote `cell` by then; nullopt for the initial state (or nothing
  // recorded) and for a post-operation.
  std::optional<std::size_t> last_writer(std::uint32_t cell, std::size_t done, bool with_final) const;
  // Region `r` (real storage) as the checker held it at that moment: its cells, merged
  // where no write made by then had a boundary (the checker's own pieces then).
  std::vector<HistoryPiece> pieces(const Region& r, std::size_t done, bool with_final) const;
  // Every rank the cell ever holds (bit q: rank q < 64): a view's stripe slots.
  std::uint64_t ranks_ever(std::uint32_t cell) const;

  // --- states by time ----------------------------------------------------------------
  // The time each change takes effect on a clock, as needed by change_at: the running
  // maximum, within its cell, of the end time of the transfer that wrote it (so the keys
  // of a cell never decrease); the initial state at -infinity, post-operations at
  // `final_time`. `transfer_end` holds every transfer's end time on that clock.
  std::vector<double> change_keys(std::span<const double> transfer_end, double final_time) const;
  // The change in effect at time t: the last one whose key is <= t.
  const CellChange& change_at(std::uint32_t cell, std::span<const double> keys, double t) const;

 private:
  class Recorder;
  int step_of(std::size_t transfer) const;  // the step transfer `transfer` runs in
  void number_window_steps(const BufferHistory& whole, std::span<const std::size_t> source);
  std::vector<BufferRow> rows_;
  std::vector<int> row_index_;  // rank * 3 + buffer -> row, or -1
  std::vector<BufferCell> cells_;
  std::vector<CellChange> changes_;
  std::size_t transfer_count_ = 0;
  std::vector<std::size_t> step_end_;  // per step k: transfers in steps 0..k
};

// `recorded` (the history a run's one check kept), or, for a run prepared without one, the
// schedule's history recorded now: the one place a view may check a schedule again.
std::shared_ptr<const BufferHistory> history_or_record(std::shared_ptr<const BufferHistory> recorded,
                                                       const Schedule& s);

}  // namespace collsim
