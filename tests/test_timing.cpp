// The timing model: every registered algorithm's simulated time on a switch equals the
// closed form in its file (AlgorithmInfo::closed_form; the textbook form where there is one); a
// parameter server on a star is bound by its server's link; a straggler delays exactly
// what depends on it; predictions are deterministic; topologies route as documented;
// scenario [topology] tables and traces with predictions are read back exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/model/cost_formulas.h"
#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/model/timing_model.h"
#include "sim/check/checker.h"
#include "sim/schedule/channels.h"
#include "sim/schedule/schedule_builder.h"
#include "sim/trace/trace.h"
#include "test_support.h"

using namespace collsim;

namespace {

// NVLink-like figures, so that α, β, γ and δ all matter at the sizes below.
TopologyConfig switch_config() {
  TopologyConfig c;
  c.kind = TopologyKind::switch_fabric;
  c.bandwidth_gbps = 450;
  c.latency_us = 0.6;
  c.reduce_rate_gbps = 1117;
  c.copy_rate_gbps = 1675;
  c.latency_rule = LatencyRule::message;  // the closed forms are the textbooks' (Hockney): α per message
  return c;
}

struct Simulated {
  Schedule schedule;
  DependencyGraph graph;
  ModelRun model;
};

Simulated simulate(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                   const TopologyConfig& config) {
  Simulated s{build_schedule(spec, algorithm, options), {}, {}};
  s.graph = derive_dependencies(s.schedule);
  s.model = run_model(s.schedule, s.graph, config);
  return s;
}

// A count with n a multiple of N · slices · element size (and of the server count).
CollectiveSpec spec_for(const AlgorithmInfo& a, int ranks, const AlgorithmOptions& options, std::uint64_t per_slice) {
  CollectiveSpec spec{a.collective, ranks, 0, DataType::f32, ReduceOp::sum, 0, false};
  const AlgorithmOptions resolved = resolve_options(spec, a.name, options);
  spec.count = a.collective == Collective::barrier
                   ? 0
                   : static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(resolved.slices_or(1)) *
                         static_cast<std::uint64_t>(resolved.servers) * per_slice;
  return spec;
}

// Compares simulation and formula; returns whether the formula applied.
bool check_formula(const AlgorithmInfo& a, int ranks, const AlgorithmOptions& options, std::uint64_t per_slice,
                   bool in_place = false) {
  CollectiveSpec spec = spec_for(a, ranks, options, per_slice);
  spec.in_place = in_place;
  const ClosedFormInfo* f = &a.closed_form;
  const Simulated s = simulate(spec, a.name, options, switch_config());
  const auto want = closed_form_time_ns(*f, cost_params(s.model.topology), cost_shape(spec, a.name, options));
  if (!want) return false;
  const double got = s.model.prediction.total_ns;
  INFO(fmt::format("{} {} on N = {}, count {}, slices {}{}: simulated {} ns, formula {} = {} ns",
                   to_string(a.collective), a.name, ranks, spec.count, options.slices, in_place ? ", in place" : "",
                   got, f->formula, *want));
  CHECK(std::abs(got - *want) <= 1e-9 * std::max(1.0, std::abs(*want)));
  return true;
}

// Default options with some changed (designated initializers would have to name every member).
template <class Set>
AlgorithmOptions options(Set&& set) {
  AlgorithmOptions o;
  set(o);
  return o;
}

}  // namespace

TEST_CASE("every registered algorithm has a closed form, and the simulation on a switch equals it") {
  for (const AlgorithmInfo& a : all_algorithms()) {
    const ClosedFormInfo* f = &a.closed_form;
    INFO(fmt::format("{} {}", to_string(a.collective), a.name));
    REQUIRE_MESSAGE(static_cast<bool>(f->time_ns), "give the algorithm's file its closed_form (AlgorithmInfo)");
    CHECK(!f->formula.empty());
    CHECK(!f->scope.empty());
    const ClosedFormInfo* found = find_cost_formula(a.collective, a.name);  // what closed_form() and `collsim list` read
    REQUIRE(found != nullptr);
    CHECK(found->formula == f->formula);
    for (int ranks : {2, 4, 8, 16, 64})
      for (std::uint64_t per_slice : {1u, 4096u}) {  // latency-bound and bandwidth-bound
        const bool applies = check_formula(a, ranks, {}, per_slice);
        CHECK_MESSAGE(applies, fmt::format("no closed form for N = {} ({})", ranks, f->scope));
      }
  }
}

