// Captions and questions of lessons (captions.h).
//
// Both are templates with {name} placeholders, filled from the schedule and the run
// rather than written by hand, so that a lesson stays right when a student changes the
// ranks or the count: "rank {src} sends {bytes} B" and "{value} bytes" are recomputed.
#include "sim/lesson/captions.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "sim/check/buffer_history.h"
#include "sim/core/errors.h"
#include "sim/exec/value_history.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"

namespace collsim {
namespace {

constexpr std::string_view kCaptionNames[] = {"src",   "dst",    "chunk",  "bytes", "step",  "steps",
                                              "step_bytes", "phase", "phases", "ranks", "label"};
// value_h: the value as a human size ("9.0 MiB"), for the metrics that count bytes.
constexpr std::string_view kAnswerNames[] = {"value", "value_h", "rank", "step", "chunk", "element", "phase"};

// Walks a template: literal text and "{{" / "}}" go to `literal`, each {name} to
// `placeholder`. Throws InputError (prefixed by `where`) for an unclosed '{' or a lone '}'.
void scan_template(std::string_view text, const std::string& where, const std::function<void(std::string_view)>& literal,
                   const std::function<void(std::string_view)>& placeholder) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t brace = text.find_first_of("{}", i);
    if (brace == std::string_view::npos) {
      literal(text.substr(i));
      return;
    }
    literal(text.substr(i, brace - i));
    const char c = text[brace];
    if (brace + 1 < text.size() && text[brace + 1] == c) {  // "{{" or "}}": a literal brace
      literal(text.substr(brace, 1));
      i = brace + 2;
      continue;
    }
    if (c == '}')
      throw InputError(fmt::format("{}: unmatched '}}' at character {} of the caption (write '}}}}' for a brace)",
                                   where, brace + 1));
    const std::size_t close = text.find_first_of("{}", brace + 1);
    if (close == std::string_view::npos || text[close] != '}')
      throw InputError(fmt::format("{}: unclosed '{{' at character {} of the caption (write '{{{{' for a brace)",
                                   where, brace + 1));
    placeholder(text.substr(brace + 1, close - brace - 1));
    i = close + 1;
  }
}

std::string known_list(std::span<const std::string_view> names) {
  std::string s;
  for (std::string_view n : names) s += fmt::format("{}{{{}}}", s.empty() ? "" : " ", n);
  return s;
}

void check_template(std::string_view text, const std::string& where, std::span<const std::string_view> names,
                    std::string_view what) {
  scan_template(
      text, where, [](std::string_view) {},
      [&](std::string_view name) {
        if (std::find(names.begin(), names.end(), name) == names.end())
          throw InputError(fmt::format("{}: unknown placeholder '{{{}}}' in the {} ({} know: {})", where, name, what,
                                       what == "caption" ? "captions" : "answers", known_list(names)));
      });
}

// Fills a template that check_template accepted; a name `value_of` does not know stays as
// written, braces included (a caption a program built rather than a file).
std::string fill(std::string_view text, const std::function<std::optional<std::string>(std::string_view)>& value_of) {
  std::string out;
  try {
    scan_template(
        text, "", [&](std::string_view s) { out += s; },
        [&](std::string_view name) {
          const std::optional<std::string> v = value_of(name);
          out += v ? *v : fmt::format("{{{}}}", name);
        });
  } catch (const InputError&) {
    return std::string(text);  // never checked and malformed: show it as it is
  }
  return out;
}

std::string rank_or_dash(int v) { return v < 0 ? "-" : std::to_string(v); }

// Integers as plain digits ("393216"); anything else to 3 significant digits, never in
// exponent form ("1230", "12.3", "0.0123").
std::string format_value(double v) {
  if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(v));
  if (!std::isfinite(v) || v == 0) return fmt::format("{}", v);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fmt::format("{:.{}f}", v, std::max(0, 2 - magnitude));
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
  }
  return "?";
}

[[noreturn]] void refuse(const Question& q, const std::string& why) {
  throw InputError(fmt::format("{}: question '{}' ({}): {}", q.origin, q.text, metric_name(q.metric), why));
}

// The phase a question asks about, with its range checked.
const PhaseRun& asked_phase(const Question& q, const ProgramResult& p) {
  const int phases = static_cast<int>(p.phases.size());
  if (q.phase < 1 || q.phase > phases)
    refuse(q, fmt::format("phase {} does not exist: the lesson has phases 1..{}{}", q.phase, phases,
                          is_timing(q.metric) ? " (0: the whole program)" : ""));
  const PhaseRun& run = p.phases[static_cast<std::size_t>(q.phase - 1)];
  if (!run.run)
    refuse(q, fmt::format("phase {} is a compute phase; only time_us and duration_us ask about one", q.phase));
  return run;
}

// The step the question means: its own, or the phase's last for 0.
int asked_step(const Question& q, const PhaseRun& phase) {
  const int steps = phase.schedule.step_count();
  if (q.step < 0 || q.step > steps)
    refuse(q, fmt::format("step {} does not exist: phase {} has steps 1..{} (0: after the last)", q.step, q.phase,
                          steps));
  return q.step == 0 ? steps : q.step;
}

void check_rank(const Question& q, const PhaseRun& phase) {
  const int ranks = phase.schedule.total_ranks;
  if (q.rank < 0 || q.rank >= ranks)
    refuse(q, fmt::format("rank {} does not exist: phase {} has ranks 0..{}", q.rank, q.phase, ranks - 1));
}

