// The symmetric timing model (predict_symmetric: one period of ranks predicted, the rest
// known by symmetry) against the whole one (predict): for every registered algorithm that
// says it has a rotation, at every rank count, size, slicing and topology below that turns
// onto itself, every transfer of the whole schedule begins and ends exactly when the one
// of the first period in its place does, and the total, the links used, the busiest links
// and the schedule's totals are the whole's.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "sim/model/symmetric_model.h"
#include "sim/schedule/algorithm.h"
#include "test_support.h"

using namespace collsim;
using collsim::testing::base_model_cases;
using collsim::testing::ModelCase;

namespace {

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> cases = base_model_cases();
  const TopologyConfig two_level = cases.back().config;  // nodes of 4, LL
  TopologyConfig slow_network = two_level;
  slow_network.protocol = Protocol::simple;
  slow_network.uplink = "eth100";
  slow_network.latency_rule = LatencyRule::message;
  cases.push_back({"two_level of 4, Ethernet between the nodes, Simple, latency per message", slow_network});
  TopologyConfig nic = two_level;
  nic.nic_per_gpu = true;
  nic.group_size = 2;
  cases.push_back({"two_level of 2, a network link per GPU", nic});
  TopologyConfig pairs;
  pairs.kind = TopologyKind::fully_connected;
  cases.push_back({"fully connected", pairs});
  TopologyConfig pcie;
  pcie.kind = TopologyKind::pcie_tree;
  pcie.group_size = 2;
  cases.push_back({"PCIe tree of 2 per switch", pcie});
  TopologyConfig automatic = two_level;
  automatic.protocol = Protocol::automatic;
  cases.push_back({"two_level of 4, protocol auto", automatic});
  return cases;
}

// A transfer as every period has it: its step, its sender's place in the period, how far
// along the ranks it goes and its channel.
using Place = std::tuple<int, int, int, int>;
Place place(const Transfer& t, int period, int ranks) {
  return {t.step, t.src % period, ((t.dst - t.src) % ranks + ranks) % ranks, t.channel};
}

void check_equal(const CollectiveSpec& spec, const AlgorithmInfo& a, const AlgorithmOptions& options,
                 const RankRotation& rotation, const ModelCase& mc) {
  const Schedule whole = build_algorithm_schedule(spec, a.name, options);
  const ModelRun expected_run = run_model(whole, derive_dependencies(whole), mc.config);
  const Prediction& expected = expected_run.prediction;
  const SymmetricModelRun got = run_model_symmetric([&] { return build_algorithm_schedule(spec, a.name, options); },
                                                    rotation, mc.config, spec.ranks, whole.total_ranks);
  INFO(fmt::format("{} {} on {} ranks, count {}, {} slices{}, {}: period {}", to_string(spec.collective), a.name,
                   spec.ranks, spec.count, options.slices, spec.in_place ? ", in place" : "", mc.name, got.period));
  CHECK(got.model.topology.protocol == expected_run.topology.protocol);
  CHECK(got.model.prediction.total_ns == expected.total_ns);
  CHECK(got.model.prediction.links_used == expected.links_used);
  REQUIRE(got.model.prediction.busiest.size() == expected.busiest.size());
  for (std::size_t i = 0; i < expected.busiest.size(); ++i) {
    CHECK(got.model.prediction.busiest[i].link == expected.busiest[i].link);
    CHECK(got.model.prediction.busiest[i].busy_ns == expected.busiest[i].busy_ns);
  }
  const ScheduleTotals totals = schedule_totals(whole);
  CHECK(got.totals.transfers == totals.transfers);
  CHECK(got.totals.steps == totals.steps);
  CHECK(got.totals.communication_steps == totals.communication_steps);
  CHECK(got.totals.bytes_sent == totals.bytes_sent);
  CHECK(got.totals.bytes_received == totals.bytes_received);
  CHECK(got.totals.step_transfers == totals.step_transfers);
  CHECK(got.totals.step_bytes == totals.step_bytes);
  CHECK(got.schedule.step_labels == whole.step_labels);
  CHECK(got.schedule.transfers.size() * static_cast<std::size_t>(spec.ranks / got.period) == whole.transfers.size());

  std::map<Place, std::size_t> of_period;
  for (std::size_t i = 0; i < got.schedule.transfers.size(); ++i)
    of_period.emplace(place(got.schedule.transfers[i], got.period, spec.ranks), i);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < whole.transfers.size(); ++i) {
    const auto j = of_period.find(place(whole.transfers[i], got.period, spec.ranks));
    const bool same = j != of_period.end() && got.model.prediction.begin_ns[j->second] == expected.begin_ns[i] &&
                      got.model.prediction.end_ns[j->second] == expected.end_ns[i];
    if (!same && differ++ == 0)
      FAIL_CHECK(fmt::format("transfer {} (step {}, {} -> {}): whole {}..{} ns, {}", i, whole.transfers[i].step + 1,
                             whole.transfers[i].src, whole.transfers[i].dst, expected.begin_ns[i], expected.end_ns[i],
                             j == of_period.end() ? std::string("none in the period")
                                                  : fmt::format("its period's {}..{} ns",
                                                                got.model.prediction.begin_ns[j->second],
                                                                got.model.prediction.end_ns[j->second])));
  }
  CHECK(differ == 0);
}

}  // namespace

