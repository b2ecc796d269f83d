// Lesson text (captions.h): the facts of a run, the names text may use for them, step
// captions by stage, questions and answers, and the checks that keep the text true.
//
// Every text is a template (text.h) rendered in a scope of names computed here from the
// schedule and the run, never written by hand, so that a lesson stays right when a student
// changes the ranks or the count: "rank {src} sends {bytes_h}" and "{value} bytes" are
// recomputed for every run.
#include "sim/lesson/captions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>

#include "sim/check/buffer_history.h"
#include "sim/core/errors.h"
#include "sim/exec/value_history.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/lesson/suggestion.h"
#include "sim/model/protocol.h"

namespace collsim {
namespace {

using Names = std::vector<std::pair<std::string, TextValue>>;

// "No phase": the names of the lesson alone (an optional<size_t> trips GCC 12's
// -Wmaybe-uninitialized here).
constexpr std::size_t kNoPhase = static_cast<std::size_t>(-1);

// The phase a question names (0-based), or kNoPhase for the whole program.
std::size_t phase_of(const Question& q) { return q.phase > 0 ? static_cast<std::size_t>(q.phase - 1) : kNoPhase; }

void add(Names& n, std::string name, double v) { n.emplace_back(std::move(name), TextValue::of(v)); }
void add(Names& n, std::string name, std::string words) { n.emplace_back(std::move(name), TextValue::of(std::move(words))); }
void add(Names& n, std::string name, const std::optional<double>& v) {
  if (v) add(n, std::move(name), *v);
}

// The value of `name` in `names`, the later entries first (a step's {bytes} before its phase's).
std::optional<TextValue> find_name(const Names& names, std::string_view name) {
  for (auto it = names.rbegin(); it != names.rend(); ++it)
    if (it->first == name) return it->second;
  return std::nullopt;
}

// The names for an error message: "ranks steps p1.steps ..." (without the per-stage ones
// of other phases, to keep it readable).
std::string known_names(const Names& names) {
  std::set<std::string> seen;
  std::string out;
  for (const auto& [name, value] : names) {
    if (!seen.insert(name).second) continue;
    if (name.size() > 2 && name[0] == 'p' && std::isdigit(static_cast<unsigned char>(name[1])) &&
        std::count(name.begin(), name.end(), '.') > 1)
      continue;
    out.append(out.empty() ? "" : " ").append(name);
  }
  return out;
}


std::string range_words(int first, int last) {
  return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
}

// A phase's names, each prefixed ("p2." or "").
void add_phase_names(Names& n, const PhaseFacts& ph, const std::string& prefix) {
  add(n, prefix + "name", ph.name);
  if (!ph.collective) {
    add(n, prefix + "begin_us", ph.begin_us);
    add(n, prefix + "time_us", ph.end_us);
    add(n, prefix + "duration_us", ph.duration_us);
    return;
  }
  add(n, prefix + "collective", ph.collective_name);
  add(n, prefix + "algorithm", ph.algorithm);
  add(n, prefix + "steps", ph.steps);
  add(n, prefix + "transfers", ph.transfers);
  add(n, prefix + "chunks", ph.chunks);
  add(n, prefix + "total_ranks", ph.total_ranks);
  add(n, prefix + "servers", ph.servers);
  add(n, prefix + "ps_servers", ph.ps_servers);
  add(n, prefix + "count", ph.count);
  add(n, prefix + "block_bytes", ph.block_bytes);
  add(n, prefix + "input_bytes", ph.input_bytes);
  add(n, prefix + "output_bytes", ph.output_bytes);
  add(n, prefix + "chunk_bytes", ph.chunk_bytes);
  add(n, prefix + "sent", ph.sent);
  add(n, prefix + "sent_max", ph.sent_max);
  add(n, prefix + "senders_min", ph.senders_min);
  add(n, prefix + "senders_max", ph.senders_max);
  add(n, prefix + "stages", static_cast<double>(ph.stages.size()));
  for (const StageFacts& st : ph.stages) {
    const std::string id = prefix + stage_id(st.name);
    add(n, id + ".first", st.first);
    add(n, id + ".last", st.last);
    add(n, id + ".steps", st.last - st.first + 1);
    add(n, id + ".range", range_words(st.first, st.last));
  }
  add(n, prefix + "begin_us", ph.begin_us);
  add(n, prefix + "time_us", ph.end_us);
  add(n, prefix + "duration_us", ph.duration_us);
  add(n, prefix + "busbw", ph.busbw);
  add(n, prefix + "alone_us", ph.alone_us);
  if (!ph.protocol.empty()) add(n, prefix + "protocol", ph.protocol);
}

// The lesson's names that are not a phase's: ranks, phases, total_us and qK ...
void add_lesson_names(Names& n, const LessonFacts& f) {
  add(n, "ranks", f.ranks);
  const LinkFacts& l = f.link;
  add(n, "topology", l.topology);
  add(n, "link", l.preset);
  add(n, "link_family", l.family);
  add(n, "link_what", l.what);
  add(n, "link_gbps", l.gbps);
  add(n, "link_latency_us", l.latency_us);
  add(n, "link_latency_from", l.latency_from);
  add(n, "protocol_asked", l.protocol);
  add(n, "latency_rule", l.latency_rule);
  add(n, "messages_in_flight", l.messages_in_flight);
  add(n, "uplink", l.uplink_preset);
  add(n, "uplink_family", l.uplink_family);
  add(n, "uplink_what", l.uplink_what);
  add(n, "uplink_gbps", l.uplink_gbps);
  add(n, "uplink_latency_us", l.uplink_latency_us);
  add(n, "uplink_latency_from", l.uplink_latency_from);
  add(n, "straggler", f.straggler.rank);
  add(n, "stragglers", f.straggler.count);
  add(n, "late_us", f.straggler.late_us);
  add(n, "slow", f.straggler.slow);
  add(n, "phases", static_cast<double>(f.phases.size()));
  add(n, "total_us", f.total_us);
  for (std::size_t k = 0; k < f.answers.size(); ++k) add(n, fmt::format("q{}", k + 1), f.answers[k]);
}

// ... and its groups' ("iteration_2.first", "iteration_2.exposed_us").
void add_group_names(Names& n, const LessonFacts& f) {
  for (const GroupFacts& g : f.groups) {
    const std::string id = stage_id(g.name);
    add(n, id + ".first", g.first);
    add(n, id + ".last", g.last);
    add(n, id + ".phases", g.last - g.first + 1);
    add(n, id + ".range", range_words(g.first, g.last));
    if (!g.begin_us || !g.end_us) continue;
    add(n, id + ".begin_us", g.begin_us);
    add(n, id + ".time_us", g.end_us);
    add(n, id + ".duration_us", *g.end_us - *g.begin_us);
    add(n, id + ".during_compute", g.during_compute);
    add(n, id + ".hidden", g.hidden);
    if (!g.compute_end_us) continue;
    add(n, id + ".compute_end_us", g.compute_end_us);
    add(n, id + ".after_compute_us", std::max(0.0, *g.end_us - *g.compute_end_us));
  }
}

// Every name a text of phase `phase` (or kNoPhase) may use, each phase's with its "pK."
// prefix: what rank_dependent compares and an error lists. Rendering looks names up in a
// Scope instead.
Names lesson_scope(const LessonFacts& f, std::size_t phase) {
  Names n;
  add_lesson_names(n, f);
  for (std::size_t k = 0; k < f.phases.size(); ++k) add_phase_names(n, f.phases[k], fmt::format("p{}.", k + 1));
  add_group_names(n, f);
  if (phase < f.phases.size()) {
    add_phase_names(n, f.phases[phase], "");
    add(n, "phase", static_cast<double>(phase + 1));
  }
  return n;
}

// The names a text renders with, looked up where they are kept rather than copied into one
// list per text: the names added on top (a step's, an answer's), then the lesson's and its
// phase's own (lesson_scope without the other phases), then "pK.name", built from phase K's
// facts only when a text names it. Copying every phase's names for every step's caption made
// a lesson's captions quadratic in its phases (issue 32: the lesson-text test spent most of
// its 62 s there).
class Scope {
 public:
  Scope(const LessonFacts* f, std::size_t phase) : facts_(f), phase_(phase) {
    if (f) own_ = own_names(*f, phase);
  }
  Names& top() { return top_; }
  // A suggestion's notice: "was.NAME" is NAME in the run it is suggested from.
  void set_was(const Scope* was) { was_ = was; }

