// Text views of schedules and runs, shared by the CLI and anything else that prints.
#pragma once
#include <span>
#include <string>

#include "sim/run/run.h"

namespace collsim {

// One line per transfer under a header per step: step, src -> dst, chunk, element
// ranges, copy/reduce, bytes; pre- and post-operations listed before and after.
std::string format_step_table(const Schedule& s);
// The same with a note under each step's header (a lesson's step captions): notes[k] for
// step k + 1; an empty or missing note prints nothing.
std::string format_step_table(const Schedule& s, std::span<const std::string> step_notes);
// One line per step: label, transfers, bytes on the wire.
std::string format_step_overview(const Schedule& s);
// What was asked, what the schedule costs, how long it took and whether it was right.
std::string format_run_summary(const RunResult& r);
// Collectives, algorithms with formulas, data types and ops.
std::string format_catalogue();

}  // namespace collsim
