#include "app/cli/cli_lesson.h"

#include <optional>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "sim/exec/backend_choice.h"
#include "app/cli/cli_progress.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/pipeline/pipeline.h"
#include "sim/run/run_estimate.h"
#include "sim/lesson/suggestion.h"
#include "sim/trace/report.h"

namespace collsim::cli {
namespace {

// Rows of the per-rank table before it summarises the rest (a lesson run with --ranks 256).
constexpr int kMaxRankRows = 16;

std::string us(double ns) { return fmt::format("{:.1f}", ns / 1000); }

// A figure from the file, in µs: "120", "67.9".
std::string file_us(double v) { return v == std::round(v) ? fmt::format("{}", v) : fmt::format("{:.1f}", v); }

std::string lesson_name(const Scenario& s, const std::string& path) {
  return s.title.empty() ? path : fmt::format("{} ({})", s.title, path);
}

// "0-3", "0-3, 5", "none": the ranks that take part in a phase (rank_begin_ns >= 0).
std::string rank_ranges(const std::vector<double>& rank_begin_ns) {
  std::string out;
  const int n = static_cast<int>(rank_begin_ns.size());
  for (int r = 0; r < n;) {
    if (rank_begin_ns[static_cast<std::size_t>(r)] < 0) {
      ++r;
      continue;
    }
    int last = r;
    while (last + 1 < n && rank_begin_ns[static_cast<std::size_t>(last + 1)] >= 0) ++last;
    out += fmt::format("{}{}", out.empty() ? "" : ",", last == r ? fmt::format("{}", r) : fmt::format("{}-{}", r, last));
    r = last + 1;
  }
  return out.empty() ? "none" : out;
}

// What a phase runs: "all_reduce ring", "all_reduce parameter_server, steps 1-1", "compute 120 µs".
std::string what_it_runs(const Phase& phase, const PhaseRun& pr) {
  if (!pr.run) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (double t : phase.compute_us)
      if (t > 0) lo = std::min(lo, t), hi = std::max(hi, t);
    if (hi == 0) return "compute (every rank idle)";
    return lo == hi ? fmt::format("compute {} µs", file_us(hi)) : fmt::format("compute {}-{} µs", file_us(lo), file_us(hi));
  }
  std::string s = fmt::format("{} {}", to_string(pr.run->schedule.spec.collective), pr.run->schedule.algorithm);
  if (phase.first_step > 0) s += fmt::format(", steps {}-{}", phase.first_step, phase.last_step);
  return s;
}

// " on default, waits for 3": the phase's stream and waits, where the lesson names them.
std::string where_it_runs(const Phase& phase) {
  std::string s;
  if (!phase.stream.empty()) s += fmt::format(" on {}", phase.stream);
  auto list = [](const std::vector<int>& phases) {
    std::string out;
    for (const int k : phases) out += fmt::format("{}{}", out.empty() ? "" : ",", k + 1);
    return out;
  };
  if (!phase.wait_for.empty()) s += fmt::format(", waits for {}", list(phase.wait_for));
  if (!phase.host_wait_for.empty()) s += fmt::format(", host waits for {}", list(phase.host_wait_for));
  if (phase.synchronize) s += ", after a host sync";
  return s;
}

std::string verdict(const ProgramResult& p, const PhaseRun& pr) {
  if (!pr.run || !p.executed) return "";
  return pr.run->verification.ok ? "✓" : "✗ WRONG";
}

// Visible width of UTF-8 text (fmt pads by code points already; this is for our own sums).
std::size_t width_of(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string format_phase_table(const Scenario& s, const ProgramResult& p) {
  std::size_t name_w = 5, what_w = 4, ranks_w = 5;
  std::vector<std::string> what, ranks;
  for (const PhaseRun& pr : p.phases) {
    const Phase& phase = s.phases[static_cast<std::size_t>(pr.phase)];
    what.push_back(what_it_runs(phase, pr) + where_it_runs(phase));
    ranks.push_back(rank_ranges(pr.rank_begin_ns));
    name_w = std::max(name_w, width_of(phase.name));
    what_w = std::max(what_w, width_of(what.back()));
    ranks_w = std::max(ranks_w, ranks.back().size());
  }
  std::string out = fmt::format("{:>4}  {:<{}}  {:<{}}  {:<{}}  {:>10}   {:<10}  {}\n", "#", "phase", name_w, "runs",
                                what_w, "ranks", ranks_w, "begin µs", "end µs", p.executed ? "verified" : "");
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    const PhaseRun& pr = p.phases[k];
    const std::string line =
        fmt::format("{:>4}  {:<{}}  {:<{}}  {:<{}}  {:>10} → {:<10}  {}", k + 1, s.phases[k].name, name_w, what[k],
                    what_w, ranks[k], ranks_w, us(pr.begin()), us(pr.end()), verdict(p, pr));
    out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  return out;
}

// Under --backend mpi, each distinct collective's measured time (first send to last receive,
// on the merged clocks) against the model's prediction of it alone: what a lesson run on a
// real network (docs/netlab.md, --topology-file from `collsim calibrate`) shows beside the
// predicted program. Empty on the other backends, whose clocks are this computer's.
std::string format_measured_table(const Scenario& s, const ProgramResult& p) {
  if (!p.executed) return "";
  std::vector<std::size_t> shown;
  std::size_t name_w = 5;
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    const PhaseRun& pr = p.phases[k];
    if (!pr.run || pr.run->backend != "mpi" || !pr.run->model) continue;
    const bool repeated = std::any_of(shown.begin(), shown.end(), [&](std::size_t j) { return p.phases[j].run == pr.run; });
    if (repeated) continue;  // one collective run for several phases (a push and its pull): once
    shown.push_back(k);
    name_w = std::max(name_w, width_of(s.phases[k].name));
  }
  if (shown.empty()) return "";
  std::string out = "measured    each collective alone across the MPI processes (first send to last receive), against "
                    "its prediction alone:\n";
  out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>12}  {}\n", "#", "phase", name_w, "predicted µs", "measured µs",
                     "measured ÷ predicted");
  for (const std::size_t k : shown) {
    const RunResult& run = *p.phases[k].run;
    const double predicted = run.model->prediction.total_ns, measured = static_cast<double>(run.execution.total_ns);
    out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>12}  {}\n", k + 1, s.phases[k].name, name_w, us(predicted), us(measured),
                       predicted > 0 ? fmt::format("{:.2f}", measured / predicted) : std::string("n/a"));
  }
  return out;
}

