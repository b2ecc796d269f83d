#include "app/cli/cli_convert.h"

#include <string_view>

#include <fmt/format.h>

#include "sim/core/output_files.h"
#include "sim/core/types.h"
#include "sim/trace/trace.h"

namespace collsim::cli {

int command_convert(const std::string& trace_path, const TraceOutputs& outputs) {
  check_trace_outputs(outputs);
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