  std::optional<TextValue> find(std::string_view name) const {
    if (was_ && name.starts_with("was.")) return was_->find(name.substr(4));
    if (auto v = find_name(top_, name)) return v;
    if (auto v = find_name(own_, name)) return v;
    return facts_ ? prefixed(name) : std::nullopt;
  }
  // Every name, in lesson_scope's order and then the ones on top: for an error's list.
  Names all() const {
    Names n = facts_ ? lesson_scope(*facts_, phase_) : Names{};
    n.insert(n.end(), top_.begin(), top_.end());
    return n;
  }

 private:
  // lesson_scope's names but the other phases' "pK." ones.
  static Names own_names(const LessonFacts& f, std::size_t phase) {
    Names n;
    add_lesson_names(n, f);
    add_group_names(n, f);
    if (phase < f.phases.size()) {
      add_phase_names(n, f.phases[phase], "");
      add(n, "phase", static_cast<double>(phase + 1));
    }
    return n;
  }
  // "p3.steps": phase 3's "steps".
  std::optional<TextValue> prefixed(std::string_view name) const {
    if (name.size() < 3 || name[0] != 'p') return std::nullopt;
    std::size_t dot = 1, k = 0;
    while (dot < name.size() && std::isdigit(static_cast<unsigned char>(name[dot])))
      k = k * 10 + static_cast<std::size_t>(name[dot++] - '0');
    if (dot == 1 || dot >= name.size() || name[dot] != '.' || k < 1 || k > facts_->phases.size()) return std::nullopt;
    Names& names = phase_names_[k - 1];
    if (names.empty()) add_phase_names(names, facts_->phases[k - 1], "");
    return find_name(names, name.substr(dot + 1));
  }

