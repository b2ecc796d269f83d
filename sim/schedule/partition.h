// Splitting a range into nearly equal parts, the way every chunked algorithm does.
#pragma once
#include <algorithm>
#include <cstdint>

#include "sim/schedule/schedule.h"

namespace collsim {

// a mod n in 0..n-1 for negative a too: the rank k places to the left on a ring of n.
inline int mod(int a, int n) { return ((a % n) + n) % n; }

struct Block {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  std::uint64_t end() const { return offset + count; }
};

// Part i of `total` elements split into `parts` contiguous blocks as evenly as possible:
// the first total % parts blocks hold one element more.
inline Block even_block(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  const std::uint64_t base = total / parts, extra = total % parts;
  return {i * base + std::min(i, extra), base + (i < extra ? 1 : 0)};
}

// Blocks [lo, hi) of that split, as one contiguous range (empty when lo == hi).
inline Block block_range(std::uint64_t total, std::uint64_t parts, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t begin = even_block(total, parts, lo).offset;
  const std::uint64_t end = hi < parts ? even_block(total, parts, hi).offset : total;
  return {begin, end - begin};
}

// Slice s of `slices` within block b.
inline Block sub_block(Block b, std::uint64_t slices, std::uint64_t s) {
  Block inner = even_block(b.count, slices, s);
  inner.offset += b.offset;
  return inner;
}

// Blocks [lo, hi) of `block` elements each, in one rank's buffer: the unit of the
// all-gather, reduce-scatter and all-to-all algorithms (a block per rank).
inline Region block_region(int rank, BufferKind buffer, std::uint64_t block, int lo, int hi) {
  return {rank, buffer, static_cast<std::uint64_t>(lo) * block, static_cast<std::uint64_t>(hi - lo) * block};
}

}  // namespace collsim
