// collsim calibrate's arithmetic (sim/model/calibration.h) and the topology file it writes,
// read back by parse_topology_file. The measuring itself runs in tests/netlab.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/model/calibration.h"

using namespace collsim;

namespace {

// Exact one-way times of a link of `alpha_us` and `gbps` at the sizes calibrate measures.
std::vector<PingPongPoint> line(double alpha_us, double gbps, std::vector<std::size_t> sizes = {8, 65536, 262144, 1048576}) {
  std::vector<PingPongPoint> points;
  for (const std::size_t b : sizes) points.push_back({b, alpha_us * 1e3 + static_cast<double>(b) / gbps});
  return points;
}

PathMeasurement path(std::string what, int a, int b, double alpha_us, double gbps) {
  return {std::move(what), a, b, line(alpha_us, gbps), fit_link(line(alpha_us, gbps))};
}

Calibration cluster(int hosts, int per_host) {
  Calibration c;
  c.shape.hosts = hosts;
  c.shape.ranks_per_host = per_host;
  for (int h = 0; h < hosts; ++h) c.shape.host_names.push_back("h" + std::to_string(h));
  c.library = "Open MPI v4.1.4";
  c.when = "2026-12-06 00:00 UTC";
  if (per_host > 1) c.local = path("shared memory", 0, 1, 1.8, 8.5);
  if (hosts > 1) {
    c.network = path("network", 0, per_host, 9.0, 0.0125);
    for (int h = 1; h < hosts; ++h) c.hosts.push_back(path("to host h" + std::to_string(h), 0, h * per_host, 9.0, 0.0125));
  }
  c.reduce_rate_gbps = 16.5;
  c.copy_rate_gbps = 18.0;
  c.rate_bytes = 16 << 20;
  return c;
}

}  // namespace

TEST_CASE("calibrate: a line through the ping-pong times gives the link's latency and bandwidth") {
  const LinkFit f = fit_link(line(9.0, 0.0125));
  CHECK(f.latency_us == doctest::Approx(9.0).epsilon(1e-6));
  CHECK(f.bandwidth_gbps == doctest::Approx(0.0125).epsilon(1e-9));
  // One large size: the line from the small one to it.
  const LinkFit two = fit_link(line(50.0, 1.0, {8, 4 << 20}));
  CHECK(two.latency_us == doctest::Approx(50.0).epsilon(1e-6));
  CHECK(two.bandwidth_gbps == doctest::Approx(1.0).epsilon(1e-9));
  // Noise on the large sizes moves the slope, not the latency, which is the small size's.
  std::vector<PingPongPoint> noisy = line(9.0, 0.0125);
  noisy[2].one_way_ns *= 1.05;
  CHECK(fit_link(noisy).latency_us == doctest::Approx(9.0).epsilon(0.01));
}

TEST_CASE("calibrate: points that give no fit are refused, saying why") {
  CHECK_THROWS_WITH_AS(fit_link(line(9.0, 0.0125, {65536, 1048576})), doctest::Contains("no size under 64 KiB"), InputError);
  CHECK_THROWS_WITH_AS(fit_link(line(9.0, 0.0125, {8, 1024})), doctest::Contains("no size of 64 KiB or more"), InputError);
  std::vector<PingPongPoint> flat = line(9.0, 0.0125);
  for (PingPongPoint& p : flat) p.one_way_ns = 266e3 - static_cast<double>(p.bytes) * 1e-3;  // shrinking with the size
  CHECK_THROWS_WITH_AS(fit_link(flat), doctest::Contains("do not grow with the size"), InputError);
}

TEST_CASE("calibrate: the ranks' hosts give the cluster's shape, placed host by host or refused") {
  const ClusterShape s = cluster_shape({"a", "a", "b", "b", "c", "c"});
  CHECK(s.hosts == 3);
  CHECK(s.ranks_per_host == 2);
  CHECK(s.host_names == std::vector<std::string>{"a", "b", "c"});
  CHECK(cluster_shape({"a", "a"}).hosts == 1);
  CHECK_THROWS_WITH_AS(cluster_shape({"a", "b", "a", "b"}), doctest::Contains("rank 2 is on host a again"), InputError);
  CHECK_THROWS_WITH_AS(cluster_shape({"a", "a", "b"}), doctest::Contains("host a has 2 ranks and host b has 1"), InputError);
}

