// The colours (app/views/palette.h): CIEDE2000 (app/views/colour_difference.h) against the
// published test data, then the rank table held to the thresholds palette.h documents —
// apart from each other, also as seen with the common colour-vision deficiencies, apart
// from the dark theme's fills and from the packet neutral — and the many-rank shade ramp.
#include <doctest/doctest.h>

#include <cmath>
#include <span>

#include "app/views/colour_difference.h"
#include "app/views/palette.h"
#include "app/views/shading.h"

namespace {

using namespace collsim::gui;
using colour::Lab;

struct Pair {
  int i = -1, j = -1;
  double delta = 1e9;
};

// The two colours of `table` closest in ΔE00, as `see` shows them.
template <typename See>
Pair closest(std::span<const palette::Rgb> table, See see) {
  Pair p;
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = i + 1; j < table.size(); ++j) {
      const double d = colour::delta_e2000(see(table[i]), see(table[j]));
      if (d < p.delta) p = {static_cast<int>(i), static_cast<int>(j), d};
    }
  return p;
}

Lab normal(palette::Rgb c) { return colour::lab(c); }

double chroma(const Lab& l) { return std::hypot(l.a, l.b); }

}  // namespace

TEST_CASE("colour difference: CIEDE2000 matches Sharma, Wu and Dalal's test pairs to 4 decimals") {
  struct Case {
    Lab p, q;
    double expected;
  };
  // From the paper's Table 1: near-blue pairs, the a* sign flips where the hue mean and
  // difference cross 0/360 degrees, large differences and the dark pair at the end.
  const Case cases[] = {
      {{50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}, 2.0425},
      {{50.0, 3.1571, -77.2803}, {50.0, 0.0, -82.7485}, 2.8615},
      {{50.0, 2.8361, -74.0200}, {50.0, 0.0, -82.7485}, 3.4412},
      {{50.0, -1.3802, -84.2814}, {50.0, 0.0, -82.7485}, 1.0000},
      {{50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}, 2.3669},
      {{50.0, 2.4900, -0.0010}, {50.0, -2.4900, 0.0009}, 7.1792},
      {{50.0, 2.4900, -0.0010}, {50.0, -2.4900, 0.0011}, 7.2195},
      {{50.0, -0.0010, 2.4900}, {50.0, 0.0009, -2.4900}, 4.8045},
      {{50.0, -0.0010, 2.4900}, {50.0, 0.0011, -2.4900}, 4.7461},
      {{50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}, 27.1492},
      {{50.0, 2.5, 0.0}, {61.0, -5.0, 29.0}, 22.8977},
      {{50.0, 2.5, 0.0}, {50.0, 3.1736, 0.5854}, 1.0000},
      {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644},
      {{63.0109, -31.0961, -5.8663}, {62.8187, -29.7946, -4.0864}, 1.2630},
      {{2.0776, 0.0795, -1.1350}, {0.9033, -0.0636, -0.5514}, 0.9082},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expected);
    CHECK(std::abs(colour::delta_e2000(c.p, c.q) - c.expected) < 5e-5);
    CHECK(std::abs(colour::delta_e2000(c.q, c.p) - c.expected) < 5e-5);  // symmetric
  }
  CHECK(colour::delta_e2000(Lab{40, 10, -20}, Lab{40, 10, -20}) == 0.0);
}

TEST_CASE("colour difference: sRGB to CIELAB under D65") {
  const Lab white = colour::lab(palette::Rgb{255, 255, 255});
  CHECK(white.L == doctest::Approx(100.0).epsilon(1e-4));
  CHECK(std::abs(white.a) < 0.01);
  CHECK(std::abs(white.b) < 0.01);
  CHECK(colour::lab(palette::Rgb{0, 0, 0}).L == doctest::Approx(0.0));
  const Lab red = colour::lab(palette::Rgb{255, 0, 0});  // the usual published values
  CHECK(red.L == doctest::Approx(53.24).epsilon(1e-3));
  CHECK(red.a == doctest::Approx(80.09).epsilon(1e-3));
  CHECK(red.b == doctest::Approx(67.20).epsilon(1e-3));
  // A dichromat still sees greys as greys, and sees red and green alike far more than we do.
  for (colour::Deficiency d : colour::kDeficiencies) {
    CHECK(chroma(colour::seen_with(d, palette::Rgb{128, 128, 128})) < 1.0);
  }
  const palette::Rgb r{200, 60, 40}, g{90, 130, 40};
  CHECK(colour::delta_e2000(colour::seen_with(colour::Deficiency::deutan, r), colour::seen_with(colour::Deficiency::deutan, g)) <
        colour::delta_e2000(r, g) / 2);
}

