// Colours, fonts and scale: one place for the look of the app.
#pragma once
#include <filesystem>
#include <string>

#include <imgui.h>

#include "app/views/palette.h"

namespace collsim::gui {

// Rank colours (palette.h: 16 colours, checked apart by CIEDE2000, also for colour-blind
// viewers). Colour means rank only: chunks are numbers, copy/reduce are shapes.
ImU32 rank_color(int rank, float alpha = 1.0f);
// A palette colour (palette.h, shading.h), opaque, or with `alpha`.
constexpr ImU32 to_u32(palette::Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }
ImU32 to_u32(palette::Rgb c, float alpha);
// Link heat: cool grey (no traffic) to warm yellow (the busiest link at the end of the run),
// a sequential scale on the links alone (the legend names it "link traffic").
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
inline constexpr ImU32 second_tree = IM_COL32(164, 168, 180, 255);  // a second tree's edges (dashed)
inline constexpr ImU32 wire = IM_COL32(104, 110, 126, 255);  // the topology's wires under a pattern (dotted)
}  // namespace colors

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* large = nullptr;  // the step caption
  ImFont* small = nullptr;  // labels in the scene and the cells
  std::string source;       // which file they came from, for the About box
};

// Where scenarios/ and assets/ live: $COLLSIM_DATA_DIR, the installed share folder, the
// current directory, or the source tree this binary was built from — the first that has a
// scenarios/ folder (app/flags/data_files.h).
std::filesystem::path data_dir();

// (Re)builds the font atlas at `scale` from assets/fonts/DejaVuSans.ttf, falling back to
// the system's DejaVu Sans, then to ImGui's built-in font (ASCII only). Call between frames.
Fonts load_fonts(float scale);
// The dark theme, with sizes scaled.
void apply_style(float scale);

// Whether the last item reaches past the window's right edge (cut off).
bool past_right_edge();

// A "(?)" that shows `text` when hovered (imgui_demo's HelpMarker).
void help_marker(const char* text);

// `text` cut to `width` pixels (in `font` at `size`) at a character boundary, ending in "…"
// when cut: a line that says it goes on, instead of one cut by its box.
std::string fit_line(ImFont* font, float size, const std::string& text, float width);

}  // namespace collsim::gui
