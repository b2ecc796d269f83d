// Captions and questions of lessons (lesson.h): placeholder expansion and answers
// computed from the run, so they stay right when a student changes a number.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/lesson/lesson.h"
#include "sim/schedule/schedule.h"

namespace collsim {

struct ProgramResult;
struct Scenario;

// The placeholders a caption may use, for docs and error messages:
// {src} {dst} {chunk} {bytes} {step} {steps} {step_bytes} {phase} {phases} {ranks} {label}.
std::string_view caption_placeholders();

// Throws InputError "WHERE: unknown placeholder '{x}' (captions know: ...)" or for an
// unclosed brace; `where` is "file:line:column: key 'phase[2].step_caption'".
void check_caption(std::string_view text, const std::string& where);
// The same for a question's answer template, whose placeholders are {value} {rank} {step}
// {chunk} {phase} ("... in the answer (answers know: ...)").
void check_answer_template(std::string_view text, const std::string& where);

// What a step's placeholders stand for. The focus transfer is the first transfer of the
// step that rank 0 sends to another rank, else the step's first transfer to another rank,
// else its first transfer: {src} {dst} {chunk} {bytes} describe it; {step_bytes} is the
// whole step's bytes between ranks.
struct CaptionContext {
  int step = 0, steps = 0;    // 1-based step of the phase's schedule; its step count
  int phase = 1, phases = 1;  // 1-based
  int ranks = 0;
  std::string label;          // the schedule's step label
  int src = -1, dst = -1, chunk = -1;
  std::uint64_t bytes = 0, step_bytes = 0;
};
CaptionContext caption_context(const Schedule& phase_schedule, int step, int phase_number, int phases);
std::string expand_caption(std::string_view text, const CaptionContext& c);

// The caption of step `step` (1-based) of a phase: its step_captions entry, else its
// step_caption, else the schedule's step label; expanded. Empty for step 0 (before).
std::string step_caption(const Phase& phase, const Schedule& phase_schedule, int step, int phase_number, int phases);

// What a view shows with step `step` of phase `index` (0-based) of `s`: the lesson's
// caption, then the step's (step_caption), each expanded; for step 0 (before the phase's
// first step), the lesson's caption, then the phase's caption. Empty parts are left out.
// A compute phase has only step 0: pass any schedule (Schedule{}); {ranks} is s.ranks.
std::string shown_caption(const Scenario& s, std::size_t index, const Schedule& phase_schedule, int step);

// A question's answer computed from the program (which must be predicted for time_us
// and busbw_gbps): the value and the answer template expanded ({value}; the question's
// own placeholders {rank} {step} {chunk} {phase} too). InputError naming the question's
// origin when it asks about a phase, rank, step or chunk the run does not have.
struct Answer {
  double value = 0;
  std::string text;
};
Answer answer_question(const Question& q, const ProgramResult& p);

}  // namespace collsim
