#include "sim/schedule/algorithm.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithms/layouts.h"
#include "sim/schedule/algorithms/registry.h"
#include "sim/core/errors.h"
#include "sim/core/nearest_name.h"

namespace collsim {
namespace {

// Listed by collective, in the order `collsim list` prints them (registry.def).
const AlgorithmInfo* const kAlgorithms[] = {
#define COLLSIM_ALGORITHM(name) &name,
#include "sim/schedule/algorithms/registry.def"
#undef COLLSIM_ALGORITHM
};

std::string names_for(Collective c) {
  std::string names;
  for (const AlgorithmInfo* a : kAlgorithms)
    if (a->collective == c) names += (names.empty() ? "" : ", ") + std::string(a->name);
  return names.empty() ? "none yet" : names;
}

}  // namespace

int model_rank_limit(Collective c, std::string_view algorithm) {
  const AlgorithmInfo* a = find_algorithm(c, algorithm);
  return a && (a->streams || a->rotation) ? kMaxStreamedRanks : kMaxModelRanks;
}

void check_rank_count(int ranks, int max_ranks) {
  if (ranks >= 1 && ranks <= max_ranks) return;
  std::string more;
  if (max_ranks < kMaxModelRanks)
    more = fmt::format(" ({} with --model-only, {} where the algorithm streams or is predicted from one node)", kMaxModelRanks, kMaxStreamedRanks);
  else if (max_ranks < kMaxStreamedRanks)
    more = fmt::format(" ({} for an algorithm that streams or is predicted from one node; `collsim list` marks them)", kMaxStreamedRanks);
  throw InputError(fmt::format("--ranks must be between 1 and {}{}, got {}", max_ranks, more, ranks));
}

void validate_request(const CollectiveSpec& spec, const AlgorithmInfo* algo, const AlgorithmOptions& options,
                      int max_ranks) {
  check_rank_count(spec.ranks, max_ranks);
  if (spec.root < 0 || spec.root >= spec.ranks)
    throw InputError(fmt::format("--root must be a rank in 0..{}, got {}", spec.ranks - 1, spec.root));
  // Keep every element index and byte count far from overflow; the memory check later
  // compares real sizes with what the machine has.
  const double elements = static_cast<double>(spec.count) * spec.ranks;
  if (elements * static_cast<double>(dtype_size(spec.dtype)) > 0x1p50)
    throw InputError(fmt::format("--count {} is absurd: {} ranks would need over a petabyte", spec.count, spec.ranks));
  if (options.slices < 0 || options.slices > 1024)
    throw InputError(fmt::format("--slices must be between 1 and 1024 (or 0: the algorithm's default), got {}",
                                 options.slices));
  if (spec.in_place && !collective_supports_in_place(spec.collective))
    throw InputError(fmt::format("--in-place: {} has no in-place form (only all_reduce, broadcast, reduce, all_gather "
                                 "and reduce_scatter have one, as in NCCL)",
                                 to_string(spec.collective)));
  if (algo && algo->validate) algo->validate(spec, options, max_ranks);
  if (options.ranks_per_node < 0)
    throw InputError(fmt::format("--ranks-per-node {} must divide --ranks {} (N = nodes x ranks per node)",
                                 options.ranks_per_node, spec.ranks));
  // Schedules hold about N^2 * slices transfers for the all-to-all-like algorithms; refuse
  // sizes whose schedule alone would not fit in memory, before building it.
  // A streamed --model-only run (max_ranks kMaxStreamedRanks) never holds its schedule: its
  // memory is estimated from its steps before it starts (run_estimate.h).
  const double transfers = 2.0 * spec.ranks * spec.ranks * options.slices_or(1);
  if (max_ranks <= kMaxModelRanks && transfers > kMaxTransfers)
    throw InputError(fmt::format("--ranks {} with --slices {} would need about {:.2g} transfers; at most {:.2g} are "
                                 "supported (use fewer slices or ranks)",
                                 spec.ranks, options.slices, transfers, kMaxTransfers));
}

std::string_view to_string(LayoutShape s) {
  switch (s) {
    case LayoutShape::ring: return "ring";
    case LayoutShape::chain: return "chain";
    case LayoutShape::trees: return "trees";
    case LayoutShape::star: return "star";
    case LayoutShape::all_pairs: return "all pairs";
    case LayoutShape::hypercube: return "hypercube";
    case LayoutShape::shifts: return "shifts";
    case LayoutShape::hierarchy: return "hierarchy";
  }
  return "?";
}

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

const AlgorithmInfo& default_algorithm(Collective c) {
  // Exactly one per collective is marked (tests/test_algorithms.cpp checks it).
  for (const AlgorithmInfo* a : kAlgorithms)
    if (a->collective == c && a->is_default) return *a;
  throw InputError(fmt::format("no default algorithm for {}", to_string(c)));
}

std::string_view algorithm_or_default(Collective c, std::string_view algorithm) {
  return algorithm.empty() ? default_algorithm(c).name : algorithm;
}

int schedule_total_ranks(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options) {
  const AlgorithmInfo* a = find_algorithm(spec.collective, algorithm);
  return spec.ranks + (a && a->extra_ranks ? a->extra_ranks(spec, options) : 0);
}

AlgorithmLayout algorithm_layout(const CollectiveSpec& spec, std::string_view algorithm,
                                 const AlgorithmOptions& options) {
  const AlgorithmInfo* a = find_algorithm(spec.collective, algorithm);
  if (a && a->layout) return a->layout(spec, resolve_options(spec, algorithm, options));
  return layouts::all_pairs(spec.ranks);
}

AlgorithmOptions resolve_options(const CollectiveSpec& spec, std::string_view algorithm, AlgorithmOptions options) {
  // The algorithm's own defaults (the chain's slices, hierarchical's ranks per node); one
  // slice for everything else.
  if (const AlgorithmInfo* a = find_algorithm(spec.collective, algorithm); a && a->resolve)
    options = a->resolve(spec, options);
  if (options.slices == 0) options.slices = 1;
  return options;
}

Schedule build_algorithm_schedule(const CollectiveSpec& spec, std::string_view algorithm,
                                  const AlgorithmOptions& options, int max_ranks) {
  if (!options.schedule_file.empty())
    throw InputError(fmt::format("--schedule {}: a schedule file is run with --algorithm custom, not '{}'",
                                 options.schedule_file, algorithm));
  const AlgorithmInfo* algo = find_algorithm(spec.collective, algorithm);
  if (!algo)
    throw InputError(fmt::format("--algorithm: unknown algorithm '{}' for {} (available: {}; or custom with --schedule "
                                 "FILE){}",
                                 algorithm, to_string(spec.collective), names_for(spec.collective),
                                 did_you_mean(algorithm, words_of(names_for(spec.collective)))));
  validate_request(spec, algo, options, max_ranks);
  return algo->build(spec, resolve_options(spec, algorithm, options));
}

AlgorithmKnobs algorithm_knobs(Collective c, std::string_view algorithm) {
  const AlgorithmInfo* a = find_algorithm(c, algorithm);
  return a ? a->knobs : AlgorithmKnobs{};
}

int stream_window_steps(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options) {
  return std::max(1, resolve_options(spec, algorithm, options).slices);
}

}  // namespace collsim
