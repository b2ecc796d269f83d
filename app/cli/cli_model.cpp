#include "app/cli/cli_model.h"

#include "app/cli/cli_progress.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/run/run_estimate.h"
#include "sim/core/errors.h"
#include "sim/trace/report.h"
#include "sim/pipeline/pipeline.h"
#include "sim/run/run.h"
#include "sim/schedule/algorithm.h"

namespace collsim::cli {
namespace {

// Before the schedule is built (a 4096-rank one takes seconds and gigabytes).
void check_model_outputs(const RunRequest& r, const TraceOutputs& outputs, const std::string& dump) {
  if (!dump.empty()) throw InputError("--dump: a --model-only run has no buffers to dump");
  const int total_ranks = schedule_total_ranks(r.spec, r.algorithm, r.options);  // a hand-written one: spec.ranks
  if (outputs.any() && total_ranks > kMaxRanks)
    throw InputError(
        fmt::format("{}: traces are limited to {} ranks (they are read back with a symbolic check); "
                    "this run has {}",
                    !outputs.trace.empty()    ? "--trace"
                    : !outputs.chrome.empty() ? "--chrome"
                                              : "--csv",
                    kMaxRanks, total_ranks));
  check_trace_outputs(outputs);
}

}  // namespace

int command_model_only(const RunPlan& plan, const std::string& scenario_path, const TraceOutputs& outputs,
                       const std::string& dump, bool quiet) {
  check_model_outputs(plan.request, outputs, dump);
  // Thousands of ranks: how long and how much memory, said (or refused) before the work.
  const std::optional<ModelRunEstimate> estimate = estimate_model_run(plan.request, plan.topology);
  if (estimate) {
    const AvailableMemory memory = available_memory();
    if (memory.known) check_model_memory(*estimate, memory.bytes, memory.limit);
    if (estimate->seconds > kSayEstimateSeconds && !quiet) fmt::print(stderr, "estimated: {}\n", describe(*estimate));
  }
  const PipelineResult run = [&] {
    StageProgress progress("model: building and checking the schedule");  // a minute at 4096 ranks: say so
    PipelineRequest request = pipeline_request(plan, outputs.any());
    request.model_only = true;
    PipelineHooks hooks;
    hooks.built = [&](const Schedule& s) {
      progress.stage(fmt::format("model: predicting its {} transfers", s.transfers.size()));
    };
    // Streamed: built and predicted together; the count against the estimate's.
    const double expected = estimate ? estimate->transfers : 0;
    hooks.streamed = [&](std::uint64_t done) {
      progress.stage(expected > 0 ? fmt::format("model: {:.1f} M of about {:.0f} M transfers predicted ({:.0f} %)",
                                                double(done) / 1e6, expected / 1e6, std::min(99.0, 100 * double(done) / expected))
                                  : fmt::format("model: {:.1f} M transfers predicted", double(done) / 1e6));
    };
    return run_pipeline(request, hooks);
  }();
  const RunResult& result = *run.run;
  OutputFileSet files;
  if (run.trace) stage_trace(*run.trace, outputs, files);
  files.commit();
  if (quiet) {
    fmt::print("predicted {}\n", format_duration_ns(result.model->prediction.total_ns));
    return 0;
  }
  print_run_report(result, plan, scenario_path, outputs);
  return 0;
}

}  // namespace collsim::cli
