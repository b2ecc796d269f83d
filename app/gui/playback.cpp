#include "app/gui/playback.h"

#include <algorithm>
#include <cmath>

namespace collsim::gui {
namespace {

double tolerance(const ViewModel& vm, ClockKind c) {
  const ClockIndex& k = vm.clock(c);
  return 1e-9 * std::max(1.0, k.finish - k.start);
}

}  // namespace

double Playback::rate(const ViewModel& vm) const {
  const ClockIndex& c = vm.clock(clock);
  if (clock == ClockKind::steps) return 1.0;
  return (c.finish - c.start) / std::max(1, vm.step_count());
}

void Playback::tick(const ViewModel& vm, double seconds) {
  if (!playing) return;
  const ClockIndex& c = vm.clock(clock);
  t += rate(vm) * speed * seconds;
  if (t < c.finish) return;
  if (loop) {
    t = c.start;
  } else {
    t = c.finish;
    playing = false;
  }
}

void Playback::toggle_play(const ViewModel& vm) {
  const ClockIndex& c = vm.clock(clock);
  if (!playing && t >= c.finish - tolerance(vm, clock)) t = c.start;  // play again from the start
  playing = !playing;
}

void Playback::step_forward(const ViewModel& vm) {
  playing = false;
  const double eps = tolerance(vm, clock);
  for (int k = 0; k <= vm.step_count(); ++k)
    if (vm.step_time(clock, k) > t + eps) {
      t = vm.step_time(clock, k);
      return;
    }
  t = vm.clock(clock).finish;
}

void Playback::step_back(const ViewModel& vm) {
  playing = false;
  const double eps = tolerance(vm, clock);
  for (int k = vm.step_count(); k >= 0; --k)
    if (vm.step_time(clock, k) < t - eps) {
      t = vm.step_time(clock, k);
      return;
    }
  t = vm.clock(clock).start;
}

void Playback::home(const ViewModel& vm) {
  playing = false;
  t = vm.clock(clock).start;
}

void Playback::end(const ViewModel& vm) {
  playing = false;
  t = vm.clock(clock).finish;
}

void Playback::seek_step(const ViewModel& vm, double p) {
  p = std::clamp(p, 0.0, static_cast<double>(vm.step_count()));
  const int k = static_cast<int>(std::floor(p));
  const double a = vm.step_time(clock, k), b = vm.step_time(clock, std::min(k + 1, vm.step_count()));
  t = a + (p - k) * (b - a);
}

double Playback::step_position(const ViewModel& vm) const {
  const int k = vm.steps_done(clock, t);
  if (k >= vm.step_count()) return vm.step_count();
  const double a = vm.step_time(clock, k), b = vm.step_time(clock, k + 1);
  return k + (b > a ? std::clamp((t - a) / (b - a), 0.0, 1.0) : 0.0);
}

void Playback::seek_time(const ViewModel& vm, double time) {
  const ClockIndex& c = vm.clock(clock);
  t = std::clamp(time, c.start, c.finish);
}

void Playback::set_clock(const ViewModel& vm, ClockKind c) {
  if (!vm.has_clock(c) || c == clock) return;
  const double p = step_position(vm);
  clock = c;
  seek_step(vm, p);
}

}  // namespace collsim::gui
