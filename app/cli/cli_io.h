// The file side of the command line: scenario files under the flags, and trace files
// after a run. No CLI11 here (cli_main.cpp owns the flags), so this compiles quickly.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/flags/run_plan.h"
#include "app/flags/topology_flags.h"
#include "sim/core/output_files.h"
#include "sim/pipeline/pipeline.h"
#include "sim/run/run.h"
#include "sim/lesson/scenario.h"
#include "sim/trace/trace.h"

namespace collsim::cli {

// What `collsim run` / `explain` runs: the flags alone, or a scenario file with the
// flags the user gave on top.
struct RunPlan {
  RunRequest request;
  std::string backend;  // auto, cpu or cuda
  std::string title, description;  // the scenario's; empty without one
  TopologyConfig topology;         // what the timing model predicts on: [topology] under the flags given
  std::optional<Scenario> scenario;  // the file with the flags applied; none without a file
  // A lesson of several phases (or of part of a collective): the program runner's
  // business (cli_lesson.h), not the single-run commands'.
  bool lesson() const { return scenario && !scenario->single_collective(); }
  // The file runs on the timing model alone ([run] model_only): as --model-only, whatever is asked.
  bool model_only() const { return scenario && scenario->model_only; }
};

// The flags over the file as collsim-gui applies them too (flags::plan_flags, which says
// what each argument is and what it throws), with the backend (the file's unless --backend
// is given) and the warnings of an MSCCL schedule on stderr.
RunPlan plan_run(const std::string& scenario_path, const RunRequest& from_flags, const std::string& backend_flag,
                 const flags::FlagGiven& given, const TopologyConfig& topology_flags = {});

// --trace F.json, --chrome F.json, --csv F.csv; empty: not wanted.
struct TraceOutputs {
  std::string trace, chrome, csv;
  bool any() const { return !trace.empty() || !chrome.empty() || !csv.empty(); }
};

// What `collsim run` prints after a run (any backend, or --model-only): the scenario's
// title and its description rendered for the run (run_description: the text the trace and
// the app show), the step overview (up to 64 steps), the summary, the dump folder and the
// files written.
void print_run_report(const RunResult& result, const RunPlan& plan, const std::string& scenario_path,
                      const TraceOutputs& outputs, const std::string& dump = "");

// A scenario's description as the report prints it: the file's hand-wrapped lines joined
// into paragraphs (a blank line between two; a line that starts a list item, "- ", "* " or
// "1. ", starts a new line) and wrapped again at `width` columns, each line indented by two
// spaces (an item's later lines under its text), ending in a newline; "" for an empty text.
std::string format_description(std::string_view text, std::size_t width = 100);

// --dump DIR: where rank `rank`'s input (as before the run) or output (after it) goes:
// DIR/rank<r>.in.bin or DIR/rank<r>.out.bin, raw little-endian arrays of the run's type.
std::filesystem::path dump_file(const std::filesystem::path& dir, int rank, BufferKind buffer);

// --quiet's one line after a run: "verified" or "WRONG: " and the first mismatch.
void print_quiet_verdict(const Verification& v);
// Whether --dump writes a file for rank `rank`'s buffer b: worker ranks' buffers that hold elements.
bool dumps_buffer(const Schedule& s, int rank, BufferKind b);

// Before a run: every output's folder exists and is writable (InputError naming the flag),
// so a long run does not end in a write error.
void check_trace_outputs(const TraceOutputs& outputs);
// The same for one file given by `flag` (nothing when `path` is empty).
void check_output_file(std::string_view flag, const std::string& path);
// The pipeline's request for the plan's single collective (sim/pipeline/pipeline.h): its
// request, scenario (the trace's title and description) and topology; the trace made only
// when `want_trace` (a trace file is wanted).
PipelineRequest pipeline_request(const RunPlan& plan, bool want_trace);
// Stages `trace` as the wanted files in `files`: after a run (the pipeline's trace), and
// `collsim convert` (cli_convert.h) after reading one.
void stage_trace(const Trace& trace, const TraceOutputs& outputs, OutputFileSet& files);

}  // namespace collsim::cli