// DDP's gradient buckets (sim's ddp_buckets, the ones the phases all-reduce), per iteration.
std::string format_ddp_buckets(const Scenario& s) {
  if (!s.training || s.training->pattern != TrainingPattern::ddp) return "";
  std::string out;
  for (const DdpPart part : s.training->parts) {
    if (part == DdpPart::constructor) continue;
    const std::vector<DdpBucket> buckets = ddp_buckets(*s.training, part);
    out += fmt::format("DDP buckets, {} ({} bucket{}):\n", part == DdpPart::first ? "first iteration" : "later iterations",
                       buckets.size(), buckets.size() == 1 ? "" : "s");
    out += fmt::format("  {:>6}  {:>7}  {:>11}  {:<9}  {}\n", "bucket", "tensors", "size", "limit", "first .. last tensor");
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const DdpBucket& k = buckets[b];
      const std::string limit = std::isinf(k.limit_bytes) ? "none" : format_bytes(k.limit_bytes);
      const std::string tensors = k.tensors.size() == 1 ? k.tensors.front().name
                                                        : k.tensors.front().name + " .. " + k.tensors.back().name;
      out += fmt::format("  {:>6}  {:>7}  {:>11}  {:<9}  {}\n", b + 1, k.tensors.size(),
                         format_bytes(static_cast<double>(k.elements) * dtype_size(s.training->dtype)), limit, tensors);
    }
  }
  return out;
}

// The peak of each rank's memory line, where the lesson's phases allocate.
std::string format_memory(const ProgramResult& p) {
  std::string out;
  for (std::size_t r = 0; r < p.memory.size() && r < static_cast<std::size_t>(kMaxRankRows); ++r)
    if (!p.memory[r].empty())
      out += fmt::format("  rank {}: {} at most, from {} µs\n", r, format_bytes(p.peak_memory_bytes[r]),
                         us(p.peak_memory_ns[r]));
  if (out.empty()) return out;
  return "memory (what the phases allocate and free; peak per rank)\n" + out;
}

