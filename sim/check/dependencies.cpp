#include "sim/check/dependencies.h"

#include <algorithm>

namespace collsim {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// The region as real storage; out of place (the common case) that is the region itself.
Region storage(const Schedule& s, const Region& r) { return s.spec.in_place ? storage_of(s, r) : r; }

std::size_t buffer_index(int rank, BufferKind b) { return static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b); }

// Calls f(buffer index, begin, end) for the region of rank's buffer b at [offset, offset +
// count) in real storage. Scalars, not a Region: these are the hottest loops over a
// streamed batch, and a Region built field by field, then read back whole, stalls on the
// store buffer (a fifth of the derivation's time at 16 384 ranks).
template <class F>
void in_storage(const Schedule& s, int rank, BufferKind b, std::uint64_t offset, std::uint64_t count, F&& f) {
  if (s.spec.in_place) {
    const Region x = storage_of(s, {rank, b, offset, count});
    f(buffer_index(x.rank, x.buffer), x.offset, x.end());
  } else {
    f(buffer_index(rank, b), offset, offset + count);
  }
}
template <class F>
void in_storage(const Schedule& s, const Region& r, F&& f) {
  in_storage(s, r.rank, r.buffer, r.offset, r.count, f);
}

// Calls f(buffer index, begin, end, read) for every region of real storage that the
// checker writes to (read false), and with CutAt::reads_and_writes the transfers' sources
// and operands too (read true). The dependency analysis cuts its pieces at the reads as
// well, because it records every read in them; the checker reads sources without cutting,
// and its pieces are the cells every view draws, so it keeps the written regions' cuts.
template <class F>
void for_each_region(const Schedule& s, CutAt at, F&& f) {
  const auto write = [&](std::size_t i, std::uint64_t begin, std::uint64_t end) { f(i, begin, end, false); };
  const auto read = [&](std::size_t i, std::uint64_t begin, std::uint64_t end) { f(i, begin, end, true); };
  for (const Transfer& t : s.transfers) {
    in_storage(s, t.dst, t.dst_buffer, t.dst_offset, t.count, write);
    if (at == CutAt::reads_and_writes) in_storage(s, t.src, t.src_buffer, t.src_offset, t.count, read);
    if (at == CutAt::reads_and_writes && t.has_operand()) in_storage(s, t.dst, t.operand_buffer, t.operand_offset, t.count, read);
  }
  for (const auto* ops : {&s.pre_ops, &s.post_ops})
    for (const LocalOp& op : *ops) {
      in_storage(s, op.target, write);
      if (op.kind == LocalOpKind::copy) in_storage(s, op.source, write);
    }
  if (s.spec.in_place)
    for (int r = 0; r < s.spec.ranks; ++r) in_storage(s, r, BufferKind::input, 0, s.buffer_elements(r, BufferKind::input), write);
}

// What has touched a piece of a buffer since its last write. Readers are a linked list in
// a pool shared by all pieces (head..tail, in the order they read), so pieces stay small
// and copyable and a read allocates nothing per piece.
struct Access {
  std::uint32_t last_writer = kNone;
  std::uint32_t first_reader = kNone, last_reader = kNone;
};

struct ReaderPool {
  struct Node {
    std::uint32_t transfer, next;
  };
  std::vector<Node> nodes;

  void add(Access& a, std::uint32_t transfer) {
    const auto index = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back({transfer, kNone});
    if (a.last_reader == kNone)
      a.first_reader = index;
    else
      nodes[a.last_reader].next = index;
    a.last_reader = index;
  }
  template <class F>
  void for_each(const Access& a, F&& f) const {
    for (std::uint32_t i = a.first_reader; i != kNone; i = nodes[i].next) f(nodes[i].transfer);
  }
};

