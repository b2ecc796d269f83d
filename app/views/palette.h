// The app's colours as plain RGB, without ImGui: the desktop app (style.cpp turns them into
// ImU32) and the SVG storyboard (app/storyboard/storyboard.cpp) read the same table, so a rank has one
// colour on the screen and on a slide.
//
// Colour means rank, and only rank: chunks are numbers printed in the packets and the
// timeline's bars; copy and reduce are shapes and outlines in one neutral (a filled disc
// with "+", an outlined square); link heat is a grey-to-yellow ramp on the links only.
//
// Ranks: 16 colours picked by scripts/pick_rank_colours.py (greedy max-min CIEDE2000 over
// Okabe-Ito, Tol, Kelly and a 16-level sRGB grid; rank 0 keeps Okabe-Ito orange, each next
// rank is the candidate farthest from those before it, so 4 and 8 ranks are the most
// apart). tests/gui/test_palette.cpp holds the table to (app/views/colour_difference.h):
//  - every pair of the 16 at least kMinRankDelta ΔE00 apart (measured 15.9; the first 8:
//    25.3, the first 4: 37.2), and at least kMinRankDeltaCvd apart as seen with
//    protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1; measured
//    8.2): the script counts a colour-blind viewer's distance double, giving up some
//    normal-vision spread for it;
//  - every colour at least kMinThemeDelta from the background, panel, empty_cell and
//    missing_slot (an arrived stripe never looks missing), chromatic and of L* 50 or more
//    (the dark rank number in a disc stays readable), and at least kMinNeutralDelta from
//    the packet neutral (a packet never reads as a rank).
// Identity never rests on colour alone: a rank's stripe sits at a fixed position in every
// cell and its disc carries its number; beyond 16 ranks there are no rank colours (shading.h).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace collsim::gui::palette {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend constexpr bool operator==(const Rgb&, const Rgb&) = default;
};

inline constexpr double kMinRankDelta = 15.0;     // ΔE00, any two rank colours
inline constexpr double kMinRankDeltaCvd = 8.0;   // the same, as seen with a dichromacy
inline constexpr double kMinThemeDelta = 30.0;    // a rank colour to the dark theme's fills
inline constexpr double kMinNeutralDelta = 20.0;  // a rank colour to the packet neutral

inline constexpr Rgb kRanks[16] = {
    {230, 159, 0},    // 0: Okabe-Ito orange
    {136, 102, 255},  // 1: violet
    {0, 255, 255},    // 2: cyan
    {68, 136, 85},    // 3: green
    {221, 255, 136},  // 4: pale lime
    {255, 85, 153},   // 5: pink
    {238, 17, 0},     // 6: red
    {86, 180, 233},   // 7: Okabe-Ito sky blue
    {255, 187, 187},  // 8: rose
    {170, 170, 119},  // 9: khaki
    {255, 221, 0},    // 10: yellow
    {0, 153, 153},    // 11: teal
    {204, 51, 187},   // 12: magenta
    {187, 136, 187},  // 13: mauve
    {255, 238, 187},  // 14: cream
    {170, 102, 119},  // 15: plum
};

constexpr Rgb rank(int r) { return kRanks[static_cast<unsigned>(r < 0 ? 0 : r) % 16]; }

// Packets, timeline bars and the copy/reduce legend: one light neutral. A reduce is filled
// with it (its "+" and chunk number in packet_ink), a copy is outlined in it around a
// packet_hollow inside (its number in the neutral).
inline constexpr Rgb packet{226, 229, 236};
inline constexpr Rgb packet_ink{20, 20, 24};
inline constexpr Rgb packet_hollow{36, 39, 47};

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
// A second tree's edges (the double binary tree): dashed, in a light neutral, not a hue (hues are ranks).
inline constexpr Rgb second_tree{164, 168, 180};
// The topology's wires under an algorithm's pattern (arranged by both): dotted, between the
// grid and the dim text, so that they read as the floor the pattern stands on.
inline constexpr Rgb wire{104, 110, 126};

// "#e69f00", for SVG and CSS.
inline std::string hex(Rgb c) {
  char s[8];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", c.r, c.g, c.b);
  return s;
}

}  // namespace collsim::gui::palette
