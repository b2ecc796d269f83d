#include "sim/algorithm.h"

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/algorithms/registry.h"
#include "sim/errors.h"

namespace collsim {
namespace {

const std::array<const AlgorithmInfo*, 3> kAlgorithms{
    &kAllReduceRing,
    &kAllReduceParameterServer,
    &kAllReduceDirect,
};

std::string names_for(Collective c) {
  std::string names;
  for (const AlgorithmInfo* a : kAlgorithms)
    if (a->collective == c) names += (names.empty() ? "" : ", ") + std::string(a->name);
  return names.empty() ? "none yet" : names;
}

void validate(const CollectiveSpec& spec, const AlgorithmInfo& algo, const AlgorithmOptions& options) {
  if (spec.ranks < 1 || spec.ranks > kMaxRanks)
    throw InputError(fmt::format("--ranks must be between 1 and {}, got {}", kMaxRanks, spec.ranks));
  if (spec.root < 0 || spec.root >= spec.ranks)
    throw InputError(fmt::format("--root must be a rank in 0..{}, got {}", spec.ranks - 1, spec.root));
  // Keep every element index and byte count far from overflow; the memory check later
  // compares real sizes with what the machine has.
  const double elements = static_cast<double>(spec.count) * spec.ranks;
  if (elements * static_cast<double>(dtype_size(spec.dtype)) > 0x1p50)
    throw InputError(fmt::format("--count {} is absurd: {} ranks would need over a petabyte", spec.count, spec.ranks));
  if (options.slices < 1 || options.slices > 1024)
    throw InputError(fmt::format("--slices must be between 1 and 1024, got {}", options.slices));
  if (algo.name == "parameter_server") {
    if (options.servers < 1)
      throw InputError(fmt::format("--servers must be at least 1, got {}", options.servers));
    if (options.servers > spec.ranks)
      throw InputError(fmt::format("--servers ({}) must not exceed the number of workers --ranks ({})",
                                   options.servers, spec.ranks));
    if (!options.colocated && spec.ranks + options.servers > kMaxRanks)
      throw InputError(fmt::format("workers plus servers must not exceed {} ranks", kMaxRanks));
  }
}

}  // namespace

std::span<const AlgorithmInfo> all_algorithms() {
  // A contiguous copy so callers can iterate plain values.
  static const std::vector<AlgorithmInfo> list = [] {
    std::vector<AlgorithmInfo> v;
    for (const AlgorithmInfo* a : kAlgorithms) v.push_back(*a);
    return v;
  }();
  return list;
}

const AlgorithmInfo* find_algorithm(Collective c, std::string_view name) {
  for (const AlgorithmInfo* a : kAlgorithms)
    if (a->collective == c && a->name == name) return a;
  return nullptr;
}

Schedule build_schedule(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options) {
  const AlgorithmInfo* algo = find_algorithm(spec.collective, algorithm);
  if (!algo)
    throw InputError(fmt::format("unknown algorithm '{}' for {} (available: {})", algorithm,
                                 to_string(spec.collective), names_for(spec.collective)));
  validate(spec, *algo, options);
  return algo->build(spec, options);
}

}  // namespace collsim
