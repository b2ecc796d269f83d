// The app without a person in front of it: screenshots, one PNG per step, and the
// frame-time benchmark. Each renders real frames through the same panels as the window.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "app/desktop/app.h"
#include "app/desktop/platform.h"

namespace collsim::gui {

struct HeadlessOptions {
  std::string screenshot;             // --screenshot PNG
  std::optional<int> phase;           // --phase K: a lesson's phase K (1-based), before --step/--time
  std::optional<double> step;         // --step K (fractions: mid-step, packets in flight)
  std::optional<double> time_us;      // --time T, in µs
  std::optional<ClockKind> clock;     // --clock
  std::string frames_dir;             // --frames DIR
  int bench_frames = 0;               // --bench-frames N
  bool bench_scrub = false;           // --bench-scrub: jump the playhead every frame
};

// One frame: input, the app's panels, rendering; `capture` (if set) runs after rendering
// and before the buffers swap, when the back buffer holds the frame.
void draw_frame(Platform& p, App& app, double dt, const std::function<void(ImGuiIO&)>& inject = {},
                const std::function<void()>& capture = {});
// Draws frames until the load in progress finishes. False when it failed (the error is in app.error).
bool wait_for_load(Platform& p, App& app);
// Shows the phase and puts the playhead where the options say (--phase, --clock, --step,
// --time). False, with the reason in `problem`, for a phase the open file does not have.
bool place_playhead(App& app, const HeadlessOptions& o, std::string& problem);

// Each returns the process exit status (0, or 2 with a message on stderr).
int take_screenshot(Platform& p, App& app, const HeadlessOptions& o);
int write_frames(Platform& p, App& app, const HeadlessOptions& o);
int bench_frames(Platform& p, App& app, const HeadlessOptions& o);

}  // namespace collsim::gui
