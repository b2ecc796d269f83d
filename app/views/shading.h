// How a buffer cell and a rank are coloured, as plain data (no ImGui): the desktop app's
// buffers panel and scene and the SVG storyboard (app/storyboard/storyboard.cpp) both ask here, so a
// cell looks the same on the screen and on a slide.
//
// A cell shows which ranks' contributions it holds: up to kMaxStripeRanks ranks, one
// stripe per rank the cell ever holds, at a fixed position (that rank's colour once it is
// in, palette::missing_slot while missing); beyond, one fill shade for how much of its
// final set it holds. An unwritten cell is palette::empty_cell.
#pragma once
#include <cstdint>
#include <vector>

#include "app/views/palette.h"
#include "app/views/view_model.h"

namespace collsim::gui::shading {

inline constexpr int kMaxStripeRanks = 16;  // beyond, a cell is one shade and ranks one colour

// Whether a schedule with `total_ranks` ranks draws stripes (and rank colours).
constexpr bool stripes(int total_ranks) { return total_ranks <= kMaxStripeRanks; }

// A rank's disc: its palette colour, or one blue for every rank beyond the stripe limit.
palette::Rgb rank_fill(int rank, int total_ranks);

// The one shade of a cell holding `have` of its `target` contributions (many ranks).
palette::Rgb fill(int have, int target);

// The shade's legend: `steps` (at least 2) shades from holding none to holding all.
std::vector<palette::Rgb> fill_ramp(int steps);

// Every rank whose contribution the cell ever holds: its stripes.
std::uint64_t eventual_ranks(const ViewModel& vm, std::uint32_t cell);

// The stripes' colours, left to right: one per rank of `eventual`, in rank order.
std::vector<palette::Rgb> stripe_colours(std::uint64_t eventual, const RankSet& have);

}  // namespace collsim::gui::shading
