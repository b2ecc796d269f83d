#include "app/desktop/style.h"

#include "app/flags/data_files.h"
#include "app/views/palette.h"

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <vector>

namespace collsim::gui {
namespace {

// The tables live in palette.h, shared with the SVG storyboard.
static_assert(colors::background == to_u32(palette::background) && colors::panel == to_u32(palette::panel) &&
                  colors::grid == to_u32(palette::grid) && colors::text == to_u32(palette::text) &&
                  colors::text_dim == to_u32(palette::text_dim) && colors::empty_cell == to_u32(palette::empty_cell) &&
                  colors::missing_slot == to_u32(palette::missing_slot) && colors::server == to_u32(palette::server) &&
                  colors::second_tree == to_u32(palette::second_tree),
              "the storyboard's theme (palette.h) must stay the app's (style.h)");

ImU32 with_alpha(ImU32 c, float alpha) {
  const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f);
  return (c & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

const ImWchar* glyph_ranges() {
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder b;
    b.AddRanges(ImGui::GetIO().Fonts->GetGlyphRangesDefault());  // Latin-1: µ × ·
    static const ImWchar extra[] = {0x0370, 0x03FF,   // Greek: α β γ Σ
                                    0x2000, 0x206F,   // punctuation: – — …
                                    0x2070, 0x209F,   // superscripts: 2¹⁰ (the size axis's title)
                                    0x2190, 0x21FF,   // arrows: → ← ↑ ↓
                                    0x2200, 0x22FF,   // maths: − ≤ ≥ ∑
                                    0x25A0, 0x25FF,   // shapes: ■ ●
                                    0};
    b.AddRanges(extra);
    b.BuildRanges(&ranges);
  }
  return ranges.Data;
}

}  // namespace

ImU32 rank_color(int rank, float alpha) {
  return with_alpha(to_u32(palette::rank(rank)), alpha);
}

ImU32 to_u32(palette::Rgb c, float alpha) { return with_alpha(to_u32(c), alpha); }

ImU32 heat_color(float heat) {
  heat = std::clamp(heat, 0.0f, 1.0f);
  const ImVec4 cold(0.36f, 0.38f, 0.45f, 1.0f), warm(1.0f, 0.78f, 0.2f, 1.0f);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(cold.x + (warm.x - cold.x) * heat, cold.y + (warm.y - cold.y) * heat,
                                               cold.z + (warm.z - cold.z) * heat, 1.0f));
}

std::filesystem::path data_dir() { return collsim::flags::data_dir(); }

Fonts load_fonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  Fonts f;
  const std::filesystem::path candidates[] = {data_dir() / "assets" / "fonts" / "DejaVuSans.ttf",
                                              "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"};
  std::error_code ec;
  for (const auto& path : candidates) {
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    const std::string file = path.string();
    f.regular = io.Fonts->AddFontFromFileTTF(file.c_str(), 16.0f * scale, nullptr, glyph_ranges());
    f.large = io.Fonts->AddFontFromFileTTF(file.c_str(), 21.0f * scale, nullptr, glyph_ranges());
    f.small = io.Fonts->AddFontFromFileTTF(file.c_str(), 13.0f * scale, nullptr, glyph_ranges());
    if (f.regular && f.large && f.small) {
      f.source = file;
      return f;
    }
    io.Fonts->Clear();
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * scale;
  f.regular = f.large = f.small = io.Fonts->AddFontDefault(&config);
  f.source = "ImGui's built-in font (DejaVu Sans not found: ASCII only)";
  return f;
}

void apply_style(float scale) {
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0;
  style.ChildRounding = 4;
  style.FrameRounding = 4;
  style.GrabRounding = 4;
  style.PopupRounding = 4;
  style.FramePadding = ImVec2(7, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.WindowPadding = ImVec2(8, 8);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImGui::ColorConvertU32ToFloat4(colors::background);
  // Panels have no fill of their own, only borders: glClear paints the one background.
  // On a software rasteriser (llvmpipe, Xvfb) each full-screen layer costs milliseconds.
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_Border] = ImVec4(0.30f, 0.33f, 0.39f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.17f, 0.19f, 0.23f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.22f, 0.26f, 0.33f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.30f, 0.38f, 0.50f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.34f, 0.45f, 0.62f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.26f, 0.33f, 1.0f);
  c[ImGuiCol_PlotHistogram] = ImVec4(0.34f, 0.70f, 0.91f, 1.0f);
  style.AntiAliasedLinesUseTex = false;  // platform.cpp samples the atlas nearest: AA lines by geometry
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

namespace {
float right_edge() { return ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x; }
}  // namespace

bool past_right_edge() { return ImGui::GetItemRectMax().x > right_edge() + 0.5f; }

void help_marker(const char* text) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

std::string fit_line(ImFont* font, float size, const std::string& text, float width) {
  const auto width_of = [&](const std::string& t) { return font->CalcTextSizeA(size, FLT_MAX, 0, t.c_str()).x; };
  if (width_of(text) <= width) return text;
  std::string s = text;
  while (!s.empty() && width_of(s + "…") > width) {
    s.pop_back();
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // a UTF-8 character whole
  }
  return s + "…";
}

}  // namespace collsim::gui
