// The numbers panel's lines about the algorithm, as plain text (no ImGui): its formulas
// as sim prints them, for display only, next to this run's figures, each computed by sim
// from the schedule (steps, bytes each rank sends) or by the algorithm's own closed-form
// time function (closed_form in sim/model/cost_formulas.h). Nothing here substitutes
// values into formula text.
#pragma once
#include <string>

#include "app/views/view_model.h"

namespace collsim::gui {

struct AlgorithmNumbers {
  std::string steps;        // "steps: 2(N-1)  (this schedule: 6, 6 communicating)"
  std::string bytes;        // "bytes sent per rank: 2(N-1)/N·n  (this schedule: at most 6 MiB, rank 0)"
  std::string closed_form;  // "closed form: ... = 41.2 µs on the rank links' figures"; empty without one
};

// Empty lines for a schedule that is not in the registry (a hand-written one).
AlgorithmNumbers algorithm_numbers(const ViewModel& vm);

}  // namespace collsim::gui
