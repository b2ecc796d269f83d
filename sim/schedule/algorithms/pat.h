// What NCCL's PAT all-gather and reduce-scatter share (allgather_pat.cpp,
// reducescatter_pat.cpp): the step structure of PatAGAlgorithm / PatRSAlgorithm (NCCL
// 2.23.4, src/include/collectives.h) when all of a dimension's data fits in one message.
//
// PAT works in ceil(lg N) dimensions d; in dimension d a rank talks to the ranks 2^d away.
// Seen from the block's owner x, the block reaches rank x - t (all-gather) — or rank x
// receives the partial sums of rank x - t (reduce-scatter) — over the binomial tree in
// which t's parent is t minus its lowest set bit (rooted.h's tree): the last hop of offset
// t is in dimension lowbit(t). So dimension d carries exactly the offsets t in [1, N)
// whose lowest set bit is d: 2^d, 2^d + 2^(d+1), 2^d + 2·2^(d+1), ... — ceil((N - 2^d) /
// 2^(d+1)) blocks, and N - 1 blocks over all dimensions. Any N works: an offset of N or
// more is simply not there (NCCL's `skip`).
#pragma once
#include <bit>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace collsim::pat {

// ceil(lg N): the dimensions, one step each.
inline int dimensions(int n) { return n <= 1 ? 0 : std::bit_width(static_cast<unsigned>(n - 1)); }

// The offsets t in [1, N) whose lowest set bit is d, in increasing order.
inline std::vector<int> offsets(int n, int d) {
  std::vector<int> out;
  for (int t = 1 << d; t < n; t += 2 << d) out.push_back(t);
  return out;
}

// "r+2, r+6, r+10" (rank r plus each offset minus `base`), shortened to "r+2, r+6, ..., r+22"
// past three; "r" for offset `base`.
inline std::string offset_list(const std::vector<int>& ts, int base) {
  auto one = [base](int t) { return t == base ? std::string("r") : fmt::format("r+{}", t - base); };
  if (ts.size() <= 3) {
    std::string s;
    for (int t : ts) s += (s.empty() ? "" : ", ") + one(t);
    return s;
  }
  return fmt::format("{}, {}, ..., {}", one(ts[0]), one(ts[1]), one(ts.back()));
}

}  // namespace collsim::pat
