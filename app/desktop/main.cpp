// collsim-gui: watch a collective happen, chunk by chunk (docs/gui.md).
//
//   collsim-gui [FILE]                              a scenario (.toml) or a JSON trace; default
//                                                   scenarios/ring_allreduce_4.toml
//   collsim-gui [FILE] --ranks 8 --topology ring ...
//                                                   `collsim run`'s run flags (app/flags/): over a
//                                                   scenario, only those given replace its values;
//                                                   without FILE, the flags' run
//   collsim-gui FILE --screenshot out.png [--phase K] [--step K | --time T] [--size 1280x800]
//                                                   [--values [--value-source ranks|inputs]]
//   collsim-gui FILE --frames DIR                   one PNG per step
//   collsim-gui FILE --bench-frames N [--bench-scrub]
//   collsim-gui FILE --script ACTIONS               scripted input (script.h)
//   collsim-gui FILE --compare ALGO ...             side by side with another algorithm (any mode)
//
// Exit codes: 0 success; 1 a script expectation failed; 2 bad arguments, a file that does
// not load (headless modes), or no display.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <collsim/version.h>

#include "app/desktop/app.h"
#include "app/desktop/headless.h"
#include "app/desktop/platform.h"
#include "app/desktop/script.h"
#include "app/flags/data_files.h"
#include "app/flags/parse_errors.h"
#include "app/flags/run_flags.h"
#include "app/flags/run_plan.h"
#include "app/flags/topology_flags.h"
#include "app/views/loader.h"
#include "sim/core/errors.h"
#include "sim/lesson/program.h"
#include "sim/run/msccl_import.h"

namespace {

using namespace collsim::gui;

struct Options {
  std::string file;
  std::string size = "1280x800";
  std::string clock;
  std::string script;
  std::string compare;
  float scale = 1.0f;
  bool values = false;
  bool size_curve = false;  // --size-curve
  bool present = false;
  std::string stage = "auto";
  std::optional<int> slide;
  std::string value_source;
  HeadlessOptions headless;
  int width = 1280, height = 800;
  // `collsim run`'s run flags (app/flags/), as typed; `planned`: some were given, and this is
  // what they make of the file (or, without one, their run).
  collsim::flags::SpecFlags spec;
  collsim::flags::ModelFlags model;
  std::uint64_t seed = 1;
  std::optional<collsim::flags::FlagPlan> planned;
  bool is_headless() const {
    return !headless.screenshot.empty() || !headless.frames_dir.empty() || headless.bench_frames > 0 || !script.empty();
  }
};

bool parse_size(const std::string& text, int& w, int& h) {
  char x = 0;
  char rest = 0;
  return std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &rest) == 3 && (x == 'x' || x == 'X') && w >= 320 &&
         h >= 240 && w <= 8192 && h <= 8192;
}

// The run flags given, applied to the file as `collsim run FILE` applies them (or, without
// a file, their run): o.planned. A trace, a lecture or an MSCCL file takes none. False,
// with the message on stderr, for a flag that does not apply or a bad value.
bool plan_run_flags(Options& o, const collsim::flags::FlagGiven& given) {
  namespace flags = collsim::flags;
  const std::string_view flag = flags::run_flag_given(given);
  if (flag.empty()) return true;  // the file as it is
  const auto refuse = [&](std::string_view why) {
    fmt::print(stderr, "collsim-gui: {}: {}; {} applies to scenarios only\n", o.file, why, flag);
    return false;
  };
  if (!o.file.empty() && collsim::is_lecture_file(o.file)) return refuse("a lecture's slides name their runs");
  if (!o.file.empty() && is_trace_file(o.file)) return refuse("a trace records its own run");
  if (!o.file.empty() && collsim::is_msccl_path(o.file))
    return refuse(fmt::format("an MSCCL file opens as it is (give --schedule {} to run it with flags)", o.file));
  try {
    collsim::RunRequest request = flags::to_request(o.spec, given);
    request.seed = o.seed;
    o.planned = flags::plan_flags(o.file, request, given, flags::topology_flags(o.model, given));
    if (o.planned->scenario) collsim::check_lesson_viewable(*o.planned->scenario);  // before a window opens
  } catch (const collsim::InputError& e) {
    fmt::print(stderr, "collsim-gui: {}\n", e.what());
    return false;
  }
  return true;
}

