#include "app/gui/app.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace collsim::gui {

void RunEditor::load(const RunRequest& r) {
  collective = static_cast<int>(std::find(std::begin(kAllCollectives), std::end(kAllCollectives), r.spec.collective) -
                                std::begin(kAllCollectives));
  algorithm = r.algorithm;
  ranks = r.spec.ranks;
  count = std::to_string(r.spec.count);
  for (auto [suffix, unit] : {std::pair{"G", 1ull << 30}, {"M", 1ull << 20}, {"K", 1ull << 10}})
    if (r.spec.count >= unit && r.spec.count % unit == 0) {
      count = std::to_string(r.spec.count / unit) + suffix;
      break;
    }
  slices = r.options.slices;
  servers = r.options.servers;
  colocated = r.options.colocated;
  ranks_per_node = r.options.ranks_per_node;
  in_place = r.spec.in_place;
  seed = r.seed;
}

std::optional<RunRequest> RunEditor::request(std::string& error) const {
  const std::optional<std::uint64_t> n = parse_count(count);
  if (!n) {
    error = fmt::format("count: '{}' is not a count (a non-negative integer, optionally with K, M or G)", count);
    return std::nullopt;
  }
  RunRequest r;
  r.spec.collective = kAllCollectives[collective];
  r.spec.ranks = ranks;
  r.spec.count = *n;
  r.spec.in_place = in_place;
  r.algorithm = algorithm;
  r.options.slices = slices;
  r.options.servers = servers;
  r.options.colocated = colocated;
  r.options.ranks_per_node = ranks_per_node;
  r.seed = seed;
  return r;
}

App::App(Fonts f) : fonts(std::move(f)) {}

void App::open(const std::filesystem::path& file) {
  last_request_ = {file, std::nullopt, {}, "", ""};
  if (!loader.start(last_request_)) error = "still loading the previous file; try again when it is done";
}

void App::run(const RunRequest& request) {
  // A re-run keeps the scenario's title, description and topology (unless the editor
  // picked another kind: then that kind's defaults): it is the same lesson, edited.
  TopologyConfig topology = doc.topology;
  if (editor.topology != topology.kind) {
    topology = TopologyConfig();
    topology.kind = editor.topology;
  }
  last_request_ = {{}, request, topology, doc.title, doc.description};
  if (!loader.start(last_request_)) error = "a run is still in progress; try again when it is done";
}

void App::run_editor() {
  std::string problem;
  if (const std::optional<RunRequest> r = editor.request(problem)) {
    run(*r);
  } else {
    error = problem;
  }
}

void App::poll() {
  std::optional<LoadResult> r = loader.take();
  if (!r) return;
  if (!r->model) {
    error = r->error;
    return;
  }
  error.clear();
  doc.model = std::move(r->model);
  doc.source = r->source;
  doc.title = r->title;
  doc.description = r->description;
  doc.note = r->note;
  doc.request = r->request;
  doc.topology = r->topology;
  editor.load(doc.request);
  editor.topology = doc.topology.kind;
  toggles.inputs = doc.model->schedule().total_ranks <= 8;
  const ClockKind clock = playback.clock;
  playback = Playback{};
  playback.clock = doc.model->has_clock(clock) ? clock : ClockKind::steps;
  playback.home(*doc.model);
  if (on_first_load) std::exchange(on_first_load, nullptr)(*this);
}

void App::draw(double dt) {
  poll();
  if (doc.model && requested_arrangement) doc.model->arrange_by_topology(*requested_arrangement);
  requested_arrangement.reset();
  if (doc.model) {
    playback.tick(*doc.model, dt);
    now = doc.model->frame(playback.clock, playback.t);
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  // No background: glClear paints it, and on a software rasteriser (llvmpipe) every
  // full-screen layer costs milliseconds.
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                     ImGuiWindowFlags_NoBackground;
  ImGui::Begin("collsim", nullptr, flags);
  toolbar_.Draw(*this);
  DrawError();
  if (doc.model) {
    transport_.HandleKeys(*this);
    transport_.Draw(*this);
    caption_.Draw(*this);
    DrawMain();
  } else {
    DrawEmpty();
  }
  ImGui::End();
  file_dialog_.Draw(*this);
}

void App::DrawError() {
  if (!status.empty()) {
    ImGui::TextColored(ImVec4(0.5f, 0.85f, 0.55f, 1.0f), "%s", status.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("ok")) status.clear();
  }
  if (error.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.45f, 0.10f, 0.10f, 1.0f));
  const float height = ImGui::GetTextLineHeightWithSpacing() * 2.4f;
  ImGui::BeginChild("error", ImVec2(0, height), true);
  ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - 90);
  ImGui::TextUnformatted(error.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 70);
  if (ImGui::Button("Dismiss")) error.clear();
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void App::DrawEmpty() {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX() + avail.x * 0.3f, ImGui::GetCursorPosY() + avail.y * 0.4f));
  if (loading()) {
    ImGui::TextUnformatted("Loading…");
  } else {
    ImGui::TextUnformatted("Nothing is open. Pick a scenario above, open a file, or press Run.");
  }
}

void App::DrawMain() {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const float timeline_h = std::max(avail.y * 0.30f, ImGui::GetFrameHeight() * 5);
  const float main_h = std::max(avail.y - timeline_h - gap, ImGui::GetFrameHeight() * 6);
  const float scene_w = std::floor(avail.x * 0.52f);

  ImGui::BeginChild("scene", ImVec2(scene_w, main_h), true, ImGuiWindowFlags_NoScrollbar);
  scene_.Draw(*this);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginGroup();
  // The buffers take what their rows need (up to 70 %), the numbers the rest.
  const float buffers_h = std::clamp(buffers_.DesiredHeight(*this), main_h * 0.3f, main_h * 0.7f);
  const float numbers_h = toggles.numbers ? main_h - buffers_h - gap : ImGui::GetFrameHeightWithSpacing() + 2;
  ImGui::BeginChild("buffers", ImVec2(0, main_h - numbers_h - gap), true);
  buffers_.Draw(*this);
  ImGui::EndChild();
  ImGui::BeginChild("numbers", ImVec2(0, numbers_h), true);
  numbers_.Draw(*this);
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::BeginChild("timeline", ImVec2(0, 0), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  timeline_.Draw(*this);
  ImGui::EndChild();
}

}  // namespace collsim::gui
