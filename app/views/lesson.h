// A lesson in the app: every phase of a scenario (sim/lesson/lesson.h) run as one program —
// executed, verified and timed (sim/lesson/program.h) — with a view model per collective phase,
// the narration of each step, and the questions with their computed answers. Plain C++
// on sim/ (no ImGui): built on the loader's thread, immutable afterwards except for the
// arrangement of the views; the app keeps which phase is shown and which answers are
// revealed.
//
// A collective phase's view shows only its own steps (PhaseRun::schedule, numbered from
// 1), with the cells as the collective left them before its first step: a parameter
// server's "pull" phase starts with the servers holding the sums the "push" phase made.
// Its clocks start at the phase's start (predicted: the program's prediction, shifted by
// the phase's begin). A single-collective scenario is a lesson of one phase whose view is
// exactly the run's trace, as before lessons.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/views/playback.h"
#include "app/views/view_model.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"

namespace collsim::gui {

struct Lesson {
  Scenario scenario;
  ProgramResult program;  // prepared, predicted and executed
  // Per phase: the view of its own steps; null for a compute phase.
  std::vector<std::shared_ptr<ViewModel>> views;
  // Per question: the answer computed from `program` (answer_question's text), or, when
  // the run cannot answer it (a --ranks re-run left it a rank it no longer has), why.
  std::vector<std::string> answers;
  std::vector<bool> answerable;
  // The facts of the run the lesson's text names (sim/lesson/captions.h), and the text
  // rendered with them: the description and each question.
  LessonFacts facts;
  std::string description;
  std::vector<std::string> questions;
  // The program timeline's lanes: one per stream, each phase on its stream's (sim's stream_lanes).
  StreamLanes lanes;

  std::size_t phase_count() const { return scenario.phases.size(); }
  bool multi_phase() const { return !scenario.single_collective(); }
  const Phase& phase(std::size_t k) const { return scenario.phases.at(k); }
  const PhaseRun& run_of(std::size_t k) const { return program.phases.at(k); }
};

// Builds every view and answers every question of a program that has been prepared
// (with record_history, so that no view checks a schedule again), predicted and executed. `progress(k, n)` runs before view k of n (the loader checks for
// a cancel there). Throws ScheduleError only for a broken schedule, like ViewModel.
void build_lesson(Lesson& l, const std::function<void(std::size_t, std::size_t)>& progress = {});

// "all_reduce with ring, steps 1-1" or "compute, up to 120 µs per rank".
std::string phase_summary(const Lesson& l, std::size_t k);

// The narration of step `step` (1-based; 0: before the phase's first) of phase k, each
// part expanded (sim/lesson/captions.h), empty when the file has none: the lesson's caption, the
// phase's, and the step's own (step_caption; left empty when the phase has no step
// captions, since its fallback is the step label the view already shows).
struct Narration {
  std::string lesson, phase, step;
};
Narration narration(const Lesson& l, std::size_t k, int step);
// The step a caption talks about: the one in flight (or with transfers queued), else the
// last one done (0 before any); the transport, the headings and the narration all say it.
int caption_step(const Frame& f, int steps);

// Which answers are shown. The `A` key reveals the next hidden one, and hides them all
// once every one is shown; each question's button toggles its own.
struct Reveals {
  std::vector<bool> shown;
  void reset(std::size_t questions) { shown.assign(questions, false); }
  int next();  // the question revealed, or -1 when it hid them all
  void toggle(std::size_t k);
  std::size_t count() const;
};

// Presenter flow over the phases. Entering phase k puts the playhead at its start (or its
// end), on the same clock when its view has it. Stepping forward at a phase's last step
// enters the next phase, stepping back at its start the previous one (at its end); a
// compute phase is one stop. Each returns false when nothing moved.
void enter_phase(const Lesson& l, std::size_t k, Playback& p, bool at_end);
bool lesson_step_forward(const Lesson& l, std::size_t& phase, Playback& p);
bool lesson_step_back(const Lesson& l, std::size_t& phase, Playback& p);

// Playing through a lesson of several phases (Play, space). A collective phase plays as a
// single run does; at its end the playhead rests, the phase complete, for kPhaseEndRest,
// then the next phase is entered at its start and plays on. A compute phase has no
// playhead: it is shown for kComputeDwell, as long as one step (a step lasts 1 s at speed
// 1 on every clock). Both are seconds of wall time at speed 1, shorter at higher speeds.
// Entering a phase drops the rest of the tick, so that its start is drawn. The last
// phase's end stops playing, or with `loop` goes on to the first phase (after the rest).
inline constexpr double kPhaseEndRest = 0.5;
inline constexpr double kComputeDwell = 1.0;
void lesson_tick(const Lesson& l, std::size_t& phase, Playback& p, double seconds);
// Play / pause. Play at the lesson's end (the last phase played to its end, or dwelt on)
// starts again from the first phase, as a single run starts again from its start.
void lesson_toggle_play(const Lesson& l, std::size_t& phase, Playback& p);

}  // namespace collsim::gui
