#include "app/flags/run_plan.h"

#include <cstddef>
#include <utility>

#include "sim/model/protocol.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_import.h"

namespace collsim::flags {

std::string_view run_flag_given(const FlagGiven& given) {
  if (given("--topology-file")) return "--topology-file";
  for (std::size_t i = 0; i < kRequestFieldCount; ++i)
    for (const std::string_view flag : field_flags(static_cast<RequestField>(i)))
      if (given(flag)) return flag;
  return {};
}

FlagPlan plan_flags(const std::string& scenario_path, const RunRequest& from_flags, const FlagGiven& given,
                    const TopologyConfig& topology_flags) {
  FlagPlan plan;
  const FlagGiven with_file = with_topology_file(given);
  if (scenario_path.empty()) {
    plan.request = adopt_schedule_spec(from_flags, fields_given_by_flags(with_file));
    plan.topology = adopt_schedule_protocol(plan.request, topology_flags, with_file);
  } else {
    Scenario s =
        apply_scenario_overrides(load_scenario(scenario_path), from_flags, topology_flags, fields_given_by_flags(with_file));
    plan.request = s.request;
    plan.topology = s.topology;
    plan.scenario = std::move(s);
  }
  check_topology_flags(plan.topology, given);
  return plan;
}

TopologyConfig adopt_schedule_protocol(const RunRequest& request, TopologyConfig topology, const FlagGiven& given) {
  if (given("--protocol") || request.algorithm != kCustomAlgorithm || !is_msccl_path(request.options.schedule_file))
    return topology;
  if (const std::optional<Protocol> p = parse_protocol(load_schedule_file(request.options.schedule_file).protocol))
    topology.protocol = *p;
  return topology;
}

}  // namespace collsim::flags
