// The toolbar: open a file or a scenario, edit the run — the collective and its options on
// the first row, the topology and the algorithm to compare with on the second — and re-run
// it, with a progress bar and a Cancel button while the run goes on in the background.
#include <algorithm>

#include <fmt/format.h>

#include "app/desktop/app.h"
#include "app/views/export.h"
#include "sim/run/custom_schedule.h"
#include "sim/schedule/algorithm.h"

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

// A combo of the algorithms for the chosen collective; keeps the choice valid. A schedule
// file from the scenario (a TOML schedule or an MSCCL file) is the algorithm "custom",
// offered first: without it the combo showed (and Run ran) the collective's default.
void algorithm_combo(RunEditor& e) {
  const Collective c = e.collective_kind();
  const bool has_schedule = !e.schedule_file.empty();
  if (!(has_schedule && e.algorithm == kCustomAlgorithm) && !find_algorithm(c, e.algorithm))
    e.algorithm = std::string(default_algorithm(c).name);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
  if (!ImGui::BeginCombo("##algorithm", e.algorithm.c_str())) return;
  if (has_schedule) {
    if (ImGui::Selectable(std::string(kCustomAlgorithm).c_str(), e.algorithm == kCustomAlgorithm))
      e.algorithm = std::string(kCustomAlgorithm);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the scenario's own schedule: %s", e.schedule_file.c_str());
  }
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.collective != c) continue;
    if (ImGui::Selectable(std::string(a.name).c_str(), a.name == e.algorithm)) e.algorithm = std::string(a.name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(a.summary).c_str());
  }
  ImGui::EndCombo();
}

void collective_combo(RunEditor& e) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  if (!ImGui::BeginCombo("##collective", std::string(to_string(e.collective_kind())).c_str())) return;
  for (int i = 0; i < static_cast<int>(std::size(kAllCollectives)); ++i)
    if (ImGui::Selectable(std::string(to_string(kAllCollectives[i])).c_str(), i == e.collective)) e.collective = i;
  ImGui::EndCombo();
}

// A combo over `values` (anything with a to_string), labelled by `label` before it.
template <class T, std::size_t N>
void enum_combo(const char* label, const char* id, T& value, const T (&values)[N], float width_em, const char* tip) {
  if (*label) {
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, 4);
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * width_em);
  if (ImGui::BeginCombo(id, std::string(to_string(value)).c_str())) {
    for (const T& v : values)
      if (ImGui::Selectable(std::string(to_string(v)).c_str(), v == value)) value = v;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

void int_field(const char* label, const char* id, int& v, int lo, int hi, float width_em, const char* tip) {
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * width_em);
  ImGui::InputInt(id, &v, 0, 0);
  v = std::clamp(v, lo, hi);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

// A text field kept as typed (the editor parses it when Run is pressed).
void text_field(const char* id, std::string& text, const char* hint, float width_em, const std::string& tip) {
  char buffer[64];
  fmt::format_to_n(buffer, sizeof buffer - 1, "{}", text).out[0] = '\0';
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * width_em);
  if (ImGui::InputTextWithHint(id, hint, buffer, sizeof buffer)) text = buffer;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip.c_str());
}

