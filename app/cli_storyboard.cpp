#include "app/cli_storyboard.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/cli_lesson.h"
#include "app/cli_model.h"
#include "app/gui/loader.h"
#include "app/gui/view_model.h"
#include "app/html/live.h"
#include "app/html/page.h"
#include "app/storyboard.h"
#include "sim/exec/backend.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/lecture.h"
#include "sim/schedule/algorithm.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_import.h"
#include "app/cli_msccl.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

// The flags that describe a run: meaningless with a trace, which records its own.
constexpr std::string_view kSpecFlags[] = {"--collective", "--algorithm",      "--ranks",    "--count",  "--dtype",
                                           "--op",         "--root",           "--in-place", "--slices", "--servers",
                                           "--colocated",  "--ranks-per-node", "--schedule"};
// What `collsim html` adds: the times' topology and the inputs' seed, as for `collsim run`.
constexpr std::string_view kPredictionFlags[] = {
    "--seed",        "--topology",  "--link",          "--bandwidth",     "--latency", "--uplink",
    "--uplink-bandwidth", "--uplink-latency", "--group-size", "--nic", "--reduce-rate", "--copy-rate",
    "--link-override", "--protocol",  "--late",          "--slow"};

// What the GUI shows for a scenario: run on the CPU backend, times predicted on the
// scenario's topology (gui/loader.cpp does the same), so the storyboard's scene is laid out
// as in the app.
// `check` refuses a schedule too large for the output (storyboard::check_drawable).
using SizeCheck = void (*)(const Schedule&, const std::string&);

Trace run_for_storyboard(const RunPlan& plan, const std::string& scenario, SizeCheck check = storyboard::check_drawable) {
  RunResult run = prepare_run(plan.request, {.record_history = true});  // the view's history: checked once
  check(run.schedule, scenario.empty() ? "storyboard" : scenario);
  predict_run(run, plan.topology);
  execute_run(run, *make_cpu_backend());
  if (!run.verification.ok) throw std::runtime_error("the run gave a wrong result: " + run.verification.first_mismatch);
  const std::string description =
      plan.scenario ? lesson_description(*plan.scenario, single_run_facts(*plan.scenario, run.schedule)) : plan.description;
  return make_trace(run, plan.title, description);
}

Trace load_for_storyboard(const std::string& input, const FlagGiven& given, SizeCheck check = storyboard::check_drawable) {
  for (std::string_view flag : kSpecFlags)
    if (given(flag))
      throw InputError(fmt::format("{}: a trace records its own run; {} applies to scenarios only", input, flag));
  Trace t = load_trace_json(input, true);  // its one check records the view's history
  check(t.schedule, input);
  return t;
}

// A single collective's frames with the file's captions: "" where the file has none, so
// that the frame keeps its own description (a file without captions draws as before).
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

// A lesson: every distinct collective run on the CPU backend and verified, the program
// predicted on the lesson's topology, and one view model per distinct collective.
int lesson_storyboard(const Scenario& s, const std::string& out_dir) {
  ProgramResult p = prepare_program(s, false, {.record_history = true});  // the views' histories: checked once
  for (const PhaseRun& pr : p.phases)
    if (pr.run) storyboard::check_drawable(pr.run->schedule, s.source);
  predict_program(p, s, s.topology);
  execute_program(p, *make_cpu_backend());
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

// A schedule file on its own: built and checked at its own count, or at `collsim run`'s.
std::string validate_schedule(const std::string& path, std::vector<std::string>& /*warnings: an MSCCL file's are printed at once*/) {
  RunRequest r = default_run_request();
  r.algorithm = kCustomAlgorithm;
  r.options.schedule_file = path;
  r = adopt_schedule_spec(r, [](std::string_view) { return false; });
  // An MSCCL file's races: said before the checker's verdict, which they often explain.
  print_schedule_warnings(r);
  const Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  return fmt::format("schedule: {} on {} ranks, {} steps, {} transfers; checked at count {}",
                     to_string(s.spec.collective), s.spec.ranks, s.step_count(), s.transfers.size(), s.spec.count);
}

std::string validate_scenario(const std::string& path, std::vector<std::string>& warnings) {
  const Scenario sc = load_scenario(path);
  if (!sc.single_collective()) return validate_lesson(sc, warnings);
  if (sc.format >= 2) {  // every text rendered, every question answered (refuses one the run cannot answer)
    const ProgramResult p = model_program(sc);
    const LessonFacts facts = checked_facts(sc, p);
    answer_questions(sc, p, facts);
    warnings = lesson_warnings(sc, facts);
  }
  RunResult run = prepare_model_run(sc.request);
  predict_run(run, sc.topology);  // a bad [topology] (an unknown link name) shows only here
  return fmt::format("scenario{}: {} with {} on {} ranks, {} steps{}{}", sc.title.empty() ? "" : " '" + sc.title + "'",
                     to_string(run.schedule.spec.collective), run.schedule.algorithm, run.schedule.spec.ranks,
                     run.schedule.step_count(),
                     run.check_skipped ? " (too many ranks for the symbolic check)" : ", checked",
                     sc.questions.empty() ? ""
                                          : fmt::format(", {} question{} answered", sc.questions.size(),
                                                        sc.questions.size() == 1 ? "" : "s"));
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
                       t.backend == "none" && t.verification.checked == 0 ? "not executed (--model-only)"
                       : t.verification.ok                                 ? "verified"
                                                                           : "WRONG result recorded");
  }
  return is_msccl_path(path) || is_schedule_text(read_text_file(path, "file")) ? validate_schedule(path, warnings)
                                                                              : validate_scenario(path, warnings);
}

}  // namespace

