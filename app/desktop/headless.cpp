#include "app/desktop/headless.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <cfloat>
#include <cstdlib>

#include <sys/resource.h>

#include <fmt/format.h>

namespace collsim::gui {
namespace {

constexpr double kFrameSeconds = 1.0 / 60.0;
constexpr int kSettleFrames = 3;  // ImGui sizes windows and tables over the first frames

// The pointer away from the window: a screenshot shows no tooltip of whatever lies under
// the middle of the virtual screen.
void pointer_away(ImGuiIO& io) { io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX); }

bool save(Platform& p, App& app, const std::string& path) {
  std::string error;
  bool ok = true;
  draw_frame(p, app, 0.0, pointer_away, [&] { ok = p.save_png(path, error); });
  if (!ok) fmt::print(stderr, "collsim-gui: {}\n", error);
  return ok;
}

void settle(Platform& p, App& app) {
  for (int i = 0; i < kSettleFrames; ++i) draw_frame(p, app, 0.0, pointer_away);
}

}  // namespace

void draw_frame(Platform& p, App& app, double dt, const std::function<void(ImGuiIO&)>& inject,
                const std::function<void()>& capture) {
  p.new_frame(app, inject);
  app.draw(dt);
  p.render();
  if (capture) capture();
  p.swap();
}

bool wait_for_load(Platform& p, App& app) {
  while (app.loading()) draw_frame(p, app, 0.0);
  draw_frame(p, app, 0.0);  // takes the result
  return app.has_document() && app.error.empty();
}

bool place_playhead(App& app, const HeadlessOptions& o, std::string& problem) {
  if (o.phase) {
    const std::size_t phases = app.doc.lesson ? app.doc.lesson->phase_count() : 0;
    if (*o.phase < 1 || static_cast<std::size_t>(*o.phase) > phases) {
      problem = phases == 0 ? fmt::format("--phase {}: {} has no phases (a trace)", *o.phase, app.doc.source)
                            : fmt::format("--phase {}: {} has phases 1..{}", *o.phase, app.doc.source, phases);
      return false;
    }
    app.select_phase(static_cast<std::size_t>(*o.phase - 1));
  }
  app.playback.playing = false;
  if (!app.doc.model) {  // a compute phase: no playhead to place
    if (o.step || o.time_us) problem = fmt::format("--step and --time: phase {} is a compute phase, without steps", app.doc.phase + 1);
    return problem.empty();
  }
  const Runs vm = app.runs();
  Playback& pb = app.playback;
  if (o.clock) pb.set_clock(vm, *o.clock);
  if (o.time_us) {
    if (!o.clock) pb.set_clock(vm, vm.has_clock(ClockKind::predicted) ? ClockKind::predicted : ClockKind::measured);
    pb.seek_time(vm, *o.time_us * 1000.0);
  } else if (o.step) {
    // A step outside the run is shown at its nearest end, and said: a student who typed
    // --step 100 learns the run has fewer.
    const double last = vm.step_count();
    if (*o.step < 0 || *o.step > last)
      fmt::print(stderr, "collsim-gui: warning: --step {:g}: the run has steps 0 to {:g}; showing step {:g}\n", *o.step,
                 last, *o.step < 0 ? 0.0 : last);
    pb.seek_step(vm, *o.step);
  }
  if (o.time_us && *o.time_us < 0)
    fmt::print(stderr, "collsim-gui: warning: --time {:g}: a time is 0 or more; showing the start\n", *o.time_us);
  return true;
}

namespace {

// place_playhead for the headless modes: a bad --phase is the exit status 2.
bool placed(App& app, const HeadlessOptions& o) {
  std::string problem;
  if (place_playhead(app, o, problem)) return true;
  fmt::print(stderr, "collsim-gui: {}\n", problem);
  return false;
}

// What the frame shows, for the line that says what was written: the step (or the
// lesson's phase) and the file's caption of it.
std::string shown(const App& app) {
  std::string text = app.doc.model ? app.now.caption : "";
  if (!app.doc.lesson) return text;
  const Lesson& l = *app.doc.lesson;
  if (l.multi_phase()) text = fmt::format("phase {}: {}{}{}", app.doc.phase + 1, l.phase(app.doc.phase).name, text.empty() ? "" : "; ", text);
  const Narration n = narration(l, app.doc.phase, app.doc.model ? caption_step(app.now, app.doc.model->step_count()) : 0);
  const std::string& words = n.step.empty() ? n.phase : n.step;
  return words.empty() ? text : fmt::format("{} — {}", text, words);
}

}  // namespace

int take_screenshot(Platform& p, App& app, const HeadlessOptions& o) {
  if (!placed(app, o)) return 2;
  settle(p, app);
  if (!save(p, app, o.screenshot)) return 2;
  fmt::print("wrote {} ({})\n", o.screenshot, shown(app));
  return 0;
}

