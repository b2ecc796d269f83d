// Links measured instead of taken from a preset (`collsim calibrate`, docs/netlab.md): the
// ping-pong times between ranks, a fit of α and β to them, and the [topology] table that the
// timing model reads back (--topology-file). Plain data and arithmetic: the measuring is in
// sim/run/calibrate.h.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/topology.h"

namespace collsim {

// One size's one-way time between two ranks: the median of its ping-pongs.
struct PingPongPoint {
  std::size_t bytes = 0;
  double one_way_ns = 0;
};

// A link's figures as the timing model takes them: α in µs, 1/β in GB/s.
struct LinkFit {
  double latency_us = 0;
  double bandwidth_gbps = 0;
};

// α is the smallest size's one-way time (its few bytes at the fitted rate taken off); β is the
// slope of a least-squares line through the sizes of 64 KiB and more (one such size: the line
// from α to it). An InputError when the points cannot give both (no size under 64 KiB, none
// at or above it, or times that do not grow with the size).
LinkFit fit_link(const std::vector<PingPongPoint>& points);

// How the job's ranks sit on hosts, from each rank's host name in rank order: consecutive
// ranks on one host, the same number on every host (mpirun's --map-by slot). Anything else is
// an InputError that says how the ranks were placed.
struct ClusterShape {
  int hosts = 1;
  int ranks_per_host = 1;
  std::vector<std::string> host_names;  // one per host, in order
};
ClusterShape cluster_shape(const std::vector<std::string>& host_of_rank);

// One measured pair of ranks.
struct PathMeasurement {
  std::string what;  // "network", "shared memory", "to host netlab-h2"
  int a = 0, b = 0;  // ranks
  std::vector<PingPongPoint> points;
  LinkFit fit;
};

struct Calibration {
  ClusterShape shape;
  std::string library;  // "Open MPI v4.1.4"
  std::string when;     // "2026-12-06 00:50 UTC"
  std::optional<PathMeasurement> local;    // two ranks of one host (ranks_per_host > 1)
  std::optional<PathMeasurement> network;  // rank 0 and the next host's first rank (hosts > 1)
  std::vector<PathMeasurement> hosts;      // rank 0 and each other host's first rank, fewer sizes
  double reduce_rate_gbps = 0, copy_rate_gbps = 0;  // rank 0's host loops (f32 sum, copy)
  std::size_t rate_bytes = 0;                       // the buffer they were measured on
  bool stopped = false;  // on the processes but rank 0: rank 0 stopped with an error (it says which)
};

// The topology the measurements describe. One host: `switch` with the shared-memory figures;
// one rank per host: `switch` with the network's; several of each: `two_level`, one node per
// host, the shared-memory figures inside it and the network's between. A host whose bandwidth
// from rank 0 is under 0.8x the network's gets a link override (rankH or uplinkH).
TopologyConfig calibrated_topology(const Calibration& c);

// The topology file: the measurements as comments, then [topology] with every figure written
// (parse_topology_file reads it back to the same TopologyConfig).
std::string topology_file_text(const Calibration& c, const TopologyConfig& t);

}  // namespace collsim