TEST_CASE("calibrate: one rank per host is a switch of the network's links, several are two levels") {
  const TopologyConfig flat = calibrated_topology(cluster(4, 1));
  CHECK(flat.kind == TopologyKind::switch_fabric);
  CHECK(*flat.bandwidth_gbps == doctest::Approx(0.0125));
  CHECK(*flat.latency_us == doctest::Approx(9.0));
  CHECK(*flat.reduce_rate_gbps == 16.5);
  CHECK(flat.overrides.empty());
  const TopologyConfig two = calibrated_topology(cluster(4, 2));
  CHECK(two.kind == TopologyKind::two_level);
  CHECK(two.group_size == 2);
  CHECK(*two.bandwidth_gbps == doctest::Approx(8.5));
  CHECK(*two.uplink_bandwidth_gbps == doctest::Approx(0.0125));
  CHECK(*two.uplink_latency_us == doctest::Approx(9.0));
  const TopologyConfig one_host = calibrated_topology(cluster(1, 4));
  CHECK(one_host.kind == TopologyKind::switch_fabric);
  CHECK(*one_host.bandwidth_gbps == doctest::Approx(8.5));
  // A host under 0.8x the network's bandwidth gets its own link.
  Calibration slow = cluster(4, 2);
  slow.hosts[2] = path("to host h3", 0, 6, 9.0, 0.005);
  const TopologyConfig t = calibrated_topology(slow);
  REQUIRE(t.overrides.size() == 1);
  CHECK(t.overrides[0].link == "uplink3");
  CHECK(*t.overrides[0].bandwidth_gbps == doctest::Approx(0.005));
}

TEST_CASE("calibrate: the topology file reads back as the topology it was written from") {
  for (const auto& [hosts, per_host] : std::vector<std::pair<int, int>>{{4, 1}, {4, 2}, {1, 3}}) {
    Calibration c = cluster(hosts, per_host);
    if (hosts > 2) c.hosts[1] = path("to host h2", 0, 2 * per_host, 9.0, 0.004);  // an override too
    const TopologyConfig want = calibrated_topology(c);
    const std::string text = topology_file_text(c, want);
    CAPTURE(text);
    const TopologyConfig got = parse_topology_file(text, "cluster.toml");
    CHECK(got.kind == want.kind);
    CHECK(got.group_size == want.group_size);
    CHECK(*got.bandwidth_gbps == doctest::Approx(*want.bandwidth_gbps).epsilon(1e-5));
    CHECK(*got.latency_us == doctest::Approx(*want.latency_us).epsilon(1e-5));
    CHECK(*got.reduce_rate_gbps == doctest::Approx(16.5));
    CHECK(got.uplink_bandwidth_gbps.has_value() == want.uplink_bandwidth_gbps.has_value());
    REQUIRE(got.overrides.size() == want.overrides.size());
    for (std::size_t k = 0; k < got.overrides.size(); ++k) {
      CHECK(got.overrides[k].link == want.overrides[k].link);
      CHECK(*got.overrides[k].bandwidth_gbps == doctest::Approx(*want.overrides[k].bandwidth_gbps).epsilon(1e-5));
    }
    CHECK(text.find("Open MPI v4.1.4") != std::string::npos);
  }
}

TEST_CASE("a topology file holds one [topology] table, and anything else names the file, line and key") {
  CHECK_THROWS_WITH_AS(parse_topology_file("title = \"x\"\n[topology]\nkind = \"switch\"\n", "t.toml"),
                       doctest::Contains("t.toml:1:1: key 'title': unknown key"), InputError);
  CHECK_THROWS_WITH_AS(parse_topology_file("# nothing\n", "t.toml"), doctest::Contains("t.toml:1:1: a topology file holds one [topology] table"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_topology_file("[topology]\nkind = \"switch\"\nuplink_bandwidth = 1.0\n", "t.toml"),
                       doctest::Contains("t.toml:3:"), InputError);
  CHECK_THROWS_WITH_AS(parse_topology_file("[topology]\nbandwidth = -1.0\n", "t.toml"), doctest::Contains("t.toml:2:"), InputError);
}
