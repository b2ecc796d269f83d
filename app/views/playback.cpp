#include "app/views/playback.h"

#include <algorithm>
#include <cmath>

namespace collsim::gui {
namespace {

double tolerance(const Runs& runs, ClockKind c) { return 1e-9 * std::max(1.0, runs.finish(c) - runs.start(c)); }

// Step position p on one run's clock c.
double time_of_step(const ViewModel& vm, ClockKind c, double p) {
  p = std::clamp(p, 0.0, static_cast<double>(vm.step_count()));
  const int k = static_cast<int>(std::floor(p));
  const double a = vm.step_time(c, k), b = vm.step_time(c, std::min(k + 1, vm.step_count()));
  return a + (p - k) * (b - a);
}

}  // namespace

double Runs::start(ClockKind c) const { return b_ ? std::min(a_->clock(c).start, b_->clock(c).start) : a_->clock(c).start; }

double Runs::finish(ClockKind c) const {
  return b_ ? std::max(a_->clock(c).finish, b_->clock(c).finish) : a_->clock(c).finish;
}

int Runs::step_count() const { return b_ ? std::max(a_->step_count(), b_->step_count()) : a_->step_count(); }

const ViewModel& Runs::reference() const { return b_ && b_->step_count() > a_->step_count() ? *b_ : *a_; }

double Runs::next_boundary(ClockKind c, double t, double eps) const {
  double next = finish(c);
  for (const ViewModel* vm : {a_, b_}) {
    if (!vm) continue;
    for (int k = 0; k <= vm->step_count(); ++k)
      if (vm->step_time(c, k) > t + eps) {
        next = std::min(next, vm->step_time(c, k));
        break;
      }
  }
  return next;
}

double Runs::previous_boundary(ClockKind c, double t, double eps) const {
  double previous = start(c);
  for (const ViewModel* vm : {a_, b_}) {
    if (!vm) continue;
    for (int k = vm->step_count(); k >= 0; --k)
      if (vm->step_time(c, k) < t - eps) {
        previous = std::max(previous, vm->step_time(c, k));
        break;
      }
  }
  return previous;
}

double time_on(const ViewModel& vm, ClockKind c, double t) {
  const ClockIndex& k = vm.clock(c);
  return std::clamp(t, k.start, std::max(k.start, k.finish));
}

double Playback::rate(const Runs& runs) const {
  if (clock == ClockKind::steps) return 1.0;
  return (runs.finish(clock) - runs.start(clock)) / std::max(1, runs.step_count());
}

void Playback::tick(const Runs& runs, double seconds) {
  if (!playing) return;
  t += rate(runs) * speed * seconds;
  if (t < runs.finish(clock)) return;
  if (loop) {
    t = runs.start(clock);
  } else {
    t = runs.finish(clock);
    playing = false;
  }
}

void Playback::toggle_play(const Runs& runs) {
  if (!playing && t >= runs.finish(clock) - tolerance(runs, clock)) t = runs.start(clock);  // play again from the start
  playing = !playing;
}

void Playback::step_forward(const Runs& runs) {
  playing = false;
  t = runs.next_boundary(clock, t, tolerance(runs, clock));
}

void Playback::step_back(const Runs& runs) {
  playing = false;
  t = runs.previous_boundary(clock, t, tolerance(runs, clock));
}

void Playback::home(const Runs& runs) {
  playing = false;
  t = runs.start(clock);
}

void Playback::end(const Runs& runs) {
  playing = false;
  t = runs.finish(clock);
}

void Playback::seek_step(const Runs& runs, double p) {
  const ViewModel& ref = runs.reference();
  // Comparing, the end of the reference run is the end of the clock: both runs complete.
  t = runs.b() && p >= ref.step_count() ? runs.finish(clock) : time_of_step(ref, clock, p);
}

double Playback::step_position(const Runs& runs) const {
  const ViewModel& vm = runs.reference();
  if (runs.b() && t >= runs.finish(clock) - tolerance(runs, clock)) return vm.step_count();
  const int k = vm.steps_done(clock, t);
  if (k >= vm.step_count()) return vm.step_count();
  const double a = vm.step_time(clock, k), b = vm.step_time(clock, k + 1);
  return k + (b > a ? std::clamp((t - a) / (b - a), 0.0, 1.0) : 0.0);
}

void Playback::seek_time(const Runs& runs, double time) { t = std::clamp(time, runs.start(clock), runs.finish(clock)); }

void Playback::set_clock(const Runs& runs, ClockKind c) {
  if (!runs.has_clock(c) || c == clock) return;
  const double p = step_position(runs);
  clock = c;
  seek_step(runs, p);
}

}  // namespace collsim::gui
