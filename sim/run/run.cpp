#include "sim/run/run.h"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/model/symmetric_model.h"
#include "sim/run/custom_schedule.h"

namespace collsim {
namespace {

void refuse_if_too_large(const Schedule& s) {
  const double need = buffer_bytes(s);
  const AvailableMemory have = available_memory();
  if (have.known && need > 0.8 * static_cast<double>(have.bytes))
    throw InputError(fmt::format("--count {} needs {} of buffers for {} ranks, but only {} of memory is available{}",
                                 s.spec.count, format_bytes(need), s.total_ranks,
                                 format_bytes(static_cast<double>(have.bytes)),
                                 have.limit == "MemAvailable" ? "" : fmt::format(" under {}", have.limit)));
}

// --- the memory figures ---------------------------------------------------------------------

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// "Key: value kB" lines (/proc/meminfo, /proc/self/status): the value in bytes.
std::optional<std::uint64_t> kib_field(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':') {
      std::istringstream rest(line.substr(key.size() + 1));
      std::uint64_t kib = 0;
      if (rest >> kib) return kib * 1024;
      return std::nullopt;
    }
  return std::nullopt;
}

// "key value" lines (memory.stat).
std::optional<std::uint64_t> stat_field(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::uint64_t> soft_rlimit(int resource) {
  rlimit rl{};
  if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(rl.rlim_cur);
}

// The memory cgroups with a limit from this process's own up to the root. v2: "0::PATH" in
// /proc/self/cgroup, under /sys/fs/cgroup (or /sys/fs/cgroup/unified on a hybrid system);
// v1: the memory controller's line, under /sys/fs/cgroup/memory. A level whose folder is not
// visible (another cgroup namespace) is skipped.
void read_cgroups(MemoryFigures& f) {
  std::ifstream in("/proc/self/cgroup");
  std::string line, v2_path, v1_path;
  while (std::getline(in, line)) {
    const auto a = line.find(':');
    const auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (line.starts_with("0::")) v2_path = path;
    std::istringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');)
      if (c == "memory") v1_path = path;
  }
  const auto walk = [&](const std::string& base, std::string path, const char* max_file, const char* current_file,
                        const char* stat_key) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(base, ec)) return;
    if (path.empty() || path[0] != '/') path = "/" + path;
    while (true) {
      const std::string dir = base + (path == "/" ? "" : path);
      const std::optional<std::string> max_text = first_line(dir + "/" + max_file);
      const std::optional<std::uint64_t> limit = max_text ? parse_u64(*max_text) : std::nullopt;
      // v2's "max", v1's page-rounded LONG_MAX: no limit.
      if (limit && *limit < (std::uint64_t{1} << 62)) {
        MemoryFigures::Cgroup g;
        g.path = dir;
        g.limit = *limit;
        const std::optional<std::string> current = first_line(dir + "/" + current_file);
        g.usage = current ? parse_u64(*current).value_or(0) : 0;
        g.reclaimable = stat_field(dir + "/memory.stat", stat_key).value_or(0);
        f.cgroups.push_back(g);
      }
      if (path == "/") break;
      path = path.substr(0, path.find_last_of('/'));
      if (path.empty()) path = "/";
    }
  };
  if (!v2_path.empty()) {
    const std::string base =
        std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
    walk(base, v2_path, "memory.max", "memory.current", "inactive_file");
  }
  if (!v1_path.empty())
    walk("/sys/fs/cgroup/memory", v1_path, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file");
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

// The value history beside the buffer history, for the views (PrepareOptions::record_history).
void record_values(RunResult& result, const PrepareOptions& options) {
  if (!options.record_history) return;
  result.values = values_or_record(nullptr, result.schedule, result.request.seed, result.request.input_values);
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

// Nothing allocated or executed: what a --model-only result says of its backend.
void mark_model_only(RunResult& result) {
  result.model_only = true;
  result.backend = "none";
  result.device = "timing model only (--model-only)";
}

}  // namespace

AvailableMemory combine_memory_figures(const MemoryFigures& f) {
  AvailableMemory best;
  const auto consider = [&](std::uint64_t bytes, std::string limit) {
    if (!best.known || bytes < best.bytes) best = {true, bytes, std::move(limit)};
  };
  const auto left = [](std::uint64_t limit, std::uint64_t used) { return used >= limit ? 0 : limit - used; };
  if (f.mem_available) consider(*f.mem_available, "MemAvailable");
  if (f.address_space_limit)
    consider(left(*f.address_space_limit, f.address_space_used.value_or(0)), "the address-space limit (ulimit -v)");
  if (f.data_limit) consider(left(*f.data_limit, f.data_used.value_or(0)), "the data-segment limit (ulimit -d)");
  for (const MemoryFigures::Cgroup& g : f.cgroups) {
    const std::uint64_t used = g.usage - std::min(g.reclaimable, g.usage);
    consider(left(g.limit, used), fmt::format("the memory cgroup's limit ({})", g.path));
  }
  return best;
}

MemoryFigures read_memory_figures() {
  MemoryFigures f;
  f.mem_available = kib_field("/proc/meminfo", "MemAvailable");
  f.address_space_limit = soft_rlimit(RLIMIT_AS);
  f.data_limit = soft_rlimit(RLIMIT_DATA);
  if (f.address_space_limit) f.address_space_used = kib_field("/proc/self/status", "VmSize");
  if (f.data_limit) f.data_used = kib_field("/proc/self/status", "VmData");
  read_cgroups(f);
  return f;
}

AvailableMemory available_memory() { return combine_memory_figures(read_memory_figures()); }

std::uint64_t available_memory_bytes() {
  const AvailableMemory m = available_memory();
  if (!m.known) return 0;
  return std::max<std::uint64_t>(m.bytes, 1);
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
  record_values(result, options);
  result.totals = schedule_totals(result.schedule);
  return result;
}

RunResult prepare_model_run(const RunRequest& request, const PrepareOptions& options) {
  refuse_bad_inputs(request);
  RunResult result;
  result.request = request;
  result.request.algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const bool checked = build_into(result, model_rank_limit(request.spec.collective, result.request.algorithm), options);
  result.totals = schedule_totals(result.schedule);
  result.request.options = resolve_options(request.spec, result.request.algorithm, request.options);  // as built
  mark_model_only(result);
  result.check_skipped = result.schedule.total_ranks > kMaxRanks;
  if (result.check_skipped) {
    if (!checked) result.dependencies = derive_dependencies(result.schedule);
    result.verification.rule =
        fmt::format("not executed (--model-only); symbolic check skipped above {} ranks", kMaxRanks);
  } else {
    if (!checked) check_into(result, options);
    record_values(result, options);
    result.verification.rule = "not executed (--model-only); schedule checked symbolically";
  }
  return result;
}

bool streams_model_run(const RunRequest& request) {
  const std::string_view algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const AlgorithmInfo* a = find_algorithm(request.spec.collective, algorithm);
  return a && a->streams && schedule_total_ranks(request.spec, algorithm, request.options) > kMaxRanks;
}

namespace {

std::optional<RankRotation> request_rotation(const RunRequest& request) {
  const std::string_view algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const AlgorithmInfo* a = find_algorithm(request.spec.collective, algorithm);
  if (!a || !a->rotation) return std::nullopt;
  return a->rotation(request.spec, resolve_options(request.spec, algorithm, request.options));
}

// A symmetric run: the schedule of one period predicted, its transfers then dropped, so that
// the result is a streamed run's (no transfers, no per-transfer times).
void predict_one_period(RunResult& result, const RankRotation& rotation, const TopologyConfig& config) {
  const RunRequest& r = result.request;
  SymmetricModelRun m = run_model_symmetric(
      [&] { return build_algorithm_schedule(r.spec, r.algorithm, r.options, kMaxStreamedRanks); }, rotation, config,
      r.spec.ranks, schedule_total_ranks(r.spec, r.algorithm, r.options));
  result.symmetric_period = m.period;
  result.peak_window_transfers = m.schedule.transfers.size();
  m.schedule.transfers.clear();
  m.schedule.transfers.shrink_to_fit();
  result.schedule = std::move(m.schedule);
  result.totals = std::move(m.totals);
  result.model = std::move(m.model);
  result.model->prediction.begin_ns.clear();
  result.model->prediction.end_ns.clear();
}

// A --model-only run above kMaxRanks that is not built whole: its request checked before the
// work (the generator's own check would come from inside the stream), its algorithm resolved.
RunResult model_run_checked(const RunRequest& request) {
  refuse_bad_inputs(request);
  RunResult result;
  result.request = request;
  result.request.algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  const RunRequest& r = result.request;
  validate_request(r.spec, find_algorithm(r.spec.collective, r.algorithm), r.options, kMaxStreamedRanks);
  return result;
}

// The verification line of a run predicted from one period of `period` ranks.
std::string one_period_rule(std::size_t transfers, int period) {
  return fmt::format(
      "not executed (--model-only); symbolic check skipped above {} ranks; predicted from the {} transfers {} "
      "send{}, the rest by symmetry",
      kMaxRanks, transfers, period == 1 ? std::string("rank 0") : fmt::format("ranks 0-{}", period - 1),
      period == 1 ? "s" : "");
}

}  // namespace

int symmetric_model_period(const RunRequest& request, const TopologyConfig& config) {
  const std::string_view algorithm = algorithm_or_default(request.spec.collective, request.algorithm);
  if (schedule_total_ranks(request.spec, algorithm, request.options) <= kMaxRanks) return 0;
  const std::optional<RankRotation> rotation = request_rotation(request);
  if (!rotation) return 0;
  try {
    const int period = symmetric_period(make_topology(config, request.spec.ranks,
                                                      schedule_total_ranks(request.spec, algorithm, request.options)),
                                        *rotation)
                           .value_or(0);
    return period <= kMostSymmetricPeriod ? period : 0;
  } catch (const InputError&) {
    return 0;
  }
}

bool predicted_without_schedule(const RunRequest& request, const TopologyConfig& config) {
  return streams_model_run(request) || symmetric_model_period(request, config) > 0;
}

RunResult run_streamed_model(const RunRequest& request, const TopologyConfig& config,
                             const std::function<void(std::uint64_t)>& progress) {
  RunResult result = model_run_checked(request);
  const RunRequest& r = result.request;
  if (symmetric_model_period(r, config) > 0) {
    predict_one_period(result, *request_rotation(r), config);
    result.request.options = resolve_options(r.spec, r.algorithm, r.options);  // as built
    mark_model_only(result);
    result.streamed = true;
    result.check_skipped = true;
    result.verification.rule = one_period_rule(result.peak_window_transfers, result.symmetric_period);
    return result;
  }
  StreamOptions options;
  options.window_steps = stream_window_steps(r.spec, r.algorithm, r.options);
  options.progress = progress;
  StreamedModelRun m = run_model_streamed(
      [&] { return build_algorithm_schedule(r.spec, r.algorithm, r.options, kMaxStreamedRanks); }, config, r.spec.ranks,
      schedule_total_ranks(r.spec, r.algorithm, r.options), options);
  result.request.options = resolve_options(r.spec, r.algorithm, r.options);  // as built
  result.schedule = std::move(m.schedule);
  result.totals = std::move(m.totals);
  result.model = std::move(m.model);
  result.streamed = true;
  result.peak_window_transfers = m.peak_window_transfers;
  mark_model_only(result);
  result.check_skipped = true;
  result.verification.rule = fmt::format(
      "not executed (--model-only); symbolic check skipped above {} ranks; predicted step by step, at most {} "
      "transfers in a batch's window",
      kMaxRanks, m.peak_window_transfers);
  return result;
}

std::optional<RunResult> prepare_one_period_model_run(const RunRequest& request, const TopologyConfig& config) {
  RunResult result = model_run_checked(request);
  const RunRequest& r = result.request;
  const int period = symmetric_model_period(r, config);
  if (period == 0) return std::nullopt;
  OnePeriod one = build_one_period(
      [&] { return build_algorithm_schedule(r.spec, r.algorithm, r.options, kMaxStreamedRanks); },
      *request_rotation(r), period);
  result.request.options = resolve_options(r.spec, r.algorithm, r.options);  // as built
  result.schedule = std::move(one.schedule);
  result.dependencies = std::move(one.dependencies);
  result.totals = std::move(one.totals);
  result.symmetric_period = period;
  mark_model_only(result);
  result.check_skipped = true;
  result.verification.rule = one_period_rule(result.schedule.transfers.size(), period);
  return result;
}

bool holds_one_period(const RunResult& r) { return r.symmetric_period > 0 && !r.streamed; }

ModelRun model_of_run(const RunResult& r, const TopologyConfig& config, int workers, int total_ranks) {
  if (!holds_one_period(r)) return run_model(r.schedule, r.dependencies, config, workers, total_ranks);
  if (!turns_onto_itself(make_topology(config, workers, total_ranks), r.symmetric_period))
    throw InputError(fmt::format("at {} ranks {} is predicted from one node's transfers, which this topology does not "
                                 "allow (it does not look the same from every node): run at most {} ranks on it",
                                 total_ranks, r.schedule.algorithm, kMaxRanks));
  return run_model_one_period(r.schedule, r.dependencies, r.symmetric_period, config, workers, total_ranks);
}

double cost_part_of_run(const RunResult& r, CostPart part) {
  const Topology only = cost_part_topology(r.model->topology, part);
  return holds_one_period(r) ? predict_one_period(r.schedule, r.dependencies, r.symmetric_period, only).total_ns
                             : predict(r.schedule, r.dependencies, only).total_ns;
}

void predict_run(RunResult& r, const TopologyConfig& config) {
  r.model = model_of_run(r, config, r.schedule.spec.ranks, r.schedule.total_ranks);
}

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
  // The values view shows the value history's numbers: they must be the run's.
  if (result.values && only_rank < 0)
    if (const std::string differs = result.values->differs_from_run(result.schedule, result.buffers); !differs.empty())
      throw std::logic_error("the value history is not the run's: " + differs);
}

std::span<const std::byte> input_before_run(const RunResult& r, int rank) {
  if (r.schedule.spec.in_place) return r.inputs_before.at(static_cast<std::size_t>(rank));
  return buffer_view(r.schedule, r.buffers, rank, BufferKind::input);
}

std::span<const std::byte> output_after_run(const RunResult& r, int rank) {
  return buffer_view(r.schedule, r.buffers, rank, BufferKind::output);
}

}  // namespace collsim
