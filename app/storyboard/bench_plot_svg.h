// `collsim bench --plot F.svg`: the bench's picture (app/views/bench_plot.h's geometry) as
// one SVG, 1280 x 800 user units with a viewBox, in the storyboard's dark theme and font
// (app/views/palette.h), text 16 px or more, so that it reads on a slide.
//
// What a test may count: every series is a <g class="series measured|predicted|native"
// data-series="ring-measured" data-algorithm="ring">; every crossover a <g class="crossover
// predicted|measured" data-below="..." data-above="...">; the legend's entries carry
// class="legend-entry".
#pragma once
#include <string>

#include "app/views/bench_plot.h"

namespace collsim::storyboard {

std::string bench_plot_svg(const gui::BenchPlot& plot);

}  // namespace collsim::storyboard