TEST_CASE("the symmetric model equals the whole one, transfer by transfer, for every algorithm with a rotation") {
  const std::vector<ModelCase> cases = model_cases();
  int algorithms = 0;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (!a.rotation) continue;
    ++algorithms;
    int compared = 0;
    for (int n : {1, 2, 3, 4, 6, 8, 12, 16, 24}) {
      for (std::uint64_t per_rank : {1, 250}) {
        for (bool in_place : {false, true}) {
          CollectiveSpec spec{a.collective, n, per_rank * static_cast<std::uint64_t>(n), DataType::f32, ReduceOp::sum, 0};
          spec.in_place = in_place;
          std::vector<AlgorithmOptions> options{{}};
          if (a.knobs.slices) options.push_back({.slices = 3});
          if (a.knobs.ranks_per_node) options.push_back({.ranks_per_node = 2}), options.push_back({.ranks_per_node = 4});
          for (const AlgorithmOptions& o : options) {
            try {
              validate_request(spec, &a, o);
            } catch (const InputError&) {
              continue;  // e.g. not in place
            }
            const std::optional<RankRotation> rotation = a.rotation(spec, o);
            REQUIRE(rotation.has_value());
            for (const ModelCase& mc : cases) {
              if (!symmetric_period(make_topology(mc.config, n, n), *rotation)) continue;
              check_equal(spec, a, o, *rotation, mc);
              ++compared;
            }
          }
        }
      }
    }
    INFO(fmt::format("{} {}", to_string(a.collective), a.name));
    CHECK(compared > 100);
  }
  CHECK(algorithms == 6);  // the rings of all-reduce, all-gather and reduce-scatter, the hierarchical all-reduce,
                           // PAT's all-gather and reduce-scatter
}