std::string format_rank_table(const ProgramResult& p) {
  std::string out = fmt::format("{:<10} {:>12} {:>14} {:>14}\n", "per rank", "compute µs", "communication",
                                "exposed comm.");
  const int n = p.total_ranks;
  for (int r = 0; r < n && r < kMaxRankRows; ++r) {
    const auto i = static_cast<std::size_t>(r);
    out += fmt::format("{:<10} {:>12} {:>14} {:>14}\n", fmt::format("  rank {}", r), us(p.compute_ns[i]),
                       us(p.communication_ns[i]), us(p.exposed_communication_ns[i]));
  }
  if (n > kMaxRankRows) {
    const auto worst = static_cast<std::size_t>(
        std::max_element(p.exposed_communication_ns.begin(), p.exposed_communication_ns.end()) -
        p.exposed_communication_ns.begin());
    out += fmt::format("  ... {} more ranks; the most exposed communication: rank {}, {} µs\n", n - kMaxRankRows, worst,
                       us(p.exposed_communication_ns[worst]));
  }
  out += "  (exposed: communication time not hidden behind the rank's own compute)\n";
  out += format_memory(p);
  return out;
}

// "verified: 2 collectives", or the first wrong one.

// The caption lines of a phase's header and its step table with each step's own caption.
std::string explained_phase(const Scenario& s, const LessonFacts& f, std::size_t k, const Schedule& schedule) {
  std::string out;
  if (const std::string caption = shown_caption(s, f, k, schedule, 0); !caption.empty())
    out += fmt::format("  » {}\n", caption);
  std::vector<std::string> notes;  // "" for a step without a caption of its own
  for (int step = 1; step <= schedule.step_count(); ++step) notes.push_back(caption_parts(s, f, k, schedule, step).step);
  return out + format_step_table(schedule, notes);
}

// The same lesson at another rank count, for the literal-number check: one more rank, else
// twice as many; nullopt when it runs at neither.
std::optional<LessonFacts> facts_at_other_ranks(const Scenario& s) {
  for (const int n : {s.ranks + 1, 2 * s.ranks, s.ranks + 2}) {
    try {
      RunRequest r = s.request;
      r.spec.ranks = n;
      const Scenario other = apply_scenario_overrides(s, r, s.topology, GivenFields{RequestField::ranks});
      const ProgramResult p = model_program(other);
      return lesson_facts(other, p);
    } catch (const InputError&) {
      continue;  // the lesson does not run at n ranks (a root, servers, nodes that do not fit)
    }
  }
  return std::nullopt;
}

}  // namespace

std::string result_line(const Scenario& s, const ProgramResult& p) {
  if (!p.executed) return "not executed (--model-only)";
  const std::vector<std::size_t> firsts = first_phases_of_runs(p);
  for (const std::size_t k : firsts)
    if (const Verification& v = p.phases[k].run->verification; !v.ok)
      return fmt::format("WRONG: phase {} ('{}'): {} of {} output elements differ; first: {}", k + 1, s.phases[k].name,
                         v.mismatches, v.checked, v.first_mismatch);
  return fmt::format("verified: every output of {} distinct collective{}", firsts.size(), firsts.size() == 1 ? "" : "s");
}

ProgramResult model_program(const Scenario& s) {
  return std::move(*run_pipeline({.scenario = &s, .program = true, .topology = s.topology, .model_only = true}).program);
}

LessonFacts checked_facts(const Scenario& s, const ProgramResult& p) {
  LessonFacts f = lesson_facts(s, p);
  check_lesson_text(s, p, f);
  return f;
}

std::string format_questions(const Scenario& s, const ProgramResult& p, const LessonFacts& f, bool show) {
  if (s.questions.empty()) return "";
  const std::vector<Answer> answers = answer_questions(s, p, f);
  std::string out = "questions:\n";
  for (std::size_t i = 0; i < s.questions.size(); ++i) {
    out += fmt::format("  {}. {}\n", i + 1, question_text(s, f, i));
    if (show && i < answers.size()) out += fmt::format("     Answer: {}\n", answers[i].text);
  }
  if (!show) out += "  (run with --answers to see the answers)\n";
  return out;
}

void stage_lesson_outputs(const Scenario& s, const ProgramResult& p, const TraceOutputs& o, OutputFileSet& files) {
  if (!o.trace.empty()) files.stage(o.trace, program_to_json(s, p));
  if (!o.chrome.empty()) files.stage(o.chrome, program_to_chrome(s, p));
  if (!o.csv.empty()) files.stage(o.csv, program_to_csv(s, p));
}

