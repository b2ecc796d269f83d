// Colours, fonts and scale: one place for the look of the app.
#pragma once
#include <filesystem>
#include <string>

#include <imgui.h>

#include "app/gui/palette.h"

namespace collsim::gui {

// Rank colours: Okabe-Ito for ranks 0-6, Paul Tol's "muted" scheme for 7-15 (both chosen
// to stay apart for the common colour-vision deficiencies). The buffers panel draws a
// rank's stripe at a fixed position in every cell, so identity never rests on colour alone.
ImU32 rank_color(int rank, float alpha = 1.0f);
// A palette colour (palette.h, shading.h), opaque.
constexpr ImU32 to_u32(palette::Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }
// Packet and timeline-bar colours by chunk: Paul Tol's "vibrant" scheme, cycling.
ImU32 chunk_color(int chunk, float alpha = 1.0f);
// Link heat: cool grey (no traffic) to warm yellow (the busiest link at the end of the run).
ImU32 heat_color(float heat);

namespace colors {
inline constexpr ImU32 background = IM_COL32(24, 26, 31, 255);
inline constexpr ImU32 panel = IM_COL32(32, 35, 42, 255);
inline constexpr ImU32 grid = IM_COL32(70, 75, 88, 255);
inline constexpr ImU32 text = IM_COL32(230, 232, 238, 255);
inline constexpr ImU32 text_dim = IM_COL32(150, 156, 170, 255);
inline constexpr ImU32 empty_cell = IM_COL32(48, 52, 62, 255);
inline constexpr ImU32 missing_slot = IM_COL32(62, 67, 80, 255);
inline constexpr ImU32 highlight = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 playhead = IM_COL32(255, 90, 90, 255);
inline constexpr ImU32 error = IM_COL32(220, 70, 70, 255);
inline constexpr ImU32 server = IM_COL32(200, 200, 210, 255);
inline constexpr ImU32 folded = IM_COL32(120, 124, 135, 255);
inline constexpr ImU32 second_tree = IM_COL32(150, 130, 220, 255);  // a second tree's edges (dashed)
}  // namespace colors

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* large = nullptr;  // the step caption
  ImFont* small = nullptr;  // labels in the scene and the cells
  std::string source;       // which file they came from, for the About box
};

// Where scenarios/ and assets/ live: $COLLSIM_DATA_DIR, the current directory, or the
// source tree this binary was built from — the first that has a scenarios/ folder.
std::filesystem::path data_dir();

// (Re)builds the font atlas at `scale` from assets/fonts/DejaVuSans.ttf, falling back to
// the system's DejaVu Sans, then to ImGui's built-in font (ASCII only). Call between frames.
Fonts load_fonts(float scale);
// The dark theme, with sizes scaled.
void apply_style(float scale);

// A "(?)" that shows `text` when hovered (imgui_demo's HelpMarker).
void help_marker(const char* text);

}  // namespace collsim::gui