// A link preset: the kind's default (`fallback`, kept as an empty `value`), or one of sim's presets.
void preset_combo(const char* id, std::string& value, std::string_view fallback, const char* tip) {
  const std::string shown = value.empty() ? fmt::format("{} (default)", fallback) : value;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo(id, shown.c_str())) {
    if (ImGui::Selectable(fmt::format("{} (the kind's default)", fallback).c_str(), value.empty())) value.clear();
    for (const LinkPreset& p : link_presets()) {
      if (ImGui::Selectable(std::string(p.name).c_str(), p.name == value)) value = std::string(p.name);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: %s GB/s per direction, %s µs", std::string(p.what).c_str(), format_figure(p.bandwidth_gbps).c_str(),
                          format_figure(p.latency_us).c_str());
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

// A preset's bandwidth and latency as typed overrides ("GB/s", "µs" after them); the
// preset's figures are the hints an empty field shows.
void figure_fields(const char* id, std::string& bw, std::string& lat, std::string_view preset_name, std::string_view what) {
  const LinkPreset* preset = find_link_preset(preset_name);
  const std::string pbw = preset ? format_figure(preset->bandwidth_gbps) : "", plat = preset ? format_figure(preset->latency_us) : "";
  ImGui::PushID(id);
  text_field("##bandwidth", bw, pbw.c_str(), 3.5f, fmt::format("bandwidth of every {}, GB/s per direction; empty: the preset's ({})", what, pbw));
  ImGui::SameLine(0, 3);
  ImGui::TextUnformatted("GB/s");
  ImGui::SameLine();
  text_field("##latency", lat, plat.c_str(), 3, fmt::format("latency of every {}, µs; empty: the preset's ({})", what, plat));
  ImGui::SameLine(0, 3);
  ImGui::TextUnformatted("µs");
  ImGui::PopID();
}

// NCCL's protocol for the timing model; the tooltip of each choice gives its figures
// (sim/model/protocol.h, the same table `collsim list` prints).
void protocol_combo(Protocol& value) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.5f);
  if (ImGui::BeginCombo("##protocol", std::string(protocol_label(value)).c_str())) {
    for (Protocol p : kAllProtocols) {
      if (ImGui::Selectable(std::string(protocol_label(p)).c_str(), p == value)) value = p;
      if (!ImGui::IsItemHovered()) continue;
      if (const auto f = protocol_figures(p))
        ImGui::SetTooltip("NCCL's %s: base latency %s µs once; per hop NVLink %s, PCIe %s, network %s µs; %d of every %d "
                          "bytes carry data",
                          std::string(protocol_label(p)).c_str(), format_figure(f->base_latency_us).c_str(),
                          format_figure(f->hop_latency(LinkClass::nvlink)).c_str(),
                          format_figure(f->hop_latency(LinkClass::pcie)).c_str(),
                          format_figure(f->hop_latency(LinkClass::network)).c_str(), f->data_bytes, f->line_bytes);
      else
        ImGui::SetTooltip("%s", p == Protocol::none ? "the links' own latencies (NCCL's LL per-hop figures) and full "
                                                      "bandwidth, no base latency"
                                                    : "the fastest of LL, LL128 (NVLink only) and Simple for this run");
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("NCCL's protocol: what a hop costs, the share of the bandwidth and a base latency (docs/timing-model.md)");
}

// What a kind's uplinks connect, for labels: "switch uplinks", "network links", "server links".
const char* uplinks_label(TopologyKind k) {
  return k == TopologyKind::pcie_tree ? "switch uplinks" : k == TopologyKind::star ? "server links" : "network links";
}

// The uplinks' preset and figures, the group size and the NIC choice, for the kinds that have them.
void uplink_fields(RunEditor& e) {
  TopologyConfig& t = e.topology;
  if (!has_uplinks(t.kind)) {
    ImGui::TextDisabled("%s has no uplinks or groups (pcie_tree, two_level and star have)", std::string(to_string(t.kind)).c_str());
    return;
  }
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(uplinks_label(t.kind));
  ImGui::SameLine();
  const std::string_view fallback = default_uplink_preset(t.kind);
  preset_combo("##uplink", t.uplink, fallback, "the preset of the uplinks (docs/timing-model.md)");
  ImGui::SameLine();
  figure_fields("uplink", e.uplink_bandwidth, e.uplink_latency, t.uplink.empty() ? fallback : t.uplink, uplinks_label(t.kind));
  if (has_groups(t.kind)) {
    const std::string tip = fmt::format("GPUs per {} (0: the default, {})", t.kind == TopologyKind::pcie_tree ? "PCIe switch" : "node",
                                        default_group_size(t.kind));
    ImGui::AlignTextToFramePadding();
    int_field(t.kind == TopologyKind::pcie_tree ? "GPUs per switch" : "GPUs per node", "##group", t.group_size, 0, kMaxRanks, 3.2f,
              tip.c_str());
  }
  if (t.kind == TopologyKind::two_level) {
    ImGui::SameLine();
    ImGui::TextUnformatted("network link per");
    ImGui::SameLine();
    if (ImGui::RadioButton("node", !t.nic_per_gpu)) t.nic_per_gpu = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("GPU", t.nic_per_gpu)) t.nic_per_gpu = true;
  }
}