TEST_CASE("a 512-rank ring on nodes of 8 predicted from one node equals the whole prediction") {
  const CollectiveSpec spec{Collective::all_reduce, 512, 512 * 64, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmInfo& ring = *find_algorithm(Collective::all_reduce, "ring");
  TopologyConfig nodes;
  nodes.kind = TopologyKind::two_level;
  nodes.group_size = 8;
  check_equal(spec, ring, {.slices = 2}, *ring.rotation(spec, {}), {"two_level of 8", nodes});
}

TEST_CASE("ranks that start late in a pattern keep a period: the one after which the pattern repeats") {
  // Ranks 1, 5, 9 and 13 start 5 µs late and compute twice as slowly: a period of 4 on a
  // switch, where the links alone repeat every rank.
  TopologyConfig late;
  for (int r = 1; r < 16; r += 4) late.stragglers.push_back({r, 5.0, 2.0, ""});
  const RankRotation by_one{.ranks = 1, .elements = {1, 1, 0}};
  CHECK(symmetric_period(make_topology(late, 16, 16), by_one) == 4);
  const CollectiveSpec spec{Collective::all_reduce, 16, 16 * 100, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmInfo& ring = *find_algorithm(Collective::all_reduce, "ring");
  check_equal(spec, ring, {}, *ring.rotation(spec, {}), {"switch, ranks 1, 5, 9, 13 late and slow", late});
  const AlgorithmInfo& hierarchical = *find_algorithm(Collective::all_reduce, "hierarchical");
  check_equal(spec, hierarchical, {.ranks_per_node = 2}, *hierarchical.rotation(spec, {.ranks_per_node = 2}),
              {"switch, ranks 1, 5, 9, 13 late and slow", late});
  late.stragglers.pop_back();  // rank 13 on time: the pattern does not repeat
  CHECK_FALSE(symmetric_period(make_topology(late, 16, 16), by_one).has_value());
}

TEST_CASE("no symmetry where the chunks differ or the topology does not turn onto itself") {
  const AlgorithmInfo& ring = *find_algorithm(Collective::all_reduce, "ring");
  CHECK_FALSE(ring.rotation({Collective::all_reduce, 8, 1001, DataType::f32, ReduceOp::sum, 0}, {}).has_value());
  CHECK(ring.rotation({Collective::all_reduce, 8, 1000, DataType::f32, ReduceOp::sum, 0}, {}).has_value());
  TopologyConfig late;
  late.stragglers.push_back({3, 5.0, 1.0, ""});
  const RankRotation by_one{.ranks = 1, .elements = {1, 1, 0}};
  CHECK_FALSE(symmetric_period(make_topology(late, 8, 8), by_one).has_value());
  TopologyConfig slow;
  slow.stragglers.push_back({3, 0.0, 2.0, ""});
  CHECK_FALSE(symmetric_period(make_topology(slow, 8, 8), by_one).has_value());
  TopologyConfig overridden;
  overridden.overrides.push_back({"rank2", 10.0, std::nullopt, "--link-override"});
  CHECK_FALSE(symmetric_period(make_topology(overridden, 8, 8), by_one).has_value());
  TopologyConfig nodes;
  nodes.kind = TopologyKind::two_level;
  nodes.group_size = 4;
  CHECK_FALSE(symmetric_period(make_topology(nodes, 10, 10), by_one).has_value());  // nodes of 4, 4 and 2
  CHECK(symmetric_period(make_topology(nodes, 12, 12), by_one) == 4);
  // A hierarchical all-reduce turns by a node of its own (6 ranks): on nodes of 4 the two
  // repeat every 12 ranks, which 18 is not a multiple of.
  CHECK(symmetric_period(make_topology(nodes, 24, 24), RankRotation{.ranks = 6}) == 12);
  CHECK_FALSE(symmetric_period(make_topology({}, 18, 18), RankRotation{.ranks = 12}).has_value());
  TopologyConfig ring_links;
  ring_links.kind = TopologyKind::ring;
  CHECK_FALSE(symmetric_period(make_topology(ring_links, 8, 8), by_one).has_value());  // routes through other ranks
  TopologyConfig star;
  star.kind = TopologyKind::star;
  CHECK_FALSE(symmetric_period(make_topology(star, 8, 9), by_one).has_value());  // a server of its own
}

TEST_CASE("a rotation that is not the schedule's is caught, not predicted") {
  // Chunks of 100 turned by 150 elements a rank: the second rank's chunk crosses the end.
  const CollectiveSpec spec{Collective::all_reduce, 8, 800, DataType::f32, ReduceOp::sum, 0};
  CHECK_THROWS_WITH_AS(predict_symmetric([&] { return build_algorithm_schedule(spec, "ring", {}); },
                                         RankRotation{.ranks = 1, .elements = {150, 150, 0}}, make_topology({}, 8, 8)),
                       doctest::Contains("crosses the end of its block"), std::logic_error);
}

TEST_CASE("16 384 ranks predicted from one node: a period's transfers, the whole's totals") {
  const CollectiveSpec spec{Collective::all_reduce, 16384, 16384 * 16, DataType::f32, ReduceOp::sum, 0};
  TopologyConfig nodes;
  nodes.kind = TopologyKind::two_level;
  nodes.group_size = 8;
  const SymmetricModelRun m = run_model_symmetric(
      [&] { return build_algorithm_schedule(spec, "ring", {}, kMaxStreamedRanks); },
      *find_algorithm(Collective::all_reduce, "ring")->rotation(spec, {}), nodes, spec.ranks, spec.ranks);
  CHECK(m.period == 8);
  CHECK(m.schedule.transfers.size() == 8u * 2 * 16383);
  CHECK(m.totals.transfers == 16384ull * 2 * 16383);
  CHECK(m.totals.bytes_sent[12345] == 2ull * 16383 * 16 * 4);
  CHECK(m.model.prediction.total_ns > 0);
}
