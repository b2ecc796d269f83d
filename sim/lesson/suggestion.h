// A lesson's suggestions ([[try]], scenario.h's Suggestion) run: the scenario under one of them,
// and that run's facts, from which the description's "Try" lines say what to notice
// (captions.h, LessonFacts::suggestions). `collsim validate` and the lesson tests run every one.
#pragma once
#include <cstddef>

#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"

namespace collsim {

// The scenario as the student has it after suggestion `k`: the file's edits (if any) with the
// user's flags applied again, then the suggestion's flags over them. The result has no
// suggestions of its own. InputError "ORIGIN (CHANGE): why" when the change does not run from
// here (a rank count the lesson refuses, a flag a lesson of several phases refuses).
Scenario apply_suggestion(const Scenario& s, std::size_t k);
// "ORIGIN (CHANGE)": how the errors about a suggestion begin (followed by ": why").
std::string suggestion_name(const Suggestion& t);

// The scenario under suggestion `k`, prepared and predicted on the timing model (nothing is
// run), with its facts.
struct SuggestedRun {
  Scenario scenario;
  ProgramResult program;
  LessonFacts facts;
};
SuggestedRun run_suggestion(const Scenario& s, std::size_t k);

}  // namespace collsim
