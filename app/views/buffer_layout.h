// Where the buffers panel draws its rows and cells, as plain data (no ImGui): the panel
// only reads this geometry (docs/gui.md, "buffers").
//
// Columns. Every row is cut into the same equal-width pieces: the finest partition over
// ALL shown rows, so a ring's "rank 0 in" (cut where the ring reads it) and "rank 1 out"
// (cut where it writes) show the same dividers, and chunks of 8 and 7 elements (count not
// divisible by N) the same width. A boundary is a fraction of its row's own length, and
// the partition is the union of those fractions: every row spans the full width, so an
// all-gather's input (K elements) lines up with its output (K·N) instead of shrinking to
// 1/N of it (1/64 of the width at 64 ranks, which is unreadable); the row's tooltip says
// how many elements it has. A cell spanning several pieces stays one cell (one contribution
// set, one "3/4", one tooltip, one outline) drawn with faint dividers at the pieces inside
// it: splitting it into several cells of the same state would suggest that the schedule
// moves them separately.
//
// Rows. Rows have a readable minimum height. When every row fits at it, all are drawn so,
// each labelled. When they do not (64 ranks), the panel splits into an overview — every
// row, thin, the whole buffer state at a glance, labelled every k-th row so that labels do
// not overlap — and a detail area of readable rows around the overview row last hovered,
// instead of shrinking every row to a pixel.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/check/buffer_history.h"

namespace collsim::gui {

// A boundary inside a row: `num` elements of a row of `den` (reduced; 0/1 and 1/1 for a
// row's ends).
struct Fraction {
  std::uint64_t num = 0, den = 1;
  friend bool operator==(const Fraction&, const Fraction&) = default;
};
bool operator<(const Fraction& a, const Fraction& b);  // by value, exactly
Fraction fraction_of(std::uint64_t elements, std::uint64_t row_length);

// The shared partition of the shown rows, and where every cell of them falls on it.
struct BufferColumns {
  std::vector<Fraction> boundaries;  // ascending, from 0/1 to 1/1: pieces() + 1 of them
  // Per cell of the history (indexed like BufferHistory::cells()): its pieces
  // [first_piece, end_piece); both 0 for cells of rows not shown.
  std::vector<std::uint32_t> first_piece, end_piece;
  std::uint32_t pieces() const { return boundaries.empty() ? 0 : static_cast<std::uint32_t>(boundaries.size() - 1); }
  // Where a piece boundary falls on a row `width` wide starting at x0: equal widths.
  float x_of(std::uint32_t boundary, float x0, float width) const {
    return pieces() == 0 ? x0 : x0 + width * static_cast<float>(boundary) / static_cast<float>(pieces());
  }
  // Where element `e` of a row of `length` elements falls, in pieces (1.5: half-way
  // through piece 1), for an element of a cell over pieces [first, end): linear within the
  // piece it is in, so that elements line up with the dividers of the other rows.
  double piece_position(std::uint64_t e, std::uint64_t length, std::uint32_t first, std::uint32_t end) const;
};
// The partition over `rows` (indices into h.rows()). Rows without elements add nothing;
// with no elements at all there is one piece.
BufferColumns buffer_columns(const BufferHistory& h, std::span<const std::uint32_t> rows);

// How many rows share one label so that labels `text_height` high on rows `row_pitch`
// apart do not overlap: the smallest power of two k with k * row_pitch >= text_height
// (powers of two: rank 0, 8, 16, ... reads as a scale).
int label_stride(float row_pitch, float text_height);

// The panel's rows for `rows` rows in `height` pixels, rows `readable_height` high at least
// and `gap` apart.
struct RowsPlan {
  bool split = false;         // overview + detail
  float row_height = 0;       // the rows (detail rows when split)
  float gap = 0;
  int label_stride = 1;       // whole list: 1; overview: every k-th row labelled
  float overview_pitch = 0;   // split: one overview row (no gap between them)
  float overview_height = 0;  // split: all overview rows
  int detail_rows = 0;        // split: how many readable rows the detail area shows
};
RowsPlan plan_rows(int rows, float height, float readable_height, float gap, float text_height);
// The first of `shown` detail rows of `rows` when centred on `focus`, kept inside the list.
int detail_first(int rows, int shown, int focus);

}  // namespace collsim::gui
