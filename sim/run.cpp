#include "sim/run.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/errors.h"

namespace collsim {
namespace {

void refuse_if_too_large(const Schedule& s) {
  const double need = buffer_bytes(s);
  const std::uint64_t have = available_memory_bytes();
  if (have > 0 && need > 0.8 * static_cast<double>(have))
    throw InputError(fmt::format("--count {} needs {} of buffers for {} ranks, but only {} of memory is available",
                                 s.spec.count, format_bytes(need), s.total_ranks, format_bytes(static_cast<double>(have))));
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

RunResult run_collective(const RunRequest& request, Backend& backend) {
  RunResult result;
  result.request = request;
  result.schedule = build_schedule(request.spec, request.algorithm, request.options);
  refuse_if_too_large(result.schedule);
  result.dependencies = check_schedule(result.schedule).dependencies;
  result.buffers = allocate_buffers(result.schedule);
  fill_inputs(result.schedule, request.seed, result.buffers);
  result.backend = backend.name();
  result.device = backend.device_name();
  result.execution = backend.execute(result.schedule, result.dependencies, result.buffers);
  result.verification = verify_outputs(result.schedule, result.buffers);
  return result;
}

Bandwidth bandwidth(const CollectiveSpec& spec, std::int64_t time_ns) {
  if (time_ns <= 0) return {};
  const double algbw = static_cast<double>(algorithm_bytes(spec)) / static_cast<double>(time_ns);  // bytes/ns = GB/s
  return {algbw, algbw * busbw_factor(spec.collective, spec.ranks)};
}

}  // namespace collsim
