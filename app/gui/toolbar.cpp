// The toolbar: open a file or a scenario, edit the run and re-run it, with a progress
// bar while the run goes on in the background.
#include <algorithm>

#include <fmt/format.h>

#include "app/gui/app.h"
#include "app/gui/export.h"
#include "sim/algorithm.h"

namespace collsim::gui {
namespace {

// scenarios/**/*.toml, lessons first, then the subfolders' (exercises/...).
std::vector<std::filesystem::path> list_scenarios() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(data_dir() / "scenarios", ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".toml" && !it->path().filename().string().ends_with(".schedule.toml"))
      files.push_back(it->path());  // (a .schedule.toml is a hand-written schedule a scenario names)
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    const auto depth = [](const std::filesystem::path& p) { return std::distance(p.begin(), p.end()); };
    return depth(a) != depth(b) ? depth(a) < depth(b) : a < b;
  });
  return files;
}

std::string scenario_label(const std::filesystem::path& file) {
  return std::filesystem::relative(file, data_dir() / "scenarios").string();
}

// A combo of the algorithms for the chosen collective; keeps the choice valid.
void algorithm_combo(RunEditor& e) {
  const Collective c = kAllCollectives[e.collective];
  if (!find_algorithm(c, e.algorithm))
    for (const AlgorithmInfo& a : all_algorithms())
      if (a.collective == c) {
        e.algorithm = std::string(a.name);
        break;
      }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.5f);
  if (!ImGui::BeginCombo("##algorithm", e.algorithm.c_str())) return;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.collective != c) continue;
    if (ImGui::Selectable(std::string(a.name).c_str(), a.name == e.algorithm)) e.algorithm = std::string(a.name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(a.summary).c_str());
  }
  ImGui::EndCombo();
}

void collective_combo(RunEditor& e) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  if (!ImGui::BeginCombo("##collective", std::string(to_string(kAllCollectives[e.collective])).c_str())) return;
  for (int i = 0; i < static_cast<int>(std::size(kAllCollectives)); ++i)
    if (ImGui::Selectable(std::string(to_string(kAllCollectives[i])).c_str(), i == e.collective)) e.collective = i;
  ImGui::EndCombo();
}

void int_field(const char* label, const char* id, int& v, int lo, int hi, float width_em, const char* tip) {
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * width_em);
  ImGui::InputInt(id, &v, 0, 0);
  v = std::clamp(v, lo, hi);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

}  // namespace

void ToolbarPanel::Draw(App& app) {
  if (ImGui::Button("Open…")) app.file_dialog_.Open(std::filesystem::current_path());
  ImGui::SameLine();
  if (scenarios.empty()) scenarios = list_scenarios();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  const std::string current = app.doc.source.empty() ? "scenario…" : std::filesystem::path(app.doc.source).filename().string();
  if (ImGui::BeginCombo("##scenarios", current.c_str())) {
    for (const auto& s : scenarios)
      if (ImGui::Selectable(scenario_label(s).c_str(), s.string() == app.doc.source)) app.open(s);
    if (scenarios.empty()) ImGui::TextDisabled("no scenarios/ folder found");
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The lessons in scenarios/: pick one to open and run it");
  ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
  DrawRunEditor(app);
}

void ToolbarPanel::DrawRunEditor(App& app) {
  RunEditor& e = app.editor;
  collective_combo(e);
  ImGui::SameLine();
  algorithm_combo(e);
  ImGui::SameLine();
  int_field("ranks", "##ranks", e.ranks, 1, kMaxRanks, 3.2f, "number of ranks (parameter_server: workers)");
  ImGui::SameLine();
  ImGui::TextUnformatted("count");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4);
  char count[32];
  fmt::format_to_n(count, sizeof count - 1, "{}", e.count).out[0] = '\0';
  if (ImGui::InputText("##count", count, sizeof count)) e.count = count;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("elements per rank; suffixes K, M, G are powers of 1024");
  const bool ps = e.algorithm == "parameter_server", hierarchical = e.algorithm == "hierarchical";
  if (!ps) {  // the parameter server has no slices; its servers take the room
    ImGui::SameLine();
    int_field("slices", "##slices", e.slices, 0, 1024, 2.5f, "pipelined algorithms: slices per chunk (0: default)");
  }
  if (ps) {
    ImGui::SameLine();
    int_field("servers", "##servers", e.servers, 1, kMaxRanks, 2.5f, "parameter servers S");
    ImGui::SameLine();
    ImGui::Checkbox("colocated", &e.colocated);
  }
  if (hierarchical) {
    ImGui::SameLine();
    int_field("per node", "##rpn", e.ranks_per_node, 0, kMaxRanks, 2.5f, "ranks per node (0: automatic)");
  }
  ImGui::SameLine();
  ImGui::TextUnformatted("on");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  if (ImGui::BeginCombo("##topology", std::string(to_string(e.topology)).c_str())) {
    for (TopologyKind k : kAllTopologyKinds)
      if (ImGui::Selectable(std::string(to_string(k)).c_str(), k == e.topology)) e.topology = k;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the topology the timing model predicts the times on (docs/timing-model.md)");
  ImGui::SameLine();
  if (app.loading()) {
    const Progress& p = app.loader.progress();
    ImGui::ProgressBar(p.fraction(), ImVec2(ImGui::GetFontSize() * 12, 0), p.phase().c_str());
    return;
  }
  if (ImGui::Button("  Run  ")) app.run_editor();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("run this collective on the CPU backend and show it");
  ImGui::SameLine();
  DrawExport(app);
}

void ToolbarPanel::DrawExport(App& app) {
  if (!app.doc.model) return;
  if (ImGui::Button("Export")) ImGui::OpenPopup("export");
  if (!ImGui::BeginPopup("export")) return;
  ImGui::TextUnformatted("Save as (a path without extension):");
  char base[1024];
  fmt::format_to_n(base, sizeof base - 1, "{}", export_base).out[0] = '\0';
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22);
  if (ImGui::InputText("##base", base, sizeof base)) export_base = base;
  constexpr std::pair<ExportKind, const char*> kinds[] = {{ExportKind::json, "JSON trace (.json)"},
                                                          {ExportKind::chrome, "Chrome/Perfetto trace (.chrome.json)"},
                                                          {ExportKind::csv, "CSV (.csv)"},
                                                          {ExportKind::scenario, "scenario (.toml)"}};
  for (const auto& [kind, label] : kinds)
    if (ImGui::Selectable(label)) {
      const std::filesystem::path path = export_path(export_base, kind);
      const std::string problem = write_export(path, export_text(kind, app.doc.model->trace(), app.doc.topology));
      (problem.empty() ? app.status : app.error) = problem.empty() ? fmt::format("wrote {}", path.string()) : problem;
    }
  if (ImGui::Selectable("screenshot (.png)")) app.requested_screenshot = export_base + ".png";
  ImGui::EndPopup();
}

}  // namespace collsim::gui
