#include "sim/checker.h"

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/interval_map.h"

namespace collsim {
namespace {

// A piece of a symbolic buffer: never written, or written with these contributions.
struct Cell {
  bool written = false;
  Contributions contributions;
};

class SymbolicBuffers {
 public:
  explicit SymbolicBuffers(const Schedule& s) : maps_(static_cast<std::size_t>(s.total_ranks) * 3) {
    for (int r = 0; r < s.total_ranks; ++r) {
      map(r, BufferKind::input) = IntervalMap<Cell>(s.buffer_elements(r, BufferKind::input), {true, Contributions::of_rank(r)});
      map(r, BufferKind::output) = IntervalMap<Cell>(s.buffer_elements(r, BufferKind::output));
      map(r, BufferKind::scratch) = IntervalMap<Cell>(s.buffer_elements(r, BufferKind::scratch));
    }
  }
  IntervalMap<Cell>& map(int rank, BufferKind b) { return maps_[static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b)]; }
  IntervalMap<Cell>& map(const Region& r) { return map(r.rank, r.buffer); }
  std::size_t pieces() const {
    std::size_t n = 0;
    for (const auto& m : maps_) n += m.piece_count();
    return n;
  }

 private:
  std::vector<IntervalMap<Cell>> maps_;
};

// A piece of a source region, placed at its destination's coordinates.
struct MovedPiece {
  std::uint64_t begin, end;
  Contributions contributions;
};

// Names what is being checked; formatted only when something is wrong.
struct Where {
  const Schedule* schedule = nullptr;
  std::size_t transfer = 0;
  const LocalOp* op = nullptr;
  std::string str() const {
    if (op) return fmt::format("{}-operation on {}", to_string(op->kind), describe_region(op->target));
    return describe_transfer(*schedule, transfer);
  }
};

void check_bounds(const Schedule& s, const Region& r, const Where& where) {
  if (r.rank < 0 || r.rank >= s.total_ranks)
    throw ScheduleError(fmt::format("{}: rank {} does not exist ({} ranks)", where.str(), r.rank, s.total_ranks));
  const std::uint64_t size = s.buffer_elements(r.rank, r.buffer);
  if (r.end() > size || r.end() < r.offset)
    throw ScheduleError(fmt::format("{}: {} lies outside the buffer ({} elements)", where.str(), describe_region(r), size));
}

bool overlaps(const Region& a, const Region& b) {
  return a.rank == b.rank && a.buffer == b.buffer && a.offset < b.end() && b.offset < a.end();
}

void check_structure(const Schedule& s) {
  int previous_step = 0;
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    if (t.step < previous_step || t.step >= s.step_count())
      throw ScheduleError(fmt::format("transfer #{}: step {} is out of order or has no label ({} steps)", i, t.step,
                                      s.step_count()));
    previous_step = t.step;
    const Where where{&s, i, nullptr};
    if (t.count == 0) throw ScheduleError(where.str() + ": moves no data (empty transfers must be dropped)");
    check_bounds(s, t.source(), where);
    check_bounds(s, t.destination(), where);
    if (overlaps(t.source(), t.destination())) throw ScheduleError(where.str() + ": source and destination overlap");
    if (t.dst_buffer == BufferKind::input) throw ScheduleError(where.str() + ": writes into an input buffer");
  }
  for (const auto* ops : {&s.pre_ops, &s.post_ops})
    for (const LocalOp& op : *ops) {
      const Where where{&s, 0, &op};
      check_bounds(s, op.target, where);
      if (op.target.buffer == BufferKind::input) throw ScheduleError(where.str() + ": writes into an input buffer");
      if (op.kind == LocalOpKind::copy) {
        check_bounds(s, op.source, where);
        if (op.source.rank != op.target.rank || op.source.count != op.target.count)
          throw ScheduleError(where.str() + ": a local copy needs a source of the same length on the same rank");
      }
    }
}

// Two transfers of one step may touch the same region only as two reduces into it.
void check_step_conflict(const Schedule& s, std::uint32_t earlier, std::uint32_t later, Hazard h) {
  const Transfer& a = s.transfers[earlier];
  const Transfer& b = s.transfers[later];
  if (a.step != b.step) return;
  if (h == Hazard::write_after_write && a.action == Action::reduce && b.action == Action::reduce) return;
  const char* what = h == Hazard::read_after_write   ? "reads what an earlier transfer of the same step writes"
                     : h == Hazard::write_after_read ? "writes what an earlier transfer of the same step reads"
                                                     : "writes a region that another transfer of the same step also "
                                                       "writes, and not both reduce";
  throw ScheduleError(fmt::format("{}: {} ({})", describe_transfer(s, later), what, describe_transfer(s, earlier)));
}