TEST_CASE("closed forms that hold for any N match the simulation for rank counts that are not powers of two") {
  int checked = 0;
  for (const AlgorithmInfo& a : all_algorithms())
    for (int ranks : {3, 5, 6, 7, 12})  // counts that the folded algorithms' N' = 2^floor(lg N) blocks divide too
      for (std::uint64_t per_slice : {64u, 4096u}) checked += check_formula(a, ranks, {}, per_slice) ? 1 : 0;
  CHECK(checked > 200);  // all but double_binary_tree's
}

TEST_CASE("in-place layouts take the time of their out-of-place schedules") {
  for (const AlgorithmInfo& a : all_algorithms())
    if (collective_supports_in_place(a.collective))
      for (int ranks : {2, 5, 8}) check_formula(a, ranks, {}, 64, true);
}

TEST_CASE("pipelined, multi-server and hierarchical variants match their closed forms") {
  const AlgorithmInfo* ring = find_algorithm(Collective::all_reduce, "ring");
  const AlgorithmInfo* chain = find_algorithm(Collective::broadcast, "chain");
  const AlgorithmInfo* ps = find_algorithm(Collective::all_reduce, "parameter_server");
  const AlgorithmInfo* hier = find_algorithm(Collective::all_reduce, "hierarchical");
  for (int ranks : {2, 4, 5, 8})
    for (int slices : {2, 4, 16})
      for (std::uint64_t per_slice : {1u, 64u, 4096u}) {  // both regimes of the ring's max()
        CHECK(check_formula(*ring, ranks, options([&](AlgorithmOptions& o) { o.slices = slices; }), per_slice));
        CHECK(check_formula(*chain, ranks, options([&](AlgorithmOptions& o) { o.slices = slices; }), per_slice));
      }
  for (int workers : {2, 4, 8, 16})
    for (int servers : {1, 2, 4})
      if (servers <= workers)
        CHECK(check_formula(*ps, workers, options([&](AlgorithmOptions& o) { o.servers = servers; }), 1024));
  CHECK(check_formula(*ps, 8, options([](AlgorithmOptions& o) { o.colocated = true; }), 1024));
  for (int g : {1, 2, 4, 8})
    CHECK(check_formula(*hier, 16, options([&](AlgorithmOptions& o) { o.ranks_per_node = g; }), 1024));
  // NCCL's tree has a form on one node only (a chain); with several nodes, none.
  const AlgorithmInfo* tree = find_algorithm(Collective::all_reduce, "nccl_tree");
  for (int ranks : {3, 8, 16}) CHECK(check_formula(*tree, ranks, options([&](AlgorithmOptions& o) { o.ranks_per_node = ranks; }), 64));
  CHECK_FALSE(check_formula(*tree, 16, options([](AlgorithmOptions& o) { o.ranks_per_node = 8; }), 64));
  CHECK_FALSE(check_formula(*tree, 8, options([](AlgorithmOptions& o) { o.slices = 4; }), 64));
}

TEST_CASE("PAT's closed forms hold for every N from 2 to 17, latency- and bandwidth-bound") {
  // ceil(lg N) steps, each waiting for the step before (its first block got a contribution
  // there), whose blocks add up to N-1 whatever N: no fold, no uneven last step.
  for (Collective c : {Collective::all_gather, Collective::reduce_scatter}) {
    const AlgorithmInfo* pat = find_algorithm(c, "pat");
    REQUIRE(pat != nullptr);
    for (int ranks = 2; ranks <= 17; ++ranks)
      for (std::uint64_t per_slice : {1u, 4096u}) CHECK(check_formula(*pat, ranks, {}, per_slice));
  }
}

