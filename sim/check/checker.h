// Proves a schedule correct before any data moves, by executing it symbolically on
// contribution sets (see contributions.h). Throws ScheduleError naming the step,
// transfer, rank and region that broke an invariant:
//   - every region lies inside its rank's buffer; a transfer's source and destination
//     never overlap; inputs are never written (outside in-place aliasing, see
//     storage_of); steps are listed in order;
//   - within a step no transfer reads what another transfer of the same step writes, and
//     a region has two writers in one step only when both reduce into it;
//   - nothing reads or reduces into data that was never written;
//   - a reduce never adds a contribution its destination already holds (a barrier's
//     tokens excepted: they are sets of "heard from" ranks, and max is idempotent);
//   - at the end every output holds exactly the contributions DESIGN.md's table demands,
//     and every barrier token has heard from every rank.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/check/contributions.h"
#include "sim/check/dependencies.h"
#include "sim/schedule/schedule.h"

namespace collsim {

struct CheckReport {
  DependencyGraph dependencies;  // derived once here; the engine reuses it
  std::size_t pieces_tracked = 0;
};

CheckReport check_schedule(const Schedule& s);

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
