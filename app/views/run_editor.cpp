#include "app/views/run_editor.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "sim/run/custom_schedule.h"

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
  out = parse_number(text);
  if (!out) error = fmt::format("{}: '{}' is not a number (or leave it empty)", what, text);
  return out.has_value();
}

std::string optional_text(const std::optional<double>& v) { return v ? format_figure(*v) : ""; }

// The K-th link a new override row names: the uplinks first (the links worth slowing down
// on the kinds that have them), else the rank links ("ring3" on a ring, "pair0-4" fully connected).
std::string nth_link(TopologyKind kind, int k) {
  if (has_uplinks(kind)) return fmt::format("uplink{}", k);
  if (kind == TopologyKind::ring) return fmt::format("ring{}", k);
  if (kind == TopologyKind::fully_connected) return fmt::format("pair0-{}", k + 1);
  return fmt::format("rank{}", k);
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
  bandwidth = optional_text(t.bandwidth_gbps);
  latency = optional_text(t.latency_us);
  uplink_bandwidth = optional_text(t.uplink_bandwidth_gbps);
  uplink_latency = optional_text(t.uplink_latency_us);
  reduce_rate = optional_text(t.reduce_rate_gbps);
  copy_rate = optional_text(t.copy_rate_gbps);
  overrides.clear();
  for (const LinkOverride& o : t.overrides)
    overrides.push_back({o.link, optional_text(o.bandwidth_gbps), optional_text(o.latency_us)});
}

void RunEditor::set_topology_kind(TopologyKind k) {
  if (k == topology.kind) return;
  TopologyConfig next;
  next.kind = k;
  next.link = topology.link;
  next.protocol = topology.protocol;
  next.stragglers = std::move(topology.stragglers);
  topology = std::move(next);
  uplink_bandwidth.clear();  // (the rank links' figures and the compute rates stay: every kind has them)
  uplink_latency.clear();
  overrides.clear();
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

void RunEditor::add_override(std::string link, std::string bw, std::string lat) {
  overrides.push_back({std::move(link), std::move(bw), std::move(lat)});
}

void RunEditor::add_override() {
  int k = 0;
  while (k < ranks && std::any_of(overrides.begin(), overrides.end(),
                                  [&](const OverrideRow& o) { return o.link == nth_link(topology.kind, k); }))
    ++k;
  add_override(nth_link(topology.kind, k), "", "");
}

void RunEditor::remove_override(std::size_t k) {
  if (k < overrides.size()) overrides.erase(overrides.begin() + static_cast<std::ptrdiff_t>(k));
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
      !parse_figure(latency, "latency (µs)", t.latency_us, error) ||
      !parse_figure(uplink_bandwidth, "uplink bandwidth (GB/s)", t.uplink_bandwidth_gbps, error) ||
      !parse_figure(uplink_latency, "uplink latency (µs)", t.uplink_latency_us, error) ||
      !parse_figure(reduce_rate, "reduce rate (GB/s)", t.reduce_rate_gbps, error) ||
      !parse_figure(copy_rate, "copy rate (GB/s)", t.copy_rate_gbps, error))
    return std::nullopt;
  t.overrides.clear();
  for (std::size_t k = 0; k < overrides.size(); ++k) {
    const OverrideRow& row = overrides[k];
    LinkOverride o{row.link, {}, {}, fmt::format("link override {} (toolbar)", k + 1)};
    if (!parse_figure(row.bandwidth, (o.origin + ": bandwidth (GB/s)").c_str(), o.bandwidth_gbps, error) ||
        !parse_figure(row.latency, (o.origin + ": latency (µs)").c_str(), o.latency_us, error))
      return std::nullopt;
    if (!o.bandwidth_gbps && !o.latency_us) {  // changes nothing, and a scenario's override must give one
      error = fmt::format("{}: give '{}' a bandwidth or a latency (or remove the row)", o.origin, row.link);
      return std::nullopt;
    }
    t.overrides.push_back(std::move(o));
  }
  // Shown (and edited) in the toolbar, the stragglers are the toolbar's, whatever file they came from.
  for (std::size_t k = 0; k < t.stragglers.size(); ++k) t.stragglers[k].origin = fmt::format("straggler {} (toolbar)", k + 1);
  return t;
}

}  // namespace collsim::gui