TEST_CASE("a parameter server on a star grows linearly with the workers while the ring stays nearly flat") {
  TopologyConfig star;
  star.kind = TopologyKind::star;  // Ethernet everywhere: the server's link is as fast as a worker's
  star.latency_rule = LatencyRule::message;  // the closed form below is the textbooks'
  auto time = [&](std::string_view algorithm, int workers) {  // 256 MiB: bandwidth-bound
    const CollectiveSpec spec{Collective::all_reduce, workers, 64u << 20, DataType::f32, ReduceOp::sum, 0, false};
    return simulate(spec, algorithm, {}, star).model.prediction.total_ns;
  };
  const double ps4 = time("parameter_server", 4), ps8 = time("parameter_server", 8),
               ps32 = time("parameter_server", 32);
  const double ring4 = time("ring", 4), ring8 = time("ring", 8), ring32 = time("ring", 32);
  CHECK(ps8 == doctest::Approx(2 * ps4).epsilon(1e-9));  // exactly linear: W(2α + 2nβ + nγ)
  CHECK(ps32 == doctest::Approx(8 * ps4).epsilon(1e-9));
  CHECK(ring8 < 1.2 * ring4);  // 2(N-1)/N·nβ + ...: bounded by 2nβ whatever N
  CHECK(ring32 < 1.4 * ring4);
  CHECK(ps32 > 10 * ring32);
  // The bottleneck the summary names is the server's port.
  const CollectiveSpec spec{Collective::all_reduce, 8, 1u << 20, DataType::f32, ReduceOp::sum, 0, false};
  const Simulated s = simulate(spec, "parameter_server", {}, star);
  REQUIRE(!s.model.prediction.busiest.empty());
  CHECK(link_name(s.model.topology, s.model.prediction.busiest.front().link).starts_with("rank8 "));
}

TEST_CASE("the bottleneck is the slow link itself, not a neighbour that waits on it just as long") {
  // One slow port paces the whole ring: every link on the way to it is held as long (a
  // transfer holds its whole route), so busy time alone ties; its own bytes at its own speed
  // do not.
  const CollectiveSpec spec{Collective::all_reduce, 8, 1u << 20, DataType::f32, ReduceOp::sum, 0, false};
  for (const int slow : {1, 3, 6}) {
    CAPTURE(slow);
    TopologyConfig c;
    c.overrides.push_back({fmt::format("rank{}", slow), 1.0, std::nullopt, "test"});
    const Simulated s = simulate(spec, "ring", {}, c);
    REQUIRE(s.model.prediction.busiest.size() >= 2);
    CHECK(link_name(s.model.topology, s.model.prediction.busiest[0].link).starts_with(fmt::format("rank{} ", slow)));
    CHECK(link_name(s.model.topology, s.model.prediction.busiest[1].link).starts_with(fmt::format("rank{} ", slow)));
  }
}

TEST_CASE("a straggler delays exactly the transfers that depend on it") {
  const CollectiveSpec spec{Collective::all_reduce, 8, 8192, DataType::f32, ReduceOp::sum, 0, false};
  for (const char* algorithm : {"ring", "recursive_doubling", "binomial_tree"}) {
    const int late_rank = 3;
    TopologyConfig late = switch_config();
    late.stragglers.push_back({late_rank, 50.0, 1.0, "test"});
    const Simulated base = simulate(spec, algorithm, {}, switch_config());
    const Simulated slow = simulate(spec, algorithm, {}, late);
    // Expected: the straggler's own transfers, and everything downstream of them.
    std::vector<bool> affected(base.schedule.transfers.size(), false);
    for (std::size_t i = 0; i < affected.size(); ++i) {
      const Transfer& x = base.schedule.transfers[i];
      affected[i] = x.src == late_rank || x.dst == late_rank;
      for (std::uint32_t d : base.graph.dependencies_of(i)) affected[i] = affected[i] || affected[d];
    }
    for (std::size_t i = 0; i < affected.size(); ++i) {
      INFO(fmt::format("{}: transfer {}", algorithm, i));
      if (affected[i])
        CHECK(slow.model.prediction.end_ns[i] > base.model.prediction.end_ns[i]);
      else
        CHECK(slow.model.prediction.end_ns[i] == base.model.prediction.end_ns[i]);
    }
  }
}

TEST_CASE("a slow rank stretches its reductions and local copies, and nothing before them") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 4096, DataType::f32, ReduceOp::sum, 0, false};
  TopologyConfig config = switch_config();
  config.stragglers.push_back({2, 0.0, 3.0, "test"});
  const Simulated base = simulate(spec, "ring", {}, switch_config());
  const Simulated slow = simulate(spec, "ring", {}, config);
  CHECK(slow.model.prediction.total_ns > base.model.prediction.total_ns);
  // Step 1: the first reduce into rank 2 takes 3 times its γ part longer; its start is unchanged.
  for (std::size_t i = 0; i < base.schedule.transfers.size(); ++i)
    if (base.schedule.transfers[i].step == 0)
      CHECK(slow.model.prediction.begin_ns[i] == base.model.prediction.begin_ns[i]);
}