LessonRun run_lesson_pipeline(const RunPlan& plan, const std::string& path, const LessonRunFlags& f,
                              const LessonBackend& backend, int only_rank, bool show_progress) {
  const Scenario& s = *plan.scenario;
  if (!f.dump.empty())
    throw InputError(fmt::format("--dump writes one collective's buffers; {} has {} phases: run a single-collective "
                                 "scenario to dump one",
                                 path, s.phases.size()));
  if (!f.outputs.trace.empty() || !f.outputs.chrome.empty() || !f.outputs.csv.empty())
    check_lesson_viewable(s, "--trace, --chrome and --csv write every transfer");  // before the work
  LessonRun l;
  std::vector<std::size_t> firsts;  // each distinct collective's first phase, for the progress line
  ProgressLine progress;
  PipelineHooks hooks;
  hooks.backend = [&](const PipelineResult& checked) {
    const ProgramResult& p = *checked.program;
    const LessonFacts facts = checked_facts(s, p);  // every text checked before anything runs
    l.questions = format_questions(s, p, facts, f.answers);
    l.description = lesson_description(s, facts);
    firsts = first_phases_of_runs(p);
    return backend(p, l.description);
  };
  hooks.program_progress = [&](int done, int total) {
    if (done >= total || !show_progress) return;
    const std::size_t next = firsts[static_cast<std::size_t>(done)];
    progress.show(fmt::format("lesson: {}/{} collectives verified; running phase {} ({}) ...", done, total, next + 1,
                              s.phases[next].name));
  };
  l.program = run_pipeline(
                  {.scenario = &s, .program = true, .topology = plan.topology, .model_only = f.model_only, .only_rank = only_rank},
                  hooks)
                  .program;
  progress.clear();
  return l;
}

void print_lesson_title(const Scenario& s, const std::string& path, const std::string& description) {
  fmt::print("lesson: {}\n{}", lesson_name(s, path), format_description(description));
  std::fflush(stdout);  // the title before the progress on stderr
}

int report_lesson(const Scenario& s, const LessonRun& l, const LessonRunFlags& f) {
  const ProgramResult& p = *l.program;
  const int status = f.model_only || p.verified() ? 0 : 1;
  if (f.quiet) {
    fmt::print("{}\n", f.model_only ? "predicted " + format_duration_ns(p.total_ns)
                       : p.verified() ? std::string("verified")
                                      : result_line(s, p));
    return status;
  }
  fmt::print("{} phase{} on {} ranks\n{}", s.phases.size(), s.phases.size() == 1 ? "" : "s", p.total_ranks,
             format_phase_table(s, p));
  fmt::print("  {:<11} {} on {}\n", "predicted", format_duration_ns(p.total_ns), describe(p.topology));
  fmt::print("{}", format_measured_table(s, p));
  fmt::print("{}", format_rank_table(p));
  fmt::print("{}", format_ddp_buckets(s));
  fmt::print("{}", l.questions);
  fmt::print("  {:<11} {}\n", "result", result_line(s, p));
  for (const auto& [key, file] : {std::pair{"trace", f.outputs.trace}, {"chrome", f.outputs.chrome}, {"csv", f.outputs.csv}})
    if (!file.empty()) fmt::print("  {:<11} {}\n", key, file);
  return status;
}

std::string single_collective_questions(const RunPlan& plan, bool answers) {
  // Format 2 has captions and questions: every text is checked before the run, as for a lesson.
  if (!plan.scenario || (plan.scenario->format < 2 && plan.scenario->questions.empty())) return "";
  const ProgramResult p = model_program(*plan.scenario);
  return format_questions(*plan.scenario, p, checked_facts(*plan.scenario, p), answers);
}

namespace {

// On the CPU every distinct collective runs once: their data at the memcpy rate bounds the
// lesson's time (run_estimate.h), refused above 10 minutes before anything runs.
void check_lesson_run_time(const ProgramResult& p, const LessonRunFlags& f) {
  const RunTimeEstimate estimate = estimate_cpu_program(p);
  if (!f.allow_long) check_run_time(estimate, "--allow-long", "fewer --ranks");
  if (estimate.seconds > kSayEstimateSeconds && !f.quiet) fmt::print(stderr, "estimated: {}\n", describe(estimate));
}

}  // namespace

int command_run_lesson(const RunPlan& plan, const std::string& path, const LessonRunFlags& f) {
  const Scenario& s = *plan.scenario;
  // Everything that can be refused is refused before anything runs or is written.
  const LessonRun l = run_lesson_pipeline(plan, path, f,
                                          [&](const ProgramResult& p, const std::string& description) -> std::unique_ptr<Backend> {
    check_trace_outputs(f.outputs);
    std::unique_ptr<Backend> backend;
    if (!f.model_only) {
      const BackendChoice choice = choose_backend(plan.backend, f.placement);
      backend = make_backend(choice);
      if (choice.name == "cpu") check_lesson_run_time(p, f);
      if (plan.backend == "auto" && !f.quiet)
        fmt::print("backend auto: using {} ({}): {}\n", backend->name(), choice.auto_reason, backend->device_name());
    }
    if (!f.quiet) print_lesson_title(s, path, description);
    return backend;
  });
  OutputFileSet files;
  stage_lesson_outputs(s, *l.program, f.outputs, files);
  files.commit();
  return report_lesson(s, l, f);
}

