#include "app/cli/cli_validate.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "app/cli/cli_msccl.h"
#include "app/views/loader.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/lecture.h"
#include "sim/pipeline/pipeline.h"
#include "sim/schedule/algorithm.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_import.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

// A schedule file on its own: built and checked at its own count, or at `collsim run`'s.
std::string validate_schedule(const std::string& path, std::vector<std::string>& /*warnings: an MSCCL file's are printed at once*/) {
  RunRequest r = default_run_request();
  r.algorithm = kCustomAlgorithm;
  r.options.schedule_file = path;
  r = adopt_schedule_spec(r);
  // An MSCCL file's races: said before the checker's verdict, which they often explain.
  print_schedule_warnings(r);
  const Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  return fmt::format("schedule: {} on {} ranks, {} steps, {} transfers; checked at count {}",
                     to_string(s.spec.collective), s.spec.ranks, s.step_count(), s.transfers.size(), s.spec.count);
}

std::string validate_scenario(const std::string& path, std::vector<std::string>& warnings) {
  const Scenario sc = load_scenario(path);
  if (!sc.single_collective()) return validate_lesson(sc, warnings);
  // Every text rendered, every question answered (refuses one the run cannot answer), every
  // suggestion run.
  if (sc.format >= 2) validate_lesson_text(sc, warnings);
  // Built, checked and predicted: a bad [topology] (an unknown link name) shows only here.
  const std::shared_ptr<const RunResult> built =
      run_pipeline({.run = sc.request, .topology = sc.topology, .model_only = true, .want_trace = false}).run;
  const RunResult& run = *built;
  return fmt::format("scenario{}: {} with {} on {} ranks, {} steps{}{}{}", sc.title.empty() ? "" : " '" + sc.title + "'",
                     to_string(run.schedule.spec.collective), run.schedule.algorithm, run.schedule.spec.ranks,
                     run.schedule.step_count(),
                     run.check_skipped ? " (too many ranks for the symbolic check)" : ", checked",
                     sc.questions.empty() ? ""
                                          : fmt::format(", {} question{} answered", sc.questions.size(),
                                                        sc.questions.size() == 1 ? "" : "s"),
                     sc.suggestions.empty() ? ""
                                            : fmt::format(", {} suggestion{} run", sc.suggestions.size(),
                                                          sc.suggestions.size() == 1 ? "" : "s"));
}

std::string validate_one(const std::string& path, std::vector<std::string>& warnings);

// A slide's phase and comparison against its file: the phase is one of its phases, a
// phase:K comparison names another collective phase, an algorithm is one for the phase's
// collective. (The file itself is validated as any other.)
void check_slide(const Slide& slide) {
  if (gui::is_trace_file(slide.file)) {
    if (slide.phase || compared_phase(slide.compare))
      throw InputError(fmt::format("{}: {} is a trace: it has no phases", slide.where, slide.file.string()));
    return;
  }
  const Scenario sc = load_scenario(slide.file);
  const std::size_t phases = sc.phases.size();
  const std::size_t shown = slide.phase ? static_cast<std::size_t>(*slide.phase - 1) : 0;
  if (shown >= phases)
    throw InputError(fmt::format("{}: phase {}: {} has phases 1..{}", slide.where, shown + 1, slide.file.string(), phases));
  if (slide.compare.empty()) return;
  if (const std::optional<std::size_t> other = compared_phase(slide.compare)) {  // the lecture's reader checked its form
    if (*other >= phases || *other == shown || sc.phases[*other].kind != PhaseKind::collective)
      throw InputError(fmt::format("{}: compare '{}': not another collective phase of {} (phases 1..{})", slide.where,
                                   slide.compare, slide.file.string(), phases));
    return;
  }
  const Phase& p = sc.phases[shown];
  if (p.kind != PhaseKind::collective)
    throw InputError(fmt::format("{}: compare '{}': phase {} is a compute phase", slide.where, slide.compare, shown + 1));
  if (!find_algorithm(p.request.spec.collective, slide.compare))
    throw InputError(fmt::format("{}: compare '{}': no such algorithm for {} (collsim list)", slide.where, slide.compare,
                                 to_string(p.request.spec.collective)));
}

// A lecture: its keys, then every slide's file (as validate checks any file) and its phase and comparison.
std::string validate_lecture(const std::string& path, std::vector<std::string>& warnings) {
  const Lecture l = load_lecture(path);
  for (const Slide& slide : l.slides) {
    std::vector<std::string> more;
    (void)validate_one(slide.file.string(), more);
    check_slide(slide);
    warnings.insert(warnings.end(), more.begin(), more.end());
  }
  return fmt::format("lecture{}: {} slide{}, each file checked", l.title.empty() ? "" : " '" + l.title + "'", l.slides.size(),
                     l.slides.size() == 1 ? "" : "s");
}

std::string validate_one(const std::string& path, std::vector<std::string>& warnings) {
  if (is_lecture_file(path)) return validate_lecture(path, warnings);
  if (gui::is_trace_file(path)) {
    const Trace t = load_trace_json(path);
    return fmt::format("trace: {} with {} on {} ranks, {} transfers, {}", to_string(t.request.spec.collective),
                       t.request.algorithm, t.request.spec.ranks, t.schedule.transfers.size(),
                       t.model_only          ? "not executed (--model-only)"
                       : t.verification.ok   ? "verified"
                                             : "WRONG result recorded");
  }
  return is_msccl_path(path) || is_schedule_text(read_text_file(path, "file")) ? validate_schedule(path, warnings)
                                                                              : validate_scenario(path, warnings);
}

}  // namespace

int command_validate(const std::vector<std::string>& files) {
  // Every file is checked, and every bad one said: exit 2 if any had an input error, 1 if
  // the worst was a hand-written schedule that is wrong.
  int status = 0, bad = 0;
  for (const std::string& f : files) {
    std::vector<std::string> warnings;
    try {
      const std::string what = validate_one(f, warnings);
      fmt::print("{}: OK ({})\n", f, what);
    } catch (const WrongScheduleError& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "collsim: the schedule is wrong: %s\n", e.what());
      status = std::max(status, 1);
      ++bad;
    } catch (const InputError& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "collsim: error: %s\n", e.what());
      status = 2;
      ++bad;
    }
    std::fflush(stdout);  // the OK lines and the errors in the files' order
    for (const std::string& w : warnings) std::fprintf(stderr, "collsim: warning: %s\n", w.c_str());
  }
  if (bad > 0 && files.size() > 1) std::fprintf(stderr, "collsim: %d of %zu files have errors\n", bad, files.size());
  return status;
}

}  // namespace collsim::cli