int command_storyboard(const std::string& input, const std::string& out_dir, const RunRequest& from_flags,
                       const FlagGiven& given) {
  const bool trace_input = !input.empty() && gui::is_trace_file(input);
  // Everything is read, run and drawn before the folder is touched: bad input leaves nothing.
  std::optional<RunPlan> plan;
  if (!trace_input) {
    plan = plan_run(input, from_flags, "cpu", given);
    if (plan->lesson()) return lesson_storyboard(*plan->scenario, out_dir);
  }
  const gui::ViewModel vm(trace_input ? load_for_storyboard(input, given) : run_for_storyboard(*plan, input));
  const storyboard::Storyboard board =
      storyboard::make_storyboard(vm, trace_input ? std::vector<std::string>{} : file_captions(*plan, vm.schedule()));
  ensure_writable_folder(out_dir, "--out");
  OutputFileSet files;
  for (const storyboard::Frame& f : board.frames) files.stage(std::filesystem::path(out_dir) / f.file, f.svg);
  files.stage(std::filesystem::path(out_dir) / "index.html", board.index_html);
  files.commit();
  fmt::print("storyboard: {} frames (the start and {} step{}) of {} with {} on {} ranks in {}\n  open {}\n",
             board.frames.size(), vm.step_count(), vm.step_count() == 1 ? "" : "s",
             to_string(vm.schedule().spec.collective), vm.schedule().algorithm, vm.schedule().spec.ranks, out_dir,
             (std::filesystem::path(out_dir) / "index.html").string());
  return 0;
}

namespace {

// The page's limit, checked before the run (html::page_data checks the cells too).
void check_playable(const Schedule& s, const std::string& source) {
  if (s.transfers.size() > html::kMaxTransfers)
    throw InputError(fmt::format("{}: {} transfers are more than a page can play (at most {}): try fewer ranks or slices",
                                 source, s.transfers.size(), html::kMaxTransfers));
}

// A single collective's words and questions (answered from the run's program).
// A trace's (no plan): its title and description only.
html::PageText page_text(const RunPlan* plan, const Trace& trace, const std::string& input, const gui::ViewModel& vm) {
  html::PageText text;
  text.title = trace.scenario_title;
  text.description = trace.scenario_description;
  text.source = input;
  if (!plan || !plan->scenario) return text;
  text.step_captions = file_captions(*plan, vm.schedule());
  const Scenario& sc = *plan->scenario;
  text.clock = !sc.phases.empty() && !sc.phases[0].clock.empty() ? sc.phases[0].clock : sc.clock;
  if (sc.questions.empty()) return text;
  const ProgramResult p = model_program(sc);
  const LessonFacts facts = checked_facts(sc, p);
  const std::vector<Answer> answers = answer_questions(sc, p, facts);
  for (std::size_t k = 0; k < sc.questions.size(); ++k) text.questions.push_back({question_text(sc, facts, k), answers[k].text});
  return text;
}

// The live page's WebAssembly CLI (cmake/live.cmake): COLLSIM_LIVE_JS from the environment,
// or where this build put it. Read before anything runs.
std::string live_module() {
  const char* from_env = std::getenv("COLLSIM_LIVE_JS");
#ifdef COLLSIM_LIVE_JS
  const std::string path = from_env && *from_env ? from_env : COLLSIM_LIVE_JS;
#else
  if (!from_env || !*from_env)
    throw InputError("--live: this collsim was built without the live page's WebAssembly CLI (emscripten's emcmake "
                     "was not found when it was configured): install emscripten (scripts/setup does) and build again, "
                     "or set COLLSIM_LIVE_JS to a collsim-live.js");
  const std::string path = from_env;
#endif
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(fmt::format("--live: the WebAssembly CLI {} is missing: build it (cmake --build BUILD, target "
                                 "collsim_live), or set COLLSIM_LIVE_JS to a collsim-live.js",
                                 path));
  return read_text_file(path, "--live");
}

// The input file and the schedule files its phases name, at the paths the CLI reads them.
html::LiveInput live_input(const std::string& input, const RunPlan& plan) {
  // The page's collsim is the WebAssembly build, which has no XML parser (msccl_stub.cpp).
  const auto refuse_msccl = [](const std::string& file) {
    if (is_msccl_path(file))
      throw InputError(fmt::format("--live: {} is an MSCCL algorithm file, and the page's own collsim (WebAssembly) "
                                   "cannot read those: leave out --live (the page still plays the run)",
                                   file));
  };
  refuse_msccl(plan.request.options.schedule_file);
  if (plan.scenario)
    for (const Phase& phase : plan.scenario->phases) refuse_msccl(phase.request.options.schedule_file);
  html::LiveInput live;
  live.input = input;
  live.lesson = plan.lesson();
  live.request = plan.request;
  live.topology = plan.topology;
  if (input.empty()) return live;
  live.files.push_back({input, read_text_file(input, "input")});
  if (!plan.scenario) return live;
  for (const Phase& phase : plan.scenario->phases) {
    const std::string& file = phase.request.options.schedule_file;
    const bool seen = std::any_of(live.files.begin(), live.files.end(), [&](const auto& f) { return f.path == file; });
    if (!file.empty() && !seen) live.files.push_back({file, read_text_file(file, "schedule")});
  }
  return live;
}

// A lesson of several phases: run, predicted and viewed exactly as the app loads it
// (gui::load), every phase on the page; with the flags plan_run applied (--ranks, --seed,
// the topology's; it refuses those that change one collective).
int lesson_page(const std::string& input, const RunPlan& plan, const HtmlOptions& o, const std::string& module) {
  gui::Progress progress;
  gui::LoadRequest request;
  request.run = plan.request;
  request.topology = plan.topology;
  request.lesson = std::make_shared<const Scenario>(*plan.scenario);
  gui::LoadResult loaded = gui::load(request, progress);
  if (!loaded.lesson) throw InputError(loaded.error);
  for (const std::shared_ptr<gui::ViewModel>& vm : loaded.lesson->views)
    if (vm) check_playable(vm->schedule(), input);
  std::string page = o.data_only ? html::lesson_page_data(*loaded.lesson, input) : html::make_lesson_page(*loaded.lesson, input);
  if (o.live) page = html::add_live(page, live_input(input, plan), module);
  OutputFileSet files;
  files.stage(o.out, page);
  files.commit();
  fmt::print("page{}: the lesson's {} phases ({}) ({:.1f} KiB) in {}\n", o.data_only ? " data" : "",
             loaded.lesson->phase_count(), loaded.lesson->scenario.title.empty() ? input : loaded.lesson->scenario.title,
             static_cast<double>(page.size()) / 1024, o.out);
  if (!o.data_only) fmt::print("  open {}\n", o.out);
  return 0;
}

}  // namespace

