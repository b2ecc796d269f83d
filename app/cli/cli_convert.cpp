#include "app/cli/cli_convert.h"

#include <string_view>

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "sim/core/output_files.h"
#include "sim/core/types.h"
#include "sim/lesson/program.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

// A lesson trace: the lesson rebuilt from the text it carries, with the recorded times
// (program.h, load_lesson_trace), written as the lesson's JSON, Chrome trace or CSV.
int convert_lesson(const std::string& path, const TraceOutputs& outputs) {
  const ImportedLesson lesson = load_lesson_trace(path);
  OutputFileSet files;
  stage_lesson_outputs(lesson.scenario, lesson.program, outputs, files);
  files.commit();
  const Scenario& s = lesson.scenario;
  fmt::print("{}: lesson{} of {} phases on {} ranks, {}\n", path, s.title.empty() ? "" : " '" + s.title + "'",
             s.phases.size(), lesson.program.total_ranks, result_line(s, lesson.program));
  if (!lesson.note.empty()) fmt::print("  note: {}\n", lesson.note);
  return 0;
}

}  // namespace

int command_convert(const std::string& trace_path, const TraceOutputs& outputs) {
  check_trace_outputs(outputs);
  if (is_lesson_trace(trace_path)) return convert_lesson(trace_path, outputs);
  const Trace trace = load_trace_json(trace_path);
  OutputFileSet files;
  stage_trace(trace, outputs, files);
  files.commit();
  const CollectiveSpec& spec = trace.request.spec;
  const std::string_view result = trace.model_only        ? "not executed (--model-only)"
                                  : trace.verification.ok ? "verified"
                                                          : "WRONG";
  fmt::print("{}: {} with {} on {} ranks, {} transfers, {}{}\n", trace_path, to_string(spec.collective),
             trace.request.algorithm, spec.ranks, trace.schedule.transfers.size(), result,
             trace.scenario_title.empty() ? "" : " (" + trace.scenario_title + ")");
  return 0;
}

}  // namespace collsim::cli
