// NCCL's protocols in the timing model (sim/model/protocol.h): each one's figures are
// NCCL's tuning table's, every link takes its class's figures, the base latency shifts a
// collective once, every algorithm's closed form holds under each protocol, and `auto`
// picks the fastest: LL below the size where LL128 overtakes it, LL128 in between, Simple
// above, with the switch sizes solved here from the ring's closed form. Also the
// scenario key, the trace round trip and a lesson program choosing per collective.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/model/cost_formulas.h"
#include "sim/model/timing_model.h"
#include "sim/trace/trace.h"
#include "test_support.h"

using namespace collsim;

namespace {

// nvlink4 ports with nothing given by hand, so every figure is the preset's or the protocol's.
TopologyConfig nvlink_switch(Protocol p) {
  TopologyConfig c;
  c.link = "nvlink4";
  c.protocol = p;
  c.latency_rule = LatencyRule::message;  // the closed forms are the textbooks' (Hockney): α per message
  return c;
}

struct Simulated {
  Schedule schedule;
  DependencyGraph graph;
  ModelRun model;
};

Simulated simulate(const CollectiveSpec& spec, std::string_view algorithm, const TopologyConfig& config) {
  Simulated s{build_schedule(spec, algorithm, {}), {}, {}};
  s.graph = derive_dependencies(s.schedule);
  s.model = run_model(s.schedule, s.graph, config);
  return s;
}

CollectiveSpec all_reduce(int ranks, std::uint64_t bytes) {
  return {Collective::all_reduce, ranks, bytes / 4, DataType::f32, ReduceOp::sum, 0, false};
}

}  // namespace

TEST_CASE("the protocols' figures are NCCL's Ring rows and line formats") {
  // NCCL 2.30.7 src/graph/tuning.cc, ncclTunerConstantsDefaults: baseLatencies[Ring] and
  // hwLatencies[NVLINK|PCI|NET][Ring], LL / LL128 / Simple; src/include/device.h:
  // ncclLLFifoLine (two 4-byte data words and two flags per 16 bytes), NCCL_LL128_LINESIZE
  // 128 with NCCL_LL128_DATAELEMS 15 of 16 eight-byte elements.
  struct Want {
    Protocol p;
    double base, nvlink, pcie, net, share;
  };
  for (const Want& w : {Want{Protocol::ll, 6.6, 0.6, 1.0, 2.7, 8.0 / 16},
                        Want{Protocol::ll128, 14.0, 1.9, 2.5, 4.0, 120.0 / 128},
                        Want{Protocol::simple, 8.4, 3.4, 5.7, 14.0, 1.0}}) {
    CAPTURE(to_string(w.p));
    const auto f = protocol_figures(w.p);
    REQUIRE(f.has_value());
    CHECK(f->base_latency_us == w.base);
    CHECK(f->hop_latency(LinkClass::nvlink) == w.nvlink);
    CHECK(f->hop_latency(LinkClass::pcie) == w.pcie);
    CHECK(f->hop_latency(LinkClass::network) == w.net);
    CHECK(f->bandwidth_share() == w.share);
  }
  CHECK_FALSE(protocol_figures(Protocol::none).has_value());
  CHECK_FALSE(protocol_figures(Protocol::automatic).has_value());
  // The presets' own latencies (protocol none) are the LL figures of their class; Ethernet's
  // are collsim's TCP assumption instead.
  const ProtocolFigures ll = *protocol_figures(Protocol::ll);
  for (const LinkPreset& p : link_presets()) {
    CAPTURE(p.name);
    if (!std::string_view(p.name).starts_with("eth")) CHECK(p.latency_us == ll.hop_latency(p.link_class));
  }
  for (Protocol p : kAllProtocols) CHECK(parse_protocol(to_string(p)) == p);
  CHECK_FALSE(parse_protocol("LL").has_value());
}

