// Closed-form α-β-γ(-δ) times, one per algorithm: the time the timing
// model (timing_model.h) gives for the algorithm's schedule on a `switch` whose ports all
// have latency α and bandwidth 1/β, with reduction rate 1/γ, copy rate 1/δ and no
// stragglers. Where the algorithm has a textbook form (Thakur, Rabenseifner & Gropp 2005;
// the MPICH source comments) the entry is that form, and tests/test_timing.cpp checks
// that the simulation reproduces it to 1e-9 relative; where the schedule does something
// the textbook does not (Bruck's local rotation, a parameter server's serialised
// accumulations) the entry states what the schedule gives, and the same test checks it.
//
// Notation (as `collsim list` prints it): N ranks (parameter_server: W workers, S
// servers), n bytes (algorithm_bytes: the whole vector of all_reduce, broadcast, reduce
// and send_recv; the whole result of all_gather and gather; the whole input of
// reduce_scatter and scatter; one rank's send buffer for all_to_all), S = --slices,
// G = --ranks-per-node, lg = log2, N' = 2^floor(lg N), rem = N - N'.
//
// Each form lives in its algorithm's file, as AlgorithmInfo::closed_form (sim/schedule/
// algorithms/forms.h has the shared notation as code); this header turns one into a run's
// numbers. A new algorithm without a form fails tests/test_timing.cpp until it has one.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/schedule/algorithm.h"
#include "sim/model/timing_model.h"

namespace collsim {

// CostShape (what a closed form depends on) is in sim/schedule/algorithm.h.
CostShape cost_shape(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options);

// The algorithm's closed form (AlgorithmInfo::closed_form), or null for an unknown or
// hand-written algorithm and one without a form yet.
const ClosedFormInfo* find_cost_formula(Collective c, std::string_view algorithm);

// The form's time with the protocol's base latency: b + the algorithm's form, where the
// form gives more than 0 (a collective that moves nothing pays no base latency, as the
// simulation's does not: its time is that of its last transfer).
std::optional<double> closed_form_time_ns(const ClosedFormInfo& f, const CostParams& p, const CostShape& shape);

// A run's closed form with its numbers, for the summary and the trace. Under a protocol
// the formula starts with "b + " and the values name b.
struct ClosedForm {
  std::string formula;  // empty when the algorithm has no entry yet
  std::string scope;    // where it holds
  std::string values;   // "N = 4, n = 4 MiB, α = 600 ns, 1/β = 450 GB/s, 1/γ = 1117 GB/s, 1/δ = 1675 GB/s"
  std::optional<double> time_ns;  // nullopt where the formula does not apply (see scope)
};
ClosedForm closed_form(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                       const CostParams& p);

}  // namespace collsim