TEST_CASE("palette: the check catches the old table's look-alike ranks") {
  // Okabe-Ito then Tol muted, as before issue 16: sky blue (1) and Tol's cyan (13) were a
  // pair people could not tell apart. The same check as below must reject it.
  const palette::Rgb before[16] = {{230, 159, 0},  {86, 180, 233}, {0, 158, 115},   {240, 228, 66},
                                   {0, 114, 178},  {213, 94, 0},   {204, 121, 167}, {204, 102, 119},
                                   {68, 170, 153}, {221, 204, 119}, {136, 34, 85},  {153, 153, 51},
                                   {170, 68, 153}, {136, 204, 238}, {17, 119, 51},  {120, 110, 200}};
  const Pair p = closest(before, normal);
  CHECK(p.delta < palette::kMinRankDelta);
  CHECK(p.i == 1);
  CHECK(p.j == 13);
}

TEST_CASE("palette: 16 rank colours every pair of which stays apart") {
  const Pair p = closest(palette::kRanks, normal);
  CAPTURE(p.i);
  CAPTURE(p.j);
  CHECK(p.delta >= palette::kMinRankDelta);
  // The first ranks, the common classroom sizes, are the most apart.
  CHECK(closest(std::span(palette::kRanks).first(8), normal).delta > closest(palette::kRanks, normal).delta);
  CHECK(closest(std::span(palette::kRanks).first(4), normal).delta > closest(std::span(palette::kRanks).first(8), normal).delta);
}

TEST_CASE("palette: rank colours stay apart for protanopia, deuteranopia and tritanopia") {
  for (colour::Deficiency d : colour::kDeficiencies) {
    const Pair p = closest(palette::kRanks, [d](palette::Rgb c) { return colour::seen_with(d, c); });
    CAPTURE(static_cast<int>(d));
    CAPTURE(p.i);
    CAPTURE(p.j);
    CHECK(p.delta >= palette::kMinRankDeltaCvd);
  }
}

TEST_CASE("palette: every rank colour shows on the dark theme and is unlike the packet neutral") {
  const palette::Rgb theme[] = {palette::background, palette::panel, palette::empty_cell, palette::missing_slot};
  for (int r = 0; r < 16; ++r) {
    CAPTURE(r);
    const palette::Rgb c = palette::rank(r);
    for (const palette::Rgb& t : theme) CHECK(colour::delta_e2000(c, t) >= palette::kMinThemeDelta);
    CHECK(colour::delta_e2000(c, palette::packet) >= palette::kMinNeutralDelta);
    CHECK(colour::lab(c).L >= 50.0);  // the dark rank number in a disc stays readable
  }
  // The neutrals that draw chunks, copies and reduces carry no hue: colour is rank's.
  for (const palette::Rgb& n : {palette::packet, palette::packet_ink, palette::packet_hollow, palette::second_tree})
    CHECK(chroma(colour::lab(n)) < 10.0);
  // A reduce's ink and a copy's hollow both read against the neutral they sit with.
  CHECK(colour::delta_e2000(palette::packet, palette::packet_ink) > 50.0);
  CHECK(colour::delta_e2000(palette::packet, palette::packet_hollow) > 50.0);
}

TEST_CASE("palette: the many-rank shade ramp gets lighter as a cell fills, and its legend is that ramp") {
  const std::vector<palette::Rgb> ramp = shading::fill_ramp(8);
  REQUIRE(ramp.size() == 8);
  CHECK(ramp.front() == shading::fill(0, 7));
  CHECK(ramp.back() == shading::fill(7, 7));
  for (std::size_t i = 1; i < ramp.size(); ++i) CHECK(colour::lab(ramp[i]).L > colour::lab(ramp[i - 1]).L);
  // Its ends are told apart, and its empty end from an unwritten cell.
  CHECK(colour::delta_e2000(ramp.front(), ramp.back()) > 20.0);
  CHECK(colour::delta_e2000(ramp.front(), palette::empty_cell) > 5.0);
}