TEST_CASE("two runs of the model give byte-identical predicted traces") {
  RunRequest request;
  request.spec = {Collective::all_reduce, 6, 3000, DataType::f32, ReduceOp::sum, 0, false};
  request.algorithm = "rabenseifner";
  TopologyConfig config;
  config.kind = TopologyKind::two_level;
  config.group_size = 2;
  config.stragglers.push_back({1, 3.5, 2.0, "test"});
  auto predicted_json = [&] {
    RunResult r = prepare_model_run(request);
    predict_run(r, config);
    return trace_to_json(make_trace(r));
  };
  const std::string a = predicted_json(), b = predicted_json();
  CHECK(a == b);
  CHECK(a.find("\"predicted_begin_ns\"") != std::string::npos);
}

TEST_CASE("topologies route as documented") {
  std::vector<Hop> hops;
  SUBCASE("switch: one hop holding the sender's egress and the receiver's ingress port") {
    TopologyConfig c;
    c.overrides.push_back({"rank1", 100.0, 2.0, "test"});
    const Topology t = make_topology(c, 4, 4);
    route(t, 1, 3, hops);
    REQUIRE(hops.size() == 1);
    CHECK(hops[0].count == 2);
    CHECK(link_name(t, hops[0].links[0]) == "rank1 (rank 1 -> switch)");
    CHECK(link_name(t, hops[0].links[1]) == "rank3 (switch -> rank 3)");
    CHECK(hops[0].alpha_ns == 2000.0);               // the slower port's latency
    CHECK(hops[0].beta_ns_per_byte == 1.0 / 100.0);  // and bandwidth
  }
  SUBCASE("ring: hop by hop the shorter way round") {
    TopologyConfig c;
    c.kind = TopologyKind::ring;
    const Topology t = make_topology(c, 8, 8);
    route(t, 1, 4, hops);
    CHECK(hops.size() == 3);
    route(t, 1, 6, hops);
    REQUIRE(hops.size() == 3);
    CHECK(link_name(t, hops[0].links[0]) == "ring0 (1 -> 0)");
  }
  SUBCASE("pcie_tree: crossing switches holds both uplinks") {
    TopologyConfig c;
    c.kind = TopologyKind::pcie_tree;
    const Topology t = make_topology(c, 8, 8);
    route(t, 0, 1, hops);
    CHECK(hops.at(0).count == 2);
    route(t, 0, 5, hops);
    REQUIRE(hops.at(0).count == 4);
    CHECK(link_name(t, hops[0].links[1]) == "uplink0 (PCIe switch 0 -> root)");
  }
  SUBCASE("two_level: across nodes the network links, inside a node the ports") {
    TopologyConfig c;
    c.kind = TopologyKind::two_level;
    c.group_size = 4;
    const Topology t = make_topology(c, 8, 8);
    route(t, 0, 5, hops);
    REQUIRE(hops.size() == 1);
    CHECK(link_name(t, hops[0].links[0]) == "uplink0 (node 0 -> network)");
    CHECK(hops[0].beta_ns_per_byte == 1.0 / 50.0);  // ib_ndr
  }
  SUBCASE("fully_connected: a link per pair") {
    TopologyConfig c;
    c.kind = TopologyKind::fully_connected;
    const Topology t = make_topology(c, 5, 5);
    CHECK(t.link_count() == 20);
    route(t, 4, 2, hops);
    CHECK(link_name(t, hops.at(0).links[0]) == "pair2-4 (4 -> 2)");
    CHECK(physical_link(t, "pair4-2").has_value());
  }
  SUBCASE("star: extra ranks (servers) get the uplink's figures") {
    TopologyConfig c;
    c.kind = TopologyKind::star;
    c.uplink = "eth10";
    const Topology t = make_topology(c, 4, 5);
    route(t, 0, 4, hops);
    CHECK(hops.at(0).beta_ns_per_byte == 1.0 / 1.25);
  }
}

TEST_CASE("bad topology settings name where they came from") {
  TopologyConfig c;
  c.overrides.push_back({"rank9", 10.0, std::nullopt, "--link-override rank9=10"});
  CHECK_THROWS_WITH_AS(make_topology(c, 4, 4), doctest::Contains("--link-override rank9=10: no link 'rank9'"),
                       InputError);
  c.overrides.clear();
  c.stragglers.push_back({7, 1.0, 1.0, "lesson.toml:9:3: key 'topology.stragglers[0]'"});
  CHECK_THROWS_WITH_AS(make_topology(c, 4, 4), doctest::Contains("lesson.toml:9:3"), InputError);
  c.stragglers.clear();
  c.link = "nvlink9";
  CHECK_THROWS_WITH_AS(make_topology(c, 4, 4), doctest::Contains("unknown link preset 'nvlink9'"), InputError);
}