TEST_CASE("every link takes its class's figures, a latency given by hand is kept, the share applies to every bandwidth") {
  const ProtocolFigures f = *protocol_figures(Protocol::ll128);
  SUBCASE("two_level: NVLink ports, network uplinks") {
    TopologyConfig c;
    c.kind = TopologyKind::two_level;
    c.group_size = 4;
    c.protocol = Protocol::ll128;
    const Topology t = make_topology(c, 8, 8);
    CHECK(t.latency_ns[0] == f.hop_latency(LinkClass::nvlink) * 1000);
    CHECK(t.latency_ns[2 * 8] == f.hop_latency(LinkClass::network) * 1000);  // uplink0
    CHECK(t.ns_per_byte[0] == 1 / (450 * f.bandwidth_share()));
    CHECK(t.ns_per_byte[2 * 8] == 1 / (50 * f.bandwidth_share()));  // ib_ndr
    CHECK(t.base_latency_ns == f.base_latency_us * 1000);
  }
  SUBCASE("pcie_tree: PCIe everywhere") {
    TopologyConfig c;
    c.kind = TopologyKind::pcie_tree;
    c.protocol = Protocol::ll128;
    const Topology t = make_topology(c, 8, 8);
    for (double latency : t.latency_ns) CHECK(latency == f.hop_latency(LinkClass::pcie) * 1000);
  }
  SUBCASE("figures given by hand") {
    TopologyConfig c = nvlink_switch(Protocol::ll128);
    c.latency_us = 5.0;
    c.bandwidth_gbps = 100.0;
    c.overrides.push_back({"rank1", 10.0, 7.0, "test"});
    const Topology t = make_topology(c, 4, 4);
    CHECK(t.latency_ns[0] == 5000);
    CHECK(t.ns_per_byte[0] == 1 / (100 * f.bandwidth_share()));
    CHECK(t.latency_ns[2] == 7000);  // rank1's egress
    CHECK(t.ns_per_byte[2] == 1 / (10 * f.bandwidth_share()));
  }
  SUBCASE("none and auto keep the links' own figures and no base latency") {
    for (Protocol p : {Protocol::none, Protocol::automatic}) {
      const Topology t = make_topology(nvlink_switch(p), 4, 4);
      CHECK(t.protocol == Protocol::none);
      CHECK(t.latency_ns[0] == 600);
      CHECK(t.ns_per_byte[0] == 1.0 / 450);
      CHECK(t.base_latency_ns == 0);
    }
  }
}

TEST_CASE("the base latency delays every transfer of a collective by the same amount, once") {
  // LL against protocol none with LL's hop latency and bandwidth given by hand: only the
  // base latency differs.
  const ProtocolFigures ll = *protocol_figures(Protocol::ll);
  TopologyConfig same_links = nvlink_switch(Protocol::none);
  same_links.latency_us = ll.hop_latency(LinkClass::nvlink);
  same_links.bandwidth_gbps = 450 * ll.bandwidth_share();
  for (const char* algorithm : {"ring", "double_binary_tree", "recursive_doubling"}) {
    CAPTURE(algorithm);
    const Simulated with = simulate(all_reduce(8, 1 << 16), algorithm, nvlink_switch(Protocol::ll));
    const Simulated without = simulate(all_reduce(8, 1 << 16), algorithm, same_links);
    const double base = ll.base_latency_us * 1000;
    for (std::size_t i = 0; i < with.schedule.transfers.size(); ++i) {
      CHECK(with.model.prediction.begin_ns[i] == doctest::Approx(without.model.prediction.begin_ns[i] + base));
      CHECK(with.model.prediction.end_ns[i] == doctest::Approx(without.model.prediction.end_ns[i] + base));
    }
    // The latency part keeps it, the bandwidth part does not.
    const CostSplit a = split_latency_bandwidth(with.schedule, with.graph, with.model.topology);
    const CostSplit b = split_latency_bandwidth(without.schedule, without.graph, without.model.topology);
    CHECK(a.latency_ns == doctest::Approx(b.latency_ns + base));
    CHECK(a.bandwidth_ns == doctest::Approx(b.bandwidth_ns));
  }
}

