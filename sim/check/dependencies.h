// Dependencies between transfers, derived from their regions — never declared by hand.
// Transfer j depends on an earlier transfer i when j reads what i wrote (read after
// write), writes what i read (write after read) or writes what i wrote (write after
// write) on the same rank's buffer. The checker, the engine and the timing model all use
// this one graph, so ordering and pipelining come for free with every algorithm.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/schedule/schedule.h"

namespace collsim {

enum class Hazard : std::uint8_t { read_after_write, write_after_read, write_after_write };

// Compressed sparse rows: the dependencies of transfer t are
// deps[offsets[t] .. offsets[t+1]), sorted, each an earlier transfer's index.
struct DependencyGraph {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> deps;

  std::size_t size() const { return offsets.size() - 1; }
  std::span<const std::uint32_t> dependencies_of(std::size_t t) const {
    return {deps.data() + offsets[t], deps.data() + offsets[t + 1]};
  }
  std::size_t edge_count() const { return deps.size(); }
};

// The same graph read the other way: who waits for transfer t.
DependencyGraph reverse(const DependencyGraph& g);

// Called for every hazard found (before duplicates are merged), e.g. by the checker to
// reject conflicts inside one step.
using HazardObserver = std::function<void(std::uint32_t earlier, std::uint32_t later, Hazard)>;

DependencyGraph derive_dependencies(const Schedule& s, const HazardObserver& observe = {});

// Which of `reader`'s reads overlap `written` (real storage): a transfer reads its source
// where the sender is and, a reduce_copy, its operand where the receiver is, so a view
// that places work on ranks (MSCCL's thread blocks) needs to know which read a read-after-
// write or write-after-read hazard is about.
struct ReadsTouched {
  bool source = false, operand = false;
};
ReadsTouched reads_touching(const Schedule& s, const Transfer& reader, const Region& written);

// Every position at which a region the schedule writes (a transfer's destination, a local
// operation's target or source, an in-place alias) begins or ends — and with
// CutAt::reads_and_writes where a transfer's source or operand does (the dependency
// analysis's pieces, which record every read of a buffer that some transfer writes) — per
// buffer of real storage (storage_of): the cuts with which the checker's interval maps and
// the dependency analysis's pieces start, so that walking the transfers of a chunked
// schedule splits nothing. Sorted, inside (0, size).
struct BufferCuts {
  std::vector<std::size_t> first{0};  // buffer i's cuts: cuts[first[i] .. first[i+1]), i = rank * 3 + kind
  std::vector<std::uint64_t> cuts;
  std::span<const std::uint64_t> of(int rank, BufferKind b) const {
    const std::size_t i = static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b);
    return {cuts.data() + first[i], cuts.data() + first[i + 1]};
  }
};
enum class CutAt : std::uint8_t { writes, reads_and_writes };
BufferCuts region_cuts(const Schedule& s, CutAt at);

}  // namespace collsim
