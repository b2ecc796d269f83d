#include "app/cli/cli_html.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "app/cli/cli_storyboard.h"
#include "app/flags/data_files.h"
#include "app/views/loader.h"
#include "app/views/view_model.h"
#include "app/web/live.h"
#include "app/web/page.h"
#include "sim/lesson/captions.h"
#include "sim/run/msccl_import.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/lesson/program.h"
#include "sim/core/text_file.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
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
// the installed one (share/collsim/collsim-live.js, cmake/install.cmake), or where this build
// put it. Read before anything runs.
std::string live_module() {
  const char* from_env = std::getenv("COLLSIM_LIVE_JS");
  const std::filesystem::path installed = flags::data_dir() / "collsim-live.js";
  std::error_code exists_ec;
  const bool is_installed = std::filesystem::is_regular_file(installed, exists_ec);
#ifdef COLLSIM_LIVE_JS
  const std::string path = from_env && *from_env ? from_env : is_installed ? installed.string() : COLLSIM_LIVE_JS;
#else
  if ((!from_env || !*from_env) && !is_installed)
    throw InputError("--live: this collsim was built without the live page's WebAssembly CLI (emscripten's emcmake "
                     "was not found when it was configured): install emscripten (scripts/setup does) and build again, "
                     "or set COLLSIM_LIVE_JS to a collsim-live.js");
  const std::string path = from_env && *from_env ? from_env : installed.string();
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

// A lesson of several phases, loaded exactly as the app loads it (gui::load): a lesson file
// run and predicted with the flags plan_run applied (--ranks, --seed, the topology's; it
// refuses those that change one collective), or a lesson trace read back. Every phase is
// on the page.
int lesson_page(const std::string& input, const gui::LoadRequest& request, const RunPlan* plan, const HtmlOptions& o,
                const std::string& module) {
  gui::Progress progress;
  gui::LoadResult loaded = gui::load(request, progress);
  if (!loaded.lesson) throw InputError(loaded.error);
  for (const std::shared_ptr<gui::ViewModel>& vm : loaded.lesson->views)
    if (vm) check_playable(vm->schedule(), input);
  std::string page = o.data_only ? html::lesson_page_data(*loaded.lesson, input) : html::make_lesson_page(*loaded.lesson, input);
  if (o.live && plan) page = html::add_live(page, live_input(input, *plan), module);
  OutputFileSet files;
  files.stage(o.out, page);
  if (!o.trace.empty()) files.stage(o.trace, program_to_json(loaded.lesson->scenario, loaded.lesson->program));
  files.commit();
  if (!loaded.note.empty()) fmt::print("note: {}\n", loaded.note);
  fmt::print("page{}: the lesson's {} phases ({}) ({:.1f} KiB) in {}\n", o.data_only ? " data" : "",
             loaded.lesson->phase_count(), loaded.lesson->scenario.title.empty() ? input : loaded.lesson->scenario.title,
             static_cast<double>(page.size()) / 1024, o.out);
  if (!o.data_only) fmt::print("  open {}\n", o.out);
  return 0;
}

int lesson_file_page(const std::string& input, const RunPlan& plan, const HtmlOptions& o, const std::string& module) {
  gui::LoadRequest request;
  request.run = plan.request;
  request.topology = plan.topology;
  request.lesson = std::make_shared<const Scenario>(*plan.scenario);
  return lesson_page(input, request, &plan, o, module);
}

// A lesson trace: its lesson rebuilt and shown with the recorded times (load_lesson_trace).
int lesson_trace_page(const std::string& input, const HtmlOptions& o) {
  if (o.live)
    throw InputError(fmt::format("--live: {} is a lesson trace, a record of one run; the live page runs the lesson "
                                 "again: give the lesson's file with --live instead",
                                 input));
  gui::LoadRequest request;
  request.file = input;
  return lesson_page(input, request, nullptr, o, "");
}

}  // namespace

int command_html(const std::string& input, const RunRequest& from_flags, const flags::FlagGiven& given, const HtmlOptions& o) {
  // Before the run: a bad path loses nothing and waits for nothing.
  check_output_file("--out", o.out);
  check_output_file("--trace", o.trace);
  if (!o.trace.empty() && same_output_file(o.trace, o.out))
    throw InputError(fmt::format("--trace {}: the same file as --out", o.trace));
  if (o.live && o.data_only) throw InputError("--live and --data: the data alone has no page to make live; give one of them");
  const std::string module = o.live ? live_module() : "";
  const bool trace_input = !input.empty() && gui::is_trace_file(input);
  std::optional<RunPlan> plan;
  if (trace_input) {
    // The run's flags, the topology's and the seed included, are meaningless with a trace.
    if (const std::string_view flag = flags::run_flag_given(given); !flag.empty())
      throw InputError(fmt::format("{}: a trace records its own run and predictions; {} applies to scenarios only", input, flag));
    if (is_lesson_trace(input)) return lesson_trace_page(input, o);
  } else {
    plan = plan_run(input, from_flags, "cpu", given, o.topology);
    if (plan->lesson()) return lesson_file_page(input, *plan, o, module);
  }
  const Trace trace = trace_input ? load_for_storyboard(input, check_playable) : run_for_storyboard(*plan, input, check_playable);
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
  if (!o.trace.empty()) files.stage(o.trace, trace_to_json(trace));
  files.commit();
  fmt::print("page{}: {} with {} on {} ranks, {} steps, {} transfers ({:.1f} KiB) in {}\n", o.data_only ? " data" : "",
             to_string(vm.schedule().spec.collective), vm.schedule().algorithm, vm.schedule().spec.ranks,
             vm.step_count(), vm.transfer_count(), static_cast<double>(page.size()) / 1024, o.out);
  if (!o.data_only) fmt::print("  open {}\n", o.out);
  return 0;
}

}  // namespace collsim::cli
