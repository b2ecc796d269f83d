#include "app/views/lesson.h"

#include <functional>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/lesson/captions.h"
#include "sim/core/errors.h"

namespace collsim::gui {
namespace {

// A text rendered for the run, or as written when the run lacks a name it uses (the app
// re-ran the lesson with another algorithm, whose stages the text does not know): the
// app shows the lesson rather than refuse it; `collsim validate` reports such a text.
std::string shown_or_written(const std::string& written, const std::function<std::string()>& render) {
  try {
    return render();
  } catch (const InputError&) {
    return written;
  }
}

}  // namespace

void build_lesson(Lesson& l, const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::size_t n = l.phase_count();
  l.facts = lesson_facts(l.scenario, l.program);
  l.lanes = stream_lanes(l.scenario);
  l.description = shown_or_written(l.scenario.description, [&] { return lesson_description(l.scenario, l.facts); });
  l.views.assign(n, nullptr);
  // Phases that run some steps of one collective share its history: the one its run's check
  // recorded (prepare_program with record_history), else recorded here once.
  std::map<const RunResult*, std::shared_ptr<const BufferHistory>> histories;
  for (std::size_t k = 0; k < n; ++k) {
    const PhaseRun& pr = l.run_of(k);
    if (!pr.run) continue;
    if (progress) progress(k, n);
    Trace t = phase_trace(l.scenario, l.program, k, l.description);
    if (phase_runs_every_step(pr)) {
      l.views[k] = std::make_shared<ViewModel>(std::move(t));
      continue;
    }
    std::shared_ptr<const BufferHistory>& whole = histories[pr.run.get()];
    if (!whole) whole = history_or_record(pr.run->history, pr.run->schedule);
    const Phase& phase = l.phase(k);
    const bool to_the_end = phase.last_step == 0 || phase.last_step == pr.run->schedule.step_count();
    l.views[k] = std::make_shared<ViewModel>(std::move(t), whole->window(pr.source_transfer, to_the_end));
  }
  l.answers.clear();
  l.answerable.clear();
  l.questions.clear();
  for (std::size_t k = 0; k < l.scenario.questions.size(); ++k) {
    const Question& q = l.scenario.questions[k];
    l.questions.push_back(shown_or_written(q.text, [&] { return question_text(l.scenario, l.facts, k); }));
    try {
      const Answer a = answer_question(l.scenario, k, l.program, l.facts);
      l.answers.push_back(a.text);
      l.answerable.push_back(a.applies);
    } catch (const InputError& e) {
      l.answers.push_back(fmt::format("this run cannot answer it: {}", e.what()));
      l.answerable.push_back(false);
    }
  }
}

std::string phase_summary(const Lesson& l, std::size_t k) {
  const Phase& phase = l.phase(k);
  if (phase.kind == PhaseKind::compute) {
    const auto most = std::max_element(phase.compute_us.begin(), phase.compute_us.end());
    return fmt::format("compute, up to {} per rank",
                       format_duration_ns(most == phase.compute_us.end() ? 0.0 : *most * 1000.0));
  }
  const Schedule& s = l.run_of(k).schedule;
  std::string text = fmt::format("{} with {}", to_string(s.spec.collective), s.algorithm);
  if (phase.first_step > 0) text += fmt::format(", steps {}-{}", phase.first_step, phase.last_step);
  return text;
}

Narration narration(const Lesson& l, std::size_t k, int step) {
  const Phase& phase = l.phase(k);
  const Schedule none;
  const Schedule& s = phase.kind == PhaseKind::collective ? l.run_of(k).schedule : none;
  step = std::clamp(step, 0, s.step_count());
  CaptionParts parts;
  try {
    parts = caption_parts(l.scenario, l.facts, k, s, step);
    if (step > 0) parts.phase = caption_parts(l.scenario, l.facts, k, s, 0).phase;
  } catch (const InputError&) {  // as written (shown_or_written)
    parts = {l.scenario.caption, phase.caption, step > 0 ? phase.step_caption : std::string()};
  }
  return {std::move(parts.lesson), std::move(parts.phase), std::move(parts.step)};
}

int caption_step(const Frame& f, int steps) {
  return std::min(f.steps_done + (f.in_flight.empty() && f.queued.empty() ? 0 : 1), steps);
}

int Reveals::next() {
  const auto hidden = std::find(shown.begin(), shown.end(), false);
  if (hidden == shown.end()) {
    std::fill(shown.begin(), shown.end(), false);
    return -1;
  }
  *hidden = true;
  return static_cast<int>(hidden - shown.begin());
}

void Reveals::toggle(std::size_t k) {
  if (k < shown.size()) shown[k] = !shown[k];
}

std::size_t Reveals::count() const { return static_cast<std::size_t>(std::count(shown.begin(), shown.end(), true)); }

namespace {

double tolerance(const ViewModel& vm, ClockKind c) {
  return 1e-9 * std::max(1.0, vm.clock(c).finish - vm.clock(c).start);
}

}  // namespace

void enter_phase(const Lesson& l, std::size_t k, Playback& p, bool at_end) {
  p.playing = false;
  p.rested = 0;
  const ViewModel* vm = l.views.at(k).get();
  if (!vm) return;  // a compute phase has no playhead; the clock stays as chosen
  // The phase's own clock, where the lesson gives it one (the model's serialisation is its point).
  if (const auto c = clock_named(l.scenario.phases.at(k).clock); c && vm->has_clock(*c)) p.clock = *c;
  if (!vm->has_clock(p.clock)) p.clock = ClockKind::steps;
  at_end ? p.end(*vm) : p.home(*vm);
}

bool lesson_step_forward(const Lesson& l, std::size_t& phase, Playback& p) {
  const ViewModel* vm = l.views.at(phase).get();
  if (vm && p.t < vm->clock(p.clock).finish - tolerance(*vm, p.clock)) {
    p.step_forward(*vm);
    return true;
  }
  p.playing = false;
  if (phase + 1 >= l.phase_count()) return false;
  enter_phase(l, ++phase, p, false);
  return true;
}

bool lesson_step_back(const Lesson& l, std::size_t& phase, Playback& p) {
  const ViewModel* vm = l.views.at(phase).get();
  if (vm && p.t > vm->clock(p.clock).start + tolerance(*vm, p.clock)) {
    p.step_back(*vm);
    return true;
  }
  p.playing = false;
  if (phase == 0) return false;
  enter_phase(l, --phase, p, true);
  return true;
}

namespace {

// The last phase played to its end (a collective) or dwelt on (a compute phase).
bool at_lesson_end(const Lesson& l, std::size_t phase, const Playback& p) {
  if (phase + 1 < l.phase_count()) return false;
  const ViewModel* vm = l.views.at(phase).get();
  return vm ? p.t >= vm->clock(p.clock).finish - tolerance(*vm, p.clock) : p.rested >= kComputeDwell;
}

}  // namespace

void lesson_tick(const Lesson& l, std::size_t& phase, Playback& p, double seconds) {
  if (!p.playing) return;
  double wall = seconds * p.speed;  // seconds at speed 1
  const ViewModel* vm = l.views.at(phase).get();
  if (vm && p.t < vm->clock(p.clock).finish) {  // within a collective phase: as a single run
    const double finish = vm->clock(p.clock).finish, rate = p.rate(*vm);
    const double to_end = rate > 0 ? (finish - p.t) / rate : 0.0;
    p.rested = 0;
    if (wall < to_end) {
      p.t += rate * wall;
      return;
    }
    p.t = finish;
    wall -= to_end;
  }
  const bool last = phase + 1 >= l.phase_count();
  if (last && !p.loop && vm) {  // the end of the lesson, as the end of a single run: no rest
    p.playing = false;
    return;
  }
  p.rested += wall;
  if (p.rested < (vm ? kPhaseEndRest : kComputeDwell)) return;
  if (last && !p.loop) {  // the last phase, a compute phase, dwelt on
    p.rested = kComputeDwell;
    p.playing = false;
    return;
  }
  phase = last ? 0 : phase + 1;
  enter_phase(l, phase, p, false);
  p.playing = true;
}

void lesson_toggle_play(const Lesson& l, std::size_t& phase, Playback& p) {
  if (p.playing) {
    p.playing = false;
    return;
  }
  if (at_lesson_end(l, phase, p)) {  // play again from the start
    phase = 0;
    enter_phase(l, phase, p, false);
  }
  p.playing = true;
}

}  // namespace collsim::gui