int write_frames(Platform& p, App& app, const HeadlessOptions& o) {
  std::error_code ec;
  std::filesystem::create_directories(o.frames_dir, ec);
  if (ec) {
    fmt::print(stderr, "collsim-gui: --frames {}: {}\n", o.frames_dir, ec.message());
    return 2;
  }
  if (!placed(app, o)) return 2;
  if (!app.doc.model) {  // a compute phase: its card, once
    settle(p, app);
    const std::string path = (std::filesystem::path(o.frames_dir) / "step_000.png").string();
    if (!save(p, app, path)) return 2;
    fmt::print("wrote 1 frame to {} ({})\n", path, shown(app));
    return 0;
  }
  const Runs vm = app.runs();
  for (int k = 0; k <= vm.step_count(); ++k) {
    app.playback.seek_step(vm, k);
    settle(p, app);
    const std::string path = (std::filesystem::path(o.frames_dir) / fmt::format("step_{:03d}.png", k)).string();
    if (!save(p, app, path)) return 2;
  }
  fmt::print("wrote {} frames to {}/step_000.png .. step_{:03d}.png\n", vm.step_count() + 1, o.frames_dir, vm.step_count());
  return 0;
}

namespace {

double cpu_seconds() {  // user + system time of every thread of this process (llvmpipe's too)
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct FrameTimes {
  std::vector<double> total;  // ms per frame, wall clock
  double ui = 0, raster = 0, swap = 0, cpu = 0;  // sums: building the UI, rasterising it (GL, glFinish), presenting; CPU time
  double vertices = 0, commands = 0;              // sums: ImGui's vertices and draw calls

  double mean(double sum) const { return total.empty() ? 0.0 : sum / static_cast<double>(total.size()); }
  double percentile(double q) const {
    if (total.empty()) return 0;
    std::vector<double> sorted = total;
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
  }
};

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::duration<double, std::milli>;

// One whole frame, timed in its three parts, with ImGui's vertex and draw-call counts.
void timed_frame(Platform& p, App& app, double dt, bool first, FrameTimes& f) {
  const auto start = Clock::now();
  p.new_frame(app);
  app.draw(dt);
  const auto built = Clock::now();
  p.render();
  p.finish();
  const auto drawn = Clock::now();
  if (const ImDrawData* d = ImGui::GetDrawData()) {
    f.vertices += d->TotalVtxCount;
    for (int l = 0; l < d->CmdListsCount; ++l) f.commands += d->CmdLists[l]->CmdBuffer.Size;
    if (first && std::getenv("COLLSIM_GUI_DRAW_LISTS"))  // where the vertices go, window by window
      for (int l = 0; l < d->CmdListsCount; ++l)
        fmt::print("  {}: {} vertices\n", d->CmdLists[l]->_OwnerName, d->CmdLists[l]->VtxBuffer.Size);
  }
  p.swap();
  const auto end = Clock::now();
  f.ui += Ms(built - start).count();
  f.raster += Ms(drawn - built).count();
  f.swap += Ms(end - drawn).count();
  f.total.push_back(Ms(end - start).count());
}

void print_times(const FrameTimes& f, const App& app, bool scrub) {
  const ViewModel& vm = *app.doc.model;
  double sum = 0;
  for (double v : f.total) sum += v;
  fmt::print("frames {}  mean {:.2f} ms  p99 {:.2f} ms  max {:.2f} ms  (UI {:.2f} + raster {:.2f} + present {:.2f}; CPU {:.2f} ms "
             "per frame; {:.0f} vertices, {:.0f} draw calls)  [{}; {} ranks, {} transfers, {} cells; clock {}{}]\n",
             f.total.size(), f.mean(sum), f.percentile(0.99), f.percentile(1.0), f.mean(f.ui), f.mean(f.raster),
             f.mean(f.swap), f.mean(f.cpu), f.mean(f.vertices), f.mean(f.commands),
             scrub ? "scrubbing: a random step position every frame" : "playing", vm.schedule().total_ranks,
             vm.transfer_count(), vm.buffers().cells().size(), std::string(to_string(app.playback.clock)),
             app.doc.compare ? fmt::format("; compared with {}", app.doc.compare->schedule().algorithm) : "");
}

}  // namespace

int bench_frames(Platform& p, App& app, const HeadlessOptions& o) {
  if (!placed(app, o)) return 2;
  if (!app.doc.model) {
    fmt::print(stderr, "collsim-gui: --bench-frames: phase {} is a compute phase: nothing plays\n", app.doc.phase + 1);
    return 2;
  }
  const Runs vm = app.runs();
  app.playback.loop = true;
  app.play_through = false;  // a lesson's phase plays on a loop, as a single run: the load measured stays the same
  app.playback.playing = !o.bench_scrub;
  settle(p, app);
  std::mt19937 random(1);
  FrameTimes f;
  const double cpu_start = cpu_seconds();
  auto last = Clock::now();
  for (int i = 0; i < o.bench_frames; ++i) {
    if (o.bench_scrub) app.playback.seek_step(vm, std::uniform_real_distribution<double>(0.0, vm.step_count())(random));
    const auto now = Clock::now();
    timed_frame(p, app, std::chrono::duration<double>(now - last).count(), i == 0, f);
    last = now;
  }
  f.cpu = 1000 * (cpu_seconds() - cpu_start);
  print_times(f, app, o.bench_scrub);
  return 0;
}

}  // namespace collsim::gui
