// Bruck's all-to-all (Bruck et al. 1997; MPICH's MPIR_Alltoall_intra_brucks): ceil(lg N)
// messages per rank instead of N-1, paid for with more bytes — for short blocks.
//
// Rank r works in a scratch buffer of N slots; slot i holds a block that still has to
// travel i ranks forward.
//   rotate (a local copy first): slot i = input block (r+i) mod N, the block for rank r+i.
//   ceil(lg N) rounds, round k (d = 2^k):
//     pack, local: rank r copies the slots whose index has bit k set into one contiguous
//       send area (MPICH packs the same way, into one message);
//     send, 1 step: rank r receives rank r-d's send area into the same slots of its own.
//     Each block moves forward by the bits of its slot index, d at a time, and so ends at
//     rank r+i after the last round: slot i of rank q then holds rank q-i's block for q.
//   unrotate, local: rank r copies slot i to output block (r-i) mod N.
// Steps: ceil(lg N) (+ceil(lg N)+1 local). Bytes each rank sends: n/N times the number of
// set bits in 0..N-1 — n/2 * lg N for a power of two (n = one rank's send buffer), more
// than pairwise's (N-1)/N * n once N > 4.
#include <bit>

#include <fmt/format.h>

#include "sim/schedule/algorithms/registry.h"
#include "sim/schedule/algorithms/forms.h"
#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

Schedule build(const CollectiveSpec& spec, const AlgorithmOptions&) {
  ScheduleBuilder b(spec, "bruck");
  const int n = spec.ranks;
  const std::uint64_t k = spec.count;
  auto at = [k](int r, BufferKind buf, int lo, int hi) {
    return block_region(r, buf, k, lo, hi);
  };
  // Scratch: slots [0, N), then the send area at [N, 2N).
  auto slots = [&](int r, int lo, int hi) { return at(r, BufferKind::scratch, lo, hi); };
  auto send_area = [&](int r, int lo, int hi) { return at(r, BufferKind::scratch, n + lo, n + hi); };
  for (int r = 0; r < n; ++r) {
    b.set_scratch(r, 2 * static_cast<std::uint64_t>(n) * k);
    b.pre_copy(at(r, BufferKind::input, r, n), slots(r, 0, n - r));
    b.pre_copy(at(r, BufferKind::input, 0, r), slots(r, n - r, n));
  }

  const int rounds = std::bit_width(static_cast<unsigned>(n - 1));  // ceil(lg N)
  b.stage("exchange");
  for (int round = 0; round < rounds; ++round) {
    const int d = 1 << round;
    // The slots with bit k set form runs [j*2d + d, j*2d + 2d), packed one after another.
    b.step(fmt::format("pack {}/{}: every rank packs the slots whose index has bit {} set", round + 1, rounds, round));
    for (int r = 0; r < n; ++r)
      for (int lo = d, packed = 0; lo < n; lo += 2 * d) {
        const int hi = std::min(lo + d, n);
        b.copy(lo, slots(r, lo, hi), send_area(r, packed, packed + hi - lo));
        packed += hi - lo;
      }
    b.step(fmt::format("send {}/{}: every rank r sends its packed slots to rank r+{}, which stores them in the same slots",
                       round + 1, rounds, d));
    for (int r = 0; r < n; ++r) {
      const int from = (r - d + n) % n;
      for (int lo = d, packed = 0; lo < n; lo += 2 * d) {
        const int hi = std::min(lo + d, n);
        b.copy(lo, send_area(from, packed, packed + hi - lo), slots(r, lo, hi));
        packed += hi - lo;
      }
    }
  }
  b.stage("unrotate");
  b.step("unrotate: every rank r copies slot i to output block (r-i) mod N");
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < n; ++i) b.copy(i, slots(r, i, i + 1), at(r, BufferKind::output, (r - i + n) % n, (r - i + n) % n + 1));
  return std::move(b).finish();
}

// Blocks Bruck's all-to-all sends: block i moves in every round k with bit k of i set.
double set_bits_below(int n) {
  double bits = 0;
  for (int i = 0; i < n; ++i) bits += std::popcount(static_cast<unsigned>(i));
  return bits;
}

forms::Time time_ns(const CostParams& p, const CostShape& s) {
  using namespace forms;
  const double moved = set_bits_below(s.ranks) / N(s) * n(s);
  return ceil_lg(s.ranks) * p.alpha_ns + moved * (p.beta_ns_per_byte + p.delta_ns_per_byte) +
         n(s) * p.delta_ns_per_byte;
}

}  // namespace

extern const AlgorithmInfo kAllToAllBruck{
    .name = "bruck",
    .collective = Collective::all_to_all,
    .summary = "ceil(lg N) rounds; in round k every block whose remaining distance has bit k set moves 2^k ranks forward",
    .steps_formula = "ceil(lg N)",
    .bytes_formula = "n/N * (set bits in 0..N-1); n/2 * lg N for N = 2^k",
    .used_by = "Open MPI tuned alltoall modified_bruck (3); MPICH alltoall brucks",
    .build = &build,
    .layout = &layouts::shifts_of,
    .closed_form = {"ceil(lg N)α + B/N·n(β + δ) + nδ, B = set bits in 0..N-1 (lg N·N/2 for N = 2^k)", "",
                    "any N", &time_ns},
    .streams = true,
};

}  // namespace collsim
