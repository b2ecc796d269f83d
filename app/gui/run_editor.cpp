#include "app/gui/run_editor.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "sim/custom_schedule.h"

namespace collsim::gui {
namespace {

// "1M" for 1048576: the largest power-of-1024 unit that divides the count.
std::string count_text(std::uint64_t count) {
  for (auto [suffix, unit] : {std::pair{"G", 1ull << 30}, {"M", 1ull << 20}, {"K", 1ull << 10}})
    if (count >= unit && count % unit == 0) return std::to_string(count / unit) + suffix;
  return std::to_string(count);
}

// An optional figure as typed: empty is "the preset's", anything else must be a number
// (its range is the library's to check, so its message names what is wrong with it).
bool parse_figure(const std::string& text, const char* what, std::optional<double>& out, std::string& error) {
  out.reset();
  if (text.empty()) return true;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    error = fmt::format("{}: '{}' is not a number (leave it empty for the link preset's figure)", what, text);
    return false;
  }
  out = v;
  return true;
}

}  // namespace

std::string format_figure(double v) { return fmt::format("{}", v); }

Collective RunEditor::collective_kind() const {
  return kAllCollectives[static_cast<std::size_t>(std::clamp(collective, 0, static_cast<int>(std::size(kAllCollectives)) - 1))];
}

void RunEditor::load(const RunRequest& r, const TopologyConfig& t) {
  collective = static_cast<int>(std::find(std::begin(kAllCollectives), std::end(kAllCollectives), r.spec.collective) -
                                std::begin(kAllCollectives));
  algorithm = r.algorithm;
  ranks = r.spec.ranks;
  count = count_text(r.spec.count);
  dtype = r.spec.dtype;
  op = r.spec.op;
  root = r.spec.root;
  in_place = r.spec.in_place;
  slices = r.options.slices;
  servers = r.options.servers;
  colocated = r.options.colocated;
  ranks_per_node = r.options.ranks_per_node;
  schedule_file = r.options.schedule_file;
  seed = r.seed;
  topology = t;
  bandwidth = t.bandwidth_gbps ? format_figure(*t.bandwidth_gbps) : "";
  latency = t.latency_us ? format_figure(*t.latency_us) : "";
}

void RunEditor::set_topology_kind(TopologyKind k) {
  if (k == topology.kind) return;
  TopologyConfig next;
  next.kind = k;
  next.link = topology.link;
  next.reduce_rate_gbps = topology.reduce_rate_gbps;
  next.copy_rate_gbps = topology.copy_rate_gbps;
  next.stragglers = std::move(topology.stragglers);
  topology = std::move(next);
}

void RunEditor::add_straggler(int rank, double late_us, double slow) {
  topology.stragglers.push_back({rank, late_us, slow, ""});
}

void RunEditor::add_straggler() {
  int rank = 0;
  while (rank < ranks - 1 && std::any_of(topology.stragglers.begin(), topology.stragglers.end(),
                                         [rank](const Straggler& s) { return s.rank == rank; }))
    ++rank;
  add_straggler(rank, 10, 1);
}

void RunEditor::remove_straggler(std::size_t k) {
  if (k < topology.stragglers.size()) topology.stragglers.erase(topology.stragglers.begin() + static_cast<std::ptrdiff_t>(k));
}

std::optional<RunRequest> RunEditor::request(std::string& error) const {
  const std::optional<std::uint64_t> n = parse_count(count);
  if (!n) {
    error = fmt::format("count: '{}' is not a count (a non-negative integer, optionally with K, M or G)", count);
    return std::nullopt;
  }
  RunRequest r;
  r.spec.collective = collective_kind();
  r.spec.ranks = ranks;
  r.spec.count = *n;
  r.spec.dtype = dtype;
  r.spec.op = op;
  r.spec.root = root;
  r.spec.in_place = in_place;
  r.algorithm = algorithm;
  r.options.slices = slices;
  r.options.servers = servers;
  r.options.colocated = colocated;
  r.options.ranks_per_node = ranks_per_node;
  if (algorithm == kCustomAlgorithm) r.options.schedule_file = schedule_file;
  r.seed = seed;
  return r;
}

std::optional<TopologyConfig> RunEditor::topology_config(std::string& error) const {
  TopologyConfig t = topology;
  if (!parse_figure(bandwidth, "bandwidth (GB/s)", t.bandwidth_gbps, error) ||
      !parse_figure(latency, "latency (µs)", t.latency_us, error))
    return std::nullopt;
  // Shown (and edited) in the toolbar, the stragglers are the toolbar's, whatever file they came from.
  for (std::size_t k = 0; k < t.stragglers.size(); ++k) t.stragglers[k].origin = fmt::format("straggler {} (toolbar)", k + 1);
  return t;
}

}  // namespace collsim::gui
