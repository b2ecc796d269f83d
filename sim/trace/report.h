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
// What a transfer does, in a sentence a student reads: "rank 2 adds rank 1's chunk 3 to
// its own input and writes the sum to its output[8,12)" (a reduce-copy), "rank 2 adds
// rank 1's chunk 3 into its output[8,12)" (a reduce), "rank 1 copies chunk 3 into rank 2's
// output[8,12)" (a copy).
std::string transfer_sentence(const Transfer& t);
// One line per step: label, transfers, bytes on the wire.
std::string format_step_overview(const Schedule& s, const ScheduleTotals& totals);
// What was asked, what the schedule costs, how long it took and whether it was right.
std::string format_run_summary(const RunResult& r);
// Collectives, algorithms with formulas, data types and ops.
std::string format_catalogue();

}  // namespace collsim
