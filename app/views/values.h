// The values view: what one element of a cell holds, as a number and as the sum (or
// product, min, max) that made it: "1 + 2 + 3 + 4 = 10". The expression comes from the
// cell's contribution set: either with each rank's value standing for its rank (rank q
// contributes q + 1: the sum names who is in it), or with the run's real inputs (sim's
// input_in_type for the trace's seed or given inputs, as the type holds them). With the
// run's inputs and a value history (sim/exec/value_history.h), the number shown is the one
// the run's buffers hold, rounded or wrapped in its type in the order the schedule
// combined them; where that differs from the exact result the expression says both:
// "2048 + 1 + 1 + 1 = 2051 -> 2052 in f16".
#pragma once
#include <cstdint>
#include <string>

#include "sim/check/buffer_history.h"
#include "sim/exec/value_history.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

enum class ValueSource : std::uint8_t { rank_numbers, input_data };

struct ElementValue {
  bool written = false;
  double value = 0;
  std::string expression;  // "1 + 2 + 3 + 4 = 10"; "3" for a single contribution; "" unwritten
  std::string short_value;  // "10"
  bool rounded = false;     // the run's number differs from the exact result (rounding or wrap)
};

// `values` may be null (no history: the exact result is shown); `row` is the cell's row.
ElementValue element_value(const Trace& trace, const ValueHistory* values, const BufferRow& row, const CellChange& state,
                           std::uint64_t element, ValueSource source);

// "10", "0.3818", "-2.5e+04": short enough for a cell.
std::string format_value(double v);

}  // namespace collsim::gui
