// Proves a schedule correct before any data moves, by executing it symbolically on
// contribution sets (see contributions.h). Throws CheckError (a ScheduleError) naming the
// step, transfer, rank and region that broke an invariant, in words and as fields:
//   - every region lies inside its rank's buffer; a transfer's source and destination
//     never overlap; inputs are never written (outside in-place aliasing, see
//     storage_of); steps are listed in order;
//   - within a step no transfer reads what another transfer of the same step writes, and
//     a region has two writers in one step only when both reduce into it;
//   - nothing reads or reduces into data that was never written;
//   - a reduce never adds a contribution its destination already holds (a barrier's
//     tokens excepted: they are sets of "heard from" ranks, and max is idempotent);
//   - at the end every output holds exactly the contributions docs/design.md's buffer table demands,
//     and every barrier token has heard from every rank.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/contributions.h"
#include "sim/core/errors.h"
#include "sim/check/dependencies.h"
#include "sim/schedule/schedule.h"

namespace collsim {

// What broke, for views that phrase it (custom_schedule_explain.cpp): one kind per check.
enum class CheckErrorKind : std::uint8_t {
  step_order,                   // a transfer's step is before the previous one's, or has no label
  empty_transfer,               // moves no data
  rank_out_of_range,            // names a rank the schedule does not have
  region_out_of_range,          // a region lies outside its buffer
  source_overlaps_destination,  // a transfer reads and writes overlapping storage
  operand_overlaps_destination, // a reduce_copy's operand overlaps its destination, not exactly
  input_written,                // writes into an input buffer
  local_copy_mismatch,          // a local copy's source is on another rank or of another length
  read_write_conflict_in_step,  // reads what an earlier transfer of the same step writes
  write_read_conflict_in_step,  // writes what an earlier transfer of the same step reads
  conflicting_writes_in_step,   // two writers of one region in a step, not both reduces
  read_before_write,            // reads data nothing wrote
  reduce_into_unwritten,        // reduces into data nothing wrote
  double_contribution,          // a reduce adds a contribution its destination holds
  output_too_small,             // at the end: the expected piece lies outside the buffer
  never_written,                // at the end: an output piece was never written
  missing_contribution,         // at the end: an output piece lacks a contribution
  extra_contribution,           // at the end: an output piece holds one it should not
  barrier_incomplete,           // at the end: a barrier token has not heard from every rank
};
std::string_view to_string(CheckErrorKind k);

// Where in the schedule it broke.
enum class CheckErrorSite : std::uint8_t { transfer, local_operation, final_state };

// The checker's ScheduleError: what() is the precise message, the fields say the same as
// data. `transfers`: the transfer at fault, then the earlier one it conflicts with (step
// conflicts); `ranks`: the ranks involved (a transfer's src and dst; the rank whose buffer
// is wrong); `regions`: the regions at fault, in real storage while the schedule runs and
// in the schedule's coordinates at the end; `contributors`: the ranks whose contributions
// are doubled, missing or extra.
struct CheckError : ScheduleError {
  CheckError(CheckErrorKind kind, CheckErrorSite site, const std::string& message)
      : ScheduleError(message), kind(kind), site(site) {}
  CheckErrorKind kind;
  CheckErrorSite site;
  std::vector<std::size_t> transfers;
  std::vector<int> ranks;
  std::vector<Region> regions;
  std::vector<int> contributors;
};

struct CheckReport {
  DependencyGraph dependencies;  // derived once here; the engine reuses it
  std::size_t pieces_tracked = 0;
};

CheckReport check_schedule(const Schedule& s);

// How many times check_schedule has run in this process (both overloads, passed or not):
// what shows that a run, a trace import and a GUI load each check a schedule once.
std::uint64_t checker_runs();

// Watching the symbolic execution, for views (the GUI's buffer cells, step by step): the
// checker reports every piece it writes, in real storage (storage_of) coordinates, with
// the contributions it now holds (nullptr: never written). `transfer` is the index of the
// transfer that wrote it, or kBeforeTransfers for the state after the pre-operations
// (then every piece of every buffer is reported once) or kAfterTransfers for what a
// post-operation wrote. Pieces are the checker's own, never coalesced.
inline constexpr std::size_t kBeforeTransfers = static_cast<std::size_t>(-2);
inline constexpr std::size_t kAfterTransfers = static_cast<std::size_t>(-1);
using SymbolicObserver =
    std::function<void(std::size_t transfer, const Region& piece, const Contributions* contributions)>;
CheckReport check_schedule(const Schedule& s, const SymbolicObserver& observe);

// What rank `rank`'s output must hold when the collective is done, as pieces
// [offset, offset + count) with their contributions. A barrier has no output: its piece
// is the rank's final token, the last element of its scratch buffer.
struct ExpectedPiece {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  Contributions contributions;
  BufferKind buffer = BufferKind::output;
};
std::vector<ExpectedPiece> expected_output(const Schedule& s, int rank);

// "step 3 (reduce-scatter 2/3), transfer #17: rank 1 output[250,500) -> rank 2 output[250,500) reduce"
std::string describe_transfer(const Schedule& s, std::size_t index);
std::string describe_region(const Region& r);

}  // namespace collsim
