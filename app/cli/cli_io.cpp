#include "app/cli/cli_io.h"

#include "sim/lesson/captions.h"

#include <unistd.h>

#include <filesystem>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/cli/cli_msccl.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/trace/report.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

void check_output(std::string_view flag, const std::string& path) {
  if (!path.empty()) check_output_path(flag, path);  // empty: the output is not wanted
}

std::vector<std::pair<std::string_view, const std::string*>> named(const TraceOutputs& o) {
  return {{"--trace", &o.trace}, {"--chrome", &o.chrome}, {"--csv", &o.csv}};
}

}  // namespace

void stage_trace(const Trace& trace, const TraceOutputs& o, OutputFileSet& files) {
  if (!o.trace.empty()) files.stage(o.trace, trace_to_json(trace));
  if (!o.chrome.empty()) files.stage(o.chrome, trace_to_chrome(trace));
  if (!o.csv.empty()) files.stage(o.csv, trace_to_csv(trace));
}

GivenFields given_fields(const FlagGiven& given) {
  GivenFields fields;
  for (std::size_t i = 0; i < kRequestFieldCount; ++i) {
    const auto field = static_cast<RequestField>(i);
    const bool set = field == RequestField::stragglers ? given("--late") || given("--slow") : given(field_flag(field));
    if (set) fields.add(field);
  }
  return fields;
}

RunPlan plan_run(const std::string& scenario_path, const RunRequest& from_flags, const std::string& backend_flag,
                 const FlagGiven& given, const TopologyConfig& topology_flags) {
  if (scenario_path.empty()) {
    RunPlan plan{adopt_schedule_spec(from_flags, given_fields(given)), backend_flag, {}, {}, topology_flags, {}};
    plan.topology = adopt_schedule_protocol(plan.request, plan.topology, given);
    print_schedule_warnings(plan.request);
    return plan;
  }
  Scenario s = apply_scenario_overrides(load_scenario(scenario_path), from_flags, topology_flags, given_fields(given));
  RunPlan plan{s.request, s.backend, s.title, s.description, s.topology, std::move(s)};
  if (!plan.lesson()) print_schedule_warnings(plan.request);
  if (given("--backend")) plan.backend = backend_flag;
  return plan;
}

void check_output_file(std::string_view flag, const std::string& path) { check_output(flag, path); }

void print_quiet_verdict(const Verification& v) { fmt::print("{}\n", v.ok ? "verified" : "WRONG: " + v.first_mismatch); }

bool dumps_buffer(const Schedule& s, int rank, BufferKind b) {
  return rank < s.spec.ranks && s.buffer_elements(rank, b) > 0;  // not a parameter server's servers
}

std::filesystem::path dump_file(const std::filesystem::path& dir, int rank, BufferKind buffer) {
  return dir / fmt::format("rank{}.{}.bin", rank, buffer == BufferKind::input ? "in" : "out");
}

void check_trace_outputs(const TraceOutputs& outputs) {
  const auto list = named(outputs);
  for (std::size_t i = 0; i < list.size(); ++i) {
    check_output(list[i].first, *list[i].second);
    for (std::size_t j = 0; j < i; ++j)
      if (!list[i].second->empty() && !list[j].second->empty() && same_output_file(*list[i].second, *list[j].second))
        throw InputError(fmt::format("{} {}: the same file as {}", list[i].first, *list[i].second, list[j].first));
  }
}

PipelineRequest pipeline_request(const RunPlan& plan, bool want_trace) {
  return {.run = plan.request,
          .scenario = plan.scenario ? &*plan.scenario : nullptr,
          .topology = plan.topology,
          .want_trace = want_trace,
          .title = plan.title,
          .description = plan.description};
}

void print_run_report(const RunResult& result, const RunPlan& plan, const std::string& scenario_path,
                      const TraceOutputs& outputs, const std::string& dump) {
  if (!plan.title.empty()) fmt::print("scenario: {} ({})\n", plan.title, scenario_path);
  if (result.schedule.step_count() <= 64) fmt::print("steps:\n{}", format_step_overview(result.schedule));
  fmt::print("{}", format_run_summary(result));
  if (!dump.empty()) fmt::print("  {:<11} {}\n", "dump", dump);
  for (const auto& [key, path] : {std::pair{"trace", outputs.trace}, {"chrome", outputs.chrome}, {"csv", outputs.csv}})
    if (!path.empty()) fmt::print("  {:<11} {}\n", key, path);
}

}  // namespace collsim::cli
