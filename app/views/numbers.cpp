#include "app/views/numbers.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/trace/trace.h"
#include "sim/schedule/algorithm.h"

namespace collsim::gui {
namespace {

// The trace's closed form (closed_form_of: the one `collsim run` printed for it), phrased.
std::string closed_form_line(const ViewModel& vm) {
  const TraceClosedForm f = closed_form_of(vm.trace());
  if (f.formula.empty()) return "";
  return fmt::format("closed form: {} = {}  ({})", f.formula, f.time_ns ? format_duration_ns(*f.time_ns) : "n/a here",
                     f.values);
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
