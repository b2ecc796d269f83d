#include "app/views/buffer_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace collsim::gui {

bool operator<(const Fraction& a, const Fraction& b) {
  // Exact for any 64-bit counts (cross-multiplying could overflow): compare the integer
  // parts, then the remainders as the inverse comparison of their reciprocals.
  std::uint64_t n1 = a.num, d1 = a.den, n2 = b.num, d2 = b.den;
  for (;;) {
    const std::uint64_t q1 = n1 / d1, q2 = n2 / d2;
    if (q1 != q2) return q1 < q2;
    const std::uint64_t r1 = n1 % d1, r2 = n2 % d2;
    if (r2 == 0) return false;  // b is the integer q: a >= b
    if (r1 == 0) return true;   // a is the integer q, b is above it
    // r1/d1 < r2/d2  <=>  d2/r2 < d1/r1
    const std::uint64_t old_d1 = d1;
    n1 = d2, d1 = r2, n2 = old_d1, d2 = r1;
  }
}

Fraction fraction_of(std::uint64_t elements, std::uint64_t row_length) {
  if (row_length == 0) return {0, 1};
  const std::uint64_t g = std::gcd(elements, row_length);
  return {elements / g, row_length / g};
}

BufferColumns buffer_columns(const BufferHistory& h, std::span<const std::uint32_t> rows) {
  BufferColumns cols;
  const auto all_rows = h.rows();
  const auto cells = h.cells();
  cols.boundaries = {Fraction{0, 1}, Fraction{1, 1}};
  for (std::uint32_t r : rows) {
    const BufferRow& row = all_rows[r];
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c)
      cols.boundaries.push_back(fraction_of(cells[c].begin, row.elements));
  }
  std::sort(cols.boundaries.begin(), cols.boundaries.end());
  // Reduced fractions are equal exactly when their parts are.
  cols.boundaries.erase(std::unique(cols.boundaries.begin(), cols.boundaries.end()), cols.boundaries.end());
  cols.first_piece.assign(cells.size(), 0);
  cols.end_piece.assign(cells.size(), 0);
  auto index_of = [&](Fraction f) {
    return static_cast<std::uint32_t>(std::lower_bound(cols.boundaries.begin(), cols.boundaries.end(), f) - cols.boundaries.begin());
  };
  for (std::uint32_t r : rows) {
    const BufferRow& row = all_rows[r];
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
      cols.first_piece[c] = index_of(fraction_of(cells[c].begin, row.elements));
      cols.end_piece[c] = index_of(fraction_of(cells[c].end, row.elements));
    }
  }
  return cols;
}

double BufferColumns::piece_position(std::uint64_t e, std::uint64_t length, std::uint32_t first, std::uint32_t end) const {
  if (length == 0 || first >= end) return first;
  auto value = [](Fraction f) { return static_cast<double>(f.num) / static_cast<double>(f.den); };
  const Fraction at = fraction_of(e, length);
  // The piece of [first, end) that holds `at`: the last boundary not above it.
  const auto b = std::upper_bound(boundaries.begin() + first, boundaries.begin() + end, at);
  const std::uint32_t q = static_cast<std::uint32_t>(b - boundaries.begin()) - 1;
  if (q >= end) return end;
  const double lo = value(boundaries[q]), hi = value(boundaries[q + 1]);
  return q + (hi > lo ? (value(at) - lo) / (hi - lo) : 0.0);
}

int label_stride(float row_pitch, float text_height) {
  if (!(row_pitch > 0)) return 1;
  int k = 1;
  while (static_cast<float>(k) * row_pitch < text_height && k < (1 << 30)) k *= 2;
  return k;
}

RowsPlan plan_rows(int rows, float height, float readable_height, float gap, float text_height) {
  RowsPlan p;
  p.row_height = readable_height;
  p.gap = gap;
  const float pitch = readable_height + gap;
  if (rows <= 0 || static_cast<float>(rows) * pitch <= height) return p;
  p.split = true;
  // The overview takes at most 40% of the panel, a row at least one pixel and at most half
  // a readable row, in whole pixels (thin rows at fractional positions would blur).
  const float fit = std::floor(height * 0.4f / static_cast<float>(rows));
  p.overview_pitch = std::clamp(fit, 1.0f, std::max(1.0f, std::floor(readable_height / 2)));
  p.overview_height = p.overview_pitch * static_cast<float>(rows);
  p.label_stride = label_stride(p.overview_pitch, text_height);
  const float detail_h = height - p.overview_height - 2 * gap;
  p.detail_rows = std::clamp(static_cast<int>(std::floor(detail_h / pitch)), 1, rows);
  return p;
}

int detail_first(int rows, int shown, int focus) {
  return std::clamp(focus - shown / 2, 0, std::max(0, rows - shown));
}

}  // namespace collsim::gui
