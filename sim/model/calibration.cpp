#include "sim/model/calibration.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/types.h"

namespace collsim {
namespace {

constexpr std::size_t kBandwidthFrom = 64 * 1024;  // sizes at or above it fit β
constexpr double kSlowHost = 0.8;                  // a host this much under the network gets an override

std::string describe_points(const PathMeasurement& m) {
  std::string s;
  for (const PingPongPoint& p : m.points)
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", format_bytes(static_cast<double>(p.bytes)),
                     format_duration_ns(p.one_way_ns));
  return s;
}

std::string describe_fit(const LinkFit& f) {
  return fmt::format("{:.4g} us, {:.4g} GB/s", f.latency_us, f.bandwidth_gbps);
}

}  // namespace

LinkFit fit_link(const std::vector<PingPongPoint>& points) {
  std::vector<PingPongPoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  if (sorted.empty() || sorted.front().bytes >= kBandwidthFrom)
    throw InputError("calibrate: no size under 64 KiB was measured, so there is no latency to fit");
  std::vector<PingPongPoint> large;
  for (const PingPongPoint& p : sorted)
    if (p.bytes >= kBandwidthFrom) large.push_back(p);
  if (large.empty()) throw InputError("calibrate: no size of 64 KiB or more was measured, so there is no bandwidth to fit");
  double slope = 0;  // ns per byte
  if (large.size() == 1) {
    slope = (large[0].one_way_ns - sorted.front().one_way_ns) / static_cast<double>(large[0].bytes - sorted.front().bytes);
  } else {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const PingPongPoint& p : large) {
      const double x = static_cast<double>(p.bytes);
      sx += x, sy += p.one_way_ns, sxx += x * x, sxy += x * p.one_way_ns;
    }
    const double n = static_cast<double>(large.size());
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  }
  if (!(slope > 0) || !std::isfinite(slope))
    throw InputError(fmt::format("calibrate: the one-way times do not grow with the size ({}): measure larger sizes "
                                 "(--max-size) or on a quieter machine",
                                 describe_points(PathMeasurement{"", 0, 0, sorted, {}})));
  const double alpha_ns = std::max(0.0, sorted.front().one_way_ns - slope * static_cast<double>(sorted.front().bytes));
  return {alpha_ns / 1e3, 1.0 / slope};
}

ClusterShape cluster_shape(const std::vector<std::string>& host_of_rank) {
  ClusterShape shape;
  if (host_of_rank.empty()) throw std::logic_error("cluster_shape: no ranks");
  std::vector<int> sizes;
  for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
    if (r > 0 && host_of_rank[r] == host_of_rank[r - 1]) {
      ++sizes.back();
      continue;
    }
    if (std::find(shape.host_names.begin(), shape.host_names.end(), host_of_rank[r]) != shape.host_names.end())
      throw InputError(fmt::format("calibrate: rank {} is on host {} again after other hosts: place the ranks host by "
                                   "host (mpirun --map-by slot)",
                                   r, host_of_rank[r]));
    shape.host_names.push_back(host_of_rank[r]);
    sizes.push_back(1);
  }
  for (std::size_t h = 1; h < sizes.size(); ++h)
    if (sizes[h] != sizes[0])
      throw InputError(fmt::format("calibrate: host {} has {} ranks and host {} has {}: give every host the same "
                                   "number (mpirun --host a:R,b:R)",
                                   shape.host_names[0], sizes[0], shape.host_names[h], sizes[h]));
  shape.hosts = static_cast<int>(sizes.size());
  shape.ranks_per_host = sizes[0];
  return shape;
}