TEST_CASE("every registered algorithm's closed form holds under each protocol") {
  for (Protocol protocol : {Protocol::simple, Protocol::ll, Protocol::ll128}) {
    const TopologyConfig config = nvlink_switch(protocol);
    const ProtocolFigures f = *protocol_figures(protocol);
    for (const AlgorithmInfo& a : all_algorithms())
      for (int ranks : {2, 5, 8})
        for (std::uint64_t per_rank : {64u, 4096u}) {  // counts the folded algorithms' blocks divide
          CollectiveSpec spec{a.collective, ranks, 0, DataType::f32, ReduceOp::sum, 0, false};
          const AlgorithmOptions resolved = resolve_options(spec, a.name, {});
          spec.count = a.collective == Collective::barrier
                           ? 0
                           : static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(resolved.servers) * per_rank;
          const Simulated s = simulate(spec, a.name, config);
          const CostParams p = cost_params(s.model.topology);
          CHECK(p.alpha_ns == f.hop_latency(LinkClass::nvlink) * 1000);
          CHECK(p.beta_ns_per_byte == 1 / (450 * f.bandwidth_share()));
          CHECK(p.base_ns == f.base_latency_us * 1000);
          const auto want = closed_form_time_ns(a.closed_form, p, cost_shape(spec, a.name, {}));
          if (!want) continue;  // (a form that holds for other N only, e.g. double_binary_tree at N = 5)
          const double got = s.model.prediction.total_ns;
          INFO(fmt::format("{} {} {} on N = {}, count {}: simulated {} ns, b + {} = {} ns", to_string(protocol),
                           to_string(a.collective), a.name, ranks, spec.count, got, a.closed_form.formula, *want));
          CHECK(std::abs(got - *want) <= 1e-9 * std::max(1.0, std::abs(*want)));
        }
  }
}

TEST_CASE("auto picks LL, then LL128, then Simple, switching where the ring's closed form says") {
  // Ring all-reduce on N ranks of nvlink4 under protocol p (its closed form, allreduce_ring.cpp):
  //   T_p(n) = b_p + 2(N-1)·α_p + 2(N-1)/N · n·β/s_p + (N-1)/N · n·γ
  // The γ term is the same for all three, so two protocols p, q cross where
  //   n* = (b_q - b_p + 2(N-1)(α_q - α_p)) / (2(N-1)/N · β · (1/s_p - 1/s_q)).
  const int N = 8;
  const double beta = 1.0 / 450;  // ns per byte
  auto latency = [&](Protocol p) {
    const ProtocolFigures f = *protocol_figures(p);
    return (f.base_latency_us + 2 * (N - 1) * f.hop_latency(LinkClass::nvlink)) * 1000;
  };
  auto inverse_share = [](Protocol p) { return 1 / protocol_figures(p)->bandwidth_share(); };
  auto crossing = [&](Protocol p, Protocol q) {
    return (latency(q) - latency(p)) / (2.0 * (N - 1) / N * beta * (inverse_share(p) - inverse_share(q)));
  };
  const double ll_to_ll128 = crossing(Protocol::ll, Protocol::ll128);
  const double ll128_to_simple = crossing(Protocol::ll128, Protocol::simple);
  REQUIRE(ll_to_ll128 < ll128_to_simple);  // three regions, each protocol wins one
  // A size a little below and a little above each switch, rounded to whole f32 chunks.
  auto bytes = [&](double n) { return static_cast<std::uint64_t>(std::round(n / (4 * N))) * 4 * N; };
  struct Case {
    std::uint64_t bytes;
    Protocol want;
  };
  for (const Case& c : {Case{1024, Protocol::ll}, Case{bytes(0.9 * ll_to_ll128), Protocol::ll},
                        Case{bytes(1.1 * ll_to_ll128), Protocol::ll128}, Case{bytes(0.9 * ll128_to_simple), Protocol::ll128},
                        Case{bytes(1.1 * ll128_to_simple), Protocol::simple}, Case{64u << 20, Protocol::simple}}) {
    CAPTURE(c.bytes);
    const Simulated s = simulate(all_reduce(N, c.bytes), "ring", nvlink_switch(Protocol::automatic));
    CHECK(s.model.topology.protocol == c.want);
    // The candidates are the explicit protocols' own predictions, in NCCL's order, and the
    // chosen one is the smallest.
    REQUIRE(s.model.candidates.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      const Protocol p = kCandidateProtocols[i];
      CHECK(s.model.candidates[i].protocol == p);
      CHECK(s.model.candidates[i].total_ns == simulate(all_reduce(N, c.bytes), "ring", nvlink_switch(p)).model.prediction.total_ns);
      CHECK(s.model.prediction.total_ns <= s.model.candidates[i].total_ns);
    }
  }
}

