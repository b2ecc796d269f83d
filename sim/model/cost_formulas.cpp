// A run's closed form: the algorithm's own (AlgorithmInfo::closed_form, in its file under
// sim/schedule/algorithms/) with the run's numbers.
#include "sim/model/cost_formulas.h"

#include <bit>

#include <fmt/format.h>

namespace collsim {
namespace {

bool is_pof2(int n) { return std::has_single_bit(static_cast<unsigned>(n)); }

std::string gbps(double ns_per_byte) { return fmt::format("{:g} GB/s", 1.0 / ns_per_byte); }

}  // namespace

CostShape cost_shape(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options) {
  return {spec.ranks, static_cast<double>(algorithm_bytes(spec)), resolve_options(spec, algorithm, options),
          spec.in_place};
}

const ClosedFormInfo* find_cost_formula(Collective c, std::string_view algorithm) {
  const AlgorithmInfo* a = find_algorithm(c, algorithm);
  return a && a->closed_form.time_ns ? &a->closed_form : nullptr;
}

std::optional<double> closed_form_time_ns(const ClosedFormInfo& f, const CostParams& p, const CostShape& shape) {
  const std::optional<double> form = f.time_ns(p, shape);
  if (!form || *form <= 0) return form;
  return p.base_ns + *form;
}

ClosedForm closed_form(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                       const CostParams& p) {
  const ClosedFormInfo* f = find_cost_formula(spec.collective, algorithm);
  if (!f) return {};
  const CostShape shape = cost_shape(spec, algorithm, options);
  // The other forms matter only when the run is not the plain case.
  const bool variant =
      shape.options.slices_or(1) > 1 || !is_pof2(spec.ranks) || shape.options.servers > 1 || shape.options.colocated;
  std::string formula =
      variant && !f->more.empty() ? fmt::format("{}; {}", f->formula, f->more) : std::string(f->formula);
  std::string values = fmt::format("N = {}, n = {}, α = {}, 1/β = {}, 1/γ = {}, 1/δ = {}", spec.ranks,
                                   format_bytes(shape.bytes), format_duration_ns(p.alpha_ns), gbps(p.beta_ns_per_byte),
                                   gbps(p.gamma_ns_per_byte), gbps(p.delta_ns_per_byte));
  if (p.base_ns > 0) {
    formula = "b + " + formula;
    values = fmt::format("b = {}, {}", format_duration_ns(p.base_ns), values);
  }
  return {formula, std::string(f->scope), values, closed_form_time_ns(*f, p, shape)};
}

}  // namespace collsim
