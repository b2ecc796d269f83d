// Every displayed buffer cut into cells, and each cell's history of contribution sets.
//
// The cells are the finest partition of a buffer's elements that the schedule induces:
// every boundary of every piece the schedule checker ever wrote there (a ring's N chunks,
// Rabenseifner's halving blocks, a copy of several chunks at once). The history is
// recorded from the checker's own symbolic execution (check_schedule's observer): one
// change per transfer that wrote the cell. The state at step k or time t is then the
// last change that happened by then — one binary search per cell, so scrubbing never
// replays the schedule from the start. These change lists are the per-step keyframes,
// stored per cell instead of per step, which keeps a million-transfer trace to one
// change per transfer instead of a snapshot of every cell per step.
#pragma once
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/check/checker.h"
#include "sim/schedule/schedule.h"

namespace collsim::gui {

// Change markers besides transfer indices.
inline constexpr std::uint32_t kInitialState = 0xFFFFFFFEu;  // after the pre-operations
inline constexpr std::uint32_t kFinalState = 0xFFFFFFFFu;    // written by a post-operation

struct CellChange {
  std::uint32_t transfer = kInitialState;
  bool written = false;  // false: nothing was ever written here (an empty cell)
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

struct Cell {
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

class BufferHistory {
 public:
  // Runs the schedule checker with an observer and records what it sees. Throws
  // ScheduleError (from the checker) when the schedule is broken.
  static BufferHistory record(const Schedule& s);
  // The history of a window of the recorded schedule's transfers, for a lesson phase that
  // runs some of a collective's steps (a sub-schedule cannot be checked on its own: it
  // reads what earlier steps wrote). `source[i]` is the recorded index of the window's
  // transfer i (ascending). What transfers before the window wrote becomes the initial
  // state, changes after it are dropped, and the post-operations' only when `keep_final`
  // (the window ends at the last step). Cells keep their bounds; targets are the window's.
  BufferHistory window(std::span<const std::size_t> source, bool keep_final) const;

  std::span<const BufferRow> rows() const { return rows_; }
  std::span<const Cell> cells() const { return cells_; }
  std::span<const CellChange> changes() const { return changes_; }
  std::span<const CellChange> changes_of(std::uint32_t cell) const {
    const Cell& c = cells_[cell];
    return {changes_.data() + c.first_change, c.change_count};
  }
  // The row that shows (rank, buffer of real storage), or -1.
  int row_of(int rank, BufferKind buffer) const;
  // The cells [first, last) of `row` that overlap elements [begin, end).
  std::pair<std::uint32_t, std::uint32_t> cells_in(int row, std::uint64_t begin, std::uint64_t end) const;

  // The time each change takes effect on a clock, as needed by change_at: the running
  // maximum, within its cell, of the end time of the transfer that wrote it (so the keys
  // of a cell never decrease); the initial state at -infinity, post-operations at
  // `final_time`. `transfer_end` holds every transfer's end time on that clock.
  std::vector<double> change_keys(std::span<const double> transfer_end, double final_time) const;
  // The change in effect at time t: the last one whose key is <= t.
  const CellChange& change_at(std::uint32_t cell, std::span<const double> keys, double t) const;

 private:
  std::vector<BufferRow> rows_;
  std::vector<int> row_index_;  // rank * 3 + buffer -> row, or -1
  std::vector<Cell> cells_;
  std::vector<CellChange> changes_;
};

}  // namespace collsim::gui