  const LessonFacts* facts_;
  std::size_t phase_;
  const Scope* was_ = nullptr;
  Names own_, top_;
  mutable std::map<std::size_t, Names> phase_names_;
};

std::string render(std::string_view text, const Scope& scope, const std::string& where) {
  const TextScope lookup = [&scope](std::string_view name) { return scope.find(name); };
  try {
    return render_text(text, lookup, where);
  } catch (const InputError&) {
    // Again, to throw the same error with the names this text knows: the list is built only
    // for the message (building it for every caption of every step was most of a render).
    return render_text(text, lookup, where, known_names(scope.all()));
  }
}

// Before the first step (step 0) they exist too, as nothing moved: step 0, no focus, 0 bytes.
void add_step_names(Names& n, const CaptionContext& c) {
  add(n, "step", c.step);
  // A step with no transfer between ranks has no focus: "-".
  for (const auto& [name, v] : {std::pair{"src", c.src}, {"dst", c.dst}, {"chunk", c.chunk}})
    if (v < 0) add(n, name, std::string("-"));
    else add(n, name, v);
  add(n, "bytes", static_cast<double>(c.bytes));
  add(n, "step_bytes", static_cast<double>(c.step_bytes));
  add(n, "label", c.label);
  add(n, "stage", c.stage);
  add(n, "stage_step", c.stage_step);
  add(n, "stage_steps", c.stage_steps);
}

// --- facts ------------------------------------------------------------------------------------

// `totals`: the whole schedule's where `s` holds one period of its ranks' transfers
// (Schedule::senders_kept): its counts are then the whole's, by symmetry.
PhaseFacts collective_facts(const Phase& phase, const Schedule& s, const ScheduleTotals* totals = nullptr) {
  PhaseFacts ph;
  ph.collective = true;
  ph.name = phase.name;
  ph.collective_name = std::string(to_string(s.spec.collective));
  ph.algorithm = s.algorithm;
  ph.steps = s.step_count();
  ph.transfers = static_cast<int>(s.transfers.size());
  ph.total_ranks = s.total_ranks;
  ph.servers = s.total_ranks - s.spec.ranks;
  ph.ps_servers = phase.request.options.servers;
  ph.count = static_cast<double>(s.spec.count);
  const double size = static_cast<double>(dtype_size(s.spec.dtype));
  ph.block_bytes = ph.count * size;
  if (s.total_ranks > 0) {
    ph.input_bytes = static_cast<double>(s.buffer_elements(0, BufferKind::input)) * size;
    ph.output_bytes = static_cast<double>(s.buffer_elements(0, BufferKind::output)) * size;
  }
  std::vector<std::set<int>> senders(static_cast<std::size_t>(s.step_count()));
  for (const Transfer& t : s.transfers) {
    ph.chunks = std::max(ph.chunks, t.chunk + 1);
    if (ph.chunk_bytes == 0 && !t.is_local()) ph.chunk_bytes = static_cast<double>(s.bytes(t));
    if (!t.is_local() && s.bytes(t) > 0 && t.step >= 0 && t.step < s.step_count()) senders[static_cast<std::size_t>(t.step)].insert(t.src);
  }
  const int turns = s.senders_kept > 0 ? s.total_ranks / s.senders_kept : 1;  // each sender kept stands for this many
  for (const std::set<int>& step : senders) {
    if (step.empty()) continue;  // a step of local work only
    const int n = static_cast<int>(step.size()) * turns;
    ph.senders_min = ph.senders_min == 0 ? n : std::min(ph.senders_min, n);
    ph.senders_max = std::max(ph.senders_max, n);
  }
  if (totals) ph.transfers = static_cast<int>(totals->transfers);
  const std::vector<std::uint64_t> sent = totals ? totals->bytes_sent : bytes_sent_per_rank(s);
  if (!sent.empty()) {
    ph.sent = static_cast<double>(sent[0]);
    ph.sent_max = static_cast<double>(*std::max_element(sent.begin(), sent.end()));
  }
  ph.stages = schedule_stages(s);
  return ph;
}

void add_times(PhaseFacts& ph, const PhaseRun& pr, const ProgramResult& p) {
  if (!p.predicted) return;
  ph.begin_us = pr.begin() / 1000;
  ph.end_us = pr.end() / 1000;
  ph.duration_us = (pr.end() - pr.begin()) / 1000;
  if (pr.run && pr.schedule.transfers.size() == pr.run->schedule.transfers.size()) {
    if (pr.run->model) ph.alone_us = pr.run->model->prediction.total_ns / 1000;
    const Bandwidth bw = bandwidth(pr.run->schedule.spec, static_cast<std::int64_t>(std::llround(pr.end() - pr.begin())));
    if (bw.busbw_gbps) ph.busbw = *bw.busbw_gbps;
  }
  if (pr.run && pr.run->model) ph.protocol = std::string(protocol_label(pr.run->model->topology.protocol));
}

// Every digit a double needs to read back as itself, integers as plain digits ("4000000000").
std::string exact_number(double v) {
  if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e18) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

// --- questions ---------------------------------------------------------------------------
// Steps are counted from 1 here, as the student sees them; Transfer::step counts from 0,
// so "after step k" means every transfer with t.step < k.

std::string_view metric_name(Metric m) {
  switch (m) {
    case Metric::bytes_sent: return "bytes_sent";
    case Metric::bytes_received: return "bytes_received";
    case Metric::transfers: return "transfers";
    case Metric::steps: return "steps";
    case Metric::time_us: return "time_us";
    case Metric::duration_us: return "duration_us";
    case Metric::busbw_gbps: return "busbw_gbps";
    case Metric::contributions: return "contributions";
    case Metric::peak_memory_bytes: return "peak_memory_bytes";
    case Metric::latency_us: return "latency_us";
    case Metric::bandwidth_us: return "bandwidth_us";
    case Metric::idle_fraction: return "idle_fraction";
    case Metric::value: return "value";
    case Metric::exact_value: return "exact_value";
    case Metric::holders: return "holders";
  }
  return "?";
}

[[noreturn]] void refuse(const Question& q, const std::string& why) {
  throw InputError(fmt::format("{}: question '{}' ({}): {}", q.origin, q.text, metric_name(q.metric), why));
}

// A question about a phase, step, rank or chunk this run does not have: under a student's flags
// (two ranks have no step 2) the question does not apply, which answer_question says instead of
// refusing the run. (`collsim validate` still requires every answer of the file as written.)
struct DoesNotApply : InputError {
  using InputError::InputError;
};
[[noreturn]] void not_in_this_run(const std::string& why) { throw DoesNotApply(why); }

// What a phase predicted from one period answers: figures of the whole collective that
// symmetry gives, not a rank's or a step's own counts and values.
bool answered_by_symmetry(Metric m) {
  return m == Metric::steps || m == Metric::latency_us || m == Metric::bandwidth_us || m == Metric::busbw_gbps ||
         is_timing(m);
}

// The phase a question asks about, with its range checked.

const PhaseRun& asked_phase(const Question& q, const ProgramResult& p) {
  const int phases = static_cast<int>(p.phases.size());
  if (q.phase < 1 || q.phase > phases)
    not_in_this_run(fmt::format("phase {} does not exist: the lesson has phases 1..{}{}", q.phase, phases,
                          is_timing(q.metric) ? " (0: the whole program)" : ""));
  const PhaseRun& run = p.phases[static_cast<std::size_t>(q.phase - 1)];
  if (!run.run)
    refuse(q, fmt::format("phase {} is a compute phase; only time_us and duration_us ask about one", q.phase));
  if (holds_one_period(*run.run) && !answered_by_symmetry(q.metric))
    refuse(q, fmt::format("at {} ranks phase {} is predicted from the transfers of one node (ranks 0-{}), which "
                          "answer its steps, times and latency and bandwidth parts but not this; ask it at {} ranks "
                          "or fewer",
                          run.run->schedule.spec.ranks, q.phase, run.run->symmetric_period - 1, kMaxRanks));
  return run;
}

// The step the question means: its own, or the phase's last for 0.
int asked_step(const Question& q, const PhaseRun& phase) {
  const int steps = phase.schedule.step_count();
  if (q.step < 0 || q.step > steps)
    not_in_this_run(fmt::format("step {} does not exist: phase {} has steps 1..{} (0: after the last)", q.step, q.phase,
                          steps));
  return q.step == 0 ? steps : q.step;
}

void check_rank(const Question& q, const PhaseRun& phase) {
  const int ranks = phase.schedule.total_ranks;
  if (q.rank < 0 || q.rank >= ranks)
    not_in_this_run(fmt::format("rank {} does not exist: phase {} has ranks 0..{}", q.rank, q.phase, ranks - 1));
}

double bytes_moved(const Question& q, const PhaseRun& phase, int step, bool sent) {
  check_rank(q, phase);
  std::uint64_t bytes = 0;
  for (const Transfer& t : phase.schedule.transfers)
    if (t.step < step && !t.is_local() && (sent ? t.src : t.dst) == q.rank) bytes += phase.schedule.bytes(t);
  return static_cast<double>(bytes);
}

// The root (of a rooted collective) and every rank that has received bytes from another by `step`.
double holders_after(const PhaseRun& phase, int step) {
  const Schedule& s = phase.schedule;
  std::vector<bool> holds(static_cast<std::size_t>(std::max(s.total_ranks, 0)), false);
  if (collective_has_root(s.spec.collective) && s.spec.root >= 0 && s.spec.root < s.total_ranks) holds[static_cast<std::size_t>(s.spec.root)] = true;
  for (const Transfer& t : s.transfers)
    if (t.step < step && !t.is_local() && s.bytes(t) > 0) holds[static_cast<std::size_t>(t.dst)] = true;
  return static_cast<double>(std::count(holds.begin(), holds.end(), true));
}

double transfers_until(const PhaseRun& phase, int step) {
  return static_cast<double>(std::count_if(phase.schedule.transfers.begin(), phase.schedule.transfers.end(),
                                           [&](const Transfer& t) { return t.step < step; }));
}

// Where rank `rank`'s chunk `chunk` lies, in real storage: the regions its transfers of
// that chunk write on the rank (those in the output when there are any), else the ones
// it sends the chunk from (a broadcast's root).
std::vector<Region> chunk_regions(const Question& q, const Schedule& s) {
  std::vector<Region> into, into_output, from;
  for (const Transfer& t : s.transfers) {
    if (t.chunk != q.chunk) continue;
    if (t.dst == q.rank) {
      into.push_back(storage_of(s, t.destination()));
      if (t.dst_buffer == BufferKind::output) into_output.push_back(into.back());
    }
    if (t.src == q.rank) from.push_back(storage_of(s, t.source()));
  }
  if (!into_output.empty()) return into_output;
  if (!into.empty()) return into;
  if (!from.empty()) return from;
  int chunks = 0;
  for (const Transfer& t : s.transfers) chunks = std::max(chunks, t.chunk + 1);
  if (std::none_of(s.transfers.begin(), s.transfers.end(), [&](const Transfer& t) { return t.chunk == q.chunk; }))
    not_in_this_run(fmt::format("chunk {} does not exist: the collective has chunks 0..{}", q.chunk, chunks - 1));
  refuse(q, fmt::format("rank {} never holds chunk {}", q.rank, q.chunk));
}

// What the chunk's regions hold after the phase's step `step`, from the buffer history the
// run's one check recorded (PrepareOptions::record_history): every cell of the chunk's
// regions holds some set of ranks' contributions; the answer is the fewest (what the whole
// chunk holds), 0 when a cell is still empty. A run prepared without a history (a program
// prepared for another purpose) has it recorded here.
double contributions_after(const Question& q, const PhaseRun& phase, int step) {
  check_rank(q, phase);
  const Schedule& whole = phase.run->schedule;
  const std::vector<Region> chunk = chunk_regions(q, whole);
  const std::shared_ptr<const BufferHistory> history = history_or_record(phase.run->history, whole);
  // The phase's step k is step k + offset of the whole schedule (it may run only part of it).
  int offset = 0;
  if (!phase.schedule.transfers.empty())
    offset = whole.transfers[phase.source_transfer.front()].step - phase.schedule.transfers.front().step;
  int fewest = -1;
  for (const Region& region : chunk) {
    const int row = history->row_of(region.rank, region.buffer);
    if (row < 0) continue;
    const auto [first, last] = history->cells_in(row, region.offset, region.end());
    for (std::uint32_t c = first; c < last; ++c) {
      const CellChange* held = history->state_after_step(c, step + offset);
      const int ranks = held && held->written ? ranks_of(held->contributions).count : 0;
      fewest = fewest < 0 ? ranks : std::min(fewest, ranks);
    }
  }
  return std::max(fewest, 0);
}

// The number at the question's element of rank `rank`'s output after the phase's step `step`:
// as the run computed it, replayed in its type (value), or the exact result (exact_value).
double element_number(const Question& q, const PhaseRun& phase, int step) {
  check_rank(q, phase);
  const RunResult& run = *phase.run;
  const Schedule& whole = run.schedule;
  const std::uint64_t elements = whole.buffer_elements(q.rank, BufferKind::output);
  if (q.element >= elements)
    refuse(q, elements == 0 ? fmt::format("rank {} has no output", q.rank)
                            : fmt::format("element {} does not exist: rank {}'s output has elements 0..{}", q.element,
                                          q.rank, elements - 1));
  if (q.metric == Metric::exact_value) {
    const std::optional<double> exact =
        exact_output_value(whole, run.request.seed, run.request.input_values, q.rank, q.element);
    if (!exact) refuse(q, fmt::format("rank {}'s output element {} has no defined result", q.rank, q.element));
    return *exact;
  }
  int offset = 0;  // the phase's step k is step k + offset of the whole schedule, as in contributions_after
  if (!phase.schedule.transfers.empty())
    offset = whole.transfers[phase.source_transfer.front()].step - phase.schedule.transfers.front().step;
  const int whole_step = step + offset;
  const auto done = static_cast<std::size_t>(
      std::count_if(whole.transfers.begin(), whole.transfers.end(), [&](const Transfer& t) { return t.step < whole_step; }));
  const ValueHistory values = ValueHistory::record(whole, run.request.seed, run.request.input_values);
  const Region at = storage_of(whole, {q.rank, BufferKind::output, q.element, 1});
  return *values.value(at.rank, at.buffer, at.offset, done, whole_step >= whole.step_count());
}

// A span of phases: from the first begin to the last end of phases q.phase..q.last_phase
// (q.last_phase 0: q.phase alone), or the whole program, which starts at 0, for phase 0.
struct Span {
  double begin_ns = 0, end_ns = 0;
};

Span phase_span(const Question& q, const ProgramResult& p) {
  if (!p.predicted) refuse(q, fmt::format("the program has not been predicted ({} needs the timing model)", metric_name(q.metric)));
  if (q.phase == 0) return {0, p.total_ns};
  const int phases = static_cast<int>(p.phases.size()), last = q.last_phase == 0 ? q.phase : q.last_phase;
  if (q.phase < 0 || last < q.phase || last > phases)
    refuse(q, fmt::format("phases {}..{} are no span of the lesson's phases 1..{} (0: the whole program)", q.phase,
                          last, phases));
  Span s{p.phases[static_cast<std::size_t>(q.phase - 1)].begin(), 0};
  for (int k = q.phase; k <= last; ++k) {
    const PhaseRun& pr = p.phases[static_cast<std::size_t>(k - 1)];
    s.begin_ns = std::min(s.begin_ns, pr.begin());
    s.end_ns = std::max(s.end_ns, pr.end());
  }
  return s;
}

// time_us: when the phase, the span or the program ends; duration_us: how long it takes.
double predicted_time_us(const Question& q, const ProgramResult& p) {
  const Span s = phase_span(q, p);
  return (q.metric == Metric::duration_us ? s.end_ns - s.begin_ns : s.end_ns) / 1000;
}

double predicted_busbw(const Question& q, const ProgramResult& p, const PhaseRun& phase) {
  if (!p.predicted) refuse(q, "the program has not been predicted (busbw_gbps needs the timing model)");
  if (phase.schedule.transfers.size() != phase.run->schedule.transfers.size())
    refuse(q, fmt::format("phase {} runs only some steps of its collective, and bus bandwidth is a figure of a whole "
                          "collective (ask about bytes_sent or duration_us instead)",
                          q.phase));
  const double ns = phase.end() - phase.begin();
  const Bandwidth bw = bandwidth(phase.run->schedule.spec, static_cast<std::int64_t>(std::llround(ns)));
  if (!bw.busbw_gbps) refuse(q, fmt::format("phase {} has no bus bandwidth (a barrier, or no time)", q.phase));
  return *bw.busbw_gbps;
}

// The span a rank's metric (is_span) asks about.
Span asked_span(const Question& q, const ProgramResult& p) {
  if (q.rank < 0 || q.rank >= p.total_ranks)
    not_in_this_run(fmt::format("rank {} does not exist: the program has ranks 0..{}", q.rank, p.total_ranks - 1));
  return phase_span(q, p);
}

// The most memory rank q.rank holds at once during the span (program.h, ProgramResult::memory):
// the level when the span begins, and every level it reaches before the span ends.
double peak_memory(const Question& q, const ProgramResult& p, const Span& span) {
  if (q.phase == 0) return p.peak_memory_bytes[static_cast<std::size_t>(q.rank)];
  double peak = 0;
  for (const MemoryPoint& m : p.memory[static_cast<std::size_t>(q.rank)]) {
    if (m.time_ns >= span.end_ns) break;
    peak = m.time_ns <= span.begin_ns ? m.bytes : std::max(peak, m.bytes);
  }
  return peak;
}

// 1 - (the time rank q.rank computes during the span) / (the span): a pipeline's bubble.
double idle_fraction(const Question& q, const ProgramResult& p, const Span& span) {
  const double length = span.end_ns - span.begin_ns;
  if (!(length > 0)) refuse(q, "the span takes no time, so it has no idle fraction");
  double busy = 0;
  const auto r = static_cast<std::size_t>(q.rank);
  for (const PhaseRun& pr : p.phases)
    if (!pr.run && pr.rank_begin_ns[r] >= 0)  // compute phases do not overlap on a rank's compute stream
      busy += std::max(0.0, std::min(pr.rank_end_ns[r], span.end_ns) - std::max(pr.rank_begin_ns[r], span.begin_ns));
  return 1 - busy / length;
}

double span_metric(const Question& q, const ProgramResult& p) {
  const Span span = asked_span(q, p);
  if (q.metric == Metric::peak_memory_bytes) return peak_memory(q, p, span);
  return idle_fraction(q, p, span);
}

// latency_us, bandwidth_us: the phase's whole collective alone, on the topology it was
// predicted on (run->model), once with only α and once with only β, γ, δ counting.
double predicted_part(const Question& q, const ProgramResult& p, const PhaseRun& phase) {
  if (!p.predicted || !phase.run->model)
    refuse(q, fmt::format("the program has not been predicted ({} needs the timing model)", metric_name(q.metric)));
  if (phase.schedule.transfers.size() != phase.run->schedule.transfers.size())
    refuse(q, fmt::format("phase {} runs only some steps of its collective, and the latency and bandwidth parts are "
                          "figures of a whole collective (ask about duration_us instead)",
                          q.phase));
  return cost_part_of_run(*phase.run, q.metric == Metric::latency_us ? CostPart::latency : CostPart::bandwidth) / 1000;
}

// The metrics answered in µs, to 0.1 µs.
bool in_microseconds(Metric m) { return is_timing(m) || m == Metric::latency_us || m == Metric::bandwidth_us; }

double metric_value(const Question& q, const ProgramResult& p, int* step_shown) {
  if (is_span(q.metric)) return span_metric(q, p);
  if (is_timing(q.metric)) return predicted_time_us(q, p);
  const PhaseRun& phase = asked_phase(q, p);
  switch (q.metric) {
    case Metric::steps:
      return phase.schedule.step_count();
    case Metric::busbw_gbps:
      return predicted_busbw(q, p, phase);
    case Metric::bytes_sent:
    case Metric::bytes_received:
    case Metric::transfers:
    case Metric::holders:
    case Metric::contributions: {
      const int step = asked_step(q, phase);
      *step_shown = step;
      if (q.metric == Metric::transfers) return transfers_until(phase, step);
      if (q.metric == Metric::holders) return holders_after(phase, step);
      if (q.metric == Metric::contributions) return contributions_after(q, phase, step);
      return bytes_moved(q, phase, step, q.metric == Metric::bytes_sent);
    }
    case Metric::value:
    case Metric::exact_value: {
      const int step = q.metric == Metric::value ? asked_step(q, phase) : phase.schedule.step_count();
      *step_shown = step;
      return element_number(q, phase, step);
    }
    case Metric::latency_us:
    case Metric::bandwidth_us:
      return predicted_part(q, p, phase);
    case Metric::time_us:
    case Metric::duration_us:
    case Metric::peak_memory_bytes:
    case Metric::idle_fraction:
      break;
  }
  return 0;
}

// --- stage selectors ----------------------------------------------------------------------

// stage_run from the schedule's stages (schedule_stages), found by halving: a caller that
// visits every step of a 32 766-step ring would otherwise walk its stages once per step.
std::pair<int, int> stage_run_in(const std::vector<StageFacts>& stages, int step) {
  const auto it = std::upper_bound(stages.begin(), stages.end(), step,
                                   [](int k, const StageFacts& st) { return k < st.first; });
  if (it == stages.begin() || std::prev(it)->last < step) return {step, step};
  return {std::prev(it)->first, std::prev(it)->last};
}

// The run of consecutive steps (1-based, inclusive) of step `step`'s stage: the whole phase
// when the step has none.
std::pair<int, int> stage_run(const Schedule& s, int step) {
  const std::string_view stage = s.stage_of(step - 1);
  if (stage.empty()) return {1, s.step_count()};
  int first = step, last = step;
  while (first > 1 && s.stage_of(first - 2) == stage) --first;
  while (last < s.step_count() && s.stage_of(last) == stage) ++last;
  return {first, last};
}

struct Selector {
  std::string stage;     // a stage id, or "" for any
  std::string position;  // "first", "last" or "" (every step)
};

Selector parse_selector(std::string_view at) {
  if (at == "every") return {};
  if (at == "first" || at == "last") return {"", std::string(at)};
  const std::size_t dot = at.rfind('.');
  if (dot != std::string_view::npos) {
    const std::string_view tail = at.substr(dot + 1);
    if (tail == "first" || tail == "last") return {std::string(at.substr(0, dot)), std::string(tail)};
  }
  return {std::string(at), ""};
}

// The caption entries a step may show, most specific first; the step's own from the file.
const std::string* own_step_caption(const Phase& phase, const Schedule& s, int step, std::string* where) {
  const auto index = static_cast<std::size_t>(step - 1);
  if (index < phase.step_captions.size() && !phase.step_captions[index].empty()) {
    if (where) *where = index < phase.step_captions_where.size() ? phase.step_captions_where[index] : phase.origin;
    return &phase.step_captions[index];
  }
  int best = -1;
  const Phase::StageCaption* chosen = nullptr;
  for (const Phase::StageCaption& c : phase.stage_captions) {
    const int rank = stage_selector_rank(c.at, s, step);
    if (rank > best) {
      best = rank;
      chosen = &c;
    }
  }
  if (chosen) {
    if (where) *where = chosen->where;
    return &chosen->text;
  }
  if (!phase.step_caption.empty()) {
    if (where) *where = phase.step_caption_where.empty() ? phase.origin : phase.step_caption_where;
    return &phase.step_caption;
  }
  return nullptr;
}

std::string where_or(const std::string& where, const std::string& fallback) { return where.empty() ? fallback : where; }

// --- questions with expressions -----------------------------------------------------------

// The question with its rank, step and chunk expressions evaluated in the run's scope.
Question resolved(const Question& q, const LessonFacts* f) {
  if (q.rank_expr.empty() && q.step_expr.empty() && q.chunk_expr.empty() && q.phase_expr.empty() && q.span_group.empty())
    return q;
  if (!f) refuse(q, "its phase, rank, step or chunk is an expression, and this view has no facts of the run to evaluate it");
  Question out = q;
  if (!q.span_group.empty()) {
    const auto g = std::find_if(f->groups.begin(), f->groups.end(),
                                [&](const GroupFacts& x) { return stage_id(x.name) == q.span_group; });
    if (g == f->groups.end()) {
      std::string known;
      for (const GroupFacts& x : f->groups) known.append(known.empty() ? "" : " ").append(stage_id(x.name));
      refuse(q, fmt::format("phases = \"{}\" names no group of phases (the lesson's groups: {})", q.span_group,
                            known.empty() ? "none" : known));
    }
    out.phase = g->first;
    out.last_phase = g->last;
  }
  if (!q.phase_expr.empty())
    out.phase = std::stoi(render(fmt::format("{{{}:d}}", q.phase_expr), Scope(f, kNoPhase),
                                 fmt::format("{}: key 'phase'", q.origin)));
  const std::size_t phase = phase_of(out);
  const Scope names(f, phase);
  auto evaluate = [&](const std::string& expr, const char* key, int& field) {
    if (expr.empty()) return;
    const std::string text = render(fmt::format("{{{}:d}}", expr), names, fmt::format("{}: key '{}'", q.origin, key));
    field = std::stoi(text);
  };
  evaluate(q.rank_expr, "rank", out.rank);
  evaluate(q.step_expr, "step", out.step);
  evaluate(q.chunk_expr, "chunk", out.chunk);
  return out;
}

// --- literal numbers ----------------------------------------------------------------------------

constexpr std::array<std::string_view, 18> kNumberWords = {
    "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};

// "--ranks 8": a value for a flag is an instruction to the student, not a fact of the run.
bool is_flag_value(std::string_view text, std::size_t at) {
  const std::size_t space = text.rfind(' ', at == 0 ? 0 : at - 1);
  if (space == std::string_view::npos || space + 1 != at) return false;
  const std::size_t word = text.find_last_of(" \n", space == 0 ? 0 : space - 1);
  const std::string_view flag = text.substr(word == std::string_view::npos ? 0 : word + 1);
  return flag.starts_with("--") || flag.starts_with("`--");
}

// "lesson 15", "question 4", "phase 5": a reference to a part of the course or of the file,
// which the rank count does not move (a pattern's generated phases are named by group).
bool is_reference(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && text[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && std::isalpha(static_cast<unsigned char>(text[begin - 1]))) --begin;
  std::string word(text.substr(begin, end - begin));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char x) { return std::tolower(x); });
  return end < at && (word == "lesson" || word == "question" || word == "phase");
}

// "4 MiB", "20 µs", "50 %": sizes, times and shares; the facts compared are counts (ranks,
// steps, chunks), which have no unit.
bool has_unit(std::string_view text, std::size_t end) {
  std::size_t k = end;
  while (k < text.size() && text[k] == ' ') ++k;
  for (std::string_view unit : {"B", "bytes", "KiB", "MiB", "GiB", "KB", "MB", "GB", "TFLOP", "K", "M", "G", "µs", "us", "ms", "ns", "%", "x", "×"})
    if (text.substr(k, unit.size()) == unit &&
        (k + unit.size() >= text.size() || !std::isalpha(static_cast<unsigned char>(text[k + unit.size()]))))
      return true;
  return false;
}

// The numbers written in literal text: digits ("3", "1.5", "4-6" gives 4 and 6) and the
// number words three..twenty. 0, 1 and 2 are left out: "rank 0", "two phases" and
// "2(N-1)/N" are true at every N, and too common to check.
std::vector<std::pair<std::string, double>> literal_numbers(std::string_view text) {
  std::vector<std::pair<std::string, double>> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isdigit(c)) {
      const bool after_word = i > 0 && (std::isalpha(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
      std::size_t j = i;
      while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                                 (text[j] == '.' && j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1])))))
        ++j;
      const std::string digits(text.substr(i, j - i));
      const double v = std::stod(digits);
      if (!after_word && v > 2 && !is_flag_value(text, i) && !has_unit(text, j) && !is_reference(text, i))  // "f32", "nvlink4" are names
        out.emplace_back(digits, v);
      i = j;
      continue;
    }
    if (std::isalpha(c)) {
      std::size_t j = i;
      while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
      std::string word(text.substr(i, j - i));
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char x) { return std::tolower(x); });
      for (std::size_t k = 0; k < kNumberWords.size(); ++k)
        if (word == kNumberWords[k]) out.emplace_back(std::string(text.substr(i, j - i)), static_cast<double>(k + 3));
      i = j;
      continue;
    }
    ++i;
  }
  return out;
}

