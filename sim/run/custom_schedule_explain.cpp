// Explaining why a hand-written schedule is wrong, in a student's words. The checker's
// message is precise but speaks in regions ("rank 2 output[4,6) lacks rank 1's
// input[4,6)"); a student thinks in steps, ranks and chunks ("step 4: rank 3 sends chunk 2
// to rank 0 before it has received rank 1's contribution"). So the explanation starts from
// the checker's error as data (CheckError: its kind and the transfers at fault) and reads
// what every piece held after every transfer from the buffer history that the one check
// recorded up to the failure (BufferHistory::record_until_error); the checker's words are
// only ever quoted, never parsed.
#include <algorithm>

#include <fmt/format.h>

#include "sim/check/buffer_history.h"
#include "sim/check/checker.h"
#include "sim/run/custom_schedule.h"
#include "sim/schedule/partition.h"

namespace collsim {
namespace {

// --- what every piece held, transfer by transfer ------------------------------------------

// A stretch of a buffer and the change in effect there (null: nothing was recorded).
using Piece = HistoryPiece;

// The history asked by order of execution: order 0 is after the pre-operations, i + 1
// after transfer i, and end_order() after the post-operations.
class Replay {
 public:
  Replay(const BufferHistory& h, const Schedule& s) : h_(h), transfers_(s.transfers.size()) {}
  std::size_t end_order() const { return transfers_ + 2; }

  // The pieces of `r` (real storage) as they were before `before` (an order).
  std::vector<Piece> state(const Region& r, std::size_t before) const {
    const std::size_t done = std::min(before > 0 ? before - 1 : 0, transfers_);
    return h_.pieces(r, done, before >= end_order());
  }

  // The transfer a change records, if it is one.
  std::optional<std::size_t> transfer_of(const CellChange* c) const {
    if (!c || c->transfer == kInitialState || c->transfer == kFinalState) return std::nullopt;
    return c->transfer;
  }