int command_html(const std::string& input, const RunRequest& from_flags, const FlagGiven& given, const HtmlOptions& o) {
  check_output_file("--out", o.out);  // before the run: a bad path loses nothing and waits for nothing
  if (o.live && o.data_only) throw InputError("--live and --data: the data alone has no page to make live; give one of them");
  const std::string module = o.live ? live_module() : "";
  const bool trace_input = !input.empty() && gui::is_trace_file(input);
  std::optional<RunPlan> plan;
  if (trace_input) {
    for (std::string_view flag : kPredictionFlags)
      if (given(flag))
        throw InputError(fmt::format("{}: a trace records its own run and predictions; {} applies to scenarios only", input, flag));
  } else {
    plan = plan_run(input, from_flags, "cpu", given, o.topology);
    check_topology_flags(plan->topology, given);
    if (plan->lesson()) return lesson_page(input, *plan, o, module);
  }
  const Trace trace = trace_input ? load_for_storyboard(input, given, check_playable) : run_for_storyboard(*plan, input, check_playable);
  const gui::ViewModel vm(trace);
  const html::PageText text = page_text(plan ? &*plan : nullptr, trace, input, vm);
  std::string page = o.data_only ? html::page_data(vm, text) : html::make_page(vm, text);
  if (o.live) {
    // A trace is re-run from the request it records (the flags' run), on the default topology.
    RunPlan from_trace;
    from_trace.request = trace.request;
    page = html::add_live(page, live_input(trace_input ? "" : input, plan ? *plan : from_trace), module);
  }
  OutputFileSet files;
  files.stage(o.out, page);
  files.commit();
  fmt::print("page{}: {} with {} on {} ranks, {} steps, {} transfers ({:.1f} KiB) in {}\n", o.data_only ? " data" : "",
             to_string(vm.schedule().spec.collective), vm.schedule().algorithm, vm.schedule().spec.ranks,
             vm.step_count(), vm.transfer_count(), static_cast<double>(page.size()) / 1024, o.out);
  if (!o.data_only) fmt::print("  open {}\n", o.out);
  return 0;
}

int command_validate(const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    std::vector<std::string> warnings;
    const std::string what = validate_one(f, warnings);  // throws at the first bad file
    fmt::print("{}: OK ({})\n", f, what);
    std::fflush(stdout);
    for (const std::string& w : warnings) std::fprintf(stderr, "collsim: warning: %s\n", w.c_str());
    std::fflush(stdout);  // the OK lines come before an error about a later file
  }
  return 0;
}

}  // namespace collsim::cli