// The facts that change with the rank count: names whose value differs between the two runs
// (or exist in only one), with their value at `f`.
std::vector<std::pair<std::string, double>> rank_dependent(const LessonFacts& f, const LessonFacts& other,
                                                           std::size_t phase) {
  const Names here = lesson_scope(f, phase), there = lesson_scope(other, phase);
  std::map<std::string, TextValue> at_other;
  for (const auto& [name, v] : there) at_other.emplace(name, v);
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, v] : here) {
    if (!v.is_number) continue;
    const auto it = at_other.find(name);
    if (it != at_other.end() && it->second.is_number && it->second.number == v.number) continue;
    out.emplace_back(name, v.number);
  }
  return out;
}

void warn_literals(std::string_view text, const std::string& where, const std::vector<std::pair<std::string, double>>& facts,
                   int ranks, std::string_view changed_by, std::vector<std::string>& out) {
  if (text.empty()) return;
  ParsedText parsed;
  try {
    parsed = parse_text(text, where);
  } catch (const InputError&) {
    return;  // check_lesson_text reports it
  }
  // The lesson's own names first in the suggestion ("{steps}" rather than "{p1.steps}").
  std::vector<std::pair<std::string, double>> ordered = facts;
  std::stable_partition(ordered.begin(), ordered.end(), [](const auto& x) {
    return !(x.first.size() > 1 && x.first[0] == 'p' && std::isdigit(static_cast<unsigned char>(x.first[1])));
  });
  std::set<std::string> said;
  for (const std::string& literal : parsed.literals)
    for (const auto& [written, value] : literal_numbers(literal)) {
      // A time or a bandwidth printed rounded can equal a literal by chance: only facts
      // that are counts and sizes (integers) are compared.
      const auto fact = std::find_if(ordered.begin(), ordered.end(), [&, value = value](const auto& x) {
        return x.second == value && x.second == std::round(x.second) && !x.first.ends_with("_us") &&
               !x.first.ends_with("busbw") && !(x.first.size() > 1 && x.first[0] == 'q');
      });
      if (fact == ordered.end() || !said.insert(written).second) continue;
      if (!changed_by.empty()) {
        out.push_back(fmt::format("{}: '{}' is {} here, which the lesson's own suggestion {} changes: write {{{}}}", where,
                                  written, fact->first, changed_by, fact->first));
        continue;
      }
      out.push_back(fmt::format("{}: '{}' is {} at {} ranks, which changes with --ranks: write {{{}}} (or set "
                                "ranks_fixed = true if the text is meant for {} ranks only)",
                                where, written, fact->first, ranks, fact->first, ranks));
    }
}

}  // namespace

