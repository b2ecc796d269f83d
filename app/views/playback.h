// The playhead: which clock, where on it, playing or not, how fast. Plain state with the
// transport's operations; the keyboard, the buttons and scripts all call these.
//
// The playhead moves over one run, or over two compared side by side on one clock (Runs).
// Each run sees the playhead clamped to its own range (time_on), so the shorter one
// finishes and stays complete while the other goes on; the clock runs from the earlier
// start to the later finish. On the steps clock t counts steps, so each run is at its own
// step t: after 3 steps a 6-step ring is half-way and a 2-step parameter server is done.
#pragma once
#include "app/views/view_model.h"

namespace collsim::gui {

// The runs one playhead drives: `a`, and `b` when comparing (null otherwise).
class Runs {
 public:
  Runs(const ViewModel& a, const ViewModel* b = nullptr) : a_(&a), b_(b) {}  // implicit: one run is the common case

  const ViewModel& a() const { return *a_; }
  const ViewModel* b() const { return b_; }
  bool has_clock(ClockKind c) const { return a_->has_clock(c) && (!b_ || b_->has_clock(c)); }
  double start(ClockKind c) const;
  double finish(ClockKind c) const;
  int step_count() const;  // the larger
  // The run with more steps (a on a tie): step positions (seek_step, set_clock) refer to it.
  const ViewModel& reference() const;
  // The nearest step boundary of either run after t + eps (finish when none), before t - eps (start when none).
  double next_boundary(ClockKind c, double t, double eps) const;
  double previous_boundary(ClockKind c, double t, double eps) const;

 private:
  const ViewModel* a_;
  const ViewModel* b_;
};

// The playhead as one run sees it: t clamped to the run's range on clock c.
double time_on(const ViewModel& vm, ClockKind c, double t);

struct Playback {
  ClockKind clock = ClockKind::steps;
  double t = 0;          // on `clock`
  bool playing = false;
  float speed = 1.0f;    // 1: one step per second (time clocks: the whole run in `steps` seconds)
  bool loop = false;
  // Playing through a lesson (lesson.h, lesson_tick): seconds of wall time at speed 1
  // spent resting at a phase's end or on a compute phase. Entering a phase resets it.
  double rested = 0;

  // Clock units per second of wall time at speed 1.
  double rate(const Runs& runs) const;
  void tick(const Runs& runs, double seconds);
  void toggle_play(const Runs& runs);
  void step_forward(const Runs& runs);  // to the next step boundary (of either run)
  void step_back(const Runs& runs);     // to the previous one
  void home(const Runs& runs);
  void end(const Runs& runs);
  // Step position p: k + f means f of the way from k steps done to k + 1 done.
  void seek_step(const Runs& runs, double p);
  double step_position(const Runs& runs) const;
  void seek_time(const Runs& runs, double time);
  // Switches clock keeping the step position.
  void set_clock(const Runs& runs, ClockKind c);
  // This run's frame at the playhead (clamped to its range).
  Frame frame(const ViewModel& vm) const { return vm.frame(clock, time_on(vm, clock, t)); }
};

}  // namespace collsim::gui
