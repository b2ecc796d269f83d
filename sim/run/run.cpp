#include "sim/run/run.h"

#include <fstream>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/run/custom_schedule.h"

namespace collsim {
namespace {

void refuse_if_too_large(const Schedule& s) {
  const double need = buffer_bytes(s);
  const std::uint64_t have = available_memory_bytes();
  if (have > 0 && need > 0.8 * static_cast<double>(have))
    throw InputError(fmt::format("--count {} needs {} of buffers for {} ranks, but only {} of memory is available",
                                 s.spec.count, format_bytes(need), s.total_ranks, format_bytes(static_cast<double>(have))));
}

// Given inputs that the type cannot hold (a scenario names the key first, with its position).
void refuse_bad_inputs(const RunRequest& r) {
  const std::string problem = given_inputs_problem(r.spec.dtype, r.input_values);
  if (!problem.empty()) throw InputError(fmt::format("--inputs: {}", problem));
}

// A hand-written schedule ("custom"), with the request checked as for any algorithm first.
CheckedCustomSchedule build_custom(const CollectiveSpec& spec, const AlgorithmOptions& options, int max_ranks) {
  validate_request(spec, nullptr, options, max_ranks);
  return build_checked_custom_schedule(spec, options);
}

// Checks result.schedule, once: its dependencies, and its buffer history when asked for.
void check_into(RunResult& result, const PrepareOptions& options) {
  if (!options.record_history) {
    result.dependencies = check_schedule(result.schedule).dependencies;
    return;
  }
  CheckReport report;
  result.history = std::make_shared<const BufferHistory>(BufferHistory::record(result.schedule, &report));
  result.dependencies = std::move(report.dependencies);
}

// Builds result.request's schedule into result. Returns whether it is checked already: a
// hand-written schedule is checked while it is built (so that a wrong one is explained),
// and that check's dependencies and history are kept instead of checking it again.
bool build_into(RunResult& result, int max_ranks, const PrepareOptions& options) {
  const RunRequest& r = result.request;
  if (r.algorithm != kCustomAlgorithm) {
    result.schedule = build_algorithm_schedule(r.spec, r.algorithm, r.options, max_ranks);
    return false;
  }
  CheckedCustomSchedule built = build_custom(r.spec, r.options, max_ranks);
  result.schedule = std::move(built.schedule);
  result.dependencies = std::move(built.report.dependencies);
  if (options.record_history) result.history = std::move(built.history);
  return true;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

Schedule build_schedule(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                        int max_ranks) {
  if (algorithm != kCustomAlgorithm) return build_algorithm_schedule(spec, algorithm, options, max_ranks);
  return build_custom(spec, options, max_ranks).schedule;
}

RunResult prepare_run(const RunRequest& request, const PrepareOptions& options) {
  refuse_bad_inputs(request);
  RunResult result;
  result.request = request;
  result.request.algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const bool checked = build_into(result, kMaxRanks, options);
  result.request.options = resolve_options(request.spec, result.request.algorithm, request.options);  // as built
  refuse_if_too_large(result.schedule);
  if (!checked) check_into(result, options);
  return result;
}

RunResult prepare_model_run(const RunRequest& request, const PrepareOptions& options) {
  refuse_bad_inputs(request);
  RunResult result;
  result.request = request;
  result.request.algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const bool checked = build_into(result, kMaxModelRanks, options);
  result.request.options = resolve_options(request.spec, result.request.algorithm, request.options);  // as built
  result.model_only = true;
  result.backend = "none";
  result.device = "timing model only (--model-only)";
  result.check_skipped = result.schedule.total_ranks > kMaxRanks;
  if (result.check_skipped) {
    if (!checked) result.dependencies = derive_dependencies(result.schedule);
    result.verification.rule =
        fmt::format("not executed (--model-only); symbolic check skipped above {} ranks", kMaxRanks);
  } else {
    if (!checked) check_into(result, options);
    result.verification.rule = "not executed (--model-only); schedule checked symbolically";
  }
  return result;
}

void predict_run(RunResult& r, const TopologyConfig& config) { r.model = run_model(r.schedule, r.dependencies, config); }

RunResult run_collective(const RunRequest& request, Backend& backend) {
  RunResult result = prepare_run(request);
  execute_run(result, backend);
  return result;
}

void execute_run(RunResult& result, Backend& backend, int only_rank) {
  const RunRequest& request = result.request;
  result.buffers = allocate_buffers(result.schedule, only_rank);
  fill_inputs(result.schedule, request.seed, result.buffers, request.input_values);
  if (result.schedule.spec.in_place)  // the run overwrites them; the reference needs them
    for (const std::span<const std::byte> in : input_bytes(result.schedule, result.buffers))
      result.inputs_before.emplace_back(in.begin(), in.end());
  result.backend = backend.name();
  result.device = backend.device_name();
  result.execution = backend.execute(result.schedule, result.dependencies, result.buffers);
  InputBytes inputs;
  for (int r = 0; r < result.schedule.spec.ranks; ++r) inputs.push_back(input_before_run(result, r));
  result.verification = verify_outputs(result.schedule, result.buffers, inputs, only_rank);
}

std::span<const std::byte> input_before_run(const RunResult& r, int rank) {
  if (r.schedule.spec.in_place) return r.inputs_before.at(static_cast<std::size_t>(rank));
  return buffer_view(r.schedule, r.buffers, rank, BufferKind::input);
}

std::span<const std::byte> output_after_run(const RunResult& r, int rank) {
  return buffer_view(r.schedule, r.buffers, rank, BufferKind::output);
}

}  // namespace collsim