// --- the links and the suggestions ----------------------------------------------------------------

namespace {

// One kind of link as the run has it: its preset, and its figures with what overrides them.
struct OneLink {
  std::string preset, family, what, latency_from;
  double gbps = 0, latency_us = 0;
};

OneLink one_link(const std::string& name, const std::optional<double>& gbps, const std::optional<double>& latency,
                 Protocol protocol) {
  OneLink l;
  const LinkPreset* preset = find_link_preset(name);
  if (!preset) return l;
  l.preset = (gbps || latency) ? "custom" : name;
  l.family = std::string(preset->family);
  l.what = std::string(preset->what);
  l.gbps = gbps.value_or(preset->bandwidth_gbps);
  l.latency_us = latency.value_or(preset->latency_us);
  l.latency_from = latency ? "as given (a flag or the file's [topology])" : std::string(preset->latency_from);
  // Under a protocol every hop takes the protocol's latency for its class of link (unless given);
  // auto's choice is a phase's (PhaseFacts::protocol), so its per-hop figure is not one number.
  if (!latency && protocol == Protocol::automatic) l.latency_from = "per hop, of the NCCL protocol the model picks for each phase";
  if (const std::optional<ProtocolFigures> pf = protocol_figures(protocol); pf && !latency) {
    l.latency_us = pf->hop_latency(preset->link_class);
    l.latency_from = fmt::format("NCCL's per-hop latency for {} on this class of link (src/graph/tuning.cc, hwLat)",
                                 protocol_label(protocol));
  }
  // Figures that are not the preset's make it another link: a sentence "on NVLink" says so.
  if (gbps || latency) {
    const std::string changed = fmt::format(" (figures changed: {:g} GB/s, {:g} µs)", l.gbps, l.latency_us);
    l.family += changed;
    l.what += changed;
  }
  return l;
}

LinkFacts link_facts(const Scenario& s) {
  const TopologyConfig& c = s.topology;
  LinkFacts l;
  l.topology = std::string(to_string(c.kind));
  l.protocol = std::string(to_string(c.protocol));
  l.latency_rule = std::string(to_string(c.latency_rule));
  l.messages_in_flight = c.latency_rule == LatencyRule::delay ? kMessagesInFlight : 1;
  const OneLink rank = one_link(c.link.empty() ? std::string(default_link_preset(c.kind)) : c.link, c.bandwidth_gbps,
                                c.latency_us, c.protocol);
  std::tie(l.preset, l.family, l.what, l.latency_from, l.gbps, l.latency_us) =
      std::tie(rank.preset, rank.family, rank.what, rank.latency_from, rank.gbps, rank.latency_us);
  if (has_uplinks(c.kind)) {
    const OneLink up = one_link(c.uplink.empty() ? std::string(default_uplink_preset(c.kind)) : c.uplink,
                                c.uplink_bandwidth_gbps, c.uplink_latency_us, c.protocol);
    std::tie(l.uplink_preset, l.uplink_family, l.uplink_what, l.uplink_latency_from, l.uplink_gbps, l.uplink_latency_us) =
        std::tie(up.preset, up.family, up.what, up.latency_from, up.gbps, up.latency_us);
  }
  return l;
}

StragglerFacts straggler_facts(const TopologyConfig& c) {
  StragglerFacts st;
  st.count = static_cast<int>(c.stragglers.size());
  if (c.stragglers.empty()) return st;
  st.rank = c.stragglers.front().rank;
  st.late_us = c.stragglers.front().late_us;
  st.slow = c.stragglers.front().slow;
  return st;
}

// Whether suggestion `t` applied to `s` (as `v`) changes nothing the run depends on.
bool changes_nothing(const Scenario& s, const Suggestion& t, const Scenario& v) {
  return t.edited_text.empty() && v.ranks == s.ranks && v.topology == s.topology &&
         v.request.spec.count == s.request.spec.count && v.request.algorithm == s.request.algorithm &&
         v.request.spec.collective == s.request.spec.collective && v.request.options.servers == s.request.options.servers &&
         v.request.options.slices == s.request.options.slices && v.request.spec.dtype == s.request.spec.dtype &&
         v.request.seed == s.request.seed;
}

// Suggestion k run on the model, its notice rendered with its facts (and the run's as was.NAME).
// One that changes nothing is not run again (at 16 384 ranks a run of lesson 22 takes seconds).
SuggestionFacts suggestion_facts(const Scenario& s, const LessonFacts& f, std::size_t k) {
  const Suggestion& t = s.suggestions[k];
  SuggestionFacts out{t.change, {}, {}};
  SuggestedRun run;
  try {
    if (changes_nothing(s, t, apply_suggestion(s, k))) {
      out.notice = "this run has it already";  // its notice would compare the run with itself
      return out;
    }
    run = run_suggestion(s, k);
  } catch (const InputError& e) {
    // The reason, without the suggestion's origin and change that the line shows already.
    const std::string prefix = suggestion_name(t) + ": ";
    const std::string why = e.what();
    out.not_here = why.starts_with(prefix) ? why.substr(prefix.size()) : why;
    return out;
  }
  if (t.notice.empty()) return out;
  const std::size_t single = run.facts.phases.size() == 1 ? 0 : kNoPhase;
  const Scope was(&f, f.phases.size() == 1 ? 0 : kNoPhase);
  Scope scope(&run.facts, single);
  scope.set_was(&was);
  out.notice = render(t.notice, scope, t.notice_where);
  return out;
}

// The description's last paragraph: "Try:" and a line per suggestion.
std::string suggestion_lines(const LessonFacts& f) {
  if (f.suggestions.empty()) return "";
  std::string out = "\n\nTry:";
  for (const SuggestionFacts& t : f.suggestions) {
    out += "\n- " + t.change;
    if (!t.not_here.empty()) out += " (not from this run: " + t.not_here + ")";
    else if (!t.notice.empty()) out += ": " + t.notice;
  }
  return out;
}

}  // namespace