std::vector<MovedPiece> read_source(SymbolicBuffers& bufs, const Region& src, std::uint64_t dst_offset,
                                    const Where& where) {
  std::vector<MovedPiece> moved;
  const std::int64_t shift = static_cast<std::int64_t>(src.offset) - static_cast<std::int64_t>(dst_offset);
  std::as_const(bufs.map(src)).visit(src.offset, src.end(), [&](std::uint64_t a, std::uint64_t b, const Cell& c) {
    if (!c.written)
      throw ScheduleError(fmt::format("{}: reads {} before anything was written there", where.str(),
                                      describe_region({src.rank, src.buffer, a, b - a})));
    moved.push_back({a - src.offset + dst_offset, b - src.offset + dst_offset, c.contributions.shifted(shift)});
  });
  return moved;
}

void apply(SymbolicBuffers& bufs, const Region& dst, Action action, const std::vector<MovedPiece>& moved,
           const Where& where) {
  for (const MovedPiece& m : moved)
    bufs.map(dst).visit(m.begin, m.end, [&](std::uint64_t a, std::uint64_t b, Cell& c) {
      if (action == Action::copy) {
        c = {true, m.contributions};
        return;
      }
      if (!c.written)
        throw ScheduleError(fmt::format("{}: reduces into {}, which was never written", where.str(),
                                        describe_region({dst.rank, dst.buffer, a, b - a})));
      if (const auto twice = c.contributions.add(m.contributions))
        throw ScheduleError(fmt::format("{}: {} already holds {}; adding it again would count it twice", where.str(),
                                        describe_region({dst.rank, dst.buffer, a, b - a}),
                                        describe_term(*twice, a, b)));
    });
}

void run_local_op(SymbolicBuffers& bufs, const Schedule& s, const LocalOp& op) {
  const Where where{&s, 0, &op};
  switch (op.kind) {
    case LocalOpKind::copy:
      apply(bufs, op.target, Action::copy, read_source(bufs, op.source, op.target.offset, where), where);
      break;
    case LocalOpKind::fill_identity:
      bufs.map(op.target).visit(op.target.offset, op.target.end(), [](auto, auto, Cell& c) { c = {true, {}}; });
      break;
    case LocalOpKind::divide:  // scales values; contributions stay
      read_source(bufs, op.target, op.target.offset, where);
      break;
  }
}

void check_final(const Schedule& s, SymbolicBuffers& bufs) {
  for (int r = 0; r < s.spec.ranks; ++r)
    for (const ExpectedPiece& want : expected_output(s, r))
      std::as_const(bufs.map(r, BufferKind::output))
          .visit(want.offset, want.offset + want.count, [&](std::uint64_t a, std::uint64_t b, const Cell& c) {
            const Region where{r, BufferKind::output, a, b - a};
            if (!c.written)
              throw ScheduleError(fmt::format("at the end {} was never written; it should hold {}", describe_region(where),
                                              want.contributions.describe(a, b)));
            if (c.contributions == want.contributions) return;
            bool missing = false;
            const auto diff = first_difference(c.contributions, want.contributions, &missing);
            throw ScheduleError(fmt::format("at the end {} {} {}; it holds {} but should hold {}", describe_region(where),
                                            missing ? "lacks" : "wrongly holds", describe_term(*diff, a, b),
                                            c.contributions.describe(a, b), want.contributions.describe(a, b)));
          });
}

}  // namespace

std::string describe_region(const Region& r) {
  return fmt::format("rank {} {}[{},{})", r.rank, to_string(r.buffer), r.offset, r.end());
}

std::string describe_transfer(const Schedule& s, std::size_t index) {
  const Transfer& t = s.transfers[index];
  const std::string label = t.step >= 0 && t.step < s.step_count() ? s.step_labels[static_cast<std::size_t>(t.step)] : "?";
  return fmt::format("step {} ({}), transfer #{}: {} -> {} {}", t.step + 1, label, index, describe_region(t.source()),
                     describe_region(t.destination()), to_string(t.action));
}

CheckReport check_schedule(const Schedule& s) {
  check_structure(s);
  CheckReport report;
  report.dependencies = derive_dependencies(
      s, [&](std::uint32_t earlier, std::uint32_t later, Hazard h) { check_step_conflict(s, earlier, later, h); });

  SymbolicBuffers bufs(s);
  for (const LocalOp& op : s.pre_ops) run_local_op(bufs, s, op);
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    const Where where{&s, i, nullptr};
    apply(bufs, t.destination(), t.action, read_source(bufs, t.source(), t.dst_offset, where), where);
  }
  for (const LocalOp& op : s.post_ops) run_local_op(bufs, s, op);
  check_final(s, bufs);
  report.pieces_tracked = bufs.pieces();
  return report;
}

}  // namespace collsim
