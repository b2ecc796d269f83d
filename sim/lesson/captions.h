// Lesson text — the description, captions, questions and answers — computed from the run,
// so that it stays true when a student changes the rank count (docs/scenario-format.md,
// "Text computed from the run"). Text is a template (text.h) over the facts below; step
// captions attach to the algorithm's stages ("the reduce-scatter's last step"), not to
// step numbers. Every view (CLI, storyboard, GUI) shows text through these functions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/lesson/lesson.h"
#include "sim/lesson/text.h"
#include "sim/schedule/schedule.h"

namespace collsim {

struct ProgramResult;
struct Scenario;

// --- the facts a lesson's text may name ----------------------------------------------------

// A run of consecutive steps of one stage of an algorithm (Schedule::step_stages).
struct StageFacts {
  std::string name;     // "reduce-scatter"; named in text as reduce_scatter (stage_id)
  int first = 0, last = 0;  // 1-based steps of the phase
};
// "reduce-scatter" -> "reduce_scatter": lower case, every other character an underscore.
std::string stage_id(std::string_view stage);
// The stages of a schedule in step order.
std::vector<StageFacts> schedule_stages(const Schedule& s);

struct PhaseFacts {
  bool collective = false;
  std::string name;                 // the phase's name
  std::string collective_name;      // "all_reduce" (collective phases)
  std::string algorithm;            // "ring"
  int steps = 0, transfers = 0, chunks = 0;
  int total_ranks = 0, servers = 0;  // the schedule's ranks; those beyond the workers
  int ps_servers = 0;                // the parameter servers asked for (--servers), on ranks of their own or not
  double count = 0;                  // elements per block (the request's count)
  double block_bytes = 0;            // count x the type's size
  double input_bytes = 0, output_bytes = 0;  // rank 0's buffers
  double chunk_bytes = 0;            // the phase's first transfer between two ranks
  double sent = 0, sent_max = 0;     // bytes rank 0, and the rank that sends most, send to other ranks
  int senders_min = 0, senders_max = 0;  // the fewest and most ranks that send bytes to another in one step
  std::vector<StageFacts> stages;
  // Predicted (µs), when the program was: when the phase begins and ends, its length, and its
  // bus bandwidth (GB/s; whole collectives that have one).
  std::optional<double> begin_us, end_us, duration_us, busbw;
  // Its whole collective predicted alone, from time 0 (run->model: no waiting for the phase
  // before, no ranks still busy with it); whole collectives only.
  std::optional<double> alone_us;
  std::string protocol;  // the NCCL protocol the model used ("LL", "Simple"; auto's choice), when predicted
};

// One of the lesson's suggestions (Scenario::suggestions) as the description lists it.
struct SuggestionFacts {
  std::string change;    // "--link pcie4", "set servers = 1 in [training]"
  std::string notice;    // rendered from the run under the change (empty: the file gives none)
  std::string not_here;  // why the change does not run from this run (a refused rank count); else empty
};

// The links the model predicts on: the rank links' preset and figures as the run has them.
struct LinkFacts {
  std::string topology;  // the kind: "switch", "pcie_tree"
  std::string preset;    // "nvlink4"; "custom" when --bandwidth or --latency replaced its figures
  std::string family;    // "NVLink", "PCIe", "InfiniBand", "Ethernet"
  std::string what;      // the preset's description: "PCIe 4.0 x16"
  double gbps = 0, latency_us = 0;
  std::string latency_from;  // where latency_us comes from: NCCL's table, an assumption, a flag
  std::string protocol;      // the NCCL protocol asked for ("none", "auto", "simple", ...)
  std::string latency_rule;  // what latency does to a message: "message" (held link) or "delay" (timing-model.md)
  int messages_in_flight = 1;  // per link at once: kMessagesInFlight under delay, 1 when a message holds its link
  // The uplinks (a star's server links, a PCIe tree's switch uplinks, two_level's network
  // links), as above; empty and 0 for a topology without them.
  std::string uplink_preset, uplink_family, uplink_what, uplink_latency_from;
  double uplink_gbps = 0, uplink_latency_us = 0;
};

// The first straggler (lesson 14): none is rank -1, 0 µs late, 1 times the work.
struct StragglerFacts {
  int rank = -1;
  double late_us = 0, slow = 1;
  int count = 0;  // how many ranks straggle
};

// A group of consecutive phases (Phase::group: "iteration 2", "gpipe isend") as a span of
// 1-based phase numbers, named in text by its stage_id ("iteration_2"); and, when the
// program was predicted, its times and how much of its communication its compute hid.
struct GroupFacts {
  std::string name;
  int first = 0, last = 0;
  std::optional<double> begin_us, end_us;  // its first phase's begin, its last end
  std::optional<double> compute_end_us;    // when its last compute phase ends (none: it has no compute)
  int during_compute = 0;  // its collectives that begin after its first compute phase has begun
  int hidden = 0;          // those of them that run while its compute runs, from begin to end
};

struct LessonFacts {
  int ranks = 0;  // the workers (a parameter server's servers are extra ranks)
  LinkFacts link;
  StragglerFacts straggler;
  std::vector<SuggestionFacts> suggestions;  // the lesson's [[try]]s, each run (lesson_facts)
  std::vector<PhaseFacts> phases;
  std::vector<GroupFacts> groups;  // the groups of consecutive phases (Phase::group)
  std::vector<std::optional<double>> answers;  // per question; nullopt: the run cannot answer it
  std::optional<double> total_us;              // the program's predicted end
};

// The facts of a program (prepared, and predicted for the times; answers from answer_question).
// Each of the scenario's suggestions is run on the timing model (suggestion.h) for its notice.
LessonFacts lesson_facts(const Scenario& s, const ProgramResult& p);
// The facts of a single collective run without a program (`collsim explain` of one run): its
// one phase, no times, no answers; a lesson's (format 2) single collective: lesson_facts of its
// program predicted on the model.
LessonFacts single_run_facts(const Scenario& s, const Schedule& schedule);

// --- step captions ---------------------------------------------------------------------------

// What a step's names stand for, beyond its phase's facts. The focus transfer is the first
// transfer of the step that rank 0 sends to another rank, else the step's first transfer to
// another rank, else its first transfer: {src} {dst} {chunk} {bytes} describe it;
// {step_bytes} is the whole step's bytes between ranks; {stage} the step's stage, and
// {stage_step} of {stage_steps} its place in it.
struct CaptionContext {
  int step = 0, steps = 0;    // 1-based step of the phase's schedule; its step count
  int phase = 1, phases = 1;  // 1-based
  int ranks = 0;
  std::string label;          // the schedule's step label
  std::string stage;          // the step's stage ("" for an algorithm of one stage)
  int stage_step = 0, stage_steps = 0;
  int src = -1, dst = -1, chunk = -1;
  std::uint64_t bytes = 0, step_bytes = 0;
};
// `stages`: the schedule's schedule_stages, given by a caller that visits every step.
CaptionContext caption_context(const Schedule& phase_schedule, int step, int phase_number, int phases,
                               const std::vector<StageFacts>* stages = nullptr);

// Which steps a stage caption's `at` selects (Phase::stage_captions): "every", "first",
// "last", a stage ("reduce_scatter": all its steps), or a stage's "first" or "last"
// ("reduce_scatter.last"). Throws InputError naming `where` for a malformed selector.
void check_stage_selector(std::string_view at, const std::string& where);
// How specific `at` is for step `step` (1-based) of the schedule: -1 when it does not select
// it; the most specific selector gives the step its caption (a stage's first or last, then
// the phase's first or last, then a stage, then every; ties: the first in the file).
int stage_selector_rank(std::string_view at, const Schedule& phase_schedule, int step);

// What a view shows with step `step` (0: before the phase's first step) of phase `index`
// (0-based): the lesson's caption, the phase's caption (step 0) or the step's own caption
// (its step_captions entry, else the most specific stage caption, else its step_caption),
// each rendered; empty where there is none. A compute phase: pass any schedule (Schedule{}).
struct CaptionParts {
  std::string lesson, phase, step;
};
// `stages` as caption_context's.
CaptionParts caption_parts(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                           int step, const std::vector<StageFacts>* stages = nullptr);
// The parts joined by spaces, the step's label standing in for a step without a caption.
std::string shown_caption(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                          int step);
// The step's own caption, or its label when it has none (step >= 1).
std::string step_caption(const Scenario& s, const LessonFacts& f, std::size_t index, const Schedule& phase_schedule,
                         int step);

// --- the description and the questions -----------------------------------------------------

// The description rendered, followed by its suggestions ("Try:" and a line for each: the change
// and its notice, or why it does not run from here).
std::string lesson_description(const Scenario& s, const LessonFacts& f);
std::string question_text(const Scenario& s, const LessonFacts& f, std::size_t question);

// A question's answer computed from the program (which must be predicted for the metrics
// of time): the value and the answer template rendered ({value} {value_h} {rank} {step}
// {chunk} {phase}, and every lesson name). InputError naming the question's origin when it
// asks about a phase, rank, step or chunk the run does not have. Without facts (a caller
// that wants the value only), an answer template that names more than the question's own
// names is left as written.
// A question about a phase, step, rank or chunk the run does not have (two ranks have no step 2)
// does not apply: `applies` is false, `value` NaN, and the text says why.
struct Answer {
  double value = 0;
  std::string text;
  bool applies = true;
};
Answer answer_question(const Question& q, const ProgramResult& p, const LessonFacts* f = nullptr);
// Question k of s, whose facts f lesson_facts made from the same run p: a latency or
// bandwidth part already in f.answers is not predicted again (each is a prediction of the
// whole collective; a lesson answers every question for its facts, its text check and its
// printed answers).
Answer answer_question(const Scenario& s, std::size_t k, const ProgramResult& p, const LessonFacts& f);
// All of them, in order (the first that cannot be answered throws).
std::vector<Answer> answer_questions(const Scenario& s, const ProgramResult& p, const LessonFacts& f);

// --- checks ------------------------------------------------------------------------------------

// Renders every text of the lesson — description, captions of every phase and step, stage
// captions, questions and answers — at this run, so that a bad name or a selector error is
// an InputError naming the text's file, line and key before the long work starts. Without
// `answers`, the questions' texts only (the GUI shows why a run cannot answer one).
void check_lesson_text(const Scenario& s, const ProgramResult& p, const LessonFacts& f, bool answers = true);

// Literal numbers that state an N-dependent fact: each number (or number word, "four")
// written in a text's literal part that equals a fact of the run that changes with the
// rank count (comparing `f` with `other`, the same lesson's facts at another rank count).
// One warning per number: "WHERE: '3' is p1.steps at 4 ranks (it changes with --ranks):
// write {p1.steps}, or set ranks_fixed = true". Lessons with ranks_fixed have none.
// With `changed_by` (a suggestion's origin and change), `other` is the facts under that suggestion:
// a literal that it changes is warned about whatever ranks_fixed says.
std::vector<std::string> lesson_text_warnings(const Scenario& s, const LessonFacts& f, const LessonFacts& other,
                                              std::string_view changed_by = {});

}  // namespace collsim