// --- public ------------------------------------------------------------------------------------

std::string stage_id(std::string_view stage) {
  std::string id;
  for (char c : stage) id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '_';
  return id;
}

std::vector<StageFacts> schedule_stages(const Schedule& s) {
  std::vector<StageFacts> out;
  for (int k = 0; k < s.step_count(); ++k) {
    const std::string_view stage = s.stage_of(k);
    if (stage.empty()) continue;
    if (!out.empty() && out.back().name == stage && out.back().last == k) {
      out.back().last = k + 1;
      continue;
    }
    out.push_back({std::string(stage), k + 1, k + 1});
  }
  return out;
}

// The groups' spans, and their times from the phases' predicted ones.
std::vector<GroupFacts> group_facts(const Scenario& s, const std::vector<PhaseFacts>& phases) {
  std::vector<GroupFacts> groups;
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const std::string& g = s.phases[k].group;
    if (g.empty()) continue;
    const int number = static_cast<int>(k) + 1;
    if (!groups.empty() && groups.back().name == g && groups.back().last == number - 1) groups.back().last = number;
    else groups.push_back({.name = g, .first = number, .last = number});
  }
  for (GroupFacts& g : groups) {
    std::vector<std::pair<double, double>> computing;  // the group's compute phases' spans, merged
    for (int k = g.first; k <= g.last; ++k) {
      const PhaseFacts& ph = phases[static_cast<std::size_t>(k - 1)];
      if (!ph.begin_us || !ph.end_us) return groups;  // not predicted: spans only
      g.begin_us = std::min(g.begin_us.value_or(*ph.begin_us), *ph.begin_us);
      g.end_us = std::max(g.end_us.value_or(*ph.end_us), *ph.end_us);
      if (s.phases[static_cast<std::size_t>(k - 1)].kind != PhaseKind::compute) continue;
      computing.emplace_back(*ph.begin_us, *ph.end_us);
      g.compute_end_us = std::max(g.compute_end_us.value_or(*ph.end_us), *ph.end_us);
    }
    if (computing.empty()) continue;
    std::sort(computing.begin(), computing.end());
    std::vector<std::pair<double, double>> merged = {computing.front()};
    for (const auto& [b, e] : computing) {
      if (b <= merged.back().second) merged.back().second = std::max(merged.back().second, e);
      else merged.emplace_back(b, e);
    }
    const auto covered = [&](double b, double e) {
      return std::any_of(merged.begin(), merged.end(), [&](const auto& m) { return m.first <= b && e <= m.second; });
    };
    for (int k = g.first; k <= g.last; ++k) {
      const PhaseFacts& ph = phases[static_cast<std::size_t>(k - 1)];
      if (s.phases[static_cast<std::size_t>(k - 1)].kind != PhaseKind::collective || *ph.begin_us < computing.front().first) continue;
      ++g.during_compute;
      g.hidden += covered(*ph.begin_us, *ph.end_us);
    }
  }
  return groups;
}