TopologyConfig calibrated_topology(const Calibration& c) {
  TopologyConfig t;
  const bool two_level = c.shape.hosts > 1 && c.shape.ranks_per_host > 1;
  t.kind = two_level ? TopologyKind::two_level : TopologyKind::switch_fabric;
  const PathMeasurement& rank_links = c.shape.hosts > 1 && !two_level ? *c.network : *c.local;
  t.bandwidth_gbps = rank_links.fit.bandwidth_gbps;
  t.latency_us = rank_links.fit.latency_us;
  if (two_level) {
    t.group_size = c.shape.ranks_per_host;
    t.uplink_bandwidth_gbps = c.network->fit.bandwidth_gbps;
    t.uplink_latency_us = c.network->fit.latency_us;
  }
  t.reduce_rate_gbps = c.reduce_rate_gbps;
  t.copy_rate_gbps = c.copy_rate_gbps;
  if (c.network)
    for (const PathMeasurement& m : c.hosts) {
      if (m.fit.bandwidth_gbps >= kSlowHost * c.network->fit.bandwidth_gbps) continue;
      const int host = m.b / c.shape.ranks_per_host;
      t.overrides.push_back({fmt::format("{}{}", two_level ? "uplink" : "rank", host), m.fit.bandwidth_gbps,
                             m.fit.latency_us, fmt::format("calibrated host {}", c.shape.host_names[host])});
    }
  return t;
}

std::string topology_file_text(const Calibration& c, const TopologyConfig& t) {
  const ClusterShape& s = c.shape;
  std::string out = fmt::format(
      "# Written by `collsim calibrate` on {}: {} processes on {} host{} ({}{}), {} per host; {}.\n"
      "# Read it with --topology-file (docs/netlab.md). One-way times, medians of the ping-pongs:\n",
      c.when, s.hosts * s.ranks_per_host, s.hosts, s.hosts == 1 ? "" : "s", s.host_names.front(),
      s.hosts > 1 ? " .. " + s.host_names.back() : "", s.ranks_per_host, c.library);
  const auto path = [&](const PathMeasurement& m) {
    out += fmt::format("#   {}, rank {} <-> rank {}: {}\n#     fit: {}\n", m.what, m.a, m.b, describe_points(m),
                       describe_fit(m.fit));
  };
  if (c.local) path(*c.local);
  for (const PathMeasurement& m : c.hosts) path(m);  // the first is the network's own measurement
  out += fmt::format("#   rank 0's reduce (f32 sum) and copy of {}: {:.4g} and {:.4g} GB/s\n",
                     format_bytes(static_cast<double>(c.rate_bytes)), c.reduce_rate_gbps, c.copy_rate_gbps);
  out += "[topology]\n";
  out += fmt::format("kind = \"{}\"\n", to_string(t.kind));
  out += fmt::format("bandwidth = {:.6g}  # GB/s, {}\n", *t.bandwidth_gbps,
                     t.kind == TopologyKind::two_level || s.hosts == 1 ? "shared memory inside a host" : "the network");
  out += fmt::format("latency = {:.6g}  # us\n", *t.latency_us);
  if (t.kind == TopologyKind::two_level) {
    out += fmt::format("group_size = {}  # ranks per host\n", t.group_size);
    out += fmt::format("uplink_bandwidth = {:.6g}  # GB/s, the network\n", *t.uplink_bandwidth_gbps);
    out += fmt::format("uplink_latency = {:.6g}  # us\n", *t.uplink_latency_us);
  }
  out += fmt::format("reduce_rate = {:.6g}  # GB/s\n", *t.reduce_rate_gbps);
  out += fmt::format("copy_rate = {:.6g}  # GB/s\n", *t.copy_rate_gbps);
  if (!t.overrides.empty()) {
    out += "overrides = [  # hosts under 0.8x the network's bandwidth from rank 0\n";
    for (const LinkOverride& o : t.overrides)
      out += fmt::format("  {{ link = \"{}\", bandwidth = {:.6g}, latency = {:.6g} }},\n", o.link, *o.bandwidth_gbps,
                         *o.latency_us);
    out += "]\n";
  }
  return out;
}

}  // namespace collsim