// The pieces of every buffer of real storage between its cuts, in one array: a buffer with
// k cuts c[0..k) has k + 1 pieces, [0, c[0]), [c[0], c[1]), ..., [c[k-1], size). Every
// region a transfer touches begins and ends at a cut (or at the buffer's end), so a visit
// only finds pieces and never splits one: nothing is built per buffer, which at thousands
// of ranks (a streamed model derives a batch at a time over 3N buffers) is most of the
// cost of a batch.
class AccessTracker {
 public:
  explicit AccessTracker(const BufferCuts& cuts)
      : cuts_(cuts), pieces_(cuts.cuts.size() + cuts.first.size() - 1) {}

  // Calls f(Access&) for each piece of [begin, end) of buffer b (real storage).
  template <class F>
  void visit(std::size_t b, std::uint64_t begin, std::uint64_t end, F&& f) {
    if (begin >= end) return;
    const std::span<const std::uint64_t> c(cuts_.cuts.data() + cuts_.first[b], cuts_.first[b + 1] - cuts_.first[b]);
    Access* pieces = pieces_.data() + cuts_.first[b] + b;
    const std::size_t last = c.empty() || end > c.back() ? c.size() + 1 : piece_at(c, end);
    for (std::size_t i = piece_at(c, begin); i < last; ++i) f(pieces[i]);
  }

 private:
  // The piece that holds pos: the number of cuts at or before it. Chunked schedules cut
  // buffers evenly, and a streamed batch cuts a run of a ring's chunks evenly too, so the
  // first guess is where pos would sit if the cuts were even between the first and the
  // last; it is exact after one probe there, instead of lg(cuts) cache misses.
  static std::size_t piece_at(std::span<const std::uint64_t> c, std::uint64_t pos) {
    const std::size_t k = c.size();
    if (k == 0 || pos < c[0]) return 0;
    if (pos >= c[k - 1]) return k;
    auto j = static_cast<std::size_t>(static_cast<double>(pos - c[0]) / static_cast<double>(c[k - 1] - c[0]) * static_cast<double>(k - 1));
    j = std::min(j, k - 2);  // c[j] <= pos < c[j + 1] if the guess holds
    if (c[j] <= pos && pos < c[j + 1]) return j + 1;
    return static_cast<std::size_t>(std::upper_bound(c.begin(), c.end(), pos) - c.begin());
  }

  const BufferCuts& cuts_;
  std::vector<Access> pieces_;  // buffer b's pieces from cuts_.first[b] + b on
};

// region_cuts. With `written` (the dependency analysis), also which buffers some region
// writes (1) and which none does (0): a read of a buffer nobody writes meets no hazard
// (there is no writer to wait for and none to wait), so its reads are not cut there — a
// ring's reduce-copies read every chunk of the inputs, a third of all it touches.
BufferCuts cuts_of(const Schedule& s, CutAt at, std::vector<std::uint8_t>* written) {
  // Two passes over the regions, counting then filling, so the cuts of all buffers share
  // one array; then each buffer's cuts are sorted, deduplicated and clipped to (0, size).
  const std::size_t buffers = static_cast<std::size_t>(s.total_ranks) * 3;
  std::vector<std::size_t> fill(buffers + 1, 0), reads;
  if (written) written->assign(buffers, 0), reads.assign(buffers, 0);
  for_each_region(s, at, [&](std::size_t i, auto, auto, bool read) {
    if (read && written) {
      reads[i] += 2;  // counted once it is known whether the buffer is written
    } else {
      fill[i + 1] += 2;
      if (written && !read) (*written)[i] = 1;
    }
  });
  if (written)
    for (std::size_t i = 0; i < buffers; ++i) fill[i + 1] += (*written)[i] ? reads[i] : 0;
  for (std::size_t i = 0; i < buffers; ++i) fill[i + 1] += fill[i];
  BufferCuts c;
  c.first = fill;
  c.cuts.resize(fill[buffers]);
  for_each_region(s, at, [&](std::size_t i, std::uint64_t begin, std::uint64_t end, bool read) {
    if (read && written && !(*written)[i]) return;
    std::size_t& next = fill[i];
    c.cuts[next++] = begin;
    c.cuts[next++] = end;
  });
  std::size_t out = 0;
  for (std::size_t i = 0; i < buffers; ++i) {
    const auto begin = c.cuts.begin() + static_cast<std::ptrdiff_t>(c.first[i]);
    const auto end = c.cuts.begin() + static_cast<std::ptrdiff_t>(c.first[i + 1]);
    std::sort(begin, end);
    const int rank = static_cast<int>(i / 3);
    const std::uint64_t size = storage_elements(s, rank, static_cast<BufferKind>(i % 3));
    c.first[i] = out;
    for (auto it = begin, last = std::unique(begin, end); it != last; ++it)
      if (*it > 0 && *it < size) c.cuts[out++] = *it;  // out never passes `it`: compaction in place
  }
  c.first[buffers] = out;
  c.cuts.resize(out);
  c.cuts.shrink_to_fit();
  return c;
}

}  // namespace

