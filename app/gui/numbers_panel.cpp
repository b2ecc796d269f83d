// The numbers: bytes each rank sent and received so far, the whole run's time and
// bandwidths, and the algorithm's cost formulas with this run's numbers plugged in.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "app/gui/app.h"
#include "sim/algorithm.h"

namespace collsim::gui {
namespace {

// Replaces the formula's one-letter symbols (N, n, S, W, G and N') with values.
std::string plug_in(std::string_view formula, const Trace& t) {
  const CollectiveSpec& spec = t.request.spec;
  const int n_prime = spec.ranks > 0 ? 1 << static_cast<int>(std::floor(std::log2(spec.ranks))) : 0;
  const bool ps = t.request.algorithm == "parameter_server";
  auto value = [&](char c) -> std::string {
    switch (c) {
      case 'N': return std::to_string(spec.ranks);
      case 'n': return format_bytes(static_cast<double>(algorithm_bytes(spec)));
      case 'S': return std::to_string(ps ? t.request.options.servers : t.request.options.slices_or(1));
      case 'W': return std::to_string(spec.ranks);
      case 'G': return std::to_string(t.request.options.ranks_per_node);
    }
    return std::string(1, c);
  };
  std::string out;
  for (std::size_t i = 0; i < formula.size(); ++i) {
    const char c = formula[i];
    const bool alone = (i == 0 || !std::isalpha(static_cast<unsigned char>(formula[i - 1]))) &&
                       (i + 1 == formula.size() || !std::isalpha(static_cast<unsigned char>(formula[i + 1])));
    if (alone && c == 'N' && i + 1 < formula.size() && formula[i + 1] == '\'') {
      out += std::to_string(n_prime);
      ++i;
    } else if (alone && std::string_view("NnSWG").find(c) != std::string_view::npos) {
      out += value(c);
    } else {
      out += c;
    }
  }
  return out;
}

std::string gbps(const std::optional<double>& v) { return v ? fmt::format("{:.2f} GB/s", *v) : std::string("n/a"); }

void per_rank_table(const App& app) {
  const ViewModel& vm = *app.doc.model;
  const int ranks = vm.schedule().total_ranks;
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("per_rank", 5, flags, ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 60.0f)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("rank");
  ImGui::TableSetupColumn("sent so far");
  ImGui::TableSetupColumn("of");
  ImGui::TableSetupColumn("received so far");
  ImGui::TableSetupColumn("of ");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(ranks);
  while (clipper.Step())
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const auto i = static_cast<std::size_t>(r);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d%s", r, vm.layout().is_server[i] ? " (server)" : "");
      for (const auto& [now, total] : {std::pair{app.now.sent[i], vm.total_sent()[i]}, {app.now.received[i], vm.total_received()[i]}}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_bytes(now).c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", format_bytes(static_cast<double>(total)).c_str());
      }
    }
  ImGui::EndTable();
}

void whole_run(const App& app) {
  const ViewModel& vm = *app.doc.model;
  const Trace& t = vm.trace();
  const Schedule& s = vm.schedule();
  const AlgorithmInfo* algo = find_algorithm(s.spec.collective, s.algorithm);
  const auto most = std::max_element(vm.total_sent().begin(), vm.total_sent().end());
  const double wire = vm.clock(ClockKind::steps).total.bytes.empty() ? 0.0 : vm.clock(ClockKind::steps).total.bytes.back();
  ImGui::Text("on the wire so far: %s of %s", format_bytes(app.now.total_bytes).c_str(), format_bytes(wire).c_str());
  if (t.summary.time_ns > 0 || !t.backend.empty())
    ImGui::Text("run time %s on %s", format_duration_ns(static_cast<double>(t.summary.time_ns)).c_str(),
                t.device.empty() ? t.backend.c_str() : t.device.c_str());
  ImGui::Text("algbw %s   busbw %s = algbw × %s", gbps(t.summary.algbw_gbps).c_str(), gbps(t.summary.busbw_gbps).c_str(),
              std::string(busbw_factor_formula(s.spec.collective)).c_str());
  if (algo) {
    ImGui::TextWrapped("steps: %s = %s  (this schedule: %d, %d communicating)", std::string(algo->steps_formula).c_str(),
                       plug_in(algo->steps_formula, t).c_str(), s.step_count(), vm.communication_steps());
    ImGui::TextWrapped("bytes sent per rank: %s = %s  (this schedule: at most %s, rank %d)",
                       std::string(algo->bytes_formula).c_str(), plug_in(algo->bytes_formula, t).c_str(),
                       format_bytes(most == vm.total_sent().end() ? 0.0 : static_cast<double>(*most)).c_str(),
                       most == vm.total_sent().end() ? 0 : static_cast<int>(most - vm.total_sent().begin()));
  }
  if (t.predicted) {
    const PredictedSummary& p = *t.predicted;
    ImGui::TextWrapped("predicted %s (algbw %s, busbw %s) on %s", format_duration_ns(p.time_ns).c_str(),
                       gbps(p.algbw_gbps).c_str(), gbps(p.busbw_gbps).c_str(), p.topology.c_str());
    if (!p.busiest_links.empty())
      ImGui::TextWrapped("bottleneck: %s, busy %.0f%% of the time", p.busiest_links.front().link.c_str(),
                         100.0 * p.busiest_links.front().utilisation);
    if (!p.closed_form.empty()) ImGui::TextWrapped("closed form: %s", p.closed_form.c_str());
  }
  const Verification& v = t.verification;
  if (v.checked > 0 || !v.rule.empty())
    ImGui::TextColored(v.ok ? ImVec4(0.5f, 0.85f, 0.55f, 1) : ImVec4(1, 0.4f, 0.4f, 1), "%s",
                       v.ok ? fmt::format("verified: {} elements, {}", v.checked, v.rule).c_str()
                            : fmt::format("WRONG: {} of {} differ; {}", v.mismatches, v.checked, v.first_mismatch).c_str());
}

}  // namespace

void NumbersPanel::Draw(App& app) {
  ImGui::SetNextItemOpen(app.toggles.numbers);
  app.toggles.numbers = ImGui::CollapsingHeader("Numbers");
  if (!app.toggles.numbers) return;
  whole_run(app);
  per_rank_table(app);
}

}  // namespace collsim::gui
