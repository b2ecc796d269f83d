// What each collective must leave in every rank's output, as contributions: docs/design.md's
// buffer table written as data. The checker compares the symbolic result with this.
#include "sim/check/checker.h"

namespace collsim {
namespace {

// Every rank's token must have heard from every rank: its last scratch element holds the
// signals (element 0) of ranks 0..N-1, each at least once (repeats merge; see checker).
ExpectedPiece barrier_token(const Schedule& s, int rank) {
  const std::uint64_t scratch = s.buffer_elements(rank, BufferKind::scratch);
  const std::uint64_t last = scratch > 0 ? scratch - 1 : 0;  // no token at all: the checker says so
  return {last, 1, Contributions::of_ranks(0, s.spec.ranks, -static_cast<std::int64_t>(last)), BufferKind::scratch};
}

}  // namespace

std::vector<ExpectedPiece> expected_output(const Schedule& s, int rank) {
  const CollectiveSpec& spec = s.spec;
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  const auto block = [k](int b) { return static_cast<std::uint64_t>(b) * k; };
  const auto at = [k](int b) { return static_cast<std::int64_t>(b) * static_cast<std::int64_t>(k); };
  if (rank < 0 || rank >= n) return {};
  if (spec.collective == Collective::barrier) return {barrier_token(s, rank)};
  if (s.buffer_elements(rank, BufferKind::output) == 0) return {};
  std::vector<ExpectedPiece> pieces;
  switch (spec.collective) {
    case Collective::all_reduce:
      pieces.push_back({0, k, Contributions::of_ranks(0, n)});
      break;
    case Collective::reduce:
      pieces.push_back({0, k, Contributions::of_ranks(0, n)});
      break;
    case Collective::broadcast:
      pieces.push_back({0, k, Contributions::of_rank(spec.root)});
      break;
    case Collective::all_gather:
    case Collective::gather:  // block q of the result is rank q's input
      for (int q = 0; q < n; ++q) pieces.push_back({block(q), k, Contributions::of_rank(q, -at(q))});
      break;
    case Collective::scatter:  // block r of the root's input
      pieces.push_back({0, k, Contributions::of_rank(spec.root, at(rank))});
      break;
    case Collective::reduce_scatter:  // the reduction of block r
      pieces.push_back({0, k, Contributions::of_ranks(0, n, at(rank))});
      break;
    case Collective::all_to_all:  // block j came from rank j's block r
      for (int j = 0; j < n; ++j) pieces.push_back({block(j), k, Contributions::of_rank(j, at(rank) - at(j))});
      break;
    case Collective::send_recv:  // only receivers hold an output (see output_elements)
      pieces.push_back({0, k, Contributions::of_rank(s.algorithm == "ring_shift" ? (rank + n - 1) % n : spec.root)});
      break;
    case Collective::barrier:
      break;
  }
  return pieces;
}

}  // namespace collsim
