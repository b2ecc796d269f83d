#include "app/cli/cli_storyboard.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "app/views/loader.h"
#include "app/views/view_model.h"
#include "sim/exec/backend.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/core/errors.h"
#include "sim/pipeline/pipeline.h"

namespace collsim::cli {

// The run or trace behind a storyboard, shared with `collsim html` (cli_storyboard.h says what each does).

Trace run_for_storyboard(const RunPlan& plan, const std::string& scenario, SizeCheck check) {
  PipelineHooks hooks;
  hooks.built = [&](const Schedule& s) { check(s, scenario.empty() ? "storyboard" : scenario); };
  PipelineRequest request = pipeline_request(plan, true);
  if (!request.model_only) hooks.backend = [](const PipelineResult&) { return make_cpu_backend(); };
  request.record_history = true;  // the view's history: checked once
  PipelineResult run = run_pipeline(request, hooks);
  if (run.executed() && !run.verified()) throw std::runtime_error("the run gave a wrong result: " + run.run->verification.first_mismatch);
  return std::move(*run.trace);
}

Trace load_for_storyboard(const std::string& input, SizeCheck check) {
  Trace t = load_trace_json(input, true);  // its one check records the view's history
  check(t.schedule, input);
  return t;
}

std::vector<std::string> file_captions(const RunPlan& plan, const Schedule& s) {
  if (!plan.scenario) return {};
  const Scenario& sc = *plan.scenario;
  const Phase& phase = sc.phases.at(0);
  const bool step_captions = !sc.caption.empty() || !phase.step_caption.empty() || !phase.stage_captions.empty() ||
                             std::any_of(phase.step_captions.begin(), phase.step_captions.end(),
                                         [](const std::string& c) { return !c.empty(); });
  const LessonFacts facts = single_run_facts(sc, s);
  std::vector<std::string> captions{shown_caption(sc, facts, 0, s, 0)};
  for (int k = 1; k <= s.step_count(); ++k) captions.push_back(step_captions ? shown_caption(sc, facts, 0, s, k) : "");
  return captions;
}

namespace {

// A lesson: every distinct collective run on the CPU backend and verified, the program
// predicted on the lesson's topology, and one view model per distinct collective.
// The frames of a lesson's program (run here, or read back from a lesson trace), written
// once every phase is drawn.
int draw_lesson_storyboard(const Scenario& s, const ProgramResult& p, const std::string& out_dir) {
  for (const PhaseRun& pr : p.phases)
    if (pr.run && !pr.run->verification.ok)
      throw std::runtime_error(fmt::format("phase {} ('{}') gave a wrong result: {}", pr.phase + 1,
                                           s.phases[static_cast<std::size_t>(pr.phase)].name,
                                           pr.run->verification.first_mismatch));
  const LessonFacts facts = lesson_facts(s, p);
  const std::string description = lesson_description(s, facts);
  std::vector<std::unique_ptr<gui::ViewModel>> models;  // one per distinct collective
  std::vector<const RunResult*> model_of;
  std::vector<const gui::ViewModel*> views;
  for (const PhaseRun& pr : p.phases) {
    if (!pr.run) {
      views.push_back(nullptr);
      continue;
    }
    const auto it = std::find(model_of.begin(), model_of.end(), pr.run.get());
    if (it != model_of.end()) {
      views.push_back(models[static_cast<std::size_t>(it - model_of.begin())].get());
      continue;
    }
    models.push_back(std::make_unique<gui::ViewModel>(make_trace(*pr.run, s.title, description)));
    model_of.push_back(pr.run.get());
    views.push_back(models.back().get());
  }
  const storyboard::Storyboard board = storyboard::make_lesson_storyboard(s, p, facts, views);
  ensure_writable_folder(out_dir, "--out");
  OutputFileSet files;
  for (const storyboard::Frame& f : board.frames) files.stage(std::filesystem::path(out_dir) / f.file, f.svg);
  files.stage(std::filesystem::path(out_dir) / "index.html", board.index_html);
  files.commit();
  fmt::print("storyboard: {} frames of the lesson's {} phases ({}) in {}\n  open {}\n", board.frames.size(),
             s.phases.size(), s.title.empty() ? s.source : s.title, out_dir,
             (std::filesystem::path(out_dir) / "index.html").string());
  return 0;
}

int lesson_storyboard(const Scenario& s, const std::string& out_dir) {
  PipelineHooks hooks;
  hooks.built = [&](const Schedule& schedule) { storyboard::check_drawable(schedule, s.source); };
  if (!s.model_only) hooks.backend = [](const PipelineResult&) { return make_cpu_backend(); };
  const PipelineResult run = run_pipeline({.scenario = &s,
                                           .program = true,
                                           .topology = s.topology,
                                           .model_only = s.model_only,  // [run] model_only: predicted only
                                           .record_history = true},     // the views' histories: checked once
                                          hooks);
  return draw_lesson_storyboard(s, *run.program, out_dir);
}

// A lesson trace: its lesson rebuilt from the text it carries, with the recorded times.
int lesson_trace_storyboard(const std::string& input, const std::string& out_dir) {
  const ImportedLesson lesson = load_lesson_trace(input, {.record_history = true});
  for (const PhaseRun& pr : lesson.program.phases)
    if (pr.run) storyboard::check_drawable(pr.run->schedule, input);
  if (!lesson.note.empty()) fmt::print("note: {}\n", lesson.note);
  return draw_lesson_storyboard(lesson.scenario, lesson.program, out_dir);
}

}  // namespace

int command_storyboard(const std::string& input, const std::string& out_dir, const RunRequest& from_flags,
                       const flags::FlagGiven& given) {
  const bool trace_input = !input.empty() && gui::is_trace_file(input);
  // Everything is read, run and drawn before the folder is touched: bad input leaves nothing.
  if (trace_input) {
    // The flags that describe a run are meaningless with a trace (a run's or a lesson's), which records its own.
    if (const std::string_view flag = flags::run_flag_given(given); !flag.empty())
      throw InputError(fmt::format("{}: a trace records its own run; {} applies to scenarios only", input, flag));
    if (is_lesson_trace(input)) return lesson_trace_storyboard(input, out_dir);
  }
  std::optional<RunPlan> plan;
  if (!trace_input) {
    plan = plan_run(input, from_flags, "cpu", given);
    if (plan->lesson()) return lesson_storyboard(*plan->scenario, out_dir);
  }
  const gui::ViewModel vm(trace_input ? load_for_storyboard(input) : run_for_storyboard(*plan, input));
  const storyboard::Storyboard board =
      storyboard::make_storyboard(vm, trace_input ? std::vector<std::string>{} : file_captions(*plan, vm.schedule()));
  ensure_writable_folder(out_dir, "--out");
  OutputFileSet files;
  for (const storyboard::Frame& f : board.frames) files.stage(std::filesystem::path(out_dir) / f.file, f.svg);
  if (board.size_curve) files.stage(std::filesystem::path(out_dir) / board.size_curve->file, board.size_curve->svg);
  files.stage(std::filesystem::path(out_dir) / "index.html", board.index_html);
  files.commit();
  fmt::print("storyboard: {} frames (the start and {} step{}) of {} with {} on {} ranks{} in {}\n  open {}\n",
             board.frames.size(), vm.step_count(), vm.step_count() == 1 ? "" : "s",
             to_string(vm.schedule().spec.collective), vm.schedule().algorithm, vm.schedule().spec.ranks,
             board.size_curve ? ", and busbw.svg (busbw against size)" : "", out_dir,
             (std::filesystem::path(out_dir) / "index.html").string());
  return 0;
}

}  // namespace collsim::cli