// Parses the command line; nullopt with the exit status in `status` when the program should stop.
std::optional<Options> parse(int argc, char** argv, int& status) {
  Options o;
  std::optional<double> step, time_us;
  std::optional<int> phase;
  CLI::App cli("collsim-gui: watch a collective happen, chunk by chunk", "collsim-gui");
  cli.set_version_flag("--version", std::string("collsim-gui ") + COLLSIM_VERSION);
  cli.add_option("file", o.file,
                 "a scenario or lesson (.toml), a lecture (.lecture.toml) or a JSON trace (default: "
                 "scenarios/ring_allreduce_4.toml; with run flags and no file, the flags' run)");
  cli.add_option("--screenshot", o.headless.screenshot, "render once, write this PNG and exit");
  cli.add_option("--phase", phase, "a lesson: start at phase K (1-based); --step and --time are then within it");
  auto* step_opt = cli.add_option("--step", step, "start after K steps (2.5: half-way through step 3)");
  cli.add_option("--time", time_us, "start at time T in µs (predicted when the trace has it, else measured)")->excludes(step_opt);
  cli.add_option("--clock", o.clock, "steps, measured or predicted");
  cli.add_option("--size", o.size, "window size WxH")->capture_default_str();
  cli.add_option("--frames", o.headless.frames_dir, "write one PNG per step into this folder and exit");
  cli.add_option("--bench-frames", o.headless.bench_frames, "render N frames while playing; print mean and p99 frame time");
  cli.add_flag("--bench-scrub", o.headless.bench_scrub, "with --bench-frames: move the playhead to a random step every frame");
  cli.add_option("--script", o.script, "apply the actions in this file, print the state after each, exit");
  cli.add_option("--compare", o.compare,
                 "also run the scenario with this algorithm (same spec and topology; a lesson: the --phase shown) and "
                 "show both side by side, on one clock; phase:K shows the lesson's phase K beside the --phase shown");
  cli.add_option("--scale", o.scale, "UI scale from 0.5 to 4 (1 = 16 px text)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            return !text.empty() && end == text.c_str() + text.size() && v >= 0.5 && v <= 4
                       ? std::string()
                       : "a number from 0.5 to 4 (1.5 on a projector), got '" + text + "'";
          },
          ""));
  cli.add_flag("--present", o.present, "presenter mode (F5): the stage layout, larger text, no editing controls");
  cli.add_option("--stage", o.stage,
                 "the stage layout, for a class: the scene large, every rank's buffers in compact rows, the numbers on one "
                 "line, the timeline behind a button. auto: when presenting or when the window is small for its text (under "
                 "64x40 ems: 1280x800 at --scale 1.5); on; off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cli.add_option("--slide", o.slide, "a lecture file (.lecture.toml): start at slide K (1-based)");
  cli.add_flag("--size-curve", o.size_curve,
               "open the run's busbw against size (the Numbers panel's button): predicted on its topology from 256 B "
               "to 1 GiB per rank, its own size marked");
  cli.add_flag("--values", o.values, "start in the values view (buffers of at most 16 elements per rank)");
  cli.add_option("--value-source", o.value_source,
                 "the values view's numbers: ranks (rank q holds q+1, the default) or inputs (the run's inputs, as "
                 "its type rounds them)");
  // The app's own options under two headings, `collsim run`'s flags under theirs (app/flags/run_flags.h).
  for (CLI::Option* option : cli.get_options()) {
    const std::string name = option->get_name();
    if (name == "--screenshot" || name == "--frames" || name == "--bench-frames" || name == "--bench-scrub" || name == "--script")
      option->group("Without a window: render, write and exit");
    else if (name != "--help" && name != "--version" && !option->get_positional())
      option->group("Where it starts and how it looks");
  }
  const std::string run_group = "The run, as `collsim run` takes it (over FILE, a flag given replaces the file's value; "
                                "a lesson of several phases takes --ranks, --seed and the topology's)";
  collsim::flags::add_spec_flags(cli, o.spec, run_group);
  collsim::flags::add_seed_flag(cli, o.seed, run_group);
  collsim::flags::add_model_flags(cli, o.model,
                                  "The topology the times are predicted on, as `collsim run` takes it (over FILE, "
                                  "replacing its [topology]'s values)");
  collsim::flags::prepare_for_people(cli);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    status = cli.exit(e);
    return std::nullopt;
  } catch (const CLI::CallForVersion& e) {
    status = cli.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {  // the promise is exit 2 for bad arguments
    fmt::print(stderr, "{}\n", collsim::flags::parse_error_message(cli, e, std::vector<std::string>(argv + 1, argv + argc)));
    status = 2;
    return std::nullopt;
  }
  if (const std::string unexpected = collsim::flags::unexpected_arguments(cli); !unexpected.empty()) {
    fmt::print(stderr, "{}\n", unexpected);
    status = 2;
    return std::nullopt;
  }
  if (!parse_size(o.size, o.width, o.height)) {
    fmt::print(stderr, "collsim-gui: --size: '{}' is not WIDTHxHEIGHT (320x240 to 8192x8192), e.g. 1280x800\n", o.size);
    status = 2;
    return std::nullopt;
  }
  if (!o.clock.empty()) {
    for (ClockKind c : kAllClocks)
      if (to_string(c) == o.clock) o.headless.clock = c;
    if (!o.headless.clock) {
      fmt::print(stderr, "collsim-gui: --clock: unknown clock '{}' (use steps, measured or predicted)\n", o.clock);
      status = 2;
      return std::nullopt;
    }
  }
  if (!o.value_source.empty() && o.value_source != "ranks" && o.value_source != "inputs") {
    fmt::print(stderr, "collsim-gui: --value-source: unknown source '{}' (use ranks or inputs)\n", o.value_source);
    status = 2;
    return std::nullopt;
  }
  // A lesson by name (lessons/01_ring_allreduce), installed or in the source tree: say which file.
  if (const collsim::flags::FoundFile found = collsim::flags::find_input_file(o.file); found.found_by_name) {
    fmt::print(stderr, "collsim-gui: {} is {}\n", o.file, found.path);
    o.file = found.path;
  }
  o.headless.phase = phase;
  o.headless.step = step;
  o.headless.time_us = time_us;
  if (!plan_run_flags(o, collsim::flags::flags_given(&cli))) {
    status = 2;
    return std::nullopt;
  }
  if (o.file.empty() && !o.planned) o.file = (data_dir() / "scenarios" / "ring_allreduce_4.toml").string();
  return o;
}