int command_explain_lesson(const Scenario& s) {
  check_lesson_viewable(s, "explain shows every step");  // before the work
  const ProgramResult p = model_program(s);  // builds and checks every schedule, predicts; runs nothing
  const LessonFacts facts = checked_facts(s, p);
  fmt::print("lesson: {}\n", lesson_name(s, s.source));
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const PhaseRun& pr = p.phases[k];
    fmt::print("\nphase {}/{}: {} ({})\n", k + 1, s.phases.size(), s.phases[k].name, what_it_runs(s.phases[k], pr));
    if (pr.run)
      fmt::print("{}", explained_phase(s, facts, k, pr.schedule));
    else if (const std::string caption = shown_caption(s, facts, k, Schedule{}, 0); !caption.empty())
      fmt::print("  » {}\n", caption);
  }
  return 0;
}

std::string format_explained_collective(const Scenario& s, const Schedule& schedule) {
  if (s.phases.size() != 1) return format_step_table(schedule);
  if (s.format < 2) return explained_phase(s, single_run_facts(s, schedule), 0, schedule);
  const ProgramResult p = model_program(s);  // a lesson's text may name its times and answers
  return explained_phase(s, checked_facts(s, p), 0, schedule);
}

std::vector<std::string> lesson_warnings(const Scenario& s, const LessonFacts& f) {
  if (s.format < 2 || s.ranks_fixed) return {};
  const std::optional<LessonFacts> other = facts_at_other_ranks(s);
  if (!other) return {};
  return lesson_text_warnings(s, f, *other);
}

// Every suggestion of the lesson run on the model, its text rendered under it: an error names the
// suggestion; a literal of the file's text that a suggestion changes is a warning.
void validate_suggestions(const Scenario& s, const LessonFacts& facts, std::vector<std::string>& warnings) {
  for (std::size_t k = 0; k < s.suggestions.size(); ++k) {
    const SuggestedRun r = run_suggestion(s, k);
    const Suggestion& t = s.suggestions[k];
    try {
      check_lesson_text(r.scenario, r.program, r.facts);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", suggestion_name(t), e.what()));
    }
    const std::string change = fmt::format("{} ({})", t.key, t.change);
    for (std::string& w : lesson_text_warnings(s, facts, r.facts, change)) warnings.push_back(std::move(w));
  }
}

ProgramResult validate_lesson_text(const Scenario& s, std::vector<std::string>& warnings) {
  ProgramResult p = model_program(s);
  const LessonFacts facts = checked_facts(s, p);
  const std::vector<Answer> answers = answer_questions(s, p, facts);
  for (std::size_t k = 0; k < answers.size(); ++k)  // the file as written answers every question
    if (!answers[k].applies) {
      const std::string prefix = "does not apply to this run: ";
      const std::string why = answers[k].text.starts_with(prefix) ? answers[k].text.substr(prefix.size()) : answers[k].text;
      throw InputError(fmt::format("{}: question '{}': {}", s.questions[k].origin, s.questions[k].text, why));
    }
  warnings = lesson_warnings(s, facts);
  validate_suggestions(s, facts, warnings);
  return p;
}

std::string validate_lesson(const Scenario& s, std::vector<std::string>& warnings) {
  const ProgramResult p = validate_lesson_text(s, warnings);
  const auto collectives = static_cast<std::size_t>(
      std::count_if(p.phases.begin(), p.phases.end(), [](const PhaseRun& pr) { return pr.run != nullptr; }));
  const bool skipped = std::any_of(p.phases.begin(), p.phases.end(),
                                   [](const PhaseRun& pr) { return pr.run && pr.run->check_skipped; });
  return fmt::format("lesson{}: {} phases ({} collective, {} compute) on {} ranks, {} question{} answered, {}{}",
                     s.title.empty() ? "" : " '" + s.title + "'", s.phases.size(), collectives,
                     s.phases.size() - collectives, p.total_ranks, s.questions.size(),
                     s.questions.size() == 1 ? "" : "s",
                     s.suggestions.empty() ? ""
                                           : fmt::format("{} suggestion{} run, ", s.suggestions.size(),
                                                         s.suggestions.size() == 1 ? "" : "s"),
                     skipped ? "too many ranks for the symbolic check" : "checked");
}

}  // namespace collsim::cli
