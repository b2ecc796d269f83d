// The app's colours as plain RGB, without ImGui: the desktop app (style.cpp turns them into
// ImU32) and the SVG storyboard (app/storyboard.cpp) read the same table, so a rank or a
// chunk has one colour on the screen and on a slide.
//
// Ranks: Okabe-Ito for 0-6, Paul Tol's "muted" scheme for 7-15 (both chosen to stay apart
// for the common colour-vision deficiencies); the buffers draw a rank's stripe at a fixed
// position in every cell, so identity never rests on colour alone. Chunks (packets):
// Paul Tol's "vibrant" scheme, cycling.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace collsim::gui::palette {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend constexpr bool operator==(const Rgb&, const Rgb&) = default;
};

inline constexpr Rgb kRanks[16] = {
    {230, 159, 0},    // Okabe-Ito orange
    {86, 180, 233},   // sky blue
    {0, 158, 115},    // bluish green
    {240, 228, 66},   // yellow
    {0, 114, 178},    // blue
    {213, 94, 0},     // vermillion
    {204, 121, 167},  // reddish purple
    {204, 102, 119},  // Tol muted rose
    {68, 170, 153},   // teal
    {221, 204, 119},  // sand
    {136, 34, 85},    // wine
    {153, 153, 51},   // olive
    {170, 68, 153},   // purple
    {136, 204, 238},  // cyan
    {17, 119, 51},    // green
    {120, 110, 200},  // indigo, lightened for a dark background
};

inline constexpr Rgb kChunks[7] = {
    {238, 119, 51},   // Tol vibrant orange
    {51, 187, 238},   // cyan
    {238, 51, 119},   // magenta
    {0, 153, 136},    // teal
    {187, 187, 187},  // grey
    {0, 119, 187},    // blue
    {204, 51, 17},    // red
};

constexpr Rgb rank(int r) { return kRanks[static_cast<unsigned>(r < 0 ? 0 : r) % 16]; }
constexpr Rgb chunk(int c) { return kChunks[static_cast<unsigned>(c < 0 ? 0 : c) % 7]; }

// The dark theme (style.h's colors::, which style.cpp checks against these).
inline constexpr Rgb background{24, 26, 31};
inline constexpr Rgb panel{32, 35, 42};
inline constexpr Rgb grid{70, 75, 88};
inline constexpr Rgb text{230, 232, 238};
inline constexpr Rgb text_dim{150, 156, 170};
inline constexpr Rgb empty_cell{48, 52, 62};
inline constexpr Rgb missing_slot{62, 67, 80};
inline constexpr Rgb highlight{255, 255, 255};
inline constexpr Rgb server{200, 200, 210};
inline constexpr Rgb hub{58, 64, 78};  // the scene's switch boxes
inline constexpr Rgb second_tree{150, 130, 220};  // a second tree's edges, dashed (the double binary tree)

// "#e69f00", for SVG and CSS.
inline std::string hex(Rgb c) {
  char s[8];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", c.r, c.g, c.b);
  return s;
}

}  // namespace collsim::gui::palette
