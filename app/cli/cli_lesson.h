// Lessons on the command line (format 2: phases, captions, questions; lesson.h): `collsim
// run`, `explain` and `validate` on a lesson, and the captions and questions of any
// scenario file. No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_io.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"

namespace collsim::cli {

struct LessonRunFlags {
  std::string placement = "streams";  // --placement (the CUDA backend's)
  TraceOutputs outputs;               // --trace, --chrome, --csv: the lesson's exports (program_to_json, ...)
  std::string dump;                   // --dump: refused, a lesson has more than one collective
  bool model_only = false, quiet = false, answers = false;
  bool allow_long = false;  // --allow-long: no refusal of a lesson estimated over 10 minutes
  double timeout = 0;       // --timeout (--backend mpi): MpiBackendOptions::stall_timeout_s
};

// `collsim run LESSON.toml` (plan.lesson()): prepares every phase and predicts the program
// (so that bad input, questions included, is refused before anything runs), executes
// and verifies each distinct collective with a progress line on stderr, writes the
// exports all or nothing, and prints the title, the description, a table of the phases (what, which ranks,
// predicted begin and end, verified), the predicted total, each rank's compute,
// communication and exposed communication, and the questions (answers with --answers).
// Exit 1 when a collective gives a wrong result.
int command_run_lesson(const RunPlan& plan, const std::string& path, const LessonRunFlags& flags);

// The blocks command_run_lesson is made of, shared with `run --backend mpi` (cli_mpi.h),
// which runs them on every process and lets rank 0 speak.
struct LessonRun {
  std::shared_ptr<ProgramResult> program;  // prepared, predicted, and executed unless model only
  std::string questions;                   // format_questions' text
  std::string description;                 // the lesson's, rendered with the program's facts (lesson_description)
};
// Step 4 of the pipeline (sim/pipeline/pipeline.h) for a lesson: the front end's checks and
// its backend (null for --model-only), once every phase is built, checked and predicted;
// `description` is the lesson's, rendered with the program's facts (LessonRun::description).
using LessonBackend = std::function<std::unique_ptr<Backend>(const ProgramResult&, const std::string& description)>;
// The lesson through the pipeline: every phase built and checked, the program predicted,
// every text and question checked (the InputErrors of bad input, --dump included), then
// `backend`, then each distinct collective executed and verified with a progress line on
// stderr (when `show_progress`); `only_rank` as execute_program's.
LessonRun run_lesson_pipeline(const RunPlan& plan, const std::string& path, const LessonRunFlags& flags,
                              const LessonBackend& backend, int only_rank = -1, bool show_progress = true);
// "lesson: TITLE (file)" and the lesson's description rendered for the run (format_description),
// flushed before the progress line on stderr.
void print_lesson_title(const Scenario& s, const std::string& path, const std::string& description);
// The exports wanted in `outputs`, staged in `files` (the caller commits them).
void stage_lesson_outputs(const Scenario& s, const ProgramResult& p, const TraceOutputs& outputs, OutputFileSet& files);
// "verified: every output of 3 distinct collectives", "not executed (--model-only)", or
// "WRONG: phase 2 ('push'): ...".
std::string result_line(const Scenario& s, const ProgramResult& p);
// The summary after the run (one line with --quiet); the exit status (1: a wrong result).
int report_lesson(const Scenario& s, const LessonRun& lesson, const LessonRunFlags& flags);

// `collsim explain LESSON.toml`: every phase's header (name, what it runs, its caption) and
// step table with each step's caption under its label; a compute phase on one line.
// Checked, not run.
int command_explain_lesson(const Scenario& s);
// `collsim explain` of a single-collective scenario: its step table, with the file's
// captions when it has any (exactly format_step_table's text when it has none).
std::string format_explained_collective(const Scenario& s, const Schedule& schedule);

// The program of a scenario prepared and predicted on its own topology, nothing executed:
// what answers questions without a run.
ProgramResult model_program(const Scenario& s);
// The program's facts with every text of the lesson rendered once (check_lesson_text:
// InputError naming the text's file, line and key for a name the run does not have).
LessonFacts checked_facts(const Scenario& s, const ProgramResult& p);
// "questions:" and each question, with "Answer: ..." under it when `show` (else one line
// on how to see them); empty for a scenario without questions. Every question of `s`
// answered from `p` (InputError naming the question's position for one the program cannot
// answer: a phase, rank, step or chunk it does not have).
std::string format_questions(const Scenario& s, const ProgramResult& p, const LessonFacts& f, bool show);

// A single-collective scenario's questions (format_questions), answered from the model
// before anything runs; "" without a scenario or questions. Format 2: every caption and
// question is checked too (check_lesson_text's InputError), as a lesson's are.
std::string single_collective_questions(const RunPlan& plan, bool answers);

// `collsim validate` of a lesson: every phase prepared (schedules built and checked), the
// program predicted on its topology, every text rendered and every question answered; the
// "OK (...)" text. Warnings (lesson_text_warnings: literal numbers that change with the
// rank count, compared with the lesson at another rank count) go to `warnings`.
std::string validate_lesson(const Scenario& s, std::vector<std::string>& warnings);
// A format 2 file's text, as validate checks it: predicted on the model, every text rendered, every
// question answered as the file is written, every suggestion run with its text rendered; warnings
// for literals that --ranks or a suggestion changes. Returns the predicted program.
ProgramResult validate_lesson_text(const Scenario& s, std::vector<std::string>& warnings);
// The warnings alone, for any format 2 scenario with the facts of its run (none for
// ranks_fixed, or when the lesson runs at no other rank count).
std::vector<std::string> lesson_warnings(const Scenario& s, const LessonFacts& f);

}  // namespace collsim::cli