TEST_CASE("a scenario's [topology] table is read, and the flags given replace its keys") {
  const Scenario s = parse_scenario(R"(format = 1
[collective]
algorithm = "parameter_server"
[topology]
kind = "two_level"
link = "nvlink3"
latency = 1
uplink = "ib_hdr"
group_size = 2
nic = "gpu"
reduce_rate = 500.5
overrides = [{ link = "uplink1", preset = "eth10" }, { link = "rank0", bandwidth = 20 }]
stragglers = [{ rank = 3, late = 12.5, slow = 2 }]
latency_rule = "delay"
arrange = "topology"
)",
                                    "lesson.toml");
  const TopologyConfig& c = s.topology;
  CHECK(c.latency_rule == LatencyRule::delay);
  CHECK(c.kind == TopologyKind::two_level);
  CHECK(c.link == "nvlink3");
  CHECK(c.latency_us == 1.0);
  CHECK(c.uplink == "ib_hdr");
  CHECK(c.group_size == 2);
  CHECK(c.nic_per_gpu);
  CHECK(c.reduce_rate_gbps == 500.5);
  REQUIRE(c.overrides.size() == 2);
  CHECK(c.overrides[0].bandwidth_gbps == 1.25);
  CHECK(c.overrides[0].origin == "lesson.toml:12:23: key 'topology.overrides[0].link'");
  REQUIRE(c.stragglers.size() == 1);
  CHECK(c.stragglers[0].late_us == 12.5);
  CHECK(c.stragglers[0].slow == 2.0);
  CHECK(c.arrange == Arrangement::topology);
  CHECK(parse_scenario("format = 1\n", "t.toml").topology.arrange == Arrangement::algorithm);  // the default
  CHECK(parse_scenario("format = 1\n[topology]\narrange = \"both\"\n", "t.toml").topology.arrange == Arrangement::both);
  CHECK(parse_arrangement("both") == Arrangement::both);
  CHECK(to_string(Arrangement::both) == "both");

  TopologyConfig flags;
  flags.kind = TopologyKind::switch_fabric;
  flags.latency_us = 3.0;
  const auto given = [](std::string_view flag) { return flag == "--latency" || flag == "--late"; };
  const TopologyConfig merged = apply_topology_overrides(c, flags, fields_given_by_flags(given));
  CHECK(merged.kind == TopologyKind::two_level);  // --topology not given: the file's
  CHECK(merged.latency_us == 3.0);
  CHECK(merged.stragglers.empty());  // --late given: the flags' list replaces the file's
  CHECK(merged.overrides.size() == 2);
  CHECK(merged.arrange == Arrangement::topology);  // --arrange not given: the file's
  const auto arrange_given = [](std::string_view flag) { return flag == "--arrange"; };
  CHECK(apply_topology_overrides(c, flags, fields_given_by_flags(arrange_given)).arrange == Arrangement::algorithm);
}

