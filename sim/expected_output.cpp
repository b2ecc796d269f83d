// What each collective must leave in every rank's output, as contributions: DESIGN.md's
// buffer table written as data. The checker compares the symbolic result with this.
#include "sim/checker.h"

namespace collsim {

std::vector<ExpectedPiece> expected_output(const Schedule& s, int rank) {
  const CollectiveSpec& spec = s.spec;
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  const auto block = [k](int b) { return static_cast<std::uint64_t>(b) * k; };
  const auto at = [k](int b) { return static_cast<std::int64_t>(b) * static_cast<std::int64_t>(k); };
  if (rank < 0 || rank >= n || output_elements(spec, rank) == 0) return {};
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
    case Collective::send_recv:
      if (s.algorithm == "ring_shift")
        pieces.push_back({0, k, Contributions::of_rank((rank + n - 1) % n)});
      else if (rank == (spec.root + 1) % n && n > 1)
        pieces.push_back({0, k, Contributions::of_rank(spec.root)});
      break;
    case Collective::barrier:
      break;
  }
  return pieces;
}

}  // namespace collsim
