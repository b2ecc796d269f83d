#include "app/views/numbers.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/model/protocol.h"
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

std::string gbps(const std::optional<double>& v) { return v ? fmt::format("{:.2f} GB/s", *v) : std::string("n/a"); }

std::string figures(double time_ns, const std::optional<double>& algbw, const std::optional<double>& busbw) {
  return fmt::format("{}, algbw {}, busbw {}", format_duration_ns(time_ns), gbps(algbw), gbps(busbw));
}

// "(no protocol)", "(protocol LL)", "(protocol LL, auto's choice)".
std::string protocol_words(const PredictedSummary& p) {
  if (p.protocol == Protocol::none) return "(no protocol)";
  return fmt::format("(protocol {}{})", protocol_label(p.protocol), p.protocol_candidates.empty() ? "" : ", auto's choice");
}

}  // namespace

std::string_view to_string(NumbersLine::Kind k) { return k == NumbersLine::Kind::predicted ? "predicted" : "measured"; }

std::vector<NumbersLine> headline_numbers(const Trace& t) {
  std::vector<NumbersLine> lines;
  if (t.predicted) {
    const PredictedSummary& p = *t.predicted;
    NumbersLine& l = lines.emplace_back();
    l.kind = NumbersLine::Kind::predicted;
    l.head = "predicted";
    l.about = fmt::format("on {} {}", p.topology, protocol_words(p));
    l.figures = figures(p.time_ns, p.algbw_gbps, p.busbw_gbps);
    if (!p.busiest_links.empty())
      l.note = fmt::format("bottleneck: {}, busy {:.0f}% of the time", p.busiest_links.front().link,
                           100.0 * p.busiest_links.front().utilisation);
  }
  if (!t.model_only && (t.summary.time_ns > 0 || !t.backend.empty())) {
    NumbersLine& l = lines.emplace_back();
    l.kind = NumbersLine::Kind::measured;
    const std::string& where = t.device.empty() ? t.backend : t.device;
    l.head = "measured";
    l.about = "the simulation's own time on the computer that ran it" + (where.empty() ? "" : ", " + where);
    l.figures = figures(static_cast<double>(t.summary.time_ns), t.summary.algbw_gbps, t.summary.busbw_gbps);
  }
  return lines;
}

constexpr std::string_view kModelOnlyVerdict = "model only (nothing executed)";

std::string_view run_verdict(const Trace& t) {
  return t.model_only ? kModelOnlyVerdict : t.verification.ok ? "verified" : "NOT verified";
}

std::string_view program_verdict(const ProgramResult& p) {
  return !p.executed ? kModelOnlyVerdict : p.verified() ? "verified" : "NOT verified";
}

std::string stage_predicted_words(const Trace& t, bool short_form) {
  if (!t.predicted) return "";
  const PredictedSummary& p = *t.predicted;
  std::string where = p.topology;  // a trace without the structured configuration: its description
  if (p.topology_config) {
    const TopologyConfig& c = *p.topology_config;
    where = fmt::format("{}, {}", to_string(c.kind), c.link.empty() ? default_link_preset(c.kind) : std::string_view(c.link));
  }
  std::string words = fmt::format("predicted {} on {}", format_duration_ns(p.time_ns), where);
  if (!short_form && p.protocol != Protocol::none) words += fmt::format(" ({})", protocol_label(p.protocol));
  // The rule is named; in the short form only the textbooks' rule, which is not the default.
  if (p.topology_config) {
    const bool per_message = p.topology_config->latency_rule == LatencyRule::message;
    if (per_message) words += ", latency per message";
    else if (!short_form) words += ", latency as delay";
  }
  return words;
}

std::string stage_measured_words(const Trace& t, bool short_form) {
  if (t.model_only || t.summary.time_ns <= 0) return "";
  const std::string& device = t.device.empty() ? t.backend : t.device;
  // A file's run was measured where it was written: say so, not "this computer".
  std::string words = fmt::format("{} {}", t.recorded ? "the recorded run took" : "this computer simulated it in",
                                  format_duration_ns(static_cast<double>(t.summary.time_ns)));
  if (!short_form && !device.empty()) words += fmt::format(" ({})", device);
  return words;
}

std::string stage_numbers_line(const Trace& t, bool short_form) {
  const std::string predicted = stage_predicted_words(t, short_form), measured = stage_measured_words(t, short_form);
  return predicted + (predicted.empty() || measured.empty() ? "" : " · ") + measured;
}

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
