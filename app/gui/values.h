// The values view: what one element of a cell holds, as a number and as the sum (or
// product, min, max) that made it: "1 + 2 + 3 + 4 = 10". Computed from the cell's
// contribution set, so it needs no buffers: either with each rank's value standing for
// its rank (rank q contributes q + 1: the sum names who is in it), or with the run's real
// inputs (sim's input_value for the trace's seed, before rounding to the type).
#pragma once
#include <cstdint>
#include <string>

#include "sim/check/buffer_history.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

enum class ValueSource : std::uint8_t { rank_numbers, input_data };

struct ElementValue {
  bool written = false;
  double value = 0;
  std::string expression;  // "1 + 2 + 3 + 4 = 10"; "3" for a single contribution; "" unwritten
  std::string short_value;  // "10"
};

ElementValue element_value(const Trace& trace, const CellChange& state, std::uint64_t element, ValueSource source);

// "10", "0.3818", "-2.5e+04": short enough for a cell.
std::string format_value(double v);

}  // namespace collsim::gui
