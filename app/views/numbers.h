// The numbers panel's lines about the algorithm, as plain text (no ImGui): its formulas
// as sim prints them, for display only, next to this run's figures, each computed by sim
// from the schedule (steps, bytes each rank sends) or by the algorithm's own closed-form
// time function (closed_form in sim/model/cost_formulas.h). Nothing here substitutes
// values into formula text.
//
// The run's headline figures (headline_numbers) come first, each labelled with what it is:
// the prediction on the run's topology, then the simulation's own measured time on the
// computer that ran it -- the one wording that the app's numbers panel and the web page
// (page.cpp writes it into the page's data) both show.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "app/views/view_model.h"
#include "sim/lesson/program.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

struct AlgorithmNumbers {
  std::string steps;        // "steps: 2(N-1)  (this schedule: 6, 6 communicating)"
  std::string bytes;        // "bytes sent per rank: 2(N-1)/N·n  (this schedule: at most 6 MiB, rank 0)"
  std::string closed_form;  // "closed form: ... = 41.2 µs on the rank links' figures"; empty without one
};

// Empty lines for a schedule that is not in the registry (a hand-written one).
AlgorithmNumbers algorithm_numbers(const ViewModel& vm);

// One headline figure of the run, labelled: what it is, then its time and bandwidths.
// label() is the whole label; a view short of room shows `head` and the figures on one line
// and `about` under them.
struct NumbersLine {
  enum class Kind { predicted, measured };
  Kind kind = Kind::predicted;
  std::string head;     // "predicted", "measured"
  // predicted: "on switch, 4 ranks: rank links nvlink4 (450 GB/s, 0.6 us = NCCL LL hop); ... (no protocol)";
  // measured:  "the simulation's own time on the computer that ran it, host CPU (2 worker threads)"
  std::string about;
  std::string figures;  // "20.397 us, algbw 205.63 GB/s, busbw 308.45 GB/s"
  std::string note;     // predicted: "bottleneck: rank0 (rank 0 -> switch), busy 86% of the time"; may be empty
  // "predicted on switch, ... (no protocol)", "measured: the simulation's own time on ..."
  std::string label() const { return head + (kind == Kind::predicted ? " " : ": ") + about; }
  std::string text() const { return label() + ": " + figures; }  // the line on one line
};
std::string_view to_string(NumbersLine::Kind k);  // "predicted", "measured"

// In this order: the prediction (none in a trace without one), then what was measured
// (none for a model-only run, nor for a trace with no time and no backend).
std::vector<NumbersLine> headline_numbers(const Trace& t);

// The same two figures on one line, for the stage's bar (panel_plan.h): "predicted 20.4 us
// on switch, nvlink4 (Simple) · this computer simulated it in 22.7 ms (host CPU)"; what
// gives way to a short window is the second half's "(host CPU)", never the prediction.
// `short_form`: without the protocol and the device. Either form ends the prediction with
// ", latency as delay" under --latency-rule delay (timing-model.md).
std::string stage_numbers_line(const Trace& t, bool short_form = false);
// Its two halves: "predicted 20.4 us on switch, nvlink4" (empty without a prediction) and
// "this computer simulated it in 22.7 ms", or for a run read from a file "the recorded run
// took 22.7 ms" (Trace::recorded) (empty without a measured time); the page shows
// them joined, and its tests leave the measured half out when comparing runs.
std::string stage_predicted_words(const Trace& t, bool short_form = false);
std::string stage_measured_words(const Trace& t, bool short_form = false);

// The verdict a view shows beside a run or a lesson: "verified", "NOT verified", or, for one
// predicted only (--model-only, a file's [run] model_only), "model only (nothing executed)".
std::string_view run_verdict(const Trace& t);
std::string_view program_verdict(const ProgramResult& p);

}  // namespace collsim::gui
