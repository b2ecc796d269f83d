#include "app/views/numbers.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/model/cost_formulas.h"
#include "sim/schedule/algorithm.h"

namespace collsim::gui {
namespace {

// The topology the trace was predicted on (under the protocol auto chose, if auto), or the
// default switch: the closed forms' α-β-γ-δ.
CostParams cost_params_of(const Trace& t) {
  TopologyConfig config = t.predicted && t.predicted->topology_config ? *t.predicted->topology_config : TopologyConfig{};
  if (config.protocol == Protocol::automatic) config.protocol = t.predicted->protocol;
  try {
    return cost_params(make_topology(config, t.schedule.spec.ranks, t.schedule.total_ranks));
  } catch (const InputError&) {
    return cost_params(make_topology(TopologyConfig{}, t.schedule.spec.ranks, t.schedule.total_ranks));
  }
}

std::string closed_form_line(const ViewModel& vm) {
  const Trace& t = vm.trace();
  const ClosedForm f = closed_form(t.schedule.spec, t.schedule.algorithm, t.request.options, cost_params_of(t));
  if (f.formula.empty()) return "";
  const std::string time = f.time_ns ? format_duration_ns(*f.time_ns) : fmt::format("n/a here (holds for {})", f.scope);
  return fmt::format("closed form: {} = {}  ({})", f.formula, time, f.values);
}

}  // namespace

AlgorithmNumbers algorithm_numbers(const ViewModel& vm) {
  const Schedule& s = vm.schedule();
  const AlgorithmInfo* algo = find_algorithm(s.spec.collective, s.algorithm);
  if (!algo) return {};
  const std::vector<std::uint64_t>& sent = vm.total_sent();
  const auto most = std::max_element(sent.begin(), sent.end());
  AlgorithmNumbers n;
  n.steps = fmt::format("steps: {}  (this schedule: {}, {} communicating)", algo->steps_formula, s.step_count(),
                        vm.communication_steps());
  n.bytes = fmt::format("bytes sent per rank: {}  (this schedule: at most {}, rank {})", algo->bytes_formula,
                        format_bytes(most == sent.end() ? 0.0 : static_cast<double>(*most)),
                        most == sent.end() ? 0 : static_cast<int>(most - sent.begin()));
  n.closed_form = closed_form_line(vm);
  return n;
}

}  // namespace collsim::gui