LessonFacts lesson_facts(const Scenario& s, const ProgramResult& p) {
  LessonFacts f;
  f.ranks = s.ranks;
  f.link = link_facts(s);
  f.straggler = straggler_facts(s.topology);
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const Phase& phase = s.phases[k];
    PhaseFacts ph;
    if (k < p.phases.size() && p.phases[k].run) {
      const RunResult& run = *p.phases[k].run;
      ph = collective_facts(phase, p.phases[k].schedule, holds_one_period(run) ? &run.totals : nullptr);
    }
    else ph.name = phase.name;
    if (k < p.phases.size()) add_times(ph, p.phases[k], p);
    f.phases.push_back(std::move(ph));
  }
  if (p.predicted) f.total_us = p.total_ns / 1000;
  f.groups = group_facts(s, f.phases);
  for (const Question& q : s.questions) {
    try {
      const Answer a = answer_question(q, p, &f);
      f.answers.push_back(a.applies ? std::optional<double>(a.value) : std::nullopt);
    } catch (const InputError&) {
      f.answers.push_back(std::nullopt);  // answer_question says why where it is asked
    }
  }
  for (std::size_t k = 0; k < s.suggestions.size(); ++k) f.suggestions.push_back(suggestion_facts(s, f, k));
  return f;
}

LessonFacts single_run_facts(const Scenario& s, const Schedule& schedule) {
  const CollectiveSpec& a = schedule.spec;
  const CollectiveSpec& b = s.request.spec;
  const bool same = a.collective == b.collective && a.ranks == b.ranks && a.count == b.count && schedule.algorithm == s.request.algorithm;
  if (s.format >= 2 && s.single_collective() && same) {
    // A lesson's text may name its times and answers, and its suggestions compare with them
    // (was.duration_us): its program on the model, which is cheap for one collective.
    ProgramResult p = prepare_program(s, /*model_only=*/true);
    predict_program(p, s, s.topology);
    return lesson_facts(s, p);
  }
  LessonFacts f;
  f.ranks = schedule.spec.ranks;
  if (!s.phases.empty()) f.phases.push_back(collective_facts(s.phases[0], schedule));
  f.link = link_facts(s);
  f.straggler = straggler_facts(s.topology);
  for (std::size_t k = 0; k < s.suggestions.size(); ++k) f.suggestions.push_back(suggestion_facts(s, f, k));
  return f;
}

CaptionContext caption_context(const Schedule& phase_schedule, int step, int phase_number, int phases,
                               const std::vector<StageFacts>* stages) {
  const int steps = phase_schedule.step_count();
  if (step < 0 || step > steps)
    throw InputError(fmt::format("caption of step {}: the phase has steps 1..{}", step, steps));
  CaptionContext c;
  c.step = step;
  c.steps = steps;
  c.phase = phase_number;
  c.phases = phases;
  c.ranks = phase_schedule.spec.ranks;
  if (step == 0) return c;
  c.label = phase_schedule.step_labels[static_cast<std::size_t>(step - 1)];
  c.stage = std::string(phase_schedule.stage_of(step - 1));
  if (!c.stage.empty()) {
    const auto [first, last] = stages ? stage_run_in(*stages, step) : stage_run(phase_schedule, step);
    c.stage_step = step - first + 1;
    c.stage_steps = last - first + 1;
  }

  // The focus: rank 0's first send to another rank, else any first send, else the first.
  const Transfer* first = nullptr;
  const Transfer* first_remote = nullptr;
  const Transfer* rank0_remote = nullptr;
  // The step's own transfers only (a scan of the whole schedule per step made a lesson's
  // captions cost steps × transfers: minutes for a ring at 1024 ranks).
  const auto& all = phase_schedule.transfers;
  for (std::size_t i = phase_schedule.step_first(step - 1), end = phase_schedule.step_first(step); i < end; ++i) {
    const Transfer& t = all[i];
    if (!first) first = &t;
    if (t.is_local()) continue;
    c.step_bytes += phase_schedule.bytes(t);
    if (!first_remote) first_remote = &t;
    if (!rank0_remote && t.src == 0) rank0_remote = &t;
  }
  if (phase_schedule.senders_kept > 0)  // one period of the ranks: the step's bytes are the whole's
    c.step_bytes *= static_cast<std::uint64_t>(phase_schedule.total_ranks / phase_schedule.senders_kept);
  const Transfer* focus = rank0_remote ? rank0_remote : first_remote ? first_remote : first;
  if (focus) {
    c.src = focus->src;
    c.dst = focus->dst;
    c.chunk = focus->chunk;
    c.bytes = phase_schedule.bytes(*focus);
  }
  return c;
}

void check_stage_selector(std::string_view at, const std::string& where) {
  const Selector sel = parse_selector(at);
  const bool word = !sel.stage.empty() && std::all_of(sel.stage.begin(), sel.stage.end(), [](unsigned char c) {
    return std::islower(c) || std::isdigit(c) || c == '_';
  });
  if (sel.stage.empty() || word) return;
  throw InputError(fmt::format("{}: '{}' selects no steps: write \"every\", \"first\", \"last\", a stage such as "
                               "\"reduce_scatter\" (lower case, '_' for '-' and spaces), or \"reduce_scatter.first\" "
                               "/ \"reduce_scatter.last\"",
                               where, at));
}

int stage_selector_rank(std::string_view at, const Schedule& s, int step) {
  if (step < 1 || step > s.step_count()) return -1;
  const Selector sel = parse_selector(at);
  if (!sel.stage.empty() && (s.stage_of(step - 1).empty() || stage_id(s.stage_of(step - 1)) != sel.stage)) return -1;
  const auto [first, last] = sel.stage.empty() ? std::pair{1, s.step_count()} : stage_run(s, step);
  if (sel.position == "first" && step != first) return -1;
  if (sel.position == "last" && step != last) return -1;
  const bool positioned = !sel.position.empty();
  return positioned ? (sel.stage.empty() ? 2 : 3) : (sel.stage.empty() ? 0 : 1);
}

