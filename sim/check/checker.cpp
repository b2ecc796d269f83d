#include "sim/check/checker.h"

#include <algorithm>
#include <atomic>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/interval_map.h"

namespace collsim {
namespace {

std::atomic<std::uint64_t> g_checker_runs{0};

// A piece of a symbolic buffer: never written, or written with these contributions.
struct Cell {
  bool written = false;
  Contributions contributions;
  friend bool operator==(const Cell&, const Cell&) = default;
};

// One map per buffer of real storage (storage_of): regions must be resolved before use.
class SymbolicBuffers {
 public:
  // Every map starts cut where the schedule's regions begin and end (see region_cuts).
  SymbolicBuffers(const Schedule& s, const BufferCuts& cuts) : maps_(static_cast<std::size_t>(s.total_ranks) * 3) {
    for (int r = 0; r < s.total_ranks; ++r) {
      map(r, BufferKind::input) = IntervalMap<Cell>(storage_elements(s, r, BufferKind::input),
                                                    {true, Contributions::of_rank(r)}, cuts.of(r, BufferKind::input));
      map(r, BufferKind::output) =
          IntervalMap<Cell>(storage_elements(s, r, BufferKind::output), {}, cuts.of(r, BufferKind::output));
      map(r, BufferKind::scratch) =
          IntervalMap<Cell>(storage_elements(s, r, BufferKind::scratch), {}, cuts.of(r, BufferKind::scratch));
      // In place, the output region that is the input starts as the rank's own data.
      if (const Region in = storage_of(s, {r, BufferKind::input, 0, s.buffer_elements(r, BufferKind::input)});
          in.buffer != BufferKind::input) {
        const Contributions own = Contributions::of_rank(r, -static_cast<std::int64_t>(in.offset));
        map(in).visit(in.offset, in.end(), [&](auto, auto, Cell& c) { c = {true, own}; });
      }
    }
  }
  IntervalMap<Cell>& map(int rank, BufferKind b) { return maps_[static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b)]; }
  IntervalMap<Cell>& map(const Region& r) { return map(r.rank, r.buffer); }
  std::size_t pieces() const {
    std::size_t n = 0;
    for (const auto& m : maps_) n += m.piece_count();
    return n;
  }
  // Calls f(region, cell) for every piece of every buffer (the observer's first report).
  template <class F>
  void visit_all(F&& f) {
    for (std::size_t i = 0; i < maps_.size(); ++i) {
      const Region whole{static_cast<int>(i / 3), static_cast<BufferKind>(i % 3), 0, maps_[i].size()};
      maps_[i].visit(0, whole.count,
                     [&](std::uint64_t a, std::uint64_t b, Cell& c) { f(Region{whole.rank, whole.buffer, a, b - a}, c); });
    }
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

std::vector<int> ranks_of_transfer(const Transfer& t) {
  return t.src == t.dst ? std::vector<int>{t.src} : std::vector<int>{t.src, t.dst};
}

std::vector<int> ranks_in_term(const Term& t) {
  std::vector<int> ranks;
  for (int q = t.lo; q < t.hi; ++q) ranks.push_back(q);
  return ranks;
}

// The error for what `where` names: its transfer and ranks, or its local operation's rank.
[[noreturn]] void fail(CheckErrorKind kind, const Where& where, const std::string& message,
                       const std::vector<Region>& regions = {}, const std::vector<int>& contributors = {}) {
  CheckError e(kind, where.op ? CheckErrorSite::local_operation : CheckErrorSite::transfer, message);
  if (where.op) {
    e.ranks = {where.op->target.rank};
  } else {
    e.transfers = {where.transfer};
    e.ranks = ranks_of_transfer(where.schedule->transfers[where.transfer]);
  }
  e.regions = regions;
  e.contributors = contributors;
  throw e;
}

// The error for the final state of `region` (the schedule's coordinates) of its rank.
[[noreturn]] void fail_final(CheckErrorKind kind, const Region& region, const std::string& message,
                             const std::vector<int>& contributors = {}) {
  CheckError e(kind, CheckErrorSite::final_state, message);
  e.ranks = {region.rank};
  e.regions = {region};
  e.contributors = contributors;
  throw e;
}

void check_bounds(const Schedule& s, const Region& r, const Where& where) {
  if (r.rank < 0 || r.rank >= s.total_ranks)
    fail(CheckErrorKind::rank_out_of_range, where,
         fmt::format("{}: rank {} does not exist ({} ranks)", where.str(), r.rank, s.total_ranks), {r});
  const std::uint64_t size = s.buffer_elements(r.rank, r.buffer);
  if (r.end() > size || r.end() < r.offset)
    fail(CheckErrorKind::region_out_of_range, where,
         fmt::format("{}: {} lies outside the buffer ({} elements)", where.str(), describe_region(r), size), {r});
}

bool overlaps(const Region& a, const Region& b) {
  return a.rank == b.rank && a.buffer == b.buffer && a.offset < b.end() && b.offset < a.end();
}

// storage_of and may_write, with the answer for out-of-place schedules (nothing aliases)
// inline: these run for every one of millions of transfers.
Region real(const Schedule& s, const Region& r) { return s.spec.in_place ? storage_of(s, r) : r; }
bool writable(const Schedule& s, const Region& r) {
  return s.spec.in_place ? may_write(s, r) : r.buffer != BufferKind::input;
}

// Said after errors that aliasing may explain.
std::string in_place_note(const Schedule& s) {
  return s.spec.in_place ? " (in place: the input and the output share storage)" : "";
}

void check_structure(const Schedule& s) {
  int previous_step = 0;
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    const Where where{&s, i, nullptr};
    if (t.step < previous_step || t.step >= s.step_count())
      fail(CheckErrorKind::step_order, where,
           fmt::format("transfer #{}: step {} is out of order or has no label ({} steps)", i, t.step, s.step_count()));
    previous_step = t.step;
    if (t.count == 0)
      fail(CheckErrorKind::empty_transfer, where, where.str() + ": moves no data (empty transfers must be dropped)");
    check_bounds(s, t.source(), where);
    check_bounds(s, t.destination(), where);
    if (overlaps(real(s, t.source()), real(s, t.destination())))
      fail(CheckErrorKind::source_overlaps_destination, where,
           where.str() + ": source and destination overlap" + in_place_note(s), {t.source(), t.destination()});
    if (t.has_operand()) {
      check_bounds(s, t.operand(), where);
      // Exactly the destination is a plain reduce (dst = op(dst, src)); part of it would
      // make the result depend on the order in which elements are written.
      const Region operand = real(s, t.operand()), dst = real(s, t.destination());
      if (overlaps(operand, dst) && operand != dst)
        fail(CheckErrorKind::operand_overlaps_destination, where,
             where.str() + ": its operand " + describe_region(t.operand()) + " overlaps its destination in part" +
                 in_place_note(s),
             {t.operand(), t.destination()});
    }
    if (!writable(s, t.destination()))
      fail(CheckErrorKind::input_written, where, where.str() + ": writes into an input buffer" + in_place_note(s),
           {t.destination()});
  }
  for (const auto* ops : {&s.pre_ops, &s.post_ops})
    for (const LocalOp& op : *ops) {
      const Where where{&s, 0, &op};
      check_bounds(s, op.target, where);
      if (!may_write(s, op.target))
        fail(CheckErrorKind::input_written, where, where.str() + ": writes into an input buffer" + in_place_note(s),
             {op.target});
      if (op.kind == LocalOpKind::copy) {
        check_bounds(s, op.source, where);
        if (op.source.rank != op.target.rank || op.source.count != op.target.count)
          fail(CheckErrorKind::local_copy_mismatch, where,
               where.str() + ": a local copy needs a source of the same length on the same rank", {op.source, op.target});
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
  const CheckErrorKind kind = h == Hazard::read_after_write   ? CheckErrorKind::read_write_conflict_in_step
                              : h == Hazard::write_after_read ? CheckErrorKind::write_read_conflict_in_step
                                                              : CheckErrorKind::conflicting_writes_in_step;
  CheckError e(kind, CheckErrorSite::transfer,
               fmt::format("{}: {} ({}){}", describe_transfer(s, later), what, describe_transfer(s, earlier),
                           in_place_note(s)));
  e.transfers = {later, earlier};
  e.ranks = ranks_of_transfer(b);
  for (int r : ranks_of_transfer(a))
    if (std::find(e.ranks.begin(), e.ranks.end(), r) == e.ranks.end()) e.ranks.push_back(r);
  // The later transfer's side that touches the earlier's: what it reads or writes, then the earlier's.
  e.regions = {h == Hazard::read_after_write ? b.source() : b.destination(),
               h == Hazard::write_after_read ? a.source() : a.destination()};
  throw e;
}

// Fills `moved` (cleared first): the main loop reuses one vector for every transfer.
void read_source_into(SymbolicBuffers& bufs, const Region& src, std::uint64_t dst_offset, const Where& where,
                      std::vector<MovedPiece>& moved) {
  moved.clear();
  const std::int64_t shift = static_cast<std::int64_t>(src.offset) - static_cast<std::int64_t>(dst_offset);
  std::as_const(bufs.map(src)).visit(src.offset, src.end(), [&](std::uint64_t a, std::uint64_t b, const Cell& c) {
    if (!c.written) {
      const Region piece{src.rank, src.buffer, a, b - a};
      fail(CheckErrorKind::read_before_write, where,
           fmt::format("{}: reads {} before anything was written there", where.str(), describe_region(piece)), {piece});
    }
    moved.push_back({a - src.offset + dst_offset, b - src.offset + dst_offset, c.contributions.shifted(shift)});
  });
}

std::vector<MovedPiece> read_source(SymbolicBuffers& bufs, const Region& src, std::uint64_t dst_offset,
                                    const Where& where) {
  std::vector<MovedPiece> moved;
  read_source_into(bufs, src, dst_offset, where, moved);
  return moved;
}

// `dst` is real storage. A barrier's token may hear from a rank twice: its max is
// idempotent (see ScheduleBuilder), so only data reductions reject a repeat.
void apply(SymbolicBuffers& bufs, const Region& dst, Action action, const std::vector<MovedPiece>& moved,
           const Where& where) {
  const bool repeats_allowed = where.schedule->spec.collective == Collective::barrier;
  for (const MovedPiece& m : moved)
    bufs.map(dst).visit(m.begin, m.end, [&](std::uint64_t a, std::uint64_t b, Cell& c) {
      if (action == Action::copy) {
        c = {true, m.contributions};
        return;
      }
      const Region piece{dst.rank, dst.buffer, a, b - a};
      if (!c.written)
        fail(CheckErrorKind::reduce_into_unwritten, where,
             fmt::format("{}: reduces into {}, which was never written", where.str(), describe_region(piece)), {piece});
      if (const auto twice = c.contributions.add(m.contributions); twice && !repeats_allowed)
        fail(CheckErrorKind::double_contribution, where,
             fmt::format("{}: {} already holds {}; adding it again would count it twice", where.str(),
                         describe_region(piece), describe_term(*twice, a, b)),
             {piece}, ranks_in_term(*twice));
    });
}

void run_local_op(SymbolicBuffers& bufs, const Schedule& s, const LocalOp& op) {
  const Where where{&s, 0, &op};
  const Region target = storage_of(s, op.target);
  switch (op.kind) {
    case LocalOpKind::copy:
      apply(bufs, target, Action::copy, read_source(bufs, storage_of(s, op.source), target.offset, where), where);
      break;
    case LocalOpKind::fill_identity:
      bufs.map(target).visit(target.offset, target.end(), [](auto, auto, Cell& c) { c = {true, {}}; });
      break;
    case LocalOpKind::divide:  // scales values; contributions stay
      read_source(bufs, target, target.offset, where);
      break;
    case LocalOpKind::signal:  // the token is "rank r's element 0", wherever it sits
      bufs.map(target).visit(target.offset, target.end(), [&](std::uint64_t a, auto, Cell& c) {
        c = {true, Contributions::of_rank(target.rank, -static_cast<std::int64_t>(a))};
      });
      break;
  }
}

// Compares in the schedule's coordinates: pieces of real storage are shifted back.
void check_piece(const Schedule& s, SymbolicBuffers& bufs, int rank, const ExpectedPiece& want) {
  const Region named{rank, want.buffer, want.offset, want.count};
  if (named.end() > s.buffer_elements(rank, want.buffer))
    fail_final(CheckErrorKind::output_too_small, named,
               fmt::format("at the end {} should hold {}, but the buffer has only {} elements", describe_region(named),
                           want.contributions.describe(named.offset, named.end()), s.buffer_elements(rank, want.buffer)));
  const Region at = storage_of(s, named);
  const std::uint64_t shift = at.offset - named.offset;
  std::as_const(bufs.map(at)).visit(at.offset, at.end(), [&](std::uint64_t pa, std::uint64_t pb, const Cell& c) {
    const std::uint64_t a = pa - shift, b = pb - shift;
    const Region where{rank, want.buffer, a, b - a};
    if (!c.written)
      fail_final(CheckErrorKind::never_written, where,
                 fmt::format("at the end {} was never written; it should hold {}", describe_region(where),
                             want.contributions.describe(a, b)));
    const Contributions have = c.contributions.shifted(static_cast<std::int64_t>(shift));
    if (have == want.contributions) return;
    bool missing = false;
    const auto diff = first_difference(have, want.contributions, &missing);
    const CheckErrorKind kind = !missing                                 ? CheckErrorKind::extra_contribution
                                : s.spec.collective == Collective::barrier ? CheckErrorKind::barrier_incomplete
                                                                           : CheckErrorKind::missing_contribution;
    fail_final(kind, where,
               fmt::format("at the end {} {} {}; it holds {} but should hold {}", describe_region(where),
                           missing ? "lacks" : "wrongly holds", describe_term(*diff, a, b), have.describe(a, b),
                           want.contributions.describe(a, b)),
               ranks_in_term(*diff));
  });
}

void check_final(const Schedule& s, SymbolicBuffers& bufs) {
  for (int r = 0; r < s.spec.ranks; ++r)
    for (const ExpectedPiece& want : expected_output(s, r)) check_piece(s, bufs, r, want);
}

}  // namespace

std::string_view to_string(CheckErrorKind k) {
  switch (k) {
    case CheckErrorKind::step_order: return "step_order";
    case CheckErrorKind::empty_transfer: return "empty_transfer";
    case CheckErrorKind::rank_out_of_range: return "rank_out_of_range";
    case CheckErrorKind::region_out_of_range: return "region_out_of_range";
    case CheckErrorKind::source_overlaps_destination: return "source_overlaps_destination";
    case CheckErrorKind::operand_overlaps_destination: return "operand_overlaps_destination";
    case CheckErrorKind::input_written: return "input_written";
    case CheckErrorKind::local_copy_mismatch: return "local_copy_mismatch";
    case CheckErrorKind::read_write_conflict_in_step: return "read_write_conflict_in_step";
    case CheckErrorKind::write_read_conflict_in_step: return "write_read_conflict_in_step";
    case CheckErrorKind::conflicting_writes_in_step: return "conflicting_writes_in_step";
    case CheckErrorKind::read_before_write: return "read_before_write";
    case CheckErrorKind::reduce_into_unwritten: return "reduce_into_unwritten";
    case CheckErrorKind::double_contribution: return "double_contribution";
    case CheckErrorKind::output_too_small: return "output_too_small";
    case CheckErrorKind::never_written: return "never_written";
    case CheckErrorKind::missing_contribution: return "missing_contribution";
    case CheckErrorKind::extra_contribution: return "extra_contribution";
    case CheckErrorKind::barrier_incomplete: return "barrier_incomplete";
  }
  return "?";
}

std::string describe_region(const Region& r) {
  return fmt::format("rank {} {}[{},{})", r.rank, to_string(r.buffer), r.offset, r.end());
}

std::string describe_transfer(const Schedule& s, std::size_t index) {
  const Transfer& t = s.transfers[index];
  const std::string label = t.step >= 0 && t.step < s.step_count() ? s.step_labels[static_cast<std::size_t>(t.step)] : "?";
  if (t.has_operand())
    return fmt::format("step {} ({}), transfer #{}: {} -> {} reduce_copy with {}", t.step + 1, label, index,
                       describe_region(t.source()), describe_region(t.destination()), describe_region(t.operand()));
  return fmt::format("step {} ({}), transfer #{}: {} -> {} {}", t.step + 1, label, index, describe_region(t.source()),
                     describe_region(t.destination()), to_string(t.action));
}

namespace {

// Tells the observer what `r` (real storage) holds now.
void tell_observer(SymbolicBuffers& bufs, const Region& r, std::size_t transfer, const SymbolicObserver& observe) {
  bufs.map(r).visit(r.offset, r.end(), [&](std::uint64_t a, std::uint64_t b, Cell& c) {
    observe(transfer, Region{r.rank, r.buffer, a, b - a}, c.written ? &c.contributions : nullptr);
  });
}

}  // namespace

CheckReport check_schedule(const Schedule& s) { return check_schedule(s, {}); }

std::uint64_t checker_runs() { return g_checker_runs.load(); }

CheckReport check_schedule(const Schedule& s, const SymbolicObserver& observe) {
  g_checker_runs.fetch_add(1);
  check_structure(s);
  CheckReport report;
  report.dependencies = derive_dependencies(
      s, [&](std::uint32_t earlier, std::uint32_t later, Hazard h) { check_step_conflict(s, earlier, later, h); });

  SymbolicBuffers bufs(s, region_cuts(s, CutAt::writes));  // its pieces are the views' cells
  for (const LocalOp& op : s.pre_ops) run_local_op(bufs, s, op);
  if (observe)
    bufs.visit_all(
        [&](const Region& r, const Cell& c) { observe(kBeforeTransfers, r, c.written ? &c.contributions : nullptr); });
  std::vector<MovedPiece> moved, operand;
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    const Where where{&s, i, nullptr};
    const Region dst = real(s, t.destination());
    read_source_into(bufs, real(s, t.source()), dst.offset, where, moved);
    if (t.has_operand()) {  // dst = op(operand, src): the operand's contributions, then the source's added
      read_source_into(bufs, real(s, t.operand()), dst.offset, where, operand);
      apply(bufs, dst, Action::copy, operand, where);
      apply(bufs, dst, Action::reduce, moved, where);
    } else {
      apply(bufs, dst, t.action, moved, where);
    }
    if (observe) tell_observer(bufs, dst, i, observe);
  }
  for (const LocalOp& op : s.post_ops) {
    run_local_op(bufs, s, op);
    if (observe) tell_observer(bufs, storage_of(s, op.target), kAfterTransfers, observe);
  }
  check_final(s, bufs);
  report.pieces_tracked = bufs.pieces();
  return report;
}

}  // namespace collsim