void no_display(const std::string& why) {
  fmt::print(stderr,
             "collsim-gui: cannot open a window: {}\n"
             "  Without a display, use the command-line tool instead, e.g.\n"
             "    collsim run scenarios/ring_allreduce_4.toml\n"
             "  or run the app under a virtual display, e.g.\n"
             "    xvfb-run -a -s \"-screen 0 1280x800x24\" collsim-gui FILE --screenshot out.png\n",
             why);
}

int interactive(Platform& p, App& app) {
  using clock = std::chrono::steady_clock;
  auto last = clock::now();
  while (!p.should_close()) {
    const auto now = clock::now();
    const std::string png = std::exchange(app.requested_screenshot, {});
    std::string problem;
    draw_frame(p, app, std::chrono::duration<double>(now - last).count(), {}, [&] {
      if (!png.empty() && !p.save_png(png, problem)) app.error = problem;
      if (!png.empty() && problem.empty()) app.status = "wrote " + png;
    });
    last = now;
  }
  return 0;
}

int run(const Options& o) {
  Platform platform;
  std::string why;
  if (!platform.init(o.width, o.height, !o.is_headless(), why)) {
    no_display(why);
    return 2;
  }
  App app(load_fonts(o.scale));
  app.toggles.ui_scale = o.scale;
  app.toggles.values = o.values;
  app.size_curve.open = o.size_curve;
  if (o.value_source == "inputs") app.toggles.value_source = ValueSource::input_data;
  apply_style(o.scale);
  app.toggle_fullscreen = [&platform] { platform.toggle_fullscreen(); };
  if (o.present) app.set_presenting(true);
  app.toggles.stage = o.stage == "on" ? StageChoice::on : o.stage == "off" ? StageChoice::off : StageChoice::automatic;
  const bool lecture = collsim::is_lecture_file(o.file);
  if (lecture && (!o.compare.empty() || o.headless.phase || o.headless.step || o.headless.time_us)) {
    fmt::print(stderr, "collsim-gui: {}: a lecture's slides say the phase, step and comparison (use --slide K)\n", o.file);
    return 2;
  }
  if (!lecture && o.slide) {
    fmt::print(stderr, "collsim-gui: --slide: {} is not a lecture file (NAME.lecture.toml)\n", o.file);
    return 2;
  }
  const std::size_t phase = o.headless.phase ? static_cast<std::size_t>(std::max(*o.headless.phase - 1, 0)) : 0;
  if (o.planned) {
    const auto& p = *o.planned;
    app.open_run(p.request, p.topology, p.scenario ? std::make_shared<const collsim::Scenario>(*p.scenario) : nullptr,
                 o.compare, phase);
  } else {
    app.open(o.file, o.compare, phase);
  }
  if (lecture && !app.lecture) {  // the lecture file itself is bad
    fmt::print(stderr, "collsim-gui: {}\n", app.error);
    return 2;
  }
  if (!o.is_headless() && lecture) {
    if (o.slide) app.on_first_load = [k = *o.slide](App& a) { a.go_to_slide(static_cast<std::size_t>(std::max(k - 1, 0))); };
    return interactive(platform, app);
  }
  if (!o.is_headless()) {
    app.on_first_load = [h = o.headless](App& a) {  // --phase, --step, --time, --clock
      std::string problem;
      if (!place_playhead(a, h, problem)) a.error = problem;
    };
    return interactive(platform, app);
  }
  bool loaded = wait_for_load(platform, app);
  if (lecture && o.slide) {
    if (*o.slide < 1 || static_cast<std::size_t>(*o.slide) > app.lecture->slides.size()) {
      fmt::print(stderr, "collsim-gui: --slide {}: {} has slides 1..{}\n", *o.slide, o.file, app.lecture->slides.size());
      return 2;
    }
    app.go_to_slide(static_cast<std::size_t>(*o.slide - 1));
    loaded = wait_for_load(platform, app);
  }
  if (!o.script.empty()) {  // the script may expect an error; --phase, --step, --time place it first
    std::string problem;
    if (loaded && !place_playhead(app, o.headless, problem)) {
      fmt::print(stderr, "collsim-gui: {}\n", problem);
      return 2;
    }
    return run_script(platform, app, o.script);
  }
  if (!loaded) {
    fmt::print(stderr, "collsim-gui: {}\n", app.error);
    return 2;
  }
  if (o.headless.bench_frames > 0) return bench_frames(platform, app, o.headless);
  if (!o.headless.frames_dir.empty()) return write_frames(platform, app, o.headless);
  return take_screenshot(platform, app, o.headless);
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  const std::optional<Options> options = parse(argc, argv, status);
  if (!options) return status;
  return run(*options);
}