// The rows of link overrides: a link's name and its own figures (empty: the link's).
void override_rows(RunEditor& e) {
  std::size_t remove = e.overrides.size();
  const std::string names = fmt::format("a link's name: {}{}; the message on Run lists the topology's links if it has no such link",
                                        e.topology.kind == TopologyKind::ring ? "ring0, ring1…" :
                                        e.topology.kind == TopologyKind::fully_connected ? "pair0-1, pair0-2…" : "rank0, rank1…",
                                        has_uplinks(e.topology.kind) ? ", uplink0, uplink1…" : "");
  if (!e.overrides.empty() && ImGui::BeginTable("##overrides", 4, ImGuiTableFlags_SizingFixedFit)) {
    for (const char* head : {"link", "bandwidth (GB/s)", "latency (µs)", ""}) ImGui::TableSetupColumn(head);
    ImGui::TableHeadersRow();
    for (std::size_t k = 0; k < e.overrides.size(); ++k) {
      RunEditor::OverrideRow& row = e.overrides[k];
      ImGui::PushID(static_cast<int>(k));
      ImGui::TableNextColumn();
      text_field("##link", row.link, "rank0", 5, names);
      ImGui::TableNextColumn();
      text_field("##bandwidth", row.bandwidth, "its own", 4.5f, "this link's bandwidth, GB/s per direction (> 0); empty: the link's own");
      ImGui::TableNextColumn();
      text_field("##latency", row.latency, "its own", 4.5f, "this link's latency, µs (>= 0); empty: the link's own");
      ImGui::TableNextColumn();
      if (ImGui::SmallButton("remove")) remove = k;
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  e.remove_override(remove);
  if (e.overrides.empty()) ImGui::TextDisabled("none: every link has its preset's figures");
  if (ImGui::Button("add a link override")) e.add_override();
  if (!e.overrides.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("remove all")) e.overrides.clear();
  }
}

// "links…": what the row has no room for — the uplinks (preset, figures, group size, NIC)
// for the kinds that have them, the compute rates and the link overrides; applied on Run.
void links_popup(RunEditor& e) {
  const std::string label =
      e.overrides.empty() ? std::string("links…###links") : fmt::format("links… ({} overridden)###links", e.overrides.size());
  if (ImGui::Button(label.c_str())) ImGui::OpenPopup("links");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the uplinks (pcie_tree, two_level, star), the group size, the compute rates and links with figures of "
                      "their own; applied on Run");
  if (!ImGui::BeginPopup("links")) return;
  ImGui::TextUnformatted("Uplinks, compute rates and link overrides (applied on Run)");
  ImGui::Separator();
  uplink_fields(e);
  ImGui::Separator();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("reduce");
  ImGui::SameLine(0, 4);
  const std::string reduce = format_figure(kDefaultReduceRateGbps), copy = format_figure(kDefaultCopyRateGbps);
  text_field("##reduce", e.reduce_rate, reduce.c_str(), 3.5f,
             fmt::format("how fast a rank reduces, GB/s of its buffer (bytes·γ); empty: the default ({})", reduce));
  ImGui::SameLine(0, 3);
  ImGui::TextUnformatted("GB/s   copy");
  ImGui::SameLine(0, 4);
  text_field("##copy", e.copy_rate, copy.c_str(), 3.5f, fmt::format("how fast a rank copies locally, GB/s (bytes·δ); empty: the default ({})", copy));
  ImGui::SameLine(0, 3);
  ImGui::TextUnformatted("GB/s");
  ImGui::Separator();
  ImGui::TextUnformatted("Links with figures of their own");
  override_rows(e);
  ImGui::EndPopup();
}