CaptionParts caption_parts(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                           int step, const std::vector<StageFacts>* stages) {
  const Phase& phase = s.phases.at(index);
  const int number = static_cast<int>(index) + 1, phases = static_cast<int>(s.phases.size());
  const bool collective = phase.kind == PhaseKind::collective;
  // Not `collective ? phase_schedule : Schedule{}`: that copies the whole schedule, once per step.
  static const Schedule none;
  const CaptionContext c =
      caption_context(collective ? phase_schedule : none, collective ? step : 0, number, phases, stages);
  Scope names(&f, index);
  add_step_names(names.top(), c);
  CaptionParts out;
  out.lesson = render(s.caption, names, where_or(s.caption_where, s.source));
  if (c.step == 0) {
    out.phase = render(phase.caption, names, where_or(phase.caption_where, phase.origin));
    return out;
  }
  std::string where;
  if (const std::string* own = own_step_caption(phase, phase_schedule, c.step, &where))
    out.step = render(*own, names, where_or(where, phase.origin));
  return out;
}

std::string shown_caption(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                          int step) {
  CaptionParts parts = caption_parts(s, f, index, phase_schedule, step);
  if (step > 0 && parts.step.empty() && s.phases.at(index).kind == PhaseKind::collective)
    parts.step = phase_schedule.step_labels.at(static_cast<std::size_t>(step - 1));
  std::string text = parts.lesson;
  for (const std::string* part : {&parts.phase, &parts.step}) {
    if (part->empty()) continue;
    if (!text.empty()) text += ' ';
    text += *part;
  }
  return text;
}

std::string step_caption(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                         int step) {
  if (step == 0) return {};
  const std::string own = caption_parts(s, f, index, phase_schedule, step).step;
  return own.empty() ? phase_schedule.step_labels.at(static_cast<std::size_t>(step - 1)) : own;
}

std::string lesson_description(const Scenario& s, const LessonFacts& f) {
  // A lesson of one phase may name its facts unprefixed; with more, they need pK.
  const std::size_t phase = f.phases.size() == 1 ? 0 : kNoPhase;
  return render(s.description, Scope(&f, phase), where_or(s.description_where, s.source)) + suggestion_lines(f);
}

std::string question_text(const Scenario& s, const LessonFacts& f, std::size_t k) {
  const Question q = resolved(s.questions.at(k), &f);
  const std::size_t phase = phase_of(q);
  return render(q.text, Scope(&f, phase), fmt::format("{}: key 'question[{}].text'", q.origin, k + 1));
}

namespace {
Answer answer_with(const Question& asked, const ProgramResult& p, const LessonFacts* f, std::optional<double> known) {
  const Question q = resolved(asked, f);
  int step_shown = q.step;
  Answer a;
  const bool part = q.metric == Metric::latency_us || q.metric == Metric::bandwidth_us;
  try {
    a.value = part && known ? *known : metric_value(q, p, &step_shown);
  } catch (const DoesNotApply& e) {
    a.value = std::numeric_limits<double>::quiet_NaN();
    a.applies = false;
    a.text = fmt::format("does not apply to this run: {}", e.what());
    return a;
  }
  Scope scope(f, f ? phase_of(q) : kNoPhase);
  Names& names = scope.top();
  // Times to 0.1 µs, as the phase table prints them, so that answers can be subtracted.
  // Times to 0.1 µs, as the phase table prints them, so that answers can be subtracted; an
  // element's number in full (the last bits are the point): the shortest form that reads back exactly.
  TextValue value = TextValue::of(a.value);
  if (in_microseconds(q.metric)) value.shown = fmt::format("{:.1f}", a.value);
  if (is_element_value(q.metric)) value.shown = exact_number(a.value);
  names.emplace_back("value", value);
  add(names, "value_h", format_bytes(a.value));
  add(names, "rank", q.rank);
  add(names, "step", step_shown);
  add(names, "chunk", q.chunk);
  add(names, "element", static_cast<double>(q.element));
  add(names, "phase", q.phase);
  const std::string_view answer = q.answer.empty() ? std::string_view("{value}") : std::string_view(q.answer);
  try {
    a.text = render(answer, scope, fmt::format("{}: key 'answer'", q.origin));
  } catch (const InputError&) {
    if (f) throw;
    a.text = std::string(answer);  // no facts to render the lesson's names with: as written (captions.h)
  }
  return a;
}
}  // namespace

Answer answer_question(const Question& q, const ProgramResult& p, const LessonFacts* f) {
  return answer_with(q, p, f, std::nullopt);
}

Answer answer_question(const Scenario& s, std::size_t k, const ProgramResult& p, const LessonFacts& f) {
  return answer_with(s.questions.at(k), p, &f, k < f.answers.size() ? f.answers[k] : std::nullopt);
}

std::vector<Answer> answer_questions(const Scenario& s, const ProgramResult& p, const LessonFacts& f) {
  std::vector<Answer> answers;
  for (std::size_t k = 0; k < s.questions.size(); ++k) answers.push_back(answer_question(s, k, p, f));
  return answers;
}

void check_lesson_text(const Scenario& s, const ProgramResult& p, const LessonFacts& f, bool answers) {
  lesson_description(s, f);
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const bool collective = k < p.phases.size() && p.phases[k].run;
    const Schedule none;
    const Schedule& schedule = collective ? p.phases[k].schedule : none;
    const std::vector<StageFacts> stages = schedule_stages(schedule);
    for (int step = 0; step <= schedule.step_count(); ++step) caption_parts(s, f, k, schedule, step, &stages);
  }
  for (std::size_t k = 0; k < s.questions.size(); ++k) {
    question_text(s, f, k);
    if (answers) answer_question(s, k, p, f);
  }
}

std::vector<std::string> lesson_text_warnings(const Scenario& s, const LessonFacts& f, const LessonFacts& other,
                                              std::string_view changed_by) {
  std::vector<std::string> out;
  if (s.ranks_fixed && changed_by.empty()) return out;
  const std::size_t single = f.phases.size() == 1 ? 0 : kNoPhase;
  const auto lesson_facts_changing = rank_dependent(f, other, single);
  warn_literals(s.description, where_or(s.description_where, s.source), lesson_facts_changing, f.ranks, changed_by, out);
  warn_literals(s.caption, where_or(s.caption_where, s.source), lesson_facts_changing, f.ranks, changed_by, out);
  for (std::size_t k = 0; k < s.phases.size() && k < s.file_phases; ++k) {
    const Phase& phase = s.phases[k];
    const auto changing = rank_dependent(f, other, k);
    warn_literals(phase.caption, where_or(phase.caption_where, phase.origin), changing, f.ranks, changed_by, out);
    warn_literals(phase.step_caption, where_or(phase.step_caption_where, phase.origin), changing, f.ranks, changed_by, out);
    for (const Phase::StageCaption& c : phase.stage_captions) warn_literals(c.text, c.where, changing, f.ranks, changed_by, out);
    if (!phase.step_captions.empty() && changed_by.empty())
      out.push_back(fmt::format("{}: step_captions attach captions to step numbers, which move when --ranks changes the "
                                "step count: use stage_captions (at = \"reduce_scatter.last\", ...), or set "
                                "ranks_fixed = true",
                                phase.step_captions_where.empty() ? phase.origin : phase.step_captions_where.front()));
  }
  for (std::size_t k = 0; k < s.questions.size(); ++k) {
    const Question& q = s.questions[k];
    const std::size_t phase = phase_of(q);
    const auto changing = rank_dependent(f, other, phase);
    warn_literals(q.text, fmt::format("{}: key 'question[{}].text'", q.origin, k + 1), changing, f.ranks, changed_by, out);
    warn_literals(q.answer, fmt::format("{}: key 'question[{}].answer'", q.origin, k + 1), changing, f.ranks, changed_by, out);
    const bool steps_change = phase < f.phases.size() && phase < other.phases.size() &&
                              f.phases[phase].steps != other.phases[phase].steps;
    if (q.step > 0 && q.step_expr.empty() && steps_change && changed_by.empty())
      out.push_back(fmt::format("{}: key 'question[{}].step': step = {} names another step when --ranks changes the step "
                                "count: write the step as an expression, such as step = \"reduce_scatter.last\"",
                                q.origin, k + 1, q.step));
  }
  return out;
}

}  // namespace collsim