BufferCuts region_cuts(const Schedule& s, CutAt at) { return cuts_of(s, at, nullptr); }

DependencyGraph derive_dependencies(const Schedule& s, const HazardObserver& observe) {
  std::vector<std::uint8_t> written;
  const BufferCuts cuts = cuts_of(s, CutAt::reads_and_writes, &written);
  AccessTracker tracker(cuts);
  ReaderPool readers;
  DependencyGraph g;
  g.offsets.reserve(s.transfers.size() + 1);
  g.deps.reserve(s.transfers.size() * 2);
  std::vector<std::uint32_t> found;
  auto note = [&](std::uint32_t earlier, std::uint32_t later, Hazard h) {
    if (earlier == kNone || earlier == later) return;  // a reduce_copy whose operand is its destination
    found.push_back(earlier);
    if (observe) observe(earlier, later, h);
  };

  for (std::uint32_t t = 0; t < s.transfers.size(); ++t) {
    const Transfer& x = s.transfers[t];
    found.clear();
    const auto read = [&](std::size_t b, std::uint64_t begin, std::uint64_t end) {
      if (!written[b]) return;  // no hazard there
      tracker.visit(b, begin, end, [&](Access& a) {
        note(a.last_writer, t, Hazard::read_after_write);
        readers.add(a, t);
      });
    };
    const auto write = [&](std::size_t b, std::uint64_t begin, std::uint64_t end) {
      tracker.visit(b, begin, end, [&](Access& a) {
        note(a.last_writer, t, Hazard::write_after_write);
        readers.for_each(a, [&](std::uint32_t r) { note(r, t, Hazard::write_after_read); });
        a = {t, kNone, kNone};
      });
    };
    in_storage(s, x.src, x.src_buffer, x.src_offset, x.count, read);
    if (x.has_operand()) in_storage(s, x.dst, x.operand_buffer, x.operand_offset, x.count, read);
    in_storage(s, x.dst, x.dst_buffer, x.dst_offset, x.count, write);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    g.deps.insert(g.deps.end(), found.begin(), found.end());
    g.offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  return g;
}

ReadsTouched reads_touching(const Schedule& s, const Transfer& reader, const Region& written) {
  const auto touches = [&](const Region& r) {
    const Region x = storage(s, r);
    return x.rank == written.rank && x.buffer == written.buffer && x.offset < written.end() && written.offset < x.end();
  };
  return {touches(reader.source()), reader.has_operand() && touches(reader.operand())};
}

DependencyGraph reverse(const DependencyGraph& g) {
  DependencyGraph r;
  const std::size_t n = g.size();
  std::vector<std::uint32_t> counts(n + 1, 0);
  for (std::uint32_t d : g.deps) ++counts[d + 1];
  for (std::size_t i = 0; i < n; ++i) counts[i + 1] += counts[i];
  r.offsets = counts;
  r.deps.resize(g.deps.size());
  for (std::size_t t = 0; t < n; ++t)
    for (std::uint32_t d : g.dependencies_of(t)) r.deps[counts[d]++] = static_cast<std::uint32_t>(t);
  return r;
}

}  // namespace collsim
