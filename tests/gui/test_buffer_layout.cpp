// The buffers panel's geometry (app/views/buffer_layout.h), without OpenGL: one partition of
// equal-width pieces shared by every row, labels that do not overlap, and when the panel
// splits into an overview and a detail area.
#include <doctest/doctest.h>

#include <numeric>
#include <set>

#include "app/views/buffer_layout.h"
#include "sim/check/buffer_history.h"
#include "sim/run/run.h"
#include "sim/schedule/algorithm.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

BufferHistory history_of(Collective c, std::string algorithm, int ranks, std::uint64_t count) {
  CollectiveSpec spec;
  spec.collective = c;
  spec.ranks = ranks;
  spec.count = count;
  return BufferHistory::record(build_schedule(spec, algorithm, resolve_options(spec, algorithm, {})));
}

std::vector<std::uint32_t> all_rows(const BufferHistory& h) {
  std::vector<std::uint32_t> rows(h.rows().size());
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

// Every row's cells tile [0, pieces) in order, and each cell boundary is one of the
// partition's boundaries (at the index the layout gives it).
void check_rows_tile_the_partition(const BufferHistory& h, const BufferColumns& cols, std::span<const std::uint32_t> rows) {
  REQUIRE(cols.pieces() >= 1);
  CHECK(cols.boundaries.front() == Fraction{0, 1});
  CHECK(cols.boundaries.back() == Fraction{1, 1});
  for (std::size_t i = 1; i < cols.boundaries.size(); ++i) CHECK(cols.boundaries[i - 1] < cols.boundaries[i]);
  for (std::uint32_t r : rows) {
    const BufferRow& row = h.rows()[r];
    if (row.elements == 0) continue;
    CAPTURE(row.rank);
    CAPTURE(to_string(row.buffer));
    std::uint32_t next = 0;
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
      const BufferCell& cell = h.cells()[c];
      CHECK(cols.first_piece[c] == next);
      CHECK(cols.first_piece[c] < cols.end_piece[c]);
      CHECK(cols.boundaries[cols.first_piece[c]] == fraction_of(cell.begin, row.elements));
      CHECK(cols.boundaries[cols.end_piece[c]] == fraction_of(cell.end, row.elements));
      next = cols.end_piece[c];
    }
    CHECK(next == cols.pieces());  // every row spans the same pieces: the full width
  }
}

// Every piece has the same width on screen.
void check_equal_widths(const BufferColumns& cols) {
  const float x0 = 10, width = 700;
  const float w = width / static_cast<float>(cols.pieces());
  for (std::uint32_t i = 0; i < cols.pieces(); ++i)
    CHECK(cols.x_of(i + 1, x0, width) - cols.x_of(i, x0, width) == doctest::Approx(w));
}

}  // namespace

TEST_CASE("gui buffer layout: fractions compare exactly, even where cross products overflow") {
  CHECK(fraction_of(8, 30) == Fraction{4, 15});
  CHECK(fraction_of(0, 30) == Fraction{0, 1});
  CHECK(fraction_of(30, 30) == Fraction{1, 1});
  CHECK(Fraction{1, 3} < Fraction{1, 2});
  CHECK_FALSE(Fraction{1, 2} < Fraction{1, 3});
  CHECK_FALSE(Fraction{2, 4} < Fraction{1, 2});
  const std::uint64_t big = 0xFFFFFFFFFFFFFFFBull;  // a prime near 2^64
  CHECK(Fraction{big - 2, big} < Fraction{big - 1, big});
  CHECK(Fraction{big - 2, big - 1} < Fraction{big - 1, big});  // 1 - 1/(big-1) < 1 - 1/big
  CHECK_FALSE(Fraction{big - 1, big} < Fraction{big - 2, big - 1});
}

TEST_CASE("gui buffer layout: a ring all-reduce on 4 ranks shows every row, inputs too, on the same pieces") {
  const BufferHistory h = history_of(Collective::all_reduce, "ring", 4, 1 << 20);
  const auto rows = all_rows(h);
  REQUIRE(rows.size() == 8);  // an input and an output per rank
  // The rows themselves are cut differently (inputs where the ring reads them): the layout,
  // not the history, makes them line up.
  std::set<std::uint32_t> counts;
  for (const BufferRow& row : h.rows()) counts.insert(row.cell_count);
  CHECK(counts.size() > 1);
  const BufferColumns cols = buffer_columns(h, rows);
  CHECK(cols.pieces() == 4);  // the ring's 4 chunks
  check_rows_tile_the_partition(h, cols, rows);
  check_equal_widths(cols);
}

TEST_CASE("gui buffer layout: 7 ranks with a count not divisible by 7 still get equal-width chunks in every row") {
  const BufferHistory h = history_of(Collective::all_reduce, "ring", 7, 30);
  const auto rows = all_rows(h);
  const BufferColumns cols = buffer_columns(h, rows);
  // The chunks hold 5 or 4 elements (30 = 2*5 + 5*4), but draw equally wide.
  std::set<std::uint64_t> sizes;
  const BufferRow& out0 = h.rows()[static_cast<std::size_t>(h.row_of(0, BufferKind::output))];
  for (std::uint32_t c = out0.first_cell; c < out0.first_cell + out0.cell_count; ++c) sizes.insert(h.cells()[c].end - h.cells()[c].begin);
  CHECK(sizes.size() == 2);
  CHECK(cols.pieces() == 7);
  check_rows_tile_the_partition(h, cols, rows);
  check_equal_widths(cols);
  // Only the outputs (inputs hidden): the same partition.
  std::vector<std::uint32_t> outputs;
  for (std::uint32_t r : rows)
    if (!h.rows()[r].optional) outputs.push_back(r);
  CHECK(buffer_columns(h, outputs).boundaries == cols.boundaries);
}