TEST_CASE("a bad [topology] key is refused with its file position") {
  auto error = [](const std::string& topology) {
    try {
      parse_scenario("format = 1\n[topology]\n" + topology + "\n", "t.toml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("kind = \"mesh\"") == "t.toml:3:8: key 'topology.kind': unknown topology 'mesh' (use switch ring "
                                    "fully_connected pcie_tree two_level star)");
  CHECK(error("bandwidth = 0").starts_with("t.toml:3:13: key 'topology.bandwidth': must be > 0"));
  CHECK(error("link = \"nvlink9\"").find("unknown link preset 'nvlink9'") != std::string::npos);
  CHECK(error("group_size = 4").find("switch has no groups") != std::string::npos);
  CHECK(error("stragglers = [{ late = 3 }]").find("key 'topology.stragglers[0]': needs a `rank`") != std::string::npos);
  CHECK(error("overrides = [{ link = \"rank1\" }]").find("gives no `preset`, `bandwidth` or `latency`") !=
        std::string::npos);
  CHECK(error("speed = 3").find("key 'topology.speed': unknown key") != std::string::npos);
  CHECK(error("arrange = \"nodes\"") == "t.toml:3:11: key 'topology.arrange': unknown arrangement 'nodes' (use "
                                          "algorithm topology both)");
}

namespace {
std::string csv_header(const std::string& csv) { return csv.substr(0, csv.find('\n')); }
}  // namespace

TEST_CASE("a JSON trace with predictions round-trips byte for byte") {
  RunRequest request;
  request.spec = {Collective::all_reduce, 4, 1000, DataType::f32, ReduceOp::sum, 0, false};
  request.algorithm = "direct";
  RunResult r = run_collective(request, *make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {}}));
  TopologyConfig ring;
  ring.kind = TopologyKind::ring;
  ring.latency_rule = LatencyRule::delay;  // written, and read back
  predict_run(r, ring);
  const Trace t = make_trace(r);
  CHECK(trace_to_json(t).find("\"latency_rule\": \"delay\"") != std::string::npos);
  REQUIRE(t.predicted.has_value());
  CHECK(t.predicted->closed_form == "(N-1)(α + nβ + nγ)");
  CHECK(t.records.at(0).predicted_end_ns.has_value());
  const std::string json = trace_to_json(t);
  CHECK(trace_to_json(parse_trace_json(json, "t.json")) == json);
  CHECK(parse_trace_json(json, "t.json").predicted == t.predicted);
  CHECK(csv_header(trace_to_csv(t)).find(",predicted_begin_ns,predicted_end_ns") != std::string::npos);
}