 private:
  const BufferHistory& h_;
  std::size_t transfers_;
};

// --- words ------------------------------------------------------------------------------

std::vector<int> ranks_in(const Contributions& c) {
  std::vector<int> ranks;
  for (const Term& t : c.terms())
    for (int q = t.lo; q < t.hi; ++q) ranks.push_back(q);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::vector<int> ranks_in(const std::vector<Piece>& pieces) {
  std::vector<int> all;
  for (const Piece& p : pieces)
    if (p.change && p.change->written)
      for (int q : ranks_in(p.change->contributions)) all.push_back(q);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::vector<int> minus(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<int> common(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// "rank 0", "ranks 0 and 2", "ranks 0, 1 and 3"; long lists are shortened.
std::string rank_list(const std::vector<int>& ranks) {
  if (ranks.size() == 1) return fmt::format("rank {}", ranks[0]);
  std::string s = "ranks ";
  const std::size_t shown = std::min<std::size_t>(ranks.size(), 8);
  for (std::size_t i = 0; i < shown; ++i)
    s += fmt::format("{}{}", i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ", ranks[i]);
  if (shown < ranks.size()) s += fmt::format(" and {} more", ranks.size() - shown);
  return s;
}

// Whether `ranks` is 0..n-1.
bool all_of(const std::vector<int>& ranks, int n) {
  return n > 1 && static_cast<int>(ranks.size()) == n && ranks.back() == n - 1;
}

// "rank 0's contribution", "the contributions of ranks 0 and 2", "the contributions of all 4 ranks".
std::string contributions_of(const std::vector<int>& ranks, int n) {
  if (ranks.empty()) return "no contribution";
  if (ranks.size() == 1) return fmt::format("rank {}'s contribution", ranks[0]);
  return "the contributions of " + (all_of(ranks, n) ? fmt::format("all {} ranks", n) : rank_list(ranks));
}

std::string data_of(const std::vector<int>& ranks, bool reduces, int n) {
  if (reduces) return contributions_of(ranks, n);
  if (ranks.empty()) return "nothing";
  return ranks.size() == 1 ? fmt::format("rank {}'s data", ranks[0]) : "the data of " + rank_list(ranks);
}

std::string it_or_them(const std::vector<int>& ranks) { return ranks.size() == 1 ? "it" : "them"; }

class Words {
 public:
  Words(const ScheduleFile& f, const BuiltSchedule& b) : f_(f), b_(b), s_(b.schedule) {}

  std::size_t file_step(std::size_t t) const { return b_.file_step[t]; }
  const ScheduleFile::Transfer& written(std::size_t t) const {
    return f_.steps[b_.file_step[t]].transfers[b_.file_transfer[t]];
  }
  // "FILE:LINE:COLUMN: step 3 (all-gather 1/3)".
  std::string where(std::size_t t) const {
    const std::size_t step = b_.file_step[t];
    const ScheduleFile::Transfer& x = written(t);
    const std::string& label = f_.steps[step].label;
    if (!x.origin.empty())  // an MSCCL file: its own GPU, thread block and step, then collsim's step
      return fmt::format("{}:{}:{}: {} (collsim's step {})", f_.source, x.at.line, x.at.column, x.origin, step + 1);
    return fmt::format("{}:{}:{}: step {}{}", f_.source, x.at.line, x.at.column, step + 1,
                       label.empty() ? "" : fmt::format(" ({})", label));
  }
  // "chunk 3", "chunk 3 of its input".
  std::string side(const ScheduleFile::Place& p, BufferKind b) const {
    return b == BufferKind::output ? f_.describe(p) : fmt::format("{} of its {}", f_.describe(p), to_string(b));
  }
  // "its chunk 3", "chunk 3 of its scratch".
  std::string own(const ScheduleFile::Place& p, BufferKind b) const {
    return b == BufferKind::output ? "its " + f_.describe(p) : side(p, b);
  }
  // "rank 1 sends chunk 3 to rank 2", "rank 1 sends chunk 3 to rank 2 to reduce it into its chunk 4".
  std::string move(std::size_t t) const {
    const ScheduleFile::Transfer& x = written(t);
    const bool same_place = x.to.chunk == x.from.chunk && x.to.begin == x.from.begin && x.to.end == x.from.end &&
                            x.dst_buffer == BufferKind::output;
    const std::string into = same_place ? "" : " into " + own(x.to, x.dst_buffer);
    const bool reduce = collsim::reduces(x.action);
    if (x.action == Action::reduce_copy) {  // "rank 1 sends chunk 3 to rank 2, which adds its input's chunk 3 into its chunk 3"
      const std::string with = x.operand_buffer == BufferKind::output ? "its " + f_.describe(x.with)
                                                                      : fmt::format("its {}'s {}", to_string(x.operand_buffer), f_.describe(x.with));
      if (x.src == x.dst)
        return fmt::format("rank {} adds {} and {} into {}", x.src, own(x.from, x.src_buffer), with, own(x.to, x.dst_buffer));
      return fmt::format("rank {} sends {} to rank {}, which adds {} to it into {}", x.src, side(x.from, x.src_buffer),
                         x.dst, with, own(x.to, x.dst_buffer));
    }
    if (x.src == x.dst)
      return fmt::format("rank {} {} {} into {}", x.src, reduce ? "reduces" : "copies", own(x.from, x.src_buffer),
                         own(x.to, x.dst_buffer));
    if (reduce)
      return fmt::format("rank {} sends {} to rank {} to reduce it{}", x.src, side(x.from, x.src_buffer), x.dst, into);
    return fmt::format("rank {} sends {} to rank {}{}", x.src, side(x.from, x.src_buffer), x.dst, into);
  }
  // "rank 2's chunk 1" for elements [a, b) of a rank's buffer (schedule coordinates).
  std::string range(int rank, BufferKind buffer, std::uint64_t a, std::uint64_t b) const {
    const std::string owner = buffer == BufferKind::output ? fmt::format("rank {}'s", rank)
                                                           : fmt::format("rank {}'s {}", rank, to_string(buffer));
    const std::uint64_t k = s_.spec.count, per = static_cast<std::uint64_t>(f_.chunks_per_block);
    if (k > 0) {
      const std::uint64_t block = a / k;
      for (std::uint64_t part = 0; part < per; ++part) {
        const Block c = sub_block({block * k, k}, per, part);
        if (c.offset <= a && b <= c.end() && c.count > 0)
          return c.offset == a && c.end() == b
                     ? fmt::format("{} chunk {}", owner, block * per + part)
                     : fmt::format("{} chunk {} (elements [{},{}))", owner, block * per + part, a, b);
      }
    }
    return fmt::format("{} elements [{},{})", owner, a, b);
  }
  // The remedies, in the words of the file's format (a TOML schedule's keys, or MSCCL's step types).
  std::string use_reduce() const { return f_.msccl ? "receive with rrc, rrs or rrcs" : "use action = \"reduce\""; }
  std::string use_copy() const { return f_.msccl ? "receive with r or rcs" : "use action = \"copy\""; }
  std::string both_reduce() const {
    return f_.msccl ? "Make both reduce (rrc, rrs, rrcs or re)" : "Use action = \"reduce\" for both";
  }
  std::string copy_input_first() const {
    return f_.msccl ? " (copy the input to the output first: a cpy from i to o that the send waits for; or send from "
                      "the input: srcbuf=\"i\")"
                    : " (copy the input to the output first: pre = [\"copy input to output\"]; or send from the "
                      "input: src_buffer = \"input\")";
  }
  std::string fill_first(BufferKind b) const {
    return f_.msccl ? " (receive with r or rcs instead, or copy something there first)"
                    : fmt::format(" (copy instead, or fill it first: pre = [\"fill {}\"])", to_string(b));
  }
  bool reduces() const { return collective_reduces(s_.spec.collective); }
  int ranks() const { return s_.spec.ranks; }
  const std::string& file() const { return f_.source; }

 private:
  const ScheduleFile& f_;
  const BuiltSchedule& b_;
  const Schedule& s_;
};

// --- the explanations ----------------------------------------------------------------------

// Two transfers of one step touch the same data (the checker's step conflicts).
std::string explain_conflict(const Words& w, const Schedule& s, CheckErrorKind kind, std::size_t later,
                             std::size_t earlier) {
  const Transfer& l = s.transfers[later];
  const Transfer& e = s.transfers[earlier];
  const std::string same_time = "The transfers of one step happen at the same time";
  if (kind == CheckErrorKind::read_write_conflict_in_step)
    return fmt::format(
        "{}: {}, but in the same step {} writes that data. {}, so rank {} would send what it held before: "
        "move the forward to a later step",
        w.where(later), w.move(later), e.src == e.dst ? "a local transfer" : fmt::format("rank {}", e.src), same_time,
        l.src);
  if (kind == CheckErrorKind::write_read_conflict_in_step)
    return fmt::format(
        "{}: {}, but in the same step rank {} sends that data on ({}). {}, so the data would be overwritten "
        "while it is being sent: move one of them to another step",
        w.where(later), w.move(later), e.src, w.move(earlier), same_time);
  return fmt::format(
      "{}: {}, but in the same step {} also writes there, and not both reduce: one would overwrite the "
      "other. {}, or move one to another step",
      w.where(later), w.move(later), w.move(earlier), w.both_reduce());
}

std::string explain_transfer(const Words& w, const Replay& replay, const Schedule& s, const CheckError& e,
                             std::size_t t) {
  const Transfer& x = s.transfers[t];
  if (e.kind == CheckErrorKind::read_before_write) {
    std::string hint;
    if (x.src_buffer == BufferKind::output && s.buffer_elements(x.src, BufferKind::input) > 0)
      hint = w.copy_input_first();
    else if (x.src_buffer == BufferKind::scratch)
      hint = " (copy something into the scratch buffer first)";
    return fmt::format("{}: {}, but nothing has been written there yet{}", w.where(t), w.move(t), hint);
  }
  if (e.kind == CheckErrorKind::reduce_into_unwritten)
    return fmt::format(
        "{}: {}, but rank {}'s {} holds nothing yet: a reduce adds to what is there{}",
        w.where(t), w.move(t), x.dst, to_string(x.dst_buffer), w.fill_first(x.dst_buffer));
  if (e.kind == CheckErrorKind::double_contribution) {
    const std::vector<Piece> held = replay.state(storage_of(s, x.destination()), t + 1);
    const std::vector<int> have = ranks_in(held);
    const std::vector<int> sent = ranks_in(replay.state(storage_of(s, x.source()), t + 1));
    const std::vector<int> both = common(have, sent);
    // The sender's data already includes all the receiver's: a finished chunk, to be copied.
    const bool finished = !have.empty() && minus(have, sent).empty();
    const std::optional<std::size_t> since = held.size() == 1 ? replay.transfer_of(held[0].change) : std::nullopt;
    return fmt::format(
        "{}: {}, but rank {} already holds {} there{}: reducing would count {} twice{}", w.where(t), w.move(t), x.dst,
        contributions_of(both.empty() ? have : both, w.ranks()),
        since ? fmt::format(" (since step {}, from rank {})", w.file_step(*since) + 1, s.transfers[*since].src) : "",
        it_or_them(both),
        finished ? fmt::format(" (the data rank {} sends already includes everything rank {} holds: "
                               "to replace it, {})",
                               x.src, x.dst, w.use_copy())
                 : "");
  }
  if (e.kind == CheckErrorKind::input_written)
    return fmt::format(
        "{}: {}, but it writes into an input buffer, and inputs are read-only: write into the output (or "
        "a scratch buffer)",
        w.where(t), w.move(t));
  if (e.kind == CheckErrorKind::source_overlaps_destination)
    return fmt::format("{}: {}, but the data it reads and the place it writes overlap", w.where(t), w.move(t));
  return fmt::format("{}: {}: {}", w.where(t), w.move(t), e.what());
}

// Walks back along copies: the first copy that took the incomplete data away from where it
// was last reduced (or started) is the transfer to look at.
std::size_t first_copy_of(const Replay& replay, const Schedule& s, std::size_t t) {
  while (s.transfers[t].action == Action::copy) {
    const std::vector<Piece> src = replay.state(storage_of(s, s.transfers[t].source()), t + 1);
    const std::optional<std::size_t> before = src.size() == 1 ? replay.transfer_of(src[0].change) : std::nullopt;
    if (!before || s.transfers[*before].action != Action::copy) break;
    t = *before;
  }
  return t;
}

struct Shortfall {
  int rank = 0;
  BufferKind buffer = BufferKind::output;
  std::uint64_t begin = 0, end = 0;  // schedule coordinates
  const CellChange* event = nullptr;
  std::vector<int> have, want;
  bool wrong_elements = false;  // the right ranks, the wrong elements of theirs
  std::vector<Term> want_terms;
};

// The first piece of the final state that is not what the collective demands, as the checker
// orders them (rank by rank, piece by piece).
std::optional<Shortfall> first_shortfall(const Replay& replay, const Schedule& s) {
  for (int r = 0; r < s.spec.ranks; ++r)
    for (const ExpectedPiece& want : expected_output(s, r)) {
      const Region named{r, want.buffer, want.offset, want.count};
      const Region at = storage_of(s, named);
      const std::uint64_t shift = at.offset - named.offset;
      for (const Piece& p : replay.state(at, replay.end_order())) {
        const bool written = p.change && p.change->written;
        const Contributions have =
            written ? p.change->contributions.shifted(static_cast<std::int64_t>(shift)) : Contributions();
        if (written && have == want.contributions) continue;
        Shortfall f{r,
                    want.buffer,
                    p.begin - shift,
                    p.end - shift,
                    p.change,
                    written ? ranks_in(have) : std::vector<int>{},
                    ranks_in(want.contributions),
                    false,
                    {}};
        f.wrong_elements = written && f.have == f.want;
        f.want_terms.assign(want.contributions.terms().begin(), want.contributions.terms().end());
        if (!written) f.event = nullptr;
        return f;
      }
    }
  return std::nullopt;
}

// Whether `pieces` hold any of rank q's input elements [lo, hi).
bool holds_any(const std::vector<Piece>& pieces, int q, std::int64_t lo, std::int64_t hi) {
  for (const Piece& p : pieces)
    if (p.change && p.change->written)
      for (const Term& t : p.change->contributions.terms())
        if (t.lo <= q && q < t.hi && static_cast<std::int64_t>(p.begin) + t.delta < hi &&
            lo < static_cast<std::int64_t>(p.end) + t.delta)
          return true;
  return false;
}

// The first copy that overwrote some of rank q's input elements [lo, hi) where they had
// arrived (a copy that should have been a reduce), among transfers [0, before).
std::optional<std::size_t> first_loss(const Replay& replay, const Schedule& s, int q, std::int64_t lo, std::int64_t hi,
                                      std::size_t before) {
  for (std::size_t t = 0; t < before && t < s.transfers.size(); ++t) {
    if (s.transfers[t].action != Action::copy) continue;
    const Region dst = storage_of(s, s.transfers[t].destination());
    if (holds_any(replay.state(dst, t + 1), q, lo, hi) && !holds_any(replay.state(dst, t + 2), q, lo, hi)) return t;
  }
  return std::nullopt;
}

// A piece that lacks contributions. Most often a copy destroyed one on the way; otherwise
// the first copy that carried the incomplete data there forwarded it too early (or a step
// that should have delivered the rest is missing).
std::string explain_missing(const Words& w, const Replay& replay, const Schedule& s, const Shortfall& f,
                            std::size_t writer, const std::vector<int>& missing, const std::string& place) {
  const int q = missing.front();
  std::int64_t lo = 0, hi = 0;  // rank q's input elements the piece should hold
  for (const Term& t : f.want_terms)
    if (t.lo <= q && q < t.hi)
      lo = static_cast<std::int64_t>(f.begin) + t.delta, hi = static_cast<std::int64_t>(f.end) + t.delta;
  if (const std::optional<std::size_t> loss = first_loss(replay, s, q, lo, hi, writer + 1)) {
    const Transfer& x = s.transfers[*loss];
    return fmt::format(
        "{}: {}, which overwrites {} there instead of adding to it ({}), so at the end {} lacks it",
        w.where(*loss), w.move(*loss),
        x.dst == q ? fmt::format("rank {}'s own contribution", q) : contributions_of({q}, w.ranks()), w.use_reduce(),
        place);
  }
  if (collsim::reduces(s.transfers[writer].action))
    return fmt::format(
        "{}: at the end {} holds {} but should hold {}. It was last written in step {} ({}); no transfer "
        "brought it {} after that",
        w.file(), place, data_of(f.have, w.reduces(), w.ranks()), data_of(f.want, w.reduces(), w.ranks()),
        w.file_step(writer) + 1, w.move(writer), contributions_of(missing, w.ranks()));
  const std::size_t t = first_copy_of(replay, s, writer);
  const Transfer& x = s.transfers[t];
  return fmt::format("{}: {} before {} has received {}, so at the end {} lacks {}", w.where(t), w.move(t),
                     x.src == x.dst ? "it" : fmt::format("rank {}", x.src), contributions_of(missing, w.ranks()), place,
                     it_or_them(missing));
}

std::string explain_final(const Words& w, const Replay& replay, const Schedule& s, const ScheduleFile& file,
                          const std::string& m) {
  const std::optional<Shortfall> f = first_shortfall(replay, s);
  if (!f) return fmt::format("{}: at the end the result is wrong: {}", file.source, m);
  const std::string place = w.range(f->rank, f->buffer, f->begin, f->end);
  const std::string should = data_of(f->want, w.reduces(), w.ranks());
  if (!f->event)
    return fmt::format("{}: at the end {} is still empty: it should hold {}, but no transfer ever wrote it",
                       file.source, place, should);
  const std::vector<int> missing = minus(f->want, f->have), extra = minus(f->have, f->want);
  const std::string holds = data_of(f->have, w.reduces(), w.ranks());
  const std::optional<std::size_t> writer = replay.transfer_of(f->event);
  if (!writer)
    return fmt::format(
        "{}: at the end {} still holds only what it held at the start ({}), but it should hold {}: no "
        "transfer ever wrote to it",
        file.source, place, holds, should);
  if (f->wrong_elements)
    return fmt::format(
        "{}: {}, so at the end {} holds data of the right ranks but from the wrong elements: check the "
        "chunks this transfer reads and writes",
        w.where(*writer), w.move(*writer), place);
  if (!missing.empty()) return explain_missing(w, replay, s, *f, *writer, missing, place);
  return fmt::format("{}: {}, so at the end {} holds {}, which does not belong there (it should hold {})",
                     w.where(*writer), w.move(*writer), place, data_of(extra, w.reduces(), w.ranks()), should);
}

}  // namespace

std::string explain_schedule_error(const ScheduleFile& file, const BuiltSchedule& built, const CheckError& e,
                                   const BufferHistory& history) {
  const Schedule& s = built.schedule;
  const std::string m = e.what();  // quoted where no better words exist, never parsed
  const Words w(file, built);
  const Replay replay(history, s);
  const std::vector<std::size_t>& named = e.transfers;
  const bool valid = !named.empty() && named[0] < s.transfers.size() && built.file_step.size() == s.transfers.size();
  if (e.site == CheckErrorSite::final_state) return explain_final(w, replay, s, file, m);
  if (valid && named.size() >= 2 && named[1] < s.transfers.size()) return explain_conflict(w, s, e.kind, named[0], named[1]);
  if (valid) return explain_transfer(w, replay, s, e, named[0]);
  if (e.site == CheckErrorSite::local_operation) return fmt::format("{}: a pre-operation is wrong: {}", file.source, m);
  return fmt::format("{}: {}", file.source, m);
}

}  // namespace collsim
