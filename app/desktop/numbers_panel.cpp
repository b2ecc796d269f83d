// The numbers: the run's predicted time and bandwidths, then its measured ones, each
// labelled (headline_numbers), the bytes each rank sent and received so far, and the
// algorithm's cost formulas beside this run's figures (numbers.h), and a button that opens
// the run's busbw against size (SizeCurveWindow).
#include <algorithm>

#include <fmt/format.h>

#include "app/desktop/app.h"
#include "app/views/numbers.h"
#include "sim/schedule/algorithm.h"

namespace collsim::gui {
namespace {

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

// The run's headline figures, each led by what it is: the prediction on the run's topology
// first, then the simulation's own time on the computer that ran it; what each was made on
// under its figures.
void headline(const Trace& t) {
  for (const NumbersLine& l : headline_numbers(t)) {
    const bool predicted = l.kind == NumbersLine::Kind::predicted;
    ImGui::TextColored(predicted ? ImVec4(1.0f, 0.85f, 0.45f, 1.0f) : ImVec4(0.7f, 0.74f, 0.82f, 1.0f), "%s", l.head.c_str());
    ImGui::SameLine();
    ImGui::TextWrapped("%s", l.figures.c_str());
    ImGui::Indent();
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.7f, 0.72f, 0.78f, 1.0f));
    ImGui::TextWrapped("%s", l.about.c_str());
    if (!l.note.empty()) ImGui::TextWrapped("%s", l.note.c_str());
    ImGui::PopStyleColor();
    ImGui::Unindent();
  }
}

void whole_run(App& app) {
  const ViewModel& vm = *app.doc.model;
  const Trace& t = vm.trace();
  const Schedule& s = vm.schedule();
  headline(t);
  ImGui::TextDisabled("busbw = algbw × %s", std::string(busbw_factor_formula(s.spec.collective)).c_str());
  const double wire = vm.clock(ClockKind::steps).total.bytes.empty() ? 0.0 : vm.clock(ClockKind::steps).total.bytes.back();
  ImGui::Text("on the wire so far: %s of %s", format_bytes(app.now.total_bytes).c_str(), format_bytes(wire).c_str());
  const AlgorithmNumbers numbers = algorithm_numbers(vm);
  for (const std::string* line : {&numbers.steps, &numbers.bytes})
    if (!line->empty()) ImGui::TextWrapped("%s", line->c_str());
  if (!numbers.closed_form.empty()) ImGui::TextWrapped("%s", numbers.closed_form.c_str());
  if (t.predicted && ImGui::SmallButton("busbw against size...")) app.size_curve.open = true;
  if (t.predicted && ImGui::IsItemHovered())
    ImGui::SetTooltip("This run's collective from 256 B to 1 GiB per rank, predicted on its topology, its own size marked");
  const Verification& v = t.verification;
  if (v.checked > 0 || !v.rule.empty())
    ImGui::TextColored(v.ok ? ImVec4(0.5f, 0.85f, 0.55f, 1) : ImVec4(1, 0.4f, 0.4f, 1), "%s",
                       v.ok ? fmt::format("verified: {} elements, {}", v.checked, v.rule).c_str()
                            : fmt::format("WRONG: {} of {} differ; {}", v.mismatches, v.checked, v.first_mismatch).c_str());
}

// One row of the comparison: a name, then one cell per run.
template <class F>
void comparison_row(const char* name, const ViewModel& a, const ViewModel& b, F cell) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", name);
  for (const ViewModel* vm : {&a, &b}) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(cell(*vm).c_str());
  }
}

// "parameter_server takes 2.41× as long as ring": the slower over the faster.
std::string ratio_text(const std::string& a, double ta, const std::string& b, double tb, const char* clock) {
  if (ta <= 0 || tb <= 0) return "";
  if (ta == tb) return fmt::format("{} and {} take the same time ({})", a, b, clock);
  const bool b_slower = tb > ta;
  return fmt::format("{} takes {:.2f}× as long as {} ({})", b_slower ? b : a, b_slower ? tb / ta : ta / tb,
                     b_slower ? a : b, clock);
}

}  // namespace

void NumbersPanel::DrawComparison(App& app) {
  const ViewModel& a = *app.doc.model;
  const ViewModel& b = *app.doc.compare;
  const Trace& ta = a.trace();
  const Trace& tb = b.trace();
  const bool predicted = ta.predicted && tb.predicted;
  const std::string ratio =
      predicted ? ratio_text(ta.request.algorithm, ta.predicted->time_ns, tb.request.algorithm, tb.predicted->time_ns, "predicted")
                : ratio_text(ta.request.algorithm, static_cast<double>(ta.summary.time_ns), tb.request.algorithm,
                             static_cast<double>(tb.summary.time_ns), "measured");
  if (!ratio.empty()) ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%s", ratio.c_str());
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("compare", 3, flags, ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 60.0f)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 9);
  ImGui::TableSetupColumn(ta.request.algorithm.c_str());
  ImGui::TableSetupColumn(tb.request.algorithm.c_str());
  ImGui::TableHeadersRow();
  const Frame* frames[] = {&app.now, &app.compare_now};
  const auto frame_of = [&](const ViewModel& vm) -> const Frame& { return *frames[&vm == &a ? 0 : 1]; };
  if (predicted) {
    comparison_row("predicted", a, b, [](const ViewModel& vm) { return format_duration_ns(vm.trace().predicted->time_ns); });
    comparison_row("busbw (predicted)", a, b, [](const ViewModel& vm) { return gbps(vm.trace().predicted->busbw_gbps); });
    comparison_row("algbw (predicted)", a, b, [](const ViewModel& vm) { return gbps(vm.trace().predicted->algbw_gbps); });
    comparison_row("bottleneck", a, b, [](const ViewModel& vm) {
      const auto& links = vm.trace().predicted->busiest_links;
      return links.empty() ? std::string("—") : fmt::format("{} ({:.0f}%)", links.front().link, 100.0 * links.front().utilisation);
    });
  }
  comparison_row("steps", a, b, [](const ViewModel& vm) {
    return fmt::format("{} ({} communicating)", vm.step_count(), vm.communication_steps());
  });
  comparison_row("most sent by a rank", a, b, [](const ViewModel& vm) {
    const auto& sent = vm.total_sent();
    return format_bytes(sent.empty() ? 0.0 : static_cast<double>(*std::max_element(sent.begin(), sent.end())));
  });
  comparison_row("on the wire so far", a, b, [&](const ViewModel& vm) {
    const Tally& total = vm.clock(ClockKind::steps).total;
    return fmt::format("{} of {}", format_bytes(frame_of(vm).total_bytes), format_bytes(total.bytes.empty() ? 0.0 : total.bytes.back()));
  });
  comparison_row("measured (the sim)", a, b, [](const ViewModel& vm) {
    return format_duration_ns(static_cast<double>(vm.trace().summary.time_ns));
  });
  comparison_row("verified", a, b, [](const ViewModel& vm) {
    const Verification& v = vm.trace().verification;
    return v.ok ? std::string("yes") : fmt::format("WRONG: {} of {} differ", v.mismatches, v.checked);
  });
  ImGui::EndTable();
}

void NumbersPanel::Draw(App& app) {
  ImGui::SetNextItemOpen(app.toggles.numbers);
  app.toggles.numbers = ImGui::CollapsingHeader(app.doc.compare ? "Numbers: the two runs" : "Numbers");
  if (!app.toggles.numbers) return;
  if (app.doc.compare) return DrawComparison(app);
  whole_run(app);
  per_rank_table(app);
}

}  // namespace collsim::gui