double bytes_moved(const Question& q, const PhaseRun& phase, int step, bool sent) {
  check_rank(q, phase);
  std::uint64_t bytes = 0;
  for (const Transfer& t : phase.schedule.transfers)
    if (t.step < step && !t.is_local() && (sent ? t.src : t.dst) == q.rank) bytes += phase.schedule.bytes(t);
  return static_cast<double>(bytes);
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
  refuse(q, std::any_of(s.transfers.begin(), s.transfers.end(), [&](const Transfer& t) { return t.chunk == q.chunk; })
                ? fmt::format("rank {} never holds chunk {}", q.rank, q.chunk)
                : fmt::format("chunk {} does not exist: the collective has chunks 0..{}", q.chunk, chunks - 1));
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
    refuse(q, fmt::format("rank {} does not exist: the program has ranks 0..{}", q.rank, p.total_ranks - 1));
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
  const RunResult& run = *phase.run;
  const CostSplit split = split_latency_bandwidth(run.schedule, run.dependencies, run.model->topology);
  return (q.metric == Metric::latency_us ? split.latency_ns : split.bandwidth_ns) / 1000;
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
    case Metric::contributions: {
      const int step = asked_step(q, phase);
      *step_shown = step;
      if (q.metric == Metric::transfers) return transfers_until(phase, step);
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

}  // namespace

std::string_view caption_placeholders() {
  return "{src} {dst} {chunk} {bytes} {step} {steps} {step_bytes} {phase} {phases} {ranks} {label}";
}

void check_caption(std::string_view text, const std::string& where) {
  check_template(text, where, kCaptionNames, "caption");
}

void check_answer_template(std::string_view text, const std::string& where) {
  check_template(text, where, kAnswerNames, "answer");
}

CaptionContext caption_context(const Schedule& phase_schedule, int step, int phase_number, int phases) {
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

  // The focus: rank 0's first send to another rank, else any first send, else the first.
  const Transfer* first = nullptr;
  const Transfer* first_remote = nullptr;
  const Transfer* rank0_remote = nullptr;
  for (const Transfer& t : phase_schedule.transfers) {
    if (t.step != step - 1) continue;
    if (!first) first = &t;
    if (t.is_local()) continue;
    c.step_bytes += phase_schedule.bytes(t);
    if (!first_remote) first_remote = &t;
    if (!rank0_remote && t.src == 0) rank0_remote = &t;
  }
  const Transfer* focus = rank0_remote ? rank0_remote : first_remote ? first_remote : first;
  if (focus) {
    c.src = focus->src;
    c.dst = focus->dst;
    c.chunk = focus->chunk;
    c.bytes = phase_schedule.bytes(*focus);
  }
  return c;
}

std::string expand_caption(std::string_view text, const CaptionContext& c) {
  return fill(text, [&](std::string_view name) -> std::optional<std::string> {
    if (name == "src") return rank_or_dash(c.src);
    if (name == "dst") return rank_or_dash(c.dst);
    if (name == "chunk") return rank_or_dash(c.chunk);
    if (name == "bytes") return std::to_string(c.bytes);
    if (name == "step") return std::to_string(c.step);
    if (name == "steps") return std::to_string(c.steps);
    if (name == "step_bytes") return std::to_string(c.step_bytes);
    if (name == "phase") return std::to_string(c.phase);
    if (name == "phases") return std::to_string(c.phases);
    if (name == "ranks") return std::to_string(c.ranks);
    if (name == "label") return c.label;
    return std::nullopt;
  });
}

std::string step_caption(const Phase& phase, const Schedule& phase_schedule, int step, int phase_number, int phases) {
  if (step == 0) return {};
  const CaptionContext c = caption_context(phase_schedule, step, phase_number, phases);
  const auto index = static_cast<std::size_t>(step - 1);
  if (index < phase.step_captions.size() && !phase.step_captions[index].empty())
    return expand_caption(phase.step_captions[index], c);
  if (!phase.step_caption.empty()) return expand_caption(phase.step_caption, c);
  return c.label;
}

std::string shown_caption(const Scenario& s, std::size_t index, const Schedule& phase_schedule, int step) {
  const Phase& phase = s.phases.at(index);
  const int number = static_cast<int>(index) + 1, phases = static_cast<int>(s.phases.size());
  CaptionContext c = caption_context(phase_schedule, step, number, phases);
  if (phase.kind == PhaseKind::compute) c.ranks = s.ranks;  // a compute phase has no schedule to ask
  std::string text = expand_caption(s.caption, c);
  const std::string own = step == 0 ? expand_caption(phase.caption, c) : step_caption(phase, phase_schedule, step, number, phases);
  if (!text.empty() && !own.empty()) text += ' ';
  return text + own;
}

Answer answer_question(const Question& q, const ProgramResult& p) {
  int step_shown = q.step;
  Answer a;
  a.value = metric_value(q, p, &step_shown);
  // Times to 0.1 µs, as the phase table prints them, so that answers can be subtracted.
  // An element's number in full (the last bits are the point): the shortest form that reads back exactly.
  const std::string value = in_microseconds(q.metric)       ? fmt::format("{:.1f}", a.value)
                            : is_element_value(q.metric) ? exact_number(a.value)
                                                         : format_value(a.value);
  a.text = fill(q.answer.empty() ? std::string_view("{value}") : std::string_view(q.answer),
                [&](std::string_view name) -> std::optional<std::string> {
                  if (name == "value") return value;
                  if (name == "value_h") return format_bytes(a.value);
                  if (name == "rank") return std::to_string(q.rank);
                  if (name == "step") return std::to_string(step_shown);
                  if (name == "chunk") return std::to_string(q.chunk);
                  if (name == "element") return std::to_string(q.element);
                  if (name == "phase") return std::to_string(q.phase);
                  return std::nullopt;
                });
  return a;
}

}  // namespace collsim