// split_latency_bandwidth (timing_model.h): the same schedule predicted with only α, and
// with only β, γ and δ.
TEST_CASE("the latency and bandwidth parts of a prediction") {
  const AlgorithmInfo* ring = find_algorithm(Collective::all_reduce, "ring");
  REQUIRE(ring != nullptr);
  for (int ranks : {2, 4, 7, 16}) {
    CAPTURE(ranks);
    const CollectiveSpec spec = spec_for(*ring, ranks, {}, 4096);
    const Simulated s = simulate(spec, "ring", {}, switch_config());
    const CostSplit split = split_latency_bandwidth(s.schedule, s.graph, s.model.topology);
    // The ring's closed form with α = 0, and with β = γ = 0, computed here:
    // 2(N-1)/N·nβ + (N-1)/N·nγ and 2(N-1)α.
    const double N = ranks, n = static_cast<double>(spec.count) * 4;
    CHECK(split.bandwidth_ns == doctest::Approx(2 * (N - 1) / N * n / 450 + (N - 1) / N * n / 1117).epsilon(1e-9));
    CHECK(split.latency_ns == doctest::Approx(2 * (N - 1) * 600).epsilon(1e-9));
    CHECK(s.model.prediction.total_ns >= std::max(split.latency_ns, split.bandwidth_ns));
  }
  // Links without latency: the latency part is 0 and the bandwidth part is the whole time.
  TopologyConfig no_latency = switch_config();
  no_latency.latency_us = 0.0;
  for (const char* algorithm : {"ring", "nccl_tree", "double_binary_tree"}) {
    CAPTURE(algorithm);
    const CollectiveSpec spec{Collective::all_reduce, 8, 1 << 16, DataType::f32, ReduceOp::sum, 0, false};
    const Simulated s = simulate(spec, algorithm, {}, no_latency);
    const CostSplit split = split_latency_bandwidth(s.schedule, s.graph, s.model.topology);
    CHECK(split.latency_ns == 0);
    CHECK(split.bandwidth_ns == doctest::Approx(s.model.prediction.total_ns));
  }
  // A straggler's late start is neither: it stays in both parts.
  TopologyConfig late = switch_config();
  late.stragglers.push_back({1, 50.0, 1.0, "--late 1=50"});
  const CollectiveSpec spec{Collective::all_reduce, 4, 1 << 16, DataType::f32, ReduceOp::sum, 0, false};
  const Simulated s = simulate(spec, "ring", {}, late);
  const CostSplit split = split_latency_bandwidth(s.schedule, s.graph, s.model.topology);
  CHECK(split.latency_ns >= 50'000);
  CHECK(split.bandwidth_ns >= 50'000);
}

namespace {

// An all-gather of 2 ranks written by hand: rank 0 sends its two halves to rank 1 in two
// steps, the first half on channel `first`, the second on channel `second`. The halves are
// different data, so nothing orders the two steps but the link.
Schedule two_halves(int channels, int first, int second) {
  const CollectiveSpec spec{Collective::all_gather, 2, 4096, DataType::f32, ReduceOp::sum, 0, false};
  ScheduleBuilder b(spec, "halves");
  b.set_channels(channels);
  for (int r = 0; r < 2; ++r) b.pre_copy({r, BufferKind::input, 0, 4096}, {r, BufferKind::output, 4096u * r, 4096});
  b.step("first half");
  b.add(Action::copy, 0, {0, BufferKind::input, 0, 2048}, {1, BufferKind::output, 0, 2048}, first);
  b.add(Action::copy, 1, {1, BufferKind::input, 0, 2048}, {0, BufferKind::output, 4096, 2048}, first);
  b.step("second half");
  b.add(Action::copy, 0, {0, BufferKind::input, 2048, 2048}, {1, BufferKind::output, 2048, 2048}, second);
  b.add(Action::copy, 1, {1, BufferKind::input, 2048, 2048}, {0, BufferKind::output, 6144, 2048}, second);
  return std::move(b).finish();
}

double predicted_ns(const Schedule& s, const TopologyConfig& config) {
  return run_model(s, derive_dependencies(s), config).prediction.total_ns;
}

}  // namespace

TEST_CASE("channels: each has its share of every link, and transfers on different channels run side by side") {
  const Schedule one = two_halves(1, 0, 0), apart = two_halves(2, 0, 1), idle = two_halves(2, 0, 0);
  check_schedule(one), check_schedule(apart), check_schedule(idle);
  const ModelRun m = run_model(one, derive_dependencies(one), switch_config());
  const CostParams c = cost_params(m.topology);
  const double half = 2048 * 4;  // bytes
  // One channel: the two halves queue on the link, each paying α.
  CHECK(m.prediction.total_ns == doctest::Approx(2 * (c.alpha_ns + half * c.beta_ns_per_byte)).epsilon(1e-12));
  // Two channels, one half on each: both at once at half the bandwidth; α once.
  CHECK(predicted_ns(apart, switch_config()) ==
        doctest::Approx(c.alpha_ns + 2 * half * c.beta_ns_per_byte).epsilon(1e-12));
  // Two channels, both halves on channel 0: the other channel's share of the link is lost.
  CHECK(predicted_ns(idle, switch_config()) ==
        doctest::Approx(2 * (c.alpha_ns + 2 * half * c.beta_ns_per_byte)).epsilon(1e-12));
  // The links' busy time counts both lanes at their share: the time the whole link needed.
  const ModelRun a = run_model(apart, derive_dependencies(apart), switch_config());
  REQUIRE_FALSE(a.prediction.busiest.empty());
  CHECK(a.prediction.busiest.front().busy_ns == doctest::Approx(2 * half * c.beta_ns_per_byte + c.alpha_ns).epsilon(1e-12));
}

TEST_CASE("a schedule spread over channels moves the same data, and its time stays that of its links") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 4 * 4096, DataType::f32, ReduceOp::sum, 0, false};
  const Schedule ring = build_schedule(spec, "ring", {});
  for (int channels : {2, 4}) {
    INFO("channels ", channels);
    const Schedule spread = spread_over_channels(ring, channels);
    CHECK(spread.channels == channels);
    CHECK(spread.transfers.size() == ring.transfers.size() * static_cast<std::size_t>(channels));
    CHECK_NOTHROW(check_schedule(spread));
    // Bandwidth bound on a switch: every piece takes α + (b/k)·kβ = α + bβ, all at once, so
    // the ring's time is unchanged (collsim has no per-channel limit of an SM's copy rate).
    TopologyConfig config = switch_config();
    CHECK(predicted_ns(spread, config) == doctest::Approx(predicted_ns(ring, config)).epsilon(1e-9));
  }
  CHECK(testing::input_error([&] { (void)spread_over_channels(ring, 3); }).find("equal pieces") != std::string::npos);
  CHECK(testing::input_error([&] { (void)spread_over_channels(spread_over_channels(ring, 2), 2); })
            .find("already spreads") != std::string::npos);
  CHECK(testing::input_error([&] { (void)spread_over_channels(ring, kMaxChannels + 1); }).find("1 to 32") !=
        std::string::npos);
}

