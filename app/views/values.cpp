#include "app/views/values.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/exec/reference.h"

namespace collsim::gui {
namespace {

// (rank, value) of every contribution to `element`, by rank.
std::vector<std::pair<int, double>> contributions_to(const Trace& trace, const Contributions& c, std::uint64_t element,
                                                     ValueSource source) {
  std::vector<std::pair<int, double>> parts;
  for (const Term& term : c.terms())
    for (int q = term.lo; q < term.hi; ++q) {
      const auto index = static_cast<std::uint64_t>(static_cast<std::int64_t>(element) + term.delta);
      parts.emplace_back(q, source == ValueSource::rank_numbers
                                ? q + 1.0
                                : input_in_type(trace.request.spec, trace.request.seed, q, index,
                                                trace.request.input_values));
    }
  std::sort(parts.begin(), parts.end());
  return parts;
}

double combine(ReduceOp op, const std::vector<std::pair<int, double>>& parts) {
  double v = parts.front().second;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const double x = parts[i].second;
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: v += x; break;
      case ReduceOp::prod: v *= x; break;
      case ReduceOp::min: v = std::min(v, x); break;
      case ReduceOp::max: v = std::max(v, x); break;
    }
  }
  return v;
}

std::string join(const std::vector<std::pair<int, double>>& parts, std::string_view separator) {
  std::string s;
  for (const auto& [q, x] : parts) s += (s.empty() ? "" : std::string(separator)) + format_value(x);
  return s;
}

std::string expression_of(ReduceOp op, const std::vector<std::pair<int, double>>& parts) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return join(parts, " + ");
    case ReduceOp::prod: return join(parts, " \u00d7 ");
    case ReduceOp::min: return "min(" + join(parts, ", ") + ")";
    case ReduceOp::max: return "max(" + join(parts, ", ") + ")";
  }
  return "?";
}

// The number the run's buffers hold in the cell's state, replayed in the run's type.
std::optional<double> number_held(const ValueHistory& values, const BufferRow& row, const CellChange& state,
                                  std::uint64_t element) {
  if (state.transfer == kInitialState) return values.value(row.rank, row.buffer, element, 0, false);
  if (state.transfer == kFinalState) return values.value(row.rank, row.buffer, element, values.transfer_count(), true);
  return values.written_by(state.transfer, element);
}

}  // namespace

std::string format_value(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e6) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.4g}", v);
}

ElementValue element_value(const Trace& trace, const ValueHistory* values, const BufferRow& row, const CellChange& state,
                           std::uint64_t element, ValueSource source) {
  ElementValue out;
  if (!state.written || state.contributions.empty()) return out;
  const std::vector<std::pair<int, double>> parts = contributions_to(trace, state.contributions, element, source);
  const ReduceOp op = trace.request.spec.op;
  out.written = true;
  out.value = combine(op, parts);
  std::string e = parts.size() == 1 ? std::string() : expression_of(op, parts);
  if (parts.size() > 1 && op == ReduceOp::avg && state.transfer == kFinalState) {  // the post-operation divided
    const double divisor = static_cast<double>(trace.schedule.average_divisor);
    e = fmt::format("({}) / {}", e, format_value(divisor));
    out.value /= divisor;
  }
  const std::optional<double> held =
      source == ValueSource::input_data && values ? number_held(*values, row, state, element) : std::nullopt;
  const double shown = held.value_or(out.value);
  out.rounded = shown != out.value;
  if (e.empty())
    out.expression = format_value(out.value);
  else
    out.expression = fmt::format("{} = {}", e, format_value(out.value));
  if (out.rounded) {
    out.expression += fmt::format(" -> {} in {}", format_value(shown), to_string(trace.request.spec.dtype));
    out.value = shown;
  }
  out.short_value = format_value(out.value);
  return out;
}

}  // namespace collsim::gui
