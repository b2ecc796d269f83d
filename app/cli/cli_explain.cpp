#include "app/cli/cli_explain.h"

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "sim/pipeline/pipeline.h"
#include "sim/trace/report.h"

namespace collsim::cli {

int command_explain(const flags::SpecFlags& sf, const std::string& scenario, const flags::FlagGiven& given) {
  const cli::RunPlan plan = cli::plan_run(scenario, flags::to_request(sf, given), "auto", given);
  if (plan.lesson()) return cli::command_explain_lesson(*plan.scenario);
  // Built, checked and predicted by the pipeline; nothing executed (no backend).
  const std::shared_ptr<const RunResult> run =
      run_pipeline({.run = plan.request, .topology = plan.topology, .want_trace = false}).run;
  const Schedule& s = run->schedule;
  fmt::print("{}", plan.scenario ? cli::format_explained_collective(*plan.scenario, s) : format_step_table(s));
  return 0;
}

}  // namespace collsim::cli