TEST_CASE("latency as delay: S messages in a row on one link pay one α, and at most 8 are on their way at once") {
  // A chain broadcast on 2 ranks: S slices, one after the other, all on rank 0's link.
  TopologyConfig c = switch_config();
  c.latency_us = 10;
  const std::uint64_t count = 16u << 20;  // 64 MiB of f32
  const CollectiveSpec spec{Collective::broadcast, 2, count, DataType::f32, ReduceOp::sum, 0, false};
  const double bytes_ns = 4.0 * static_cast<double>(count) / 450;  // at 450 GB/s = bytes per ns
  for (const int slices : {1, 8, 32}) {
    CAPTURE(slices);
    const AlgorithmOptions o = options([&](AlgorithmOptions& x) { x.slices = slices; });
    c.latency_rule = LatencyRule::message;  // Hockney: every slice holds the link for its α
    CHECK(simulate(spec, "chain", o, c).model.prediction.total_ns == doctest::Approx(bytes_ns + slices * 10'000.0));
    c.latency_rule = LatencyRule::delay;  // α once: the link carries the next slice's bytes meanwhile
    CHECK(simulate(spec, "chain", o, c).model.prediction.total_ns == doctest::Approx(bytes_ns + 10'000.0));
  }
  // Slices whose bytes take far less than α: 8 are on their way, the 9th waits for the 1st to
  // arrive, so 32 slices take about 32 / 8 = 4 latencies.
  const CollectiveSpec tiny{Collective::broadcast, 2, 32 * 64, DataType::f32, ReduceOp::sum, 0, false};
  const AlgorithmOptions o32 = options([](AlgorithmOptions& x) { x.slices = 32; });
  const double t = simulate(tiny, "chain", o32, c).model.prediction.total_ns;
  CHECK(t > 4 * 10'000.0);
  CHECK(t < 4 * 10'000.0 + 100);
  // A ring's steps each wait for the one before: both rules give the same time, the closed form's.
  const CollectiveSpec ring{Collective::all_reduce, 8, 8u << 20, DataType::f32, ReduceOp::sum, 0, false};
  c.latency_rule = LatencyRule::message;
  const double hockney = simulate(ring, "ring", {}, c).model.prediction.total_ns;
  c.latency_rule = LatencyRule::delay;
  CHECK(simulate(ring, "ring", {}, c).model.prediction.total_ns == doctest::Approx(hockney));
  // Two nodes of 8 (NVLink inside, 10 us Ethernet between): the ring's latency part counts
  // the node crossings on a chunk's way twice round the ring (2 a lap: 4 of 30 steps), as
  // NCCL's tuner counts network steps apart (nInterSteps); per message, every step's network
  // message holds the network link: 30 network latencies.
  TopologyConfig nodes;
  nodes.kind = TopologyKind::two_level;
  nodes.group_size = 8;
  nodes.link = "nvlink4";
  nodes.uplink = "eth100";
  const CollectiveSpec wide{Collective::all_reduce, 16, 16u << 10, DataType::f32, ReduceOp::sum, 0, false};
  const auto latency_part = [&](LatencyRule rule) {
    nodes.latency_rule = rule;
    const Simulated s = simulate(wide, "ring", {}, nodes);
    return split_latency_bandwidth(s.schedule, s.graph, s.model.topology).latency_ns;
  };
  CHECK(latency_part(LatencyRule::delay) == doctest::Approx(4 * 10'000.0 + 26 * 600.0));
  CHECK(latency_part(LatencyRule::message) == doctest::Approx(30 * 10'000.0));
  // A file's key, and a bad one named by its position; without the key, delay.
  CHECK(parse_scenario("format = 1\n[topology]\nlatency_rule = \"message\"\n", "d.toml").topology.latency_rule ==
        LatencyRule::message);
  CHECK(parse_scenario("format = 1\n[topology]\nkind = \"ring\"\n", "d.toml").topology.latency_rule ==
        LatencyRule::delay);
  CHECK(testing::input_error([] { parse_scenario("format = 1\n[topology]\nlatency_rule = \"hockney\"\n", "d.toml"); })
            .starts_with("d.toml:3:16: key 'topology.latency_rule': unknown latency rule 'hockney'"));
  // The summary says which rule the prediction used.
  CHECK(describe(make_topology(c, 8, 8)).find("latency as delay (8 messages in flight per link)") != std::string::npos);
  c.latency_rule = LatencyRule::message;
  CHECK(describe(make_topology(c, 8, 8)).find("latency per message, holding the link") != std::string::npos);
}