TEST_CASE("gui buffer layout: rows of different lengths share one partition by fractions of their own length") {
  // An all-gather's output is N times its input: both span the full width.
  const int n = 5;
  const BufferHistory h = history_of(Collective::all_gather, "ring", n, 6);
  const auto rows = all_rows(h);
  const BufferColumns cols = buffer_columns(h, rows);
  bool short_row = false;
  for (const BufferRow& row : h.rows()) short_row = short_row || row.elements == 6;
  CHECK(short_row);
  CHECK(cols.pieces() >= static_cast<std::uint32_t>(n));  // the output's rank-major blocks at least
  check_rows_tile_the_partition(h, cols, rows);
  for (int k = 0; k <= n; ++k)  // block boundaries k/n are on the partition
    CHECK(std::binary_search(cols.boundaries.begin(), cols.boundaries.end(), fraction_of(static_cast<std::uint64_t>(k), n)));
}

TEST_CASE("gui buffer layout: at 64 ranks the label stride keeps labels apart") {
  const BufferHistory h = history_of(Collective::all_reduce, "ring", 64, 1 << 20);
  const auto rows = all_rows(h);
  const BufferColumns cols = buffer_columns(h, rows);
  CHECK(cols.pieces() == 64);
  check_rows_tile_the_partition(h, cols, rows);
  const int shown = static_cast<int>(rows.size());  // 128: inputs and outputs
  const float text_h = 13, readable = 20, gap = 4;
  for (const float panel_h : {300.0f, 500.0f, 900.0f}) {
    CAPTURE(panel_h);
    const RowsPlan p = plan_rows(shown, panel_h, readable, gap, text_h);
    REQUIRE(p.split);
    const int k = p.label_stride;
    CHECK(static_cast<float>(k) * p.overview_pitch >= text_h);  // consecutive labels do not overlap
    if (k > 1) CHECK(static_cast<float>(k / 2) * p.overview_pitch < text_h);  // and no sparser than needed
  }
  CHECK(label_stride(24, 13) == 1);  // readable rows: every row labelled
  CHECK(label_stride(3, 13) == 8);   // 3-pixel rows: every 8th (4 * 3 = 12 < 13)
  CHECK(label_stride(1, 13) == 16);
}

TEST_CASE("gui buffer layout: an overview and a detail area only when the rows do not fit at a readable height") {
  const float readable = 20, gap = 4, text_h = 13;
  const RowsPlan fits = plan_rows(8, 8 * 24.0f, readable, gap, text_h);
  CHECK_FALSE(fits.split);
  CHECK(fits.row_height == readable);
  CHECK(fits.label_stride == 1);
  const RowsPlan tight = plan_rows(8, 8 * 24.0f - 1, readable, gap, text_h);
  CHECK(tight.split);
  for (const int rows : {16, 64, 128}) {
    CAPTURE(rows);
    const float panel_h = 300;
    const RowsPlan p = plan_rows(rows, panel_h, readable, gap, text_h);
    REQUIRE(p.split);
    CHECK(p.row_height >= readable);  // detail rows stay readable
    CHECK(p.overview_pitch >= 1);
    CHECK(p.overview_height == doctest::Approx(p.overview_pitch * static_cast<float>(rows)));
    CHECK(p.detail_rows >= 1);
    CHECK(p.detail_rows <= rows);
    // Overview, gaps and detail rows fit the panel.
    CHECK(p.overview_height + 2 * gap + static_cast<float>(p.detail_rows) * (readable + gap) <= panel_h);
  }
  // The detail window stays inside the list and holds its focus.
  CHECK(detail_first(64, 10, 0) == 0);
  CHECK(detail_first(64, 10, 63) == 54);
  const int first = detail_first(64, 10, 30);
  CHECK(first <= 30);
  CHECK(30 < first + 10);
}

TEST_CASE("gui buffer layout: the values view puts every element inside its own piece, on the other rows' dividers") {
  // 6 elements on 4 ranks: chunks of 2, 2, 1 and 1; an input cell can span several of them.
  const BufferHistory h = history_of(Collective::all_reduce, "ring", 4, 6);
  const auto rows = all_rows(h);
  const BufferColumns cols = buffer_columns(h, rows);
  for (std::uint32_t r : rows) {
    const BufferRow& row = h.rows()[r];
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
      const BufferCell& cell = h.cells()[c];
      double last = -1;
      for (std::uint64_t e = cell.begin; e <= cell.end; ++e) {
        const double pos = cols.piece_position(e, row.elements, cols.first_piece[c], cols.end_piece[c]);
        CHECK(pos > last);  // in order, never two elements at one place
        CHECK(pos >= cols.first_piece[c]);
        CHECK(pos <= cols.end_piece[c]);
        last = pos;
        // An element on a piece boundary sits exactly on that divider.
        const auto at = std::lower_bound(cols.boundaries.begin(), cols.boundaries.end(), fraction_of(e, row.elements));
        if (at != cols.boundaries.end() && *at == fraction_of(e, row.elements))
          CHECK(pos == doctest::Approx(static_cast<double>(at - cols.boundaries.begin())));
      }
    }
  }
}
