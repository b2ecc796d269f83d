// Deterministic inputs and the host reference that proves a run's outputs right.
// The reference never looks at a schedule's transfers: it loops over the inputs in rank
// order, following docs/design.md's buffer table.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/exec/backend.h"
#include "sim/schedule/schedule.h"

namespace collsim {

// The value rank `rank` holds at input element `index`, before rounding to the type:
// a function of (seed, rank, index) only. Floats lie in [-1, 1] in steps of 1/1024; for
// prod they stay near 1 (1 ± 1/64) and integers are odd (±1, ±3), so products are
// neither 0 nor infinite. With `given` values (a scenario's `inputs`, --inputs) instead:
// rank r holds given[min(r, size - 1)] at every element, whatever the seed, so a lesson
// can choose numbers that wrap or round (the last value stands for every further rank).
double input_value(const CollectiveSpec& spec, std::uint64_t seed, int rank, std::uint64_t index,
                   std::span<const double> given = {});
// The same value as the run's buffers hold it: rounded to the spec's type, in double.
double input_in_type(const CollectiveSpec& spec, std::uint64_t seed, int rank, std::uint64_t index,
                     std::span<const double> given = {});
// Writes every rank's input, wherever in-place aliasing stores it (buffer_view).
void fill_inputs(const Schedule& s, std::uint64_t seed, std::vector<RankBuffers>& buffers,
                 std::span<const double> given = {});
// Why `given` cannot be inputs of type `t` ("" when it can): at most 1024 values, each
// finite; for integer types whole numbers within the type's range.
std::string given_inputs_problem(DataType t, std::span<const double> given);

// The exact value of output element `index` of rank `rank`: the inputs as held in the
// type, combined in double without rounding or wrapping (the sum of the numbers, their
// product, min, max, or the sum over N for avg), what a run's result approximates.
// nullopt where the collective leaves the element undefined (a barrier).
std::optional<double> exact_output_value(const Schedule& s, std::uint64_t seed, std::span<const double> given,
                                         int rank, std::uint64_t index);

// Every rank's input bytes as before the run, one span per rank. Out of place the inputs
// are never written, so the buffers themselves serve (input_bytes); an in-place run
// overwrites them, so execute_run keeps a copy from before the run.
using InputBytes = std::vector<std::span<const std::byte>>;
InputBytes input_bytes(const Schedule& s, const std::vector<RankBuffers>& buffers);

struct Verification {
  bool ok = true;
  std::uint64_t checked = 0;     // output elements compared
  std::uint64_t mismatches = 0;
  double max_error = 0;          // largest |got - want| (floating types)
  std::string first_mismatch;    // "rank 2 output[17]: got 1.5, expected 1.25 (tolerance 1e-06)"
  std::string rule;              // how values were compared
};

// Compares every output element of every rank with the reference, computed from
// `inputs`. A barrier has no output: every rank's final token must be N (see LocalOpKind::signal).
// Exact for integers, copies, min and max. Floating sum, prod and avg allow
// |got - want| <= (N + 1) * u * m, where u is the type's unit roundoff (2^-24 f32,
// 2^-53 f64, 2^-11 f16, 2^-8 bf16), N the rank count (at most N roundings per element:
// one per reduce, one per 16-bit conversion) and m the magnitude: sum |x_q| for sum,
// that over N for avg, prod |x_q| for prod.
// `only_rank` >= 0: that rank's outputs only (an MPI process holds only its own rank's results).
Verification verify_outputs(const Schedule& s, const std::vector<RankBuffers>& buffers, const InputBytes& inputs,
                            int only_rank = -1);
// Out of place only (throws std::logic_error in place): the inputs are read from `buffers`.
Verification verify_outputs(const Schedule& s, const std::vector<RankBuffers>& buffers);

}  // namespace collsim
