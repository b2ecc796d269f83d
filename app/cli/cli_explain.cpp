#include "app/cli/cli_explain.h"

#include <fmt/format.h>

#include "app/cli/cli_lesson.h"
#include "sim/check/checker.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/run.h"
#include "sim/trace/report.h"

namespace collsim::cli {

int command_explain(const SpecFlags& sf, const std::string& scenario, const cli::FlagGiven& given) {
  const cli::RunPlan plan = cli::plan_run(scenario, to_request(sf, given), "auto", given);
  if (plan.lesson()) return cli::command_explain_lesson(*plan.scenario);
  const Schedule s = build_schedule(plan.request.spec, plan.request.algorithm, plan.request.options);
  if (plan.request.algorithm != kCustomAlgorithm) check_schedule(s);  // a hand-written one was checked while built
  fmt::print("{}", plan.scenario ? cli::format_explained_collective(*plan.scenario, s) : format_step_table(s));
  return 0;
}

}  // namespace collsim::cli
