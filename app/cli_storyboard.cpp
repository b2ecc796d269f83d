#include "app/cli_storyboard.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "app/gui/loader.h"
#include "app/gui/view_model.h"
#include "app/storyboard.h"
#include "sim/backend.h"
#include "sim/custom_schedule.h"
#include "sim/errors.h"
#include "sim/trace.h"

namespace collsim::cli {
namespace {

// The flags that describe a run: meaningless with a trace, which records its own.
constexpr std::string_view kSpecFlags[] = {"--collective", "--algorithm",      "--ranks",    "--count",  "--dtype",
                                           "--op",         "--root",           "--in-place", "--slices", "--servers",
                                           "--colocated",  "--ranks-per-node", "--schedule"};

// What the GUI shows for a scenario: run on the CPU backend, times predicted on the
// scenario's topology (gui/loader.cpp does the same), so the storyboard's scene is laid out
// as in the app.
Trace run_for_storyboard(const std::string& scenario, const RunRequest& from_flags, const FlagGiven& given) {
  const RunPlan plan = plan_run(scenario, from_flags, "cpu", given);
  RunResult run = prepare_run(plan.request);
  storyboard::check_drawable(run.schedule, scenario.empty() ? "storyboard" : scenario);
  predict_run(run, plan.topology);
  execute_run(run, *make_cpu_backend());
  if (!run.verification.ok) throw std::runtime_error("the run gave a wrong result: " + run.verification.first_mismatch);
  return make_trace(run, plan.title, plan.description);
}

Trace load_for_storyboard(const std::string& input, const FlagGiven& given) {
  for (std::string_view flag : kSpecFlags)
    if (given(flag))
      throw InputError(fmt::format("{}: a trace records its own run; {} applies to scenarios only", input, flag));
  Trace t = load_trace_json(input);
  storyboard::check_drawable(t.schedule, input);
  return t;
}

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot read the file: it is a folder", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A schedule file on its own: built and checked at its own count, or at `collsim run`'s.
std::string validate_schedule(const std::string& path) {
  RunRequest r = default_run_request();
  r.algorithm = kCustomAlgorithm;
  r.options.schedule_file = path;
  r = adopt_schedule_spec(r, [](std::string_view) { return false; });
  const Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  return fmt::format("schedule: {} on {} ranks, {} steps, {} transfers; checked at count {}",
                     to_string(s.spec.collective), s.spec.ranks, s.step_count(), s.transfers.size(), s.spec.count);
}

std::string validate_scenario(const std::string& path) {
  const Scenario sc = load_scenario(path);
  RunResult run = prepare_model_run(sc.request);
  predict_run(run, sc.topology);  // a bad [topology] (an unknown link name) shows only here
  return fmt::format("scenario{}: {} with {} on {} ranks, {} steps{}", sc.title.empty() ? "" : " '" + sc.title + "'",
                     to_string(run.schedule.spec.collective), run.schedule.algorithm, run.schedule.spec.ranks,
                     run.schedule.step_count(),
                     run.check_skipped ? " (too many ranks for the symbolic check)" : ", checked");
}

std::string validate_one(const std::string& path) {
  if (gui::is_trace_file(path)) {
    const Trace t = load_trace_json(path);
    return fmt::format("trace: {} with {} on {} ranks, {} transfers, {}", to_string(t.request.spec.collective),
                       t.request.algorithm, t.request.spec.ranks, t.schedule.transfers.size(),
                       t.verification.ok ? "verified" : "WRONG result recorded");
  }
  return is_schedule_text(read_text(path)) ? validate_schedule(path) : validate_scenario(path);
}

}  // namespace

int command_storyboard(const std::string& input, const std::string& out_dir, const RunRequest& from_flags,
                       const FlagGiven& given) {
  const bool trace_input = !input.empty() && gui::is_trace_file(input);
  // Everything is read, run and drawn before the folder is touched: bad input leaves nothing.
  const gui::ViewModel vm(trace_input ? load_for_storyboard(input, given)
                                      : run_for_storyboard(input, from_flags, given));
  const storyboard::Storyboard board = storyboard::make_storyboard(vm);
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

int command_validate(const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    const std::string what = validate_one(f);  // throws at the first bad file
    fmt::print("{}: OK ({})\n", f, what);
    std::fflush(stdout);  // the OK lines come before an error about a later file
  }
  return 0;
}

}  // namespace collsim::cli