TEST_CASE("auto considers LL128 only where the rank links are NVLink") {
  TopologyConfig pcie;
  pcie.kind = TopologyKind::pcie_tree;
  pcie.protocol = Protocol::automatic;
  const Simulated s = simulate(all_reduce(8, 1 << 20), "ring", pcie);
  REQUIRE(s.model.candidates.size() == 2);
  CHECK(s.model.candidates[0].protocol == Protocol::ll);
  CHECK(s.model.candidates[1].protocol == Protocol::simple);
  // Asked for by name it is used anyway, as NCCL_PROTO=LL128 forces it.
  pcie.protocol = Protocol::ll128;
  CHECK(simulate(all_reduce(8, 1 << 20), "ring", pcie).model.topology.protocol == Protocol::ll128);
}

TEST_CASE("topology.protocol in a scenario, and a bad one named by its position") {
  const Scenario s = parse_scenario("format = 1\n[topology]\nprotocol = \"ll128\"\n", "p.toml");
  CHECK(s.topology.protocol == Protocol::ll128);
  CHECK(testing::input_error([] { parse_scenario("format = 1\n[topology]\nprotocol = \"LL\"\n", "p.toml"); }) ==
        "p.toml:3:12: key 'topology.protocol': unknown protocol 'LL' (use none simple ll ll128 auto)");
  TopologyConfig flags;
  flags.protocol = Protocol::simple;
  const auto given = [](std::string_view flag) { return flag == "--protocol"; };
  CHECK(apply_topology_overrides(s.topology, flags, fields_given_by_flags(given)).protocol == Protocol::simple);
}

TEST_CASE("a trace predicted under auto records the protocol, the candidates and the configuration") {
  RunRequest request;
  request.spec = all_reduce(4, 4096);
  request.algorithm = "ring";
  RunResult r = prepare_model_run(request);
  predict_run(r, nvlink_switch(Protocol::automatic));
  const Trace t = make_trace(r);
  REQUIRE(t.predicted.has_value());
  CHECK(t.predicted->protocol == r.model->topology.protocol);
  CHECK(t.predicted->protocol_candidates == r.model->candidates);
  CHECK(t.predicted->closed_form.starts_with("b + "));
  const std::string json = trace_to_json(t);
  const Trace back = parse_trace_json(json, "t.json");
  CHECK(back.predicted == t.predicted);
  REQUIRE(back.predicted->topology_config.has_value());
  CHECK(back.predicted->topology_config->protocol == Protocol::automatic);
  CHECK(trace_to_json(back) == json);
}

TEST_CASE("a lesson program chooses the protocol per collective") {
  Scenario s;
  s.format = 2;
  s.title = "protocols";
  s.ranks = 8;
  s.request.spec.ranks = 8;
  for (std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{64} << 20}) {
    Phase p;
    p.kind = PhaseKind::collective;
    p.name = fmt::format("all_reduce {}", bytes);
    p.request.spec = all_reduce(8, bytes);
    p.request.algorithm = "ring";
    p.origin = "lesson.toml:7:1";
    s.phases.push_back(p);
  }
  ProgramResult program = prepare_program(s, true);
  predict_program(program, s, nvlink_switch(Protocol::automatic));
  REQUIRE(program.phases.size() == 2);
  CHECK(program.phases[0].run->model->topology.protocol == Protocol::ll);
  CHECK(program.phases[1].run->model->topology.protocol == Protocol::simple);
  // Each phase pays its own protocol's base latency before its first transfer.
  CHECK(program.phases[0].begin() == doctest::Approx(protocol_figures(Protocol::ll)->base_latency_us * 1000));
  CHECK(program.phases[1].begin() >= protocol_figures(Protocol::simple)->base_latency_us * 1000);
}
