// How far apart two colours look: sRGB -> CIELAB (D65) -> CIEDE2000, following Sharma, Wu
// & Dalal, "The CIEDE2000 color-difference formula: implementation notes, supplementary
// test data, and mathematical observations" (Color Res. Appl. 30, 2005), and a simulation
// of the common colour-vision deficiencies (Machado, Oliveira & Fernandes 2009, severity 1)
// to ask the same question for colour-blind viewers. Plain C++, for the palette's tests
// (tests/gui/test_palette.cpp) and scripts/pick_rank_colours.py's twin.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "app/views/palette.h"

namespace collsim::gui::colour {

struct Lab {
  double L = 0, a = 0, b = 0;
};

using Linear = std::array<double, 3>;  // linear-light sRGB, 0..1

inline Linear linear(palette::Rgb c) {
  const auto lin = [](std::uint8_t v) {
    const double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  return {lin(c.r), lin(c.g), lin(c.b)};
}

// Linear sRGB to CIELAB, D65 white (IEC 61966-2-1 primaries).
inline Lab lab(const Linear& rgb) {
  const double x = 0.4124564 * rgb[0] + 0.3575761 * rgb[1] + 0.1804375 * rgb[2];
  const double y = 0.2126729 * rgb[0] + 0.7151522 * rgb[1] + 0.0721750 * rgb[2];
  const double z = 0.0193339 * rgb[0] + 0.1191920 * rgb[1] + 0.9503041 * rgb[2];
  constexpr double e = 6.0 / 29.0;
  const auto f = [](double t) { return t > e * e * e ? std::cbrt(t) : t / (3 * e * e) + 4.0 / 29.0; };
  const double fx = f(x / 0.95047), fy = f(y / 1.0), fz = f(z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

inline Lab lab(palette::Rgb c) { return lab(linear(c)); }

// ΔE00 with kL = kC = kH = 1. The hue mean and difference follow the paper's notes (the
// cases where the hues straddle 0°/360° or a chroma is zero), which its test pairs probe.
inline double delta_e2000(const Lab& p, const Lab& q) {
  constexpr double pi = std::numbers::pi;
  const auto deg = [](double r) { return r * 180.0 / pi; };
  const auto rad = [](double d) { return d * pi / 180.0; };
  const double c1 = std::hypot(p.a, p.b), c2 = std::hypot(q.a, q.b), cbar = (c1 + c2) / 2;
  const double c7 = std::pow(cbar, 7), g = 0.5 * (1 - std::sqrt(c7 / (c7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
  const double c1p = std::hypot(a1, p.b), c2p = std::hypot(a2, q.b);
  const auto hue = [&](double b, double a) {
    if (a == 0 && b == 0) return 0.0;
    const double h = deg(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
  const bool grey = c1p * c2p == 0;
  double dh = grey ? 0 : h2 - h1;
  if (!grey && dh > 180) dh -= 360;
  if (!grey && dh < -180) dh += 360;
  const double dL = q.L - p.L, dC = c2p - c1p, dH = 2 * std::sqrt(c1p * c2p) * std::sin(rad(dh / 2));
  const double lbar = (p.L + q.L) / 2, cbarp = (c1p + c2p) / 2;
  double hbar = h1 + h2;
  if (!grey) hbar = std::abs(h1 - h2) <= 180 ? hbar / 2 : hbar < 360 ? (hbar + 360) / 2 : (hbar - 360) / 2;
  const double t = 1 - 0.17 * std::cos(rad(hbar - 30)) + 0.24 * std::cos(rad(2 * hbar)) +
                   0.32 * std::cos(rad(3 * hbar + 6)) - 0.20 * std::cos(rad(4 * hbar - 63));
  const double dtheta = 30 * std::exp(-std::pow((hbar - 275) / 25, 2));
  const double cp7 = std::pow(cbarp, 7), rc = 2 * std::sqrt(cp7 / (cp7 + std::pow(25.0, 7)));
  const double sl = 1 + 0.015 * std::pow(lbar - 50, 2) / std::sqrt(20 + std::pow(lbar - 50, 2));
  const double sc = 1 + 0.045 * cbarp, sh = 1 + 0.015 * cbarp * t, rt = -std::sin(rad(2 * dtheta)) * rc;
  const double l = dL / sl, c = dC / sc, h = dH / sh;
  return std::sqrt(l * l + c * c + h * h + rt * c * h);
}

inline double delta_e2000(palette::Rgb x, palette::Rgb y) { return delta_e2000(lab(x), lab(y)); }

// The three common dichromacies, as Machado et al.'s matrices on linear RGB (severity 1).
enum class Deficiency { protan, deutan, tritan };
inline constexpr Deficiency kDeficiencies[] = {Deficiency::protan, Deficiency::deutan, Deficiency::tritan};

inline Lab seen_with(Deficiency d, palette::Rgb c) {
  using M = std::array<std::array<double, 3>, 3>;
  static constexpr M protan{{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
  static constexpr M deutan{{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
  static constexpr M tritan{{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
  const M& m = d == Deficiency::protan ? protan : d == Deficiency::deutan ? deutan : tritan;
  const Linear in = linear(c);
  Linear out{};
  for (int i = 0; i < 3; ++i) {
    const auto row = m[static_cast<std::size_t>(i)];
    out[static_cast<std::size_t>(i)] = std::clamp(row[0] * in[0] + row[1] * in[1] + row[2] * in[2], 0.0, 1.0);
  }
  return lab(out);
}

}  // namespace collsim::gui::colour