// "stragglers (N)": a popup listing the ranks that start late or compute slowly, each with
// its rank, late start (µs) and slow-down factor; applied on Run. The figures are not
// clamped: a bad one is the library's to refuse, and its message names the straggler.
void stragglers_popup(RunEditor& e) {
  const std::string label = fmt::format("stragglers ({})###stragglers", e.topology.stragglers.size());
  if (ImGui::Button(label.c_str())) ImGui::OpenPopup("stragglers");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("ranks that start late (none of their transfers starts before) or compute slowly (their "
                      "reductions and local copies take that many times longer); applied on Run");
  if (!ImGui::BeginPopup("stragglers")) return;
  ImGui::TextUnformatted("Stragglers (applied on Run)");
  std::vector<Straggler>& list = e.topology.stragglers;
  std::size_t remove = list.size();
  if (!list.empty() && ImGui::BeginTable("##stragglers", 4, ImGuiTableFlags_SizingFixedFit)) {
    for (const char* head : {"rank", "late (µs)", "slow (×)", ""}) ImGui::TableSetupColumn(head);
    ImGui::TableHeadersRow();
    for (std::size_t k = 0; k < list.size(); ++k) {
      Straggler& s = list[k];
      ImGui::PushID(static_cast<int>(k));
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3);
      ImGui::InputInt("##rank", &s.rank, 0, 0);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("the rank, 0..ranks-1 (a parameter server's servers come after the workers)");
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
      ImGui::InputDouble("##late", &s.late_us, 0, 0, "%g");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("none of its transfers, sent or received, starts before this (µs, >= 0)");
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.5f);
      ImGui::InputDouble("##slow", &s.slow, 0, 0, "%g");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("its reductions and local copies take this many times longer (> 0; 1: as fast as the rest)");
      ImGui::TableNextColumn();
      if (ImGui::SmallButton("remove")) remove = k;
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  e.remove_straggler(remove);
  if (list.empty()) ImGui::TextDisabled("none: every rank starts at once and computes at the same rate");
  if (ImGui::Button("add a straggler")) e.add_straggler();
  if (!list.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("remove all")) list.clear();
  }
  ImGui::EndPopup();
}

// "Compare with…": another algorithm for the same collective, run side by side; in a lesson
// of several phases, another of its collective phases too (phase against phase, at once) or
// another algorithm for the phase shown. Keeps the choice valid.
void compare_combo(App& app, bool narrow) {
  RunEditor& e = app.editor;
  const Lesson* lesson = app.doc.lesson && app.doc.lesson->multi_phase() ? app.doc.lesson.get() : nullptr;
  // The collective and algorithm compared: the editor's, or in a lesson the shown phase's.
  const ViewModel* shown = lesson ? app.doc.model.get() : nullptr;
  const Collective c = shown ? shown->schedule().spec.collective : e.collective_kind();
  const std::string algorithm = shown ? shown->schedule().algorithm : e.algorithm;
  if (!e.compare.empty() && !e.compare.starts_with("phase:") && (e.compare == algorithm || !find_algorithm(c, e.compare)))
    e.compare.clear();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(narrow ? "compare" : "compare with");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * (narrow ? 8 : 11));
  const bool off = app.loading() || (lesson && !app.doc.model && !app.doc.compare);  // a compute phase has nothing to compare
  if (off) ImGui::BeginDisabled();
  if (ImGui::BeginCombo("##compare", e.compare.empty() ? "none" : e.compare.c_str(), ImGuiComboFlags_HeightLarge)) {
    if (ImGui::Selectable("none", e.compare.empty())) app.set_compare("");
    if (lesson) {
      ImGui::TextDisabled("another phase of the lesson");
      for (std::size_t k = 0; k < lesson->phase_count(); ++k) {
        if (!lesson->views[k] || k == app.doc.phase) continue;
        const std::string id = phase_comparison(k);
        if (ImGui::Selectable(fmt::format("{}  {}", id, lesson->phase(k).name).c_str(), e.compare == id)) app.set_compare(id);
      }
      ImGui::TextDisabled("phase %zu with another algorithm", app.doc.phase + 1);
    }
    for (const AlgorithmInfo& a : all_algorithms()) {
      if (a.collective != c || a.name == algorithm) continue;
      if (ImGui::Selectable(std::string(a.name).c_str(), a.name == e.compare)) app.set_compare(std::string(a.name));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(a.summary).c_str());
    }
    ImGui::EndCombo();
  }
  if (off) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", lesson ? "show another phase of the lesson beside this one (phase:K), or run this phase's collective "
                                     "with another algorithm on the same topology: side by side, on one clock"
                                   : "run the same collective with another algorithm on the same topology and show "
                                     "both side by side, on one clock");
}

