// The playhead: which clock, where on it, playing or not, how fast. Plain state with the
// transport's operations; the keyboard, the buttons and scripts all call these.
#pragma once
#include "app/gui/view_model.h"

namespace collsim::gui {

struct Playback {
  ClockKind clock = ClockKind::steps;
  double t = 0;          // on `clock`
  bool playing = false;
  float speed = 1.0f;    // 1: one step per second (time clocks: the whole run in `steps` seconds)
  bool loop = false;

  // Clock units per second of wall time at speed 1.
  double rate(const ViewModel& vm) const;
  void tick(const ViewModel& vm, double seconds);
  void toggle_play(const ViewModel& vm);
  void step_forward(const ViewModel& vm);  // to the next step boundary
  void step_back(const ViewModel& vm);     // to the previous one
  void home(const ViewModel& vm);
  void end(const ViewModel& vm);
  // Step position p: k + f means f of the way from k steps done to k + 1 done.
  void seek_step(const ViewModel& vm, double p);
  double step_position(const ViewModel& vm) const;
  void seek_time(const ViewModel& vm, double time);
  // Switches clock keeping the step position.
  void set_clock(const ViewModel& vm, ClockKind c);
};

}  // namespace collsim::gui
