// Open a scenario (.toml), a JSON trace (.json) or an MSCCL algorithm file (.xml): a folder listing built with ImGui,
// plus a path field for typing one.
#include <algorithm>

#include "app/desktop/app.h"

namespace collsim::gui {
namespace {

struct Entry {
  std::filesystem::path path;
  bool folder;
};

std::vector<Entry> list_folder(const std::filesystem::path& dir) {
  std::vector<Entry> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, std::filesystem::directory_options::skip_permission_denied, ec)) {
    const bool folder = e.is_directory(ec);
    const auto ext = e.path().extension();
    if (e.path().filename().string().starts_with(".")) continue;
    if (folder || ext == ".toml" || ext == ".json" || ext == ".xml") out.push_back({e.path(), folder});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.folder != b.folder ? a.folder : a.path.filename() < b.path.filename();
  });
  return out;
}

}  // namespace

void FileDialog::Open(const std::filesystem::path& start) {
  open = true;
  std::error_code ec;
  dir = std::filesystem::is_directory(data_dir() / "scenarios", ec) && start == std::filesystem::current_path()
            ? data_dir() / "scenarios"
            : start;
  path.clear();
}

void FileDialog::Draw(App& app) {
  if (open) {
    ImGui::OpenPopup("Open a scenario or a trace");
    open = false;
  }
  const ImVec2 size(ImGui::GetFontSize() * 36, ImGui::GetFontSize() * 26);
  ImGui::SetNextWindowSize(size, ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Open a scenario or a trace", nullptr)) return;
  ImGui::TextDisabled("%s", dir.string().c_str());
  if (ImGui::Button("up") && dir.has_parent_path()) dir = dir.parent_path();
  ImGui::SameLine();
  if (ImGui::Button("scenarios/")) dir = data_dir() / "scenarios";
  ImGui::BeginChild("entries", ImVec2(0, -ImGui::GetFrameHeightWithSpacing() * 2.2f), true);
  for (const Entry& e : list_folder(dir)) {
    const std::string name = e.path.filename().string() + (e.folder ? "/" : "");
    if (ImGui::Selectable(name.c_str(), path == e.path.string(), ImGuiSelectableFlags_AllowDoubleClick)) {
      if (e.folder) {
        dir = e.path;
      } else {
        path = e.path.string();
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
          app.open(path);
          ImGui::CloseCurrentPopup();
        }
      }
    }
  }
  ImGui::EndChild();
  char buffer[1024];
  const std::size_t n = std::min(path.size(), sizeof buffer - 1);
  std::copy_n(path.data(), n, buffer);
  buffer[n] = '\0';
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##path", buffer, sizeof buffer)) path = buffer;
  if (ImGui::Button("Open") && !path.empty()) {
    app.open(path);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace collsim::gui