// What the editor holds, in a line: the compact toolbar's button that opens it.
std::string run_summary(const App& app) {
  const RunEditor& e = app.editor;
  const std::string on = fmt::format("on {}", to_string(e.topology.kind));
  if (app.doc.lesson && app.doc.lesson->multi_phase())
    return fmt::format("{} phases · {} ranks · {}", app.doc.lesson->phase_count(), e.ranks, on);
  return fmt::format("{} · {} · {} ranks · {} · {}", to_string(e.collective_kind()), e.algorithm, e.ranks, e.count, on);
}

}  // namespace

void ToolbarPanel::Draw(App& app) {
  clipped = 0;
  const float left = ImGui::GetCursorScreenPos().x;
  compact = full_width > ImGui::GetContentRegionAvail().x + 0.5f;
  if (ImGui::Button("Open…")) app.file_dialog_.Open(std::filesystem::current_path());
  ImGui::SameLine();
  if (scenarios.empty()) scenarios = list_scenarios();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * (compact ? 9 : 11));
  const std::string current = app.doc.source.empty() ? "scenario…" : std::filesystem::path(app.doc.source).filename().string();
  if (ImGui::BeginCombo("##scenarios", current.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const auto& s : scenarios)
      if (ImGui::Selectable(scenario_label(s).c_str(), s.string() == app.doc.source)) app.open(s);
    if (scenarios.empty()) ImGui::TextDisabled("no scenarios/ folder found");
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The scenarios in scenarios/ and the lessons in scenarios/lessons/: pick one to open and run it");
  ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
  if (app.stage) {  // the stage: one row, the editor and the actions in a popup, then what gave way
    if (ImGui::Button("Edit…")) ImGui::OpenPopup("edit the run");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: click to edit the run, compare or export", run_summary(app).c_str());
    if (ImGui::BeginPopup("edit the run")) {
      DrawRunEditor(app);
      DrawTopologyFields(app);
      DrawActions(app);
      ImGui::EndPopup();
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
    app.DrawStageButtons();
    clipped += past_right_edge() ? 1 : 0;
    if (app.loading()) ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
    DrawProgress(app);
    DrawPhaseBelow();
    return;
  }
  if (compact) {  // one row: the editor in a popup
    if (ImGui::Button(fmt::format("{}###edit", run_summary(app)).c_str(), ImVec2(ImGui::GetFontSize() * 15, 0)))
      ImGui::OpenPopup("edit the run");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: click to edit the run (the window is too narrow for the editor's two rows)", run_summary(app).c_str());
    if (ImGui::BeginPopup("edit the run")) {
      DrawRunEditor(app);
      DrawTopologyFields(app);
      ImGui::EndPopup();
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.8f);
    DrawActions(app);
    clipped += past_right_edge() ? 1 : 0;
    DrawPhaseBelow();
    return;
  }
  DrawRunEditor(app);
  float widest = ImGui::GetItemRectMax().x - left;
  clipped += past_right_edge() ? 1 : 0;
  DrawTopologyFields(app);
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.2f);
  DrawActions(app);
  if (!app.loading()) widest = std::max(widest, ImGui::GetItemRectMax().x - left);  // (the progress bar takes the whole row)
  clipped += past_right_edge() ? 1 : 0;
  full_width = widest;
  DrawPhaseBelow();
}

void ToolbarPanel::DrawPhaseBelow() {
  if (phase_below.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("%s", phase_below.c_str());
  ImGui::PopStyleColor();
}

void ToolbarPanel::DrawRunEditor(App& app) {
  RunEditor& e = app.editor;
  if (app.doc.lesson && app.doc.lesson->multi_phase()) {  // its collectives are the file's
    ImGui::AlignTextToFramePadding();
    ImGui::Text("lesson of %zu phases", app.doc.lesson->phase_count());
    ImGui::SameLine();
    int_field("ranks", "##ranks", e.ranks, 1, kMaxRanks, 3.2f,
              "the ranks of every phase (workers; [training] generates its phases again); Run to run the lesson again");
    ImGui::SameLine();
    ImGui::TextDisabled("(each phase's collective is the file's: edit it there)");
    return;
  }
  const Collective c = e.collective_kind();
  collective_combo(e);
  ImGui::SameLine();
  algorithm_combo(e);
  ImGui::SameLine();
  int_field("ranks", "##ranks", e.ranks, 1, kMaxRanks, 3.2f, "number of ranks (parameter_server: workers)");
  ImGui::SameLine();
  ImGui::TextUnformatted("count");
  ImGui::SameLine(0, 4);
  text_field("##count", e.count, "", 4, "elements per rank; suffixes K, M, G are powers of 1024");
  if (c != Collective::barrier) {  // a barrier sends one-element i32 tokens
    ImGui::SameLine();
    enum_combo("", "##dtype", e.dtype, kAllDataTypes, 4.0f, "the element type");
  }
  if (collective_reduces(c)) {
    ImGui::SameLine();
    enum_combo("", "##op", e.op, kAllReduceOps, 4.2f, "the reduction");
  }
  if (collective_has_root(c)) {
    ImGui::SameLine();
    int_field("root", "##root", e.root, 0, std::max(0, e.ranks - 1), 2.2f, "the root rank, 0..ranks-1");
  }
  if (collective_supports_in_place(c)) {
    ImGui::SameLine();
    ImGui::Checkbox("in place", &e.in_place);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("NCCL's in-place layout: the input is (part of) the output buffer");
  }
  const AlgorithmKnobs knobs = algorithm_knobs(c, e.algorithm);
  const bool ps = knobs.servers, hierarchical = knobs.ranks_per_node;
  if (knobs.slices) {  // (the parameter server has no slices; its servers take the room)
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
}

void ToolbarPanel::DrawTopologyFields(App& app) {
  RunEditor& e = app.editor;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("on");
  ImGui::SameLine(0, 4);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
  if (ImGui::BeginCombo("##topology", std::string(to_string(e.topology.kind)).c_str())) {
    for (TopologyKind k : kAllTopologyKinds)
      if (ImGui::Selectable(std::string(to_string(k)).c_str(), k == e.topology.kind)) e.set_topology_kind(k);
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the topology the timing model predicts the times on (docs/timing-model.md)");
  ImGui::SameLine();
  const std::string_view fallback = default_link_preset(e.topology.kind);
  preset_combo("##link", e.topology.link, fallback, "the preset of the rank links (docs/timing-model.md)");
  ImGui::SameLine();
  figure_fields("link", e.bandwidth, e.latency, e.topology.link.empty() ? fallback : e.topology.link, "rank link");
  ImGui::SameLine();
  protocol_combo(e.topology.protocol);
  ImGui::SameLine();
  links_popup(e);
  ImGui::SameLine();
  stragglers_popup(e);
}

void ToolbarPanel::DrawActions(App& app) {
  compare_combo(app, compact);
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.2f);
  if (DrawProgress(app)) return;
  if (ImGui::Button("  Run  ")) app.run_editor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", app.doc.lesson && app.doc.lesson->multi_phase()
                                ? "run the lesson again with these ranks and this topology: every phase on the CPU backend"
                                : "run this collective on the CPU backend and show it");
  ImGui::SameLine();
  DrawExport(app);
}

bool ToolbarPanel::DrawProgress(App& app) {
  if (!app.loading()) {
    phase_below.clear();
    return false;
  }
  const Progress& p = app.loader.progress();
  // The rest of the row, less the Cancel button. The phase's words go in the bar when they
  // fit, else the bar shows the percentage and the words take a line under the toolbar
  // (a long run's estimate does not fit in a row).
  const ImGuiStyle& style = ImGui::GetStyle();
  const float cancel = ImGui::CalcTextSize("Cancel").x + style.FramePadding.x * 2 + style.ItemSpacing.x;
  const float width = std::max(ImGui::GetFontSize() * 5, ImGui::GetContentRegionAvail().x - cancel);
  const std::string phase = p.phase();
  const bool fits = ImGui::CalcTextSize(phase.c_str()).x + style.FramePadding.x * 2 <= width;
  phase_below = fits ? std::string() : phase;
  ImGui::ProgressBar(p.fraction(), ImVec2(width, 0), fits ? phase.c_str() : nullptr);  // nullptr: "42%"
  if (!fits && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", phase.c_str());
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) app.cancel_load();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("stop waiting (Escape) and keep showing the previous run; the run in progress stops at its next "
                      "phase (an execution already under way finishes first) and its result is discarded");
  return true;
}

void ToolbarPanel::DrawExport(App& app) {
  const bool lesson = app.doc.lesson && app.doc.lesson->multi_phase();  // the whole lesson can be written too
  if (!app.doc.model && !lesson) {  // nothing open: nothing to write
    ImGui::BeginDisabled();
    ImGui::Button("Export");
    ImGui::EndDisabled();
    return;
  }
  if (ImGui::Button("Export")) ImGui::OpenPopup("export");
  if (!ImGui::BeginPopup("export")) return;
  ImGui::TextUnformatted("Save as (a path without extension):");
  char base[1024];
  fmt::format_to_n(base, sizeof base - 1, "{}", export_base).out[0] = '\0';
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22);
  if (ImGui::InputText("##base", base, sizeof base)) export_base = base;
  const auto report = [&app](const std::filesystem::path& path, const std::string& problem) {
    (problem.empty() ? app.status : app.error) = problem.empty() ? fmt::format("wrote {}", path.string()) : problem;
  };
  if (lesson) {
    constexpr std::pair<LessonExportKind, const char*> whole[] = {
        {LessonExportKind::json, "lesson trace (JSON) (.lesson.json)"},
        {LessonExportKind::chrome, "Chrome trace (whole lesson) (.lesson.chrome.json)"},
        {LessonExportKind::csv, "CSV (whole lesson) (.lesson.csv)"}};
    const Lesson& l = *app.doc.lesson;
    for (const auto& [kind, label] : whole)
      if (ImGui::Selectable(label)) {
        const std::filesystem::path path = lesson_export_path(export_base, kind);
        report(path, write_export(path, lesson_export_text(kind, l.scenario, l.program)));
      }
    ImGui::Separator();
  }
  constexpr std::pair<ExportKind, const char*> kinds[] = {{ExportKind::json, "JSON trace (.json)"},
                                                          {ExportKind::chrome, "Chrome/Perfetto trace (.chrome.json)"},
                                                          {ExportKind::csv, "CSV (.csv)"},
                                                          {ExportKind::scenario, "scenario (.toml)"}};
  if (!app.doc.model) {
    ImGui::TextDisabled("this phase: a compute phase, without a run of its own");
    ImGui::BeginDisabled();
  }
  for (const auto& [kind, label] : kinds)
    if (ImGui::Selectable(lesson ? fmt::format("this phase: {}", label).c_str() : label)) {
      const std::filesystem::path path = export_path(export_base, kind);
      report(path, write_export(path, export_text(kind, app.doc.model->trace(), app.doc.topology)));
    }
  if (!app.doc.model) ImGui::EndDisabled();
  if (ImGui::Selectable("screenshot (.png)")) app.requested_screenshot = export_base + ".png";
  ImGui::EndPopup();
}

}  // namespace collsim::gui
