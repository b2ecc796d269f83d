// The GUI's view model, tested without OpenGL: layouts, packets in flight, each cell's
// contribution set after every step (against the schedule checker's symbolic sets),
// timeline culling and folding, the playhead, values, loading; the run editor and its
// export, cancelling a load, and two runs compared on one clock.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "app/views/export.h"
#include "app/views/loader.h"
#include "app/views/playback.h"
#include "app/views/run_editor.h"
#include "app/views/timeline_model.h"
#include "app/views/values.h"
#include "app/views/view_model.h"
#include "sim/run/msccl_import.h"
#include "sim/schedule/algorithm.h"
#include "sim/check/checker.h"
#include "sim/lesson/scenario.h"
#include "sim/lesson/suggestion.h"
#include "sim/model/cost_formulas.h"
#include "sim/model/timing_model.h"
#include "app/views/numbers.h"
#include "app/views/shading.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

RunRequest request(Collective c, std::string algorithm, int ranks, std::uint64_t count, AlgorithmOptions options = {}) {
  RunRequest r;
  r.spec.collective = c;
  r.spec.ranks = ranks;
  r.spec.count = count;
  r.algorithm = std::move(algorithm);
  r.options = resolve_options(r.spec, r.algorithm, options);
  return r;
}

// A trace of a schedule that never ran: steps only, unless times are given.
Trace trace_of(const RunRequest& r) {
  Trace t;
  t.request = r;
  t.schedule = build_schedule(r.spec, r.algorithm, r.options);
  return t;
}

LoadRequest file_request(const std::filesystem::path& file) {
  LoadRequest r;
  r.file = file;
  return r;
}

LoadRequest run_request(const RunRequest& rq, std::string title = "", TopologyKind kind = TopologyKind::switch_fabric,
                        Arrangement arrange = Arrangement::algorithm) {
  LoadRequest r;
  r.run = rq;
  r.title = std::move(title);
  r.topology.kind = kind;
  r.topology.arrange = arrange;
  return r;
}

float distance(Vec2 a, Vec2 b) { return std::hypot(a.x - b.x, a.y - b.y); }

// The checker's sets per element, replayed naively from its observer: one snapshot of
// every element of every buffer after each step (and the final state).
struct NaiveReplay {
  // (rank, buffer) -> per element: written?, contributions
  using Buffer = std::vector<std::pair<bool, Contributions>>;
  std::map<std::pair<int, int>, Buffer> now;
  std::vector<std::map<std::pair<int, int>, Buffer>> after_step;  // index k: after k steps

  explicit NaiveReplay(const Schedule& s) {
    int step = 0;
    auto snapshot_until = [&](int k) {
      while (static_cast<int>(after_step.size()) <= k) after_step.push_back(now);
    };
    check_schedule(s, [&](std::size_t transfer, const Region& piece, const Contributions* c) {
      if (transfer != kBeforeTransfers && transfer != kAfterTransfers) {
        const int k = s.transfers[transfer].step;
        if (k != step || after_step.empty()) snapshot_until(k);  // steps 0..k-1 are complete
        step = k;
      }
      if (transfer == kAfterTransfers) snapshot_until(s.step_count() - 1);
      Buffer& b = now[{piece.rank, static_cast<int>(piece.buffer)}];
      if (b.size() < piece.end()) b.resize(piece.end());
      for (std::uint64_t i = piece.offset; i < piece.end(); ++i) b[i] = {c != nullptr, c ? *c : Contributions()};
    });
    snapshot_until(s.step_count());
    after_step.back() = now;  // the final state includes the post-operations
  }
};

// Every element of every cell agrees with the naive replay after every step.
void check_cells_against_checker(const RunRequest& r) {
  CAPTURE(r.algorithm);
  CAPTURE(to_string(r.spec.collective));
  const ViewModel vm(trace_of(r));
  const NaiveReplay naive(vm.schedule());
  const BufferHistory& h = vm.buffers();
  REQUIRE(naive.after_step.size() >= static_cast<std::size_t>(vm.step_count()) + 1);
  for (int k = 0; k <= vm.step_count(); ++k) {
    CAPTURE(k);
    const double t = k == vm.step_count() ? vm.clock(ClockKind::steps).finish : static_cast<double>(k);
    for (const BufferRow& row : h.rows()) {
      const auto& buffer = naive.after_step[static_cast<std::size_t>(k)].at({row.rank, static_cast<int>(row.buffer)});
      for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
        const CellChange& state = vm.cell_state(ClockKind::steps, c, t);
        for (std::uint64_t e = h.cells()[c].begin; e < h.cells()[c].end; ++e) {
          CHECK(state.written == buffer[e].first);
          if (state.written) CHECK(state.contributions == buffer[e].second);
        }
      }
    }
  }
}

}  // namespace

// The layout of `s` drawn in an AlgorithmLayout built here (what an algorithm file gives).
Layout pattern_layout(const Schedule& s, AlgorithmLayout a) { return make_layout(s, layout_for_algorithm(std::move(a))); }

Schedule schedule_of(Collective c, const std::string& algorithm, int ranks, std::uint64_t count, AlgorithmOptions o = {}) {
  return trace_of(request(c, algorithm, ranks, count, o)).schedule;
}

bool inside(const NodeBox& b, Vec2 p) { return p.x > b.min.x && p.x < b.max.x && p.y > b.min.y && p.y < b.max.y; }

TEST_CASE("gui layout: a ring puts its ranks on a circle in the algorithm's order, the first at the top, clockwise") {
  const Schedule s = schedule_of(Collective::all_reduce, "ring", 4, 8);
  const Layout l = pattern_layout(s, {LayoutShape::ring, {0, 1, 2, 3}, {}, {}, 0});
  CHECK(l.kind == LayoutKind::ring);
  REQUIRE(l.nodes.size() == 4);
  CHECK(l.nodes[0].x == doctest::Approx(0));
  CHECK(l.nodes[0].y == doctest::Approx(-0.8));
  CHECK(l.nodes[1].x == doctest::Approx(0.8));  // y points down: clockwise goes right first
  for (int r = 0; r < 4; ++r) CHECK(distance(l.nodes[r], {}) == doctest::Approx(0.8));
  CHECK(l.links.size() == 4);  // r -- r+1
  CHECK(route(l, 0, 1).nodes.size() == 2);

  // Another order: 0 2 1 3 around the circle, and the arcs join neighbours in that order.
  const Layout o = pattern_layout(s, {LayoutShape::ring, {0, 2, 1, 3}, {}, {}, 0});
  CHECK(o.nodes[2].x == doctest::Approx(0.8));
  CHECK(o.nodes[1].y == doctest::Approx(0.8));
  CHECK(is_ring_arc(o, 0, 2));
  CHECK(is_ring_arc(o, 3, 0));
  CHECK_FALSE(is_ring_arc(o, 0, 1));
  // A chain is the same circle, open between its ends.
  const Layout chain = pattern_layout(s, {LayoutShape::chain, {0, 1, 2, 3}, {}, {}, 0});
  CHECK(chain.kind == LayoutKind::chain);
  CHECK(chain.links.size() == 3);
  CHECK_FALSE(is_ring_arc(chain, 3, 0));
}

TEST_CASE("gui layout: a star has its hub ranks at the centre, the others on an arc, every transfer direct") {
  const Schedule s = schedule_of(Collective::all_reduce, "parameter_server", 6, 12);
  const Layout l = pattern_layout(s, {LayoutShape::star, {}, {}, {6}, 0});
  CHECK(l.kind == LayoutKind::star);
  REQUIRE(l.nodes.size() == 7);
  for (int w = 0; w < 6; ++w) {
    CHECK(distance(l.nodes[w], {}) == doctest::Approx(0.8));
    CHECK_FALSE(l.is_server[w]);
  }
  CHECK(l.is_server[6]);
  CHECK(distance(l.nodes[6], {}) < 0.2f);
  // The arc opens at the bottom: no worker lies straight below the centre.
  for (int w = 0; w < 6; ++w) CHECK(l.nodes[w].y < 0.8f * 0.6f);
  for (const Transfer& t : s.transfers) CHECK(route(l, t.src, t.dst).nodes.size() == (t.is_local() ? 0u : 2u));
}

TEST_CASE("gui layout: colocated servers are the star's hubs, flagged as servers") {
  AlgorithmOptions o;
  o.servers = 2;
  o.colocated = true;
  const Schedule s = schedule_of(Collective::all_reduce, "parameter_server", 4, 8, o);
  const Layout l = pattern_layout(s, {LayoutShape::star, {}, {}, {0, 1}, 0});
  REQUIRE(l.nodes.size() == 4);
  CHECK(l.is_server[0]);
  CHECK(l.is_server[1]);
  CHECK_FALSE(l.is_server[2]);
  CHECK(distance(l.nodes[0], {}) < 0.4f);
  CHECK(distance(l.nodes[2], {}) == doctest::Approx(0.8));
}

// A double binary tree's two trees over 8 ranks: the first rooted at 0, the second its mirror.
std::vector<TreeShape> two_trees() {
  const std::vector<int> first = {-1, 0, 0, 1, 1, 2, 2, 3};
  std::vector<int> second(8);
  for (int r = 0; r < 8; ++r) second[static_cast<std::size_t>(r)] = first[static_cast<std::size_t>(7 - r)] < 0 ? -1 : 7 - first[static_cast<std::size_t>(7 - r)];
  return {{0, first}, {7, second}};
}

TEST_CASE("gui layout: trees are drawn as trees, root at the top, children below their parents, both trees' edges") {
  const Schedule s = schedule_of(Collective::all_reduce, "double_binary_tree", 8, 16);
  const std::vector<TreeShape> trees = two_trees();
  const Layout l = pattern_layout(s, {LayoutShape::trees, {}, trees, {}, 0});
  CHECK(l.kind == LayoutKind::trees);
  REQUIRE(l.nodes.size() == 8);
  for (int r = 1; r < 8; ++r) {
    const int p = trees[0].parent[static_cast<std::size_t>(r)];
    CHECK(l.nodes[r].y > l.nodes[p].y);  // y points down
    CHECK(l.nodes[r].y > l.nodes[0].y);
  }
  CHECK(l.nodes[3].y == doctest::Approx(l.nodes[4].y));  // same depth, same row
  CHECK(l.nodes[3].x < l.nodes[4].x);                    // siblings side by side
  // Every edge of both trees is a link, tagged with its tree (the second drawn in another style).
  REQUIRE(l.link_tree.size() == l.links.size());
  for (std::size_t k = 0; k < 2; ++k)
    for (int r = 0; r < 8; ++r) {
      const int p = trees[k].parent[static_cast<std::size_t>(r)];
      if (p < 0) continue;
      bool found = false;
      for (std::size_t i = 0; i < l.links.size(); ++i)
        found = found || (l.links[i] == std::pair{std::min(p, r), std::max(p, r)} && l.link_tree[i] == static_cast<int>(k));
      CHECK_MESSAGE(found, "tree ", k, " edge ", p, "-", r);
    }
  CHECK(std::count(l.link_tree.begin(), l.link_tree.end(), 1) == 7);
}

TEST_CASE("gui layout: the view model arranges a schedule by sim's algorithm_layout, not by its name") {
  for (const char* name : {"double_binary_tree", "ring", "parameter_server", "direct", "hierarchical"}) {
    const RunRequest r = request(Collective::all_reduce, name, 8, 16);
    const ViewModel vm(trace_of(r));
    const AlgorithmLayout want = algorithm_layout(r.spec, r.algorithm, r.options);
    const LayoutChoice& got = vm.arrangement();
    CAPTURE(name);
    CHECK(got.algorithm.shape == want.shape);
    CHECK(got.algorithm.order == want.order);
    CHECK(got.algorithm.hubs == want.hubs);
    CHECK(got.algorithm.trees.size() == want.trees.size());
    CHECK(vm.layout().kind == layout_for_algorithm(want).kind);
    if (std::string_view(name) == "double_binary_tree") {  // once drawn as a star around the switch
      REQUIRE(want.shape == LayoutShape::trees);
      REQUIRE(want.trees.size() == 2);
      CHECK(vm.layout().kind == LayoutKind::trees);
      // Both trees drawn: each contributes its 7 edges over 8 ranks, tagged with its index.
      CHECK(std::count(vm.layout().link_tree.begin(), vm.layout().link_tree.end(), 0) == 7);
      CHECK(std::count(vm.layout().link_tree.begin(), vm.layout().link_tree.end(), 1) == 7);
    }
  }
}

TEST_CASE("gui layout: all-pairs and shift patterns sit around a circle, every transfer straight from sender to receiver") {
  const Schedule s = schedule_of(Collective::all_reduce, "direct", 5, 10);
  for (const LayoutShape shape : {LayoutShape::all_pairs, LayoutShape::shifts}) {
    const Layout l = pattern_layout(s, {shape, {}, {}, {}, 0});
    CHECK(l.kind == LayoutKind::circle);
    REQUIRE(l.nodes.size() == 5);
    CHECK(l.hub_count() == 0);
    for (int r = 0; r < 5; ++r) CHECK(distance(l.nodes[r], {}) == doctest::Approx(0.8));
    for (const Transfer& t : s.transfers) CHECK(route(l, t.src, t.dst).nodes.size() == (t.is_local() ? 0u : 2u));
  }
}

namespace {

// The view model of a run on the CPU backend with the timing model's predictions on a switch.
std::shared_ptr<ViewModel> predicted_run(Collective c, const std::string& algorithm, int ranks, std::uint64_t count,
                                         AlgorithmOptions o = {}, TopologyKind kind = TopologyKind::switch_fabric,
                                         LatencyRule rule = LatencyRule::message) {
  Progress p;
  LoadRequest r = run_request(request(c, algorithm, ranks, count, o), "", kind);
  r.topology.latency_rule = rule;
  LoadResult run = load(r, p);
  REQUIRE_MESSAGE(run.model, run.error);
  return run.model;
}

// Every pair of packets the scene draws at steps-clock time t, closer than two packet
// radii: those on their way (between 20 % and 80 % of it: nearer their ends they leave and
// enter the discs, which neighbours' packets may touch) and those queued.
std::vector<std::pair<std::uint32_t, std::uint32_t>> overlapping_packets(const ViewModel& vm, double t) {
  const Frame f = vm.frame(ClockKind::steps, t);
  std::vector<PacketSpot> spots;
  vm.packet_spots(f, spots);
  std::erase_if(spots, [](const PacketSpot& p) { return !p.queued && (p.progress < 0.2f || p.progress > 0.8f); });
  const float r = packet_radius(vm.layout());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::size_t i = 0; i < spots.size(); ++i)
    for (std::size_t j = i + 1; j < spots.size(); ++j)
      if (distance(spots[i].at, spots[j].at) < 2 * r * 0.999f) out.emplace_back(spots[i].transfer, spots[j].transfer);
  return out;
}

}  // namespace

TEST_CASE("gui layout: a hypercube puts each round's partners on one axis of a grid, one length per round") {
  for (const int n : {8, 16, 64}) {
    const Schedule s = schedule_of(Collective::all_reduce, "recursive_doubling", n, static_cast<std::uint64_t>(n));
    const Layout l = pattern_layout(s, algorithm_layout(s.spec, s.algorithm, {}));
    CAPTURE(n);
    REQUIRE(l.kind == LayoutKind::hypercube);
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    CHECK(l.links.size() == static_cast<std::size_t>(n * bits / 2));  // the hypercube's edges, no more
    std::set<std::pair<float, float>> places;
    for (const Vec2& v : l.nodes) places.insert({v.x, v.y});
    CHECK(places.size() == static_cast<std::size_t>(n));  // no two ranks on one spot
    // Round k's partners differ in bit k: on one axis (even bits across, odd bits down), all at one distance.
    int rounds = 0;
    for (int k = 0; k < s.step_count(); ++k) {
      std::set<long> lengths;
      for (const Transfer& t : s.transfers) {
        if (t.step != k || t.is_local()) continue;
        const Vec2 a = l.nodes[static_cast<std::size_t>(t.src)], b = l.nodes[static_cast<std::size_t>(t.dst)];
        const int bit = std::countr_zero(static_cast<unsigned>(t.src ^ t.dst));
        CHECK(std::popcount(static_cast<unsigned>(t.src ^ t.dst)) == 1);
        if (bit % 2 == 0) CHECK(a.y == doctest::Approx(b.y));
        else CHECK(a.x == doctest::Approx(b.x));
        lengths.insert(std::lround(distance(a, b) * 1000));
      }
      CHECK(lengths.size() <= 1);  // (a step of local work only has none)
      rounds += lengths.empty() ? 0 : 1;
    }
    CHECK(rounds == bits);
  }
}

TEST_CASE("gui layout: tree edges are the schedule's parent-child pairs, nothing else") {
  for (const char* name : {"double_binary_tree", "binomial_tree"}) {
    const RunRequest r = request(name == std::string("binomial_tree") ? Collective::broadcast : Collective::all_reduce, name, 8, 64);
    const ViewModel vm(trace_of(r));
    const Layout& l = vm.layout();
    CAPTURE(name);
    REQUIRE(l.kind == LayoutKind::trees);
    std::set<std::pair<int, int>> used, edges;
    for (const Transfer& t : vm.schedule().transfers)
      if (!t.is_local()) used.insert({std::min(t.src, t.dst), std::max(t.src, t.dst)});
    for (std::size_t i = 0; i < l.links.size(); ++i) {
      CHECK(l.link_tree[i] >= 0);  // no link outside the trees
      edges.insert(l.links[i]);
    }
    CHECK(edges == used);
  }
}

TEST_CASE("gui layout: a tree's edges go round the discs between their ends, both directions' lanes") {
  for (int ranks : {8, 16}) {
    const ViewModel vm(trace_of(request(Collective::all_reduce, "double_binary_tree", ranks, 64)));
    const Layout& l = vm.layout();
    CAPTURE(ranks);
    REQUIRE(l.kind == LayoutKind::trees);
    int bent = 0;
    for (const auto& link : l.links) {
      const int a = link.first, b = link.second;  // not a structured binding: the CHECK below captures them (clang 14)
      for (const std::vector<int>& way : {std::vector<int>{a, b}, std::vector<int>{b, a}})
        for (bool lane : {false, true}) {
          bent += !is_straight(l, way, lane) && !lane;
          for (int k = 0; k <= 20; ++k) {  // a packet on its way, from one end's disc to the other's
            const Vec2 p = point_along(l, way, packet_way(l, way, static_cast<float>(k) / 20), lane);
            for (int c = 0; c < l.ranks; ++c) {
              if (c == a || c == b) continue;
              const Vec2 n = l.nodes[static_cast<std::size_t>(c)];
              CHECK_MESSAGE(std::hypot(p.x - n.x, p.y - n.y) >= l.rank_radius + packet_radius(l), "edge ", a, "-", b, " passes over rank ", c);
            }
          }
        }
    }
    CHECK(bent > 0);  // the second tree's edges along the row of leaves (0-4 behind 2 at 8 ranks)
  }
}

TEST_CASE("gui layout: packets between two nodes pass the network hub, not over it and its name") {
  AlgorithmOptions o;
  o.ranks_per_node = 4;
  const ViewModel vm(trace_of(request(Collective::all_reduce, "hierarchical", 8, 64, o)));
  const Layout& l = vm.layout();
  REQUIRE(l.hub_count() == 1);
  const Vec2 hub = l.nodes[static_cast<std::size_t>(l.ranks)];
  int through = 0;
  for (std::uint32_t i = 0; i < vm.schedule().transfers.size(); ++i) {
    const auto path = vm.path_of(i);
    if (path.size() != 3) continue;
    ++through;
    const std::vector<int> nodes(path.begin(), path.end());
    for (int k = 0; k <= 20; ++k) {
      const Vec2 p = point_along(l, nodes, packet_way(l, nodes, static_cast<float>(k) / 20), true);
      // The hub is drawn 0.8 of a disc high each way at least, its name in it.
      CHECK_MESSAGE(std::abs(p.y - hub.y) >= 0.8f * l.rank_radius + packet_radius(l), "transfer ", i, " at ", k, "/20");
    }
  }
  CHECK(through > 0);
}

TEST_CASE("gui scene: no two packets of one step overlap, in flight or queued, in any layout") {
  struct Case {
    Collective c;
    const char* algorithm;
    int ranks;
    AlgorithmOptions options{};
  };
  const Case cases[] = {
      {Collective::all_reduce, "ring", 4},
      {Collective::all_reduce, "ring", 16},
      {Collective::all_reduce, "double_binary_tree", 8},
      {Collective::broadcast, "binomial_tree", 8},
      {Collective::all_reduce, "recursive_doubling", 8},
      {Collective::all_reduce, "rabenseifner", 16},
      {Collective::all_reduce, "recursive_doubling", 6},
      {Collective::all_to_all, "direct", 8},
      {Collective::all_to_all, "bruck", 8},
      {Collective::all_reduce, "parameter_server", 4},
      {Collective::all_reduce, "parameter_server", 4, AlgorithmOptions{0, 2, false, 0, {}}},
      {Collective::all_reduce, "hierarchical", 8},
      {Collective::barrier, "dissemination", 8},
  };
  // Under either latency rule: as delay, a link's next messages leave before the first arrives.
  for (const LatencyRule rule : kAllLatencyRules)
  for (const Case& k : cases) {
    const auto vm = predicted_run(k.c, k.algorithm, k.ranks, 4096, k.options, TopologyKind::switch_fabric, rule);
    const std::string which = fmt::format("{} {} on {} ranks, latency {}", to_string(k.c), k.algorithm, k.ranks, to_string(rule));
    CAPTURE(which);
    for (int step = 0; step < vm->step_count(); ++step)
      for (const double f : {0.05, 0.25, 0.4, 0.5, 0.6, 0.75, 0.95}) {
        const auto overlaps = overlapping_packets(*vm, step + f);
        CAPTURE(step + f);
        CHECK_MESSAGE(overlaps.empty(), overlaps.size(), " pairs overlap, the first transfers ", overlaps.empty() ? 0 : overlaps[0].first,
                      " and ", overlaps.empty() ? 0 : overlaps[0].second);
      }
  }
}

TEST_CASE("gui scene: blocks that travel together are one packet named by all their chunks (Bruck's all-to-all)") {
  // Without predictions every transfer spans its step: in round 1 (slots 1, 3, 5, 7) rank r's
  // four blocks for rank r+1 leave and arrive together.
  const ViewModel vm(trace_of(request(Collective::all_to_all, "bruck", 8, 8)));
  const int send1 = 1;  // step 2/7 (pack 1/3 is step 1)
  REQUIRE(vm.schedule().step_labels.at(send1).starts_with("send 1/3"));
  std::vector<PacketSpot> spots;
  vm.packet_spots(vm.frame(ClockKind::steps, send1 + 0.5), spots);
  REQUIRE(spots.size() == 8);  // one per rank, not 32
  for (const PacketSpot& p : spots) {
    const Transfer& t = vm.schedule().transfers[p.transfer];
    CHECK(t.dst == (t.src + 1) % 8);
    CHECK(vm.packet_text(ClockKind::steps, p.transfer) == "1,3,5,7");
  }
  // Every member says its group's words. Round 1: three blocks join the first, per rank;
  // round 2 (slots 2-3 and 6-7): one; round 3 (slots 4-7 in one transfer): none.
  const ClockIndex& c = vm.clock(ClockKind::steps);
  int members = 0;
  for (std::uint32_t i = 0; i < vm.transfer_count(); ++i) {
    CHECK(vm.packet_text(ClockKind::steps, i) == vm.packet_text(ClockKind::steps, c.together[i]));
    members += c.together[i] != i;
  }
  CHECK(members == 8 * (3 + 1));
  // More than four chunks: the first three and how many.
  const ViewModel wide(trace_of(request(Collective::all_to_all, "bruck", 16, 2)));
  wide.packet_spots(wide.frame(ClockKind::steps, send1 + 0.5), spots);
  REQUIRE(!spots.empty());
  CHECK(wide.packet_text(ClockKind::steps, spots[0].transfer) == "1,3,5…(8)");
  // A ring sends one chunk per neighbour and step: no group, and a packet says its chunk.
  const ViewModel ring(trace_of(request(Collective::all_reduce, "ring", 4, 8)));
  CHECK(ring.clock(ClockKind::steps).group_labels.empty());
  for (std::uint32_t i = 0; i < ring.transfer_count(); ++i) {
    const Transfer& t = ring.schedule().transfers[i];
    CHECK(ring.packet_text(ClockKind::steps, i) == fmt::format("{}{}", reduces(t.action) ? "+" : "", t.chunk));
  }
}

TEST_CASE("gui clock: in the steps clock, pushes the model serialises on the server's link wait at their workers") {
  const auto vm = predicted_run(Collective::all_reduce, "parameter_server", 4, 1 << 16);
  // Step 1: four pushes into one server's port, one after the other in the model.
  const Frame early = vm->frame(ClockKind::steps, 0.05);
  CHECK(early.in_flight.size() == 1);
  CHECK(early.queued.size() == 3);
  const Frame late = vm->frame(ClockKind::steps, 0.9);
  CHECK(late.in_flight.size() == 1);
  CHECK(late.queued.empty());
  CHECK(late.caption == early.caption);  // still step 1 of 2
  // At a step boundary nothing waits yet: the frame shows the step just done.
  const Frame boundary = vm->frame(ClockKind::steps, 1.0);
  CHECK(boundary.queued.empty());
  CHECK(boundary.in_flight.empty());
  CHECK(boundary.caption.starts_with("After step 1/2"));
  // The ring's transfers of a step run together: none waits.
  const auto ring = predicted_run(Collective::all_reduce, "ring", 4, 1 << 16);
  const Frame mid = ring->frame(ClockKind::steps, 2.5);
  CHECK(mid.in_flight.size() == 4);
  CHECK(mid.queued.empty());
}

TEST_CASE("gui clock: on a time clock, between two pushes of a step, the step is still under way") {
  const auto vm = predicted_run(Collective::all_reduce, "parameter_server", 4, 1 << 16);
  const Schedule& s = vm->schedule();
  REQUIRE(vm->trace().predicted);
  // The second push's end: the first two are done, the other two have not begun.
  std::vector<double> ends;
  for (std::size_t i = 0; i < s.transfers.size(); ++i)
    if (s.transfers[i].step == 0) ends.push_back(*vm->trace().records[i].predicted_end_ns);
  std::sort(ends.begin(), ends.end());
  REQUIRE(ends.size() == 4);
  const Frame between = vm->frame(ClockKind::predicted, ends[1]);
  CHECK(between.steps_done == 0);
  CHECK(between.queued.size() == 2);
  CHECK(between.caption.starts_with("In step 1/2"));  // not "Start: every rank holds only its own data"
  CHECK(caption_step(between, vm->step_count()) == 1);
  // Before anything began, the start; after the step, nothing waits.
  CHECK(vm->frame(ClockKind::predicted, 0).queued.empty());
  CHECK(vm->frame(ClockKind::predicted, 0).caption.starts_with("Start"));
  CHECK(vm->frame(ClockKind::predicted, ends[3]).queued.empty());
}

TEST_CASE("gui scene: queues stand inside the drawing, beside their senders, on the pattern and on a star") {
  AlgorithmOptions two;
  two.servers = 2;
  const auto vm = predicted_run(Collective::all_reduce, "parameter_server", 4, 1 << 14, two, TopologyKind::star);
  for (bool by_topology : {false, true}) {
    vm->arrange(by_topology ? Arrangement::topology : Arrangement::algorithm);
    const Layout& l = vm->layout();
    CAPTURE(by_topology);
    Vec2 lo{1e9f, 1e9f}, hi{-1e9f, -1e9f};  // the scene's box: the discs and a margin
    for (const Vec2& n : l.nodes) lo = {std::min(lo.x, n.x), std::min(lo.y, n.y)}, hi = {std::max(hi.x, n.x), std::max(hi.y, n.y)};
    const float pad = 1.3f * l.rank_radius + 1e-4f;
    int queued = 0;
    for (double t = 0.05; t < vm->step_count(); t += 0.1) {
      std::vector<PacketSpot> spots;
      vm->packet_spots(vm->frame(ClockKind::predicted, time_on(*vm, ClockKind::predicted, t)), spots);
      for (const PacketSpot& p : spots) {
        if (!p.queued) continue;
        ++queued;
        CHECK_MESSAGE((p.at.x >= lo.x - pad && p.at.x <= hi.x + pad && p.at.y >= lo.y - pad && p.at.y <= hi.y + pad),
                      "transfer ", p.transfer, " queued at (", p.at.x, ", ", p.at.y, ")");
      }
    }
    CHECK(queued > 0);
  }
}

TEST_CASE("gui layout: a parameter server's links carry what its workers push and pull, on the pattern and on a star") {
  const int workers = 4;
  const std::uint64_t count = 1 << 14, bytes = count * 4;
  const auto vm = predicted_run(Collective::all_reduce, "parameter_server", workers, count, {}, TopologyKind::star);
  vm->arrange(Arrangement::algorithm);
  const Layout& l = vm->layout();
  REQUIRE(l.kind == LayoutKind::star);
  const int server = workers;  // the extra rank
  for (int w = 0; w < workers; ++w) {
    const auto it = std::find(l.links.begin(), l.links.end(), std::pair{w, server});
    REQUIRE_MESSAGE(it != l.links.end(), "worker ", w);
    CHECK(vm->link_totals()[static_cast<std::size_t>(it - l.links.begin())] == doctest::Approx(2.0 * bytes));  // push + pull
  }
  // On the star topology the server's one uplink carries every push and every pull.
  vm->arrange(Arrangement::topology);
  const Layout& t = vm->layout();
  REQUIRE(t.topology);
  double busiest = 0;
  bool server_link = false;
  for (std::size_t i = 0; i < t.links.size(); ++i)
    if (vm->link_totals()[i] > busiest) busiest = vm->link_totals()[i], server_link = t.links[i].first == server || t.links[i].second == server;
  CHECK(server_link);
  CHECK(busiest == doctest::Approx(2.0 * workers * bytes));
}

TEST_CASE("gui layout: a switch topology puts the switch at the centre and routes every transfer through it") {
  Progress p;
  const LoadResult run = load(run_request(request(Collective::all_reduce, "direct", 5, 10)), p);
  REQUIRE(run.model);
  ViewModel& vm = *run.model;
  vm.arrange(Arrangement::topology);
  const Layout& l = vm.layout();
  CHECK(l.kind == LayoutKind::switch_star);
  REQUIRE(l.nodes.size() == 6);
  CHECK(l.hub_labels.at(0) == "switch");
  CHECK(distance(l.nodes[5], {}) == doctest::Approx(0));
  CHECK(l.links.size() == 5);  // one port per rank, no more
  for (std::size_t i = 0; i < vm.transfer_count(); ++i) {
    const auto path = vm.path_of(i);
    if (path.empty()) continue;  // local
    REQUIRE(path.size() == 3);
    CHECK(path[1] == 5);
    CHECK(vm.links_of(i).size() == 2);
  }
}

TEST_CASE("gui layout: a hierarchy groups ranks by node, traffic between nodes crosses the network") {
  AlgorithmOptions o;
  o.ranks_per_node = 4;
  const Schedule s = schedule_of(Collective::all_reduce, "hierarchical", 8, 16, o);
  const Layout l = pattern_layout(s, {LayoutShape::hierarchy, {}, {}, {}, 4});
  CHECK(l.kind == LayoutKind::two_level);
  REQUIRE(l.boxes.size() == 2);
  for (int r = 0; r < 8; ++r) CHECK(inside(l.boxes[static_cast<std::size_t>(r / 4)], l.nodes[r]));
  bool saw_inter = false, saw_intra = false;
  for (const Transfer& t : s.transfers) {
    if (t.is_local()) continue;
    const bool inter = t.src / 4 != t.dst / 4;
    CHECK(route(l, t.src, t.dst).nodes.size() == (inter ? 3u : 2u));
    (inter ? saw_inter : saw_intra) = true;
  }
  CHECK(saw_inter);
  CHECK(saw_intra);
}

// A ring all-reduce of 8 ranks predicted on two_level nodes of 4, arranged by them.
LoadResult ring_on_two_level() {
  LoadRequest rq = run_request(request(Collective::all_reduce, "ring", 8, 64), "", TopologyKind::two_level,
                               Arrangement::topology);
  rq.topology.group_size = 4;
  Progress p;
  return load(rq, p);
}

TEST_CASE("gui layout: nodes come from the trace's structured topology, never from its printed description") {
  const LoadResult run = ring_on_two_level();
  REQUIRE(run.model);
  Trace t = run.model->trace();
  REQUIRE(t.predicted);
  REQUIRE(t.predicted->topology_config);
  t.predicted->topology = "switch, 8 ranks (2 per node)";  // text that says otherwise
  const ViewModel vm(t);
  CHECK(vm.arranged_by_topology());
  const Layout& l = vm.layout();
  CHECK(l.kind == LayoutKind::two_level);
  REQUIRE(l.boxes.size() == 2);
  for (int r = 0; r < 8; ++r) CHECK(inside(l.boxes[static_cast<std::size_t>(r / 4)], l.nodes[r]));
  CHECK_FALSE(inside(l.boxes[1], l.nodes[3]));
}

TEST_CASE("gui layout: on a topology, the links and their bytes are the timing model's, along sim's routes") {
  const LoadResult run = ring_on_two_level();
  REQUIRE(run.model);
  const ViewModel& vm = *run.model;
  REQUIRE(vm.arranged_by_topology());
  const Layout& l = vm.layout();
  REQUIRE(l.topology);
  const std::vector<double> model = link_bytes(vm.schedule(), *l.topology);
  REQUIRE(l.drawn_link.size() == model.size());
  std::vector<double> want(l.links.size(), 0.0);
  for (std::size_t k = 0; k < model.size(); ++k) want[l.drawn_link[k]] += model[k];
  REQUIRE(vm.link_totals().size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(vm.link_totals()[i] == doctest::Approx(want[i]));
  // The tallies the playhead reads end at the same figures.
  const Frame end = vm.frame(ClockKind::steps, vm.step_count());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(end.link_bytes[i] == doctest::Approx(want[i]));
  // Node 0's network link out carries exactly what ranks 0-3 send to ranks 4-7.
  double out_of_node0 = 0;
  for (const Transfer& t : vm.schedule().transfers)
    if (t.src / 4 == 0 && t.dst / 4 == 1) out_of_node0 += static_cast<double>(vm.schedule().bytes(t));
  CHECK(out_of_node0 > 0);
  CHECK(model[2 * 8] == doctest::Approx(out_of_node0));  // (topology.cpp: 2N + 2m is node m's uplink out)
  CHECK(link_ends(*l.topology, 2 * 8).from == LinkEnd{LinkEnd::Kind::fabric, 0});
}

TEST_CASE("gui packets: in flight strictly between begin and end, positioned along their path (steps clock)") {
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", 4, 8)));
  std::vector<InFlight> f;
  vm.in_flight(ClockKind::steps, 0.0, f);
  CHECK(f.empty());
  vm.in_flight(ClockKind::steps, 0.5, f);
  REQUIRE(f.size() == 4);
  const Layout ring = pattern_layout(vm.schedule(), {LayoutShape::ring, {0, 1, 2, 3}, {}, {}, 0});
  for (const InFlight& p : f) {
    const Transfer& t = vm.schedule().transfers[p.transfer];
    CHECK(t.step == 0);
    CHECK(p.progress == doctest::Approx(0.5));
    CHECK(vm.path_of(p.transfer).size() == 2);  // straight from sender to receiver
    const Vec2 at = point_along(ring, route(ring, t.src, t.dst).nodes, p.progress);
    // Half-way along the arc of the ring between the two neighbours.
    const Vec2 a = ring.nodes[t.src], b = ring.nodes[t.dst];
    CHECK(distance(at, {}) == doctest::Approx(0.8));
    CHECK(distance(at, a) == doctest::Approx(distance(at, b)));
    CHECK(distance(at, a) < distance(a, b));
  }
  vm.in_flight(ClockKind::steps, 1.0, f);  // the boundary: step 1 done, step 2 not begun
  CHECK(f.empty());
  const Frame fr = vm.frame(ClockKind::steps, 1.0);
  CHECK(fr.steps_done == 1);
  CHECK(fr.highlighted.size() == 4);  // the step just done
  vm.in_flight(ClockKind::steps, 5.25, f);
  REQUIRE(f.size() == 4);
  CHECK(vm.schedule().transfers[f[0].transfer].step == 5);
}

TEST_CASE("gui packets: measured times decide what is in flight, overlapping steps included") {
  Trace t = trace_of(request(Collective::all_reduce, "ring", 4, 8));
  const std::size_t n = t.schedule.transfers.size();
  for (std::size_t i = 0; i < n; ++i) {  // transfer i runs over [10 i, 10 i + 15): neighbours overlap
    const auto b = static_cast<std::int64_t>(10 * i);
    t.records.push_back({b, b + 15, 0, {}, {}});
  }
  t.summary.time_ns = static_cast<std::int64_t>(10 * n + 20);
  const ViewModel vm(std::move(t));
  REQUIRE(vm.has_clock(ClockKind::measured));
  CHECK_FALSE(vm.has_clock(ClockKind::predicted));
  std::vector<InFlight> f;
  vm.in_flight(ClockKind::measured, 22.0, f);
  REQUIRE(f.size() == 2);
  std::set<std::uint32_t> which{f[0].transfer, f[1].transfer};
  CHECK(which == std::set<std::uint32_t>{1, 2});
  for (const InFlight& p : f)
    CHECK(p.progress == doctest::Approx((22.0 - 10.0 * p.transfer) / 15.0));
  // Step 0 (transfers 0..3) is done when transfer 3 ends at 45.
  CHECK(vm.steps_done(ClockKind::measured, 44.9) == 0);
  CHECK(vm.steps_done(ClockKind::measured, 45.0) == 1);
  CHECK(vm.clock(ClockKind::measured).finish == doctest::Approx(10.0 * n + 20));
  // Transfers 3 (step 0) and 4 (step 1) overlap at t = 42: pipelined.
  const Frame fr = vm.frame(ClockKind::measured, 42.0);
  CHECK(fr.caption.find("overlap") != std::string::npos);
}

TEST_CASE("gui packets: predicted times are a clock of their own when every record has them") {
  Trace t = trace_of(request(Collective::all_reduce, "parameter_server", 3, 6));
  for (std::size_t i = 0; i < t.schedule.transfers.size(); ++i)
    t.records.push_back({0, 1, 0, 100.0 * t.schedule.transfers[i].step, 100.0 * t.schedule.transfers[i].step + 50});
  const ViewModel vm(std::move(t));
  REQUIRE(vm.has_clock(ClockKind::predicted));
  std::vector<InFlight> f;
  vm.in_flight(ClockKind::predicted, 125.0, f);
  CHECK(f.size() == 3);  // the pull: the server sends to 3 workers
  vm.in_flight(ClockKind::predicted, 75.0, f);
  CHECK(f.empty());
}

TEST_CASE("gui cells: every cell after every step holds the checker's contribution sets") {
  AlgorithmOptions ps2;
  ps2.servers = 2;
  AlgorithmOptions sliced;
  sliced.slices = 2;
  const RunRequest cases[] = {
      request(Collective::all_reduce, "ring", 5, 7),
      request(Collective::all_reduce, "ring", 4, 9, sliced),
      request(Collective::all_reduce, "parameter_server", 4, 7, ps2),
      request(Collective::all_reduce, "recursive_doubling", 6, 5),
      request(Collective::all_reduce, "rabenseifner", 6, 13),
      request(Collective::all_reduce, "binomial_tree", 5, 3),
      request(Collective::all_gather, "bruck", 5, 2),
      request(Collective::reduce_scatter, "recursive_halving", 4, 3),
      request(Collective::all_to_all, "bruck", 4, 2),
      request(Collective::broadcast, "chain", 4, 11),
      request(Collective::reduce, "binomial_tree", 5, 4),
      request(Collective::barrier, "dissemination", 5, 0),
  };
  for (const RunRequest& r : cases) check_cells_against_checker(r);
}

TEST_CASE("gui cells: in-place schedules show their one buffer, and it ends complete") {
  RunRequest r = request(Collective::all_reduce, "ring", 4, 8);
  r.spec.in_place = true;
  check_cells_against_checker(r);
  const ViewModel vm(trace_of(r));
  for (const BufferRow& row : vm.buffers().rows()) CHECK(row.buffer == BufferKind::output);  // the input is inside it
  RunRequest rs = request(Collective::reduce_scatter, "ring", 4, 2);
  rs.spec.in_place = true;
  check_cells_against_checker(rs);
}

TEST_CASE("gui cells: the ring's reduce-scatter grows one rank per step, the all-gather completes every chunk") {
  const int n = 4;
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", n, 8)));
  const BufferHistory& h = vm.buffers();
  REQUIRE(h.rows().size() == 8);  // an input and an output per rank
  for (int r = 0; r < n; ++r) {
    CHECK(h.rows()[static_cast<std::size_t>(h.row_of(r, BufferKind::output))].cell_count == 4);  // the finest partition: 4 chunks
    CHECK(h.rows()[static_cast<std::size_t>(h.row_of(r, BufferKind::input))].optional);
  }
  for (int k = 0; k <= 2 * (n - 1); ++k)
    for (int r = 0; r < n; ++r) {
      const BufferRow& row = h.rows()[static_cast<std::size_t>(h.row_of(r, BufferKind::output))];
      // After k >= 1 reduce-scatter steps rank r's chunk (r - k) mod n holds ranks r-k..r (k + 1
      // of them). (Before step 1 a rank's own chunk is not in its output yet: the ring sends
      // it straight from the input, as NCCL does.)
      if (k >= 1 && k <= n - 1) {
        const int chunk = ((r - k) % n + n) % n;
        const RankSet set = ranks_of(vm.cell_state(ClockKind::steps, row.first_cell + chunk, k).contributions);
        CHECK(set.count == k + 1);
        for (int j = 0; j <= k; ++j) CHECK(set.has(((r - j) % n + n) % n));
      }
    }
  for (const BufferRow& row : h.rows()) {
    if (row.buffer != BufferKind::output) continue;
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
      CHECK(h.cells()[c].target == n);
      CHECK(ranks_of(vm.cell_state(ClockKind::steps, c, 2.0 * (n - 1)).contributions).count == n);
    }
  }
}

TEST_CASE("gui cells: the finest partition follows the schedule's regions (ring with 2 slices: 8 cells)") {
  AlgorithmOptions o;
  o.slices = 2;
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", 4, 16, o)));
  for (const BufferRow& row : vm.buffers().rows())
    if (row.buffer == BufferKind::output) CHECK(row.cell_count == 8);
}

TEST_CASE("gui cells: at the end every output cell holds what the checker expects") {
  const ViewModel vm(trace_of(request(Collective::all_gather, "ring", 5, 3)));
  const BufferHistory& h = vm.buffers();
  for (int r = 0; r < 5; ++r) {
    const int row = h.row_of(r, BufferKind::output);
    REQUIRE(row >= 0);
    for (const ExpectedPiece& want : expected_output(vm.schedule(), r)) {
      const auto [first, last] = h.cells_in(row, want.offset, want.offset + want.count);
      REQUIRE(last > first);
      for (std::uint32_t c = first; c < last; ++c)
        CHECK(vm.cell_state(ClockKind::steps, c, vm.step_count()).contributions == want.contributions);
    }
  }
}

TEST_CASE("gui bytes: sent and received so far, with in-flight transfers counted pro rata") {
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", 4, 8)));
  const double chunk = 2 * 4;  // 2 floats
  Frame f = vm.frame(ClockKind::steps, 0.0);
  CHECK(f.total_bytes == 0);
  f = vm.frame(ClockKind::steps, 1.0);
  for (int r = 0; r < 4; ++r) {
    CHECK(f.sent[r] == doctest::Approx(chunk));
    CHECK(f.received[r] == doctest::Approx(chunk));
  }
  f = vm.frame(ClockKind::steps, 1.5);
  CHECK(f.sent[0] == doctest::Approx(1.5 * chunk));
  CHECK(f.total_bytes == doctest::Approx(4 * 1.5 * chunk));
  f = vm.frame(ClockKind::steps, vm.step_count());
  for (int r = 0; r < 4; ++r) CHECK(f.sent[r] == doctest::Approx(static_cast<double>(vm.total_sent()[r])));
  double link_total = 0;
  for (double b : f.link_bytes) link_total += b;
  CHECK(link_total == doctest::Approx(f.total_bytes));  // on a ring every transfer crosses one link
}

TEST_CASE("gui timeline: bars outside the visible range are culled, visible ones kept") {
  std::vector<double> begin, end;
  std::vector<std::uint32_t> lane;
  for (std::uint32_t i = 0; i < 100; ++i) begin.push_back(10.0 * i), end.push_back(10.0 * i + 8), lane.push_back(i);
  const TimeScale scale{200, 300, 0, 1000};  // 10 px per unit: every bar is 80 px wide
  std::vector<LaneBar> out;
  fold_lane(lane, begin, end, 8, scale, 3.0f, out);
  REQUIRE(out.size() == 10);  // bars 20..29
  CHECK(out.front().first == 20);
  CHECK(out.back().first == 29);
  for (const LaneBar& b : out) CHECK(b.count == 1);
  CHECK(out.front().x0 == doctest::Approx(0));
  CHECK(out.front().x1 == doctest::Approx(80));
  // A bar that began before the range but still runs is kept, clipped to the left edge.
  fold_lane(lane, begin, end, 8, TimeScale{205, 300, 0, 950}, 3.0f, out);
  CHECK(out.front().first == 20);
  CHECK(out.front().x0 == doctest::Approx(0));
}

TEST_CASE("gui timeline: bars too small to see fold into one bar that counts them") {
  std::vector<double> begin, end;
  std::vector<std::uint32_t> lane;
  for (std::uint32_t i = 0; i < 100000; ++i) begin.push_back(i), end.push_back(i + 0.9), lane.push_back(i);
  const TimeScale whole{0, 100000, 0, 1000};  // 0.01 px per unit: each bar 0.009 px
  std::vector<LaneBar> out;
  fold_lane(lane, begin, end, 0.9, whole, 3.0f, out);
  CHECK(out.size() <= 1000 / 3 + 1);
  std::uint64_t total = 0;
  for (const LaneBar& b : out) total += b.count;
  CHECK(total == 100000);  // nothing lost: every transfer is in exactly one bar
  CHECK(out.size() == 1);  // the bars touch: one fold
  // A wide bar in the middle breaks the fold.
  end[50000] = 60000;
  fold_lane(lane, begin, end, 60000, whole, 3.0f, out);
  bool saw_wide = false;
  for (const LaneBar& b : out) saw_wide |= b.count == 1 && b.first == 50000 && b.x1 - b.x0 > 50;
  CHECK(saw_wide);
  // Zoomed in far enough, they are single bars again.
  fold_lane(lane, begin, end, 60000, TimeScale{10, 20, 0, 1000}, 3.0f, out);
  for (const LaneBar& b : out) CHECK(b.count == 1);
}

TEST_CASE("gui timeline: zoom keeps the anchor under the cursor and stays inside the run") {
  TimeScale s{0, 100, 0, 1000};
  s = zoom(s, 50, 2.0, 0, 100, 1);
  CHECK(s.t0 == doctest::Approx(25));
  CHECK(s.t1 == doctest::Approx(75));
  s = zoom(s, 25, 0.1, 0, 100, 1);  // zoom out past the whole run: clamped
  CHECK(s.t0 == doctest::Approx(0));
  CHECK(s.t1 == doctest::Approx(100));
  s = pan(TimeScale{0, 10, 0, 100}, 50, 0, 100);
  CHECK(s.t0 == doctest::Approx(5));
}

TEST_CASE("gui playback: step, step back, home, end and play on the steps clock") {
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", 4, 8)));
  Playback p;
  p.step_forward(vm);
  CHECK(p.t == doctest::Approx(1));
  p.step_forward(vm);
  p.step_back(vm);
  CHECK(p.t == doctest::Approx(1));
  p.t = 2.5;
  p.step_back(vm);
  CHECK(p.t == doctest::Approx(2));
  p.end(vm);
  CHECK(p.t == doctest::Approx(6));
  p.step_forward(vm);
  CHECK(p.t == doctest::Approx(6));
  p.home(vm);
  CHECK(p.t == 0);
  p.toggle_play(vm);
  p.tick(vm, 0.5);
  CHECK(p.t == doctest::Approx(0.5));
  p.speed = 4;
  p.tick(vm, 10);
  CHECK(p.t == doctest::Approx(6));
  CHECK_FALSE(p.playing);  // stopped at the end
  p.loop = true;
  p.toggle_play(vm);  // at the end: starts again from the beginning
  CHECK(p.t == 0);
  p.tick(vm, 2.0);
  CHECK(p.t == 0);  // 8 steps' worth of time: wrapped to the start at the end
}

TEST_CASE("gui playback: switching clocks keeps the step position") {
  Trace t = trace_of(request(Collective::all_reduce, "ring", 4, 8));
  for (std::size_t i = 0; i < t.schedule.transfers.size(); ++i) {
    const std::int64_t b = 100 * t.schedule.transfers[i].step;
    t.records.push_back({b, b + 100, 0, {}, {}});
  }
  const ViewModel vm(std::move(t));
  Playback p;
  p.seek_step(vm, 2.5);
  p.set_clock(vm, ClockKind::measured);
  CHECK(p.t == doctest::Approx(250));
  p.step_forward(vm);
  CHECK(p.t == doctest::Approx(300));
  CHECK(p.step_position(vm) == doctest::Approx(3));
  p.set_clock(vm, ClockKind::predicted);  // not in this trace: unchanged
  CHECK(p.clock == ClockKind::measured);
}

TEST_CASE("gui values: each element shows the sum that made it (rank numbers and real inputs)") {
  const ViewModel vm(trace_of(request(Collective::all_reduce, "ring", 4, 4)));
  const BufferHistory& h = vm.buffers();
  // Rank 1's output chunk 0 is empty at the start (nothing is copied there first) and
  // holds rank 0's data plus its own input after step 1 (a reduce-copy).
  const BufferRow& row = h.rows()[static_cast<std::size_t>(h.row_of(1, BufferKind::output))];
  const std::uint32_t cell = row.first_cell;
  const ElementValue start =
      element_value(vm.trace(), vm.values(), row, vm.cell_state(ClockKind::steps, cell, 0), 0, ValueSource::rank_numbers);
  CHECK(start.expression.empty());
  const ElementValue first =
      element_value(vm.trace(), vm.values(), row, vm.cell_state(ClockKind::steps, cell, 1), 0, ValueSource::rank_numbers);
  CHECK(first.expression == "1 + 2 = 3");
  const ElementValue done =
      element_value(vm.trace(), vm.values(), row, vm.cell_state(ClockKind::steps, cell, 6), 0, ValueSource::rank_numbers);
  CHECK(done.expression == "1 + 2 + 3 + 4 = 10");
  CHECK(done.value == 10);
  const ElementValue real =
      element_value(vm.trace(), vm.values(), row, vm.cell_state(ClockKind::steps, cell, 6), 0, ValueSource::input_data);
  double want = 0;
  for (int q = 0; q < 4; ++q) want += input_value(vm.trace().request.spec, vm.trace().request.seed, q, 0);
  CHECK(real.value == doctest::Approx(want));
}

TEST_CASE("gui values: with the run's inputs a cell shows the number its type holds, and says when it is rounded") {
  // f16 holds the integers 2048..4096 in steps of 2: rank 0's 2048 plus three 1s is 2051
  // exactly, which no f16 holds, so every finished element is a rounded number.
  RunRequest r = request(Collective::all_reduce, "ring", 4, 4);
  r.spec.dtype = DataType::f16;
  r.input_values = {2048, 1};
  const ViewModel vm(trace_of(r));
  REQUIRE(vm.values() != nullptr);
  const BufferHistory& h = vm.buffers();
  const BufferRow& row = h.rows()[static_cast<std::size_t>(h.row_of(0, BufferKind::output))];
  for (std::uint64_t e = 0; e < 4; ++e) {
    const std::uint32_t cell = h.cells_in(h.row_of(0, BufferKind::output), e, e + 1).first;
    const CellChange& end = vm.cell_state(ClockKind::steps, cell, vm.step_count());
    const ElementValue v = element_value(vm.trace(), vm.values(), row, end, e, ValueSource::input_data);
    CHECK(v.rounded);
    CHECK(v.value != 2051);
    CHECK(std::fmod(v.value, 2.0) == 0);  // an f16 number in [2048, 4096)
    CHECK(v.expression.find("= 2051 -> ") != std::string::npos);
    CHECK(v.expression.find(" in f16") != std::string::npos);
    // The rank numbers know nothing of the type: no rounding there.
    CHECK_FALSE(element_value(vm.trace(), vm.values(), row, end, e, ValueSource::rank_numbers).rounded);
  }
}

TEST_CASE("gui loader: a malformed scenario comes back as an error naming the file and line, not an exception") {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_gui_test";
  std::filesystem::create_directories(dir);
  const auto bad = dir / "bad.toml";
  std::ofstream(bad) << "format = 1\n[collective]\nranks = \"four\"\n";
  Progress p;
  LoadResult r = load(file_request(bad), p);
  CHECK_FALSE(r.model);
  CHECK(r.error.find("bad.toml:3") != std::string::npos);
  CHECK(r.error.find("collective.ranks") != std::string::npos);
  r = load(file_request(dir / "missing.toml"), p);
  CHECK_FALSE(r.model);
  CHECK(r.error.find("missing.toml") != std::string::npos);
}

TEST_CASE("gui loader: a run and a JSON trace of it load into view models with measured times") {
  Progress p;
  RunRequest rq = request(Collective::all_reduce, "ring", 3, 6);
  LoadResult r = load(run_request(rq, "title"), p);
  REQUIRE(r.model);
  CHECK(r.error.empty());
  CHECK(r.title == "title");
  CHECK(r.model->has_clock(ClockKind::measured));
  CHECK(r.model->has_clock(ClockKind::predicted));  // the timing model ran on the request's topology
  CHECK(p.fraction() == 1.0f);
  const auto file = std::filesystem::temp_directory_path() / "collsim_gui_test_trace.json";
  std::ofstream(file) << trace_to_json(r.model->trace());
  CHECK(is_trace_file(file));
  const LoadResult again = load(file_request(file), p);
  REQUIRE(again.model);
  CHECK(again.model->transfer_count() == r.model->transfer_count());
  CHECK(again.title == "title");
  // A bad request is an error too.
  rq.spec.ranks = 0;
  CHECK(load(run_request(rq), p).error.find("--ranks") != std::string::npos);
}

TEST_CASE("gui loader: a run of more than a few seconds says its estimate while it runs, a short one does not") {
  CHECK(running_text("running on the CPU backend", {}) == "running on the CPU backend");  // not measured: small
  const RunTimeEstimate short_run{.bytes = 2e9, .memcpy_gbps = 10, .seconds = 0.2};
  CHECK(running_text("running", short_run) == "running");
  const RunTimeEstimate long_run{.bytes = 8.22e11, .memcpy_gbps = 10, .seconds = 82.2};
  const std::string text = running_text("running", long_run);
  CHECK(text.starts_with("running (at least "));
  CHECK(text.find(describe(long_run)) != std::string::npos);  // the CLI's words, not the app's own
}

TEST_CASE("gui loader: an MSCCL algorithm file opens as its schedule, run, checked and drawn like any other") {
  Progress p;
  const std::filesystem::path file = std::filesystem::path(COLLSIM_SOURCE_DIR) / "tests" / "msccl" / "alltoall_3.xml";
  const LoadResult r = load(file_request(file), p);
  if (!why_no_msccl().empty()) {  // a build without pugixml says so
    CHECK_FALSE(r.model);
    CHECK(r.error.find("cannot read or write MSCCL algorithm files") != std::string::npos);
    return;
  }
  REQUIRE(r.model);
  CHECK(r.error.empty());
  CHECK(r.title == "alltoall_3");
  CHECK(r.request.algorithm == "custom");
  CHECK(r.request.spec.collective == Collective::all_to_all);
  CHECK(r.request.spec.ranks == 3);
  CHECK(r.model->transfer_count() == 6);
  CHECK(r.model->has_clock(ClockKind::measured));
}

namespace {

// A run on `topology`, saved as a JSON trace; `keep_config` false writes it as collsim did
// before traces recorded the configuration.
std::filesystem::path saved_trace(const RunRequest& rq, const TopologyConfig& topology, const std::string& name,
                                  bool keep_config = true) {
  LoadRequest made;
  made.run = rq;
  made.topology = topology;
  Progress p;
  const LoadResult r = load(made, p);
  REQUIRE_MESSAGE(r.model, r.error);
  Trace t = r.model->trace();
  REQUIRE(t.predicted);
  if (!keep_config) t.predicted->topology_config.reset();
  const auto file = std::filesystem::temp_directory_path() / name;
  REQUIRE(write_export(file, trace_to_json(t)).empty());
  return file;
}

}  // namespace

TEST_CASE("gui loader: a trace that records its topology compares on it, and exports it as the scenario's [topology]") {
  TopologyConfig star;
  star.kind = TopologyKind::star;
  star.link = "pcie5";
  star.uplink_bandwidth_gbps = 12.5;
  star.reduce_rate_gbps = 500;
  star.overrides.push_back({"rank1", 5.0, std::nullopt, "test"});
  star.stragglers.push_back({2, 1.5, 2.0, "test"});
  star.arrange = Arrangement::topology;
  const auto file = saved_trace(request(Collective::all_reduce, "ring", 4, 64), star, "collsim_gui_star_trace.json");
  LoadRequest open = file_request(file);
  open.compare = "parameter_server";
  Progress p;
  const LoadResult r = load(open, p);
  REQUIRE_MESSAGE(r.model, r.error);
  CHECK(r.topology == star);  // what the editor re-runs on and Export writes
  CHECK(r.model->trace().request.algorithm == "ring");
  REQUIRE(r.compare);
  const Trace& other = r.compare->trace();
  CHECK(other.request.algorithm == "parameter_server");
  CHECK(other.request.spec.count == 64);
  REQUIRE(other.predicted);
  REQUIRE(other.predicted->topology_config);
  CHECK(other.predicted->topology_config->kind == TopologyKind::star);
  CHECK(*other.predicted->topology_config == star);
  CHECK(other.predicted->topology.starts_with("star, 5 ranks"));  // the server has a port of its own

  const auto toml = std::filesystem::temp_directory_path() / "collsim_gui_star_trace.toml";
  REQUIRE(write_export(toml, export_text(ExportKind::scenario, r.model->trace(), r.topology)).empty());
  const Scenario back = load_scenario(toml);
  CHECK(back.topology == star);
  CHECK(back.topology == *r.model->trace().predicted->topology_config);
  CHECK(back.request.algorithm == "ring");
}

TEST_CASE("gui loader: a trace without a recorded topology opens, and still cannot be compared") {
  TopologyConfig ring;
  ring.kind = TopologyKind::ring;
  const auto file =
      saved_trace(request(Collective::all_reduce, "ring", 4, 64), ring, "collsim_gui_old_trace.json", false);
  Progress p;
  const LoadResult r = load(file_request(file), p);
  REQUIRE_MESSAGE(r.model, r.error);
  CHECK(r.model->has_clock(ClockKind::predicted));
  CHECK(r.topology == TopologyConfig{});  // nothing recorded: the default, as before
  LoadRequest open = file_request(file);
  open.compare = "direct";
  const LoadResult compared = load(open, p);
  CHECK_FALSE(compared.model);
  CHECK(compared.error.find("a trace cannot be compared with another algorithm") != std::string::npos);
}

TEST_CASE("gui loader: the background loader hands over its result once") {
  BackgroundLoader loader;
  CHECK(loader.start(run_request(request(Collective::all_reduce, "ring", 4, 64))));
  std::optional<LoadResult> r;
  while (!(r = loader.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(r->model);
  CHECK_FALSE(loader.take());
}

TEST_CASE("gui layout: arranged by both, the algorithm's shape keeps its routes and gets the topology's switches and wires inside") {
  Progress p;
  const RunRequest ring8 = request(Collective::all_reduce, "ring", 8, 64);
  const LoadResult pattern = load(run_request(ring8, "", TopologyKind::pcie_tree), p);
  const LoadResult both = load(run_request(ring8, "", TopologyKind::pcie_tree, Arrangement::both), p);
  REQUIRE(pattern.model);
  REQUIRE(both.model);
  const Layout& a = pattern.model->layout();
  const Layout& l = both.model->layout();
  CHECK(both.model->arranged() == Arrangement::both);
  CHECK(both.model->arrangement().description == "the algorithm's pattern (ring) on the pcie_tree topology's wires");
  // The ring as the algorithm draws it: same places, same links, same routes.
  CHECK(l.kind == LayoutKind::ring);
  CHECK(std::equal(a.nodes.begin(), a.nodes.end(), l.nodes.begin()));
  CHECK(l.links == a.links);
  for (std::size_t i = 0; i < both.model->transfer_count(); ++i)
    CHECK(std::ranges::equal(both.model->path_of(i), pattern.model->path_of(i)));
  // pcie_tree at 8 ranks: two PCIe switches of 4 ranks under a root, 8 rank wires and 2 uplinks.
  REQUIRE(l.hub_count() == 3);
  CHECK(l.hub_labels == std::vector<std::string>{"PCIe switch", "PCIe switch", "PCIe root"});
  CHECK(l.wires.size() == 10);
  const Topology& t = *both.model->arrangement().wires;
  for (std::uint32_t k = 0; k < t.link_count(); ++k) {
    const LinkEnds e = link_ends(t, k);
    if (e.from.kind == LinkEnd::Kind::rank && e.to.kind == LinkEnd::Kind::fabric) {
      const std::pair want{e.from.index, l.ranks + e.to.index};  // rank r's wire goes to its own switch
      CHECK(std::find(l.wires.begin(), l.wires.end(), want) != l.wires.end());
    }
  }
  // Inside the ring, off every disc and off each other.
  for (int h = l.ranks; h < static_cast<int>(l.nodes.size()); ++h) {
    const Vec2 c = l.nodes[static_cast<std::size_t>(h)];
    CHECK(std::hypot(c.x, c.y) < l.ring_radius);
    for (int r = 0; r < l.ranks; ++r) CHECK(distance(c, l.nodes[static_cast<std::size_t>(r)]) > 2 * l.rank_radius);
    for (int g = l.ranks; g < h; ++g) CHECK(distance(c, l.nodes[static_cast<std::size_t>(g)]) > 0.25f);
  }
  // One switch: the ring around it. No topology: the algorithm's shape, nothing else.
  const LoadResult on_switch = load(run_request(request(Collective::all_reduce, "ring", 4, 8), "", TopologyKind::switch_fabric,
                                                Arrangement::both), p);
  REQUIRE(on_switch.model);
  REQUIRE(on_switch.model->layout().hub_count() == 1);
  CHECK(distance(on_switch.model->layout().nodes[4], Vec2{0, 0}) < 1e-6f);
  CHECK(on_switch.model->layout().wires.size() == 4);
  ViewModel plain(trace_of(request(Collective::all_reduce, "ring", 4, 8)));
  plain.arrange(Arrangement::both);
  CHECK(plain.arranged() == Arrangement::algorithm);
  CHECK(plain.layout().wires.empty());
  // A parameter server at the star's centre: the switch goes beside it, off every disc.
  const LoadResult star = load(run_request(request(Collective::all_reduce, "parameter_server", 4, 8), "",
                                           TopologyKind::switch_fabric, Arrangement::both), p);
  REQUIRE(star.model);
  const Layout& sl = star.model->layout();
  REQUIRE(sl.hub_count() == 1);
  CHECK(sl.wires.size() == 5);
  for (int r = 0; r < sl.ranks; ++r) CHECK(distance(sl.nodes[5], sl.nodes[static_cast<std::size_t>(r)]) > 2 * sl.rank_radius);
}

TEST_CASE("gui layout: a run is drawn in its algorithm's shape unless its configuration chose the topology, and can switch") {
  Progress p;
  const LoadResult ring_on_switch = load(run_request(request(Collective::all_reduce, "ring", 4, 8)), p);
  REQUIRE(ring_on_switch.model);
  ViewModel& vm = *ring_on_switch.model;
  CHECK(vm.has_topology());
  // The ring's own pattern, not the switch it was predicted on.
  CHECK_FALSE(vm.arranged_by_topology());
  CHECK(vm.layout().kind == layout_for_algorithm(vm.schedule(), vm.trace().request.options).kind);
  CHECK(vm.path_of(0).size() == 2);
  vm.arrange(Arrangement::topology);
  CHECK(vm.layout().kind == LayoutKind::switch_star);
  CHECK(vm.path_of(0).size() == 3);
  Frame f = vm.frame(ClockKind::steps, 1.0);
  CHECK(f.link_bytes.size() == vm.layout().links.size());
  double spokes = 0;
  for (double b : f.link_bytes) spokes += b;
  CHECK(spokes == doctest::Approx(2 * f.total_bytes));  // every transfer crosses two spokes
  // Through a hub, packets of different pairs do not meet half-way.
  std::vector<InFlight> flying;
  vm.in_flight(ClockKind::steps, 0.5, flying);
  REQUIRE(flying.size() == 4);
  std::vector<int> p0(vm.path_of(flying[0].transfer).begin(), vm.path_of(flying[0].transfer).end());
  std::vector<int> p1(vm.path_of(flying[1].transfer).begin(), vm.path_of(flying[1].transfer).end());
  CHECK(distance(point_along(vm.layout(), p0, 0.5f), point_along(vm.layout(), p1, 0.5f)) > 0.1f);

  // Two nodes: the algorithm's circle by default (a ring under a PCIe switch or across
  // nodes is still a ring), the nodes and their network when the file chose arrange = "topology".
  const RunRequest direct8 = request(Collective::all_reduce, "direct", 8, 8);
  const LoadResult two_level = load(run_request(direct8, "", TopologyKind::two_level), p);
  REQUIRE(two_level.model);
  CHECK_FALSE(two_level.model->arranged_by_topology());
  CHECK(two_level.model->layout().kind == layout_for_algorithm(two_level.model->schedule(), {}).kind);
  const LoadResult wires = load(run_request(direct8, "", TopologyKind::two_level, Arrangement::topology), p);
  REQUIRE(wires.model);
  CHECK(wires.model->arranged_by_topology());
  CHECK(wires.model->layout().kind == LayoutKind::two_level);
  CHECK(wires.model->layout().boxes.size() >= 1);

  // On a physical ring, a transfer between far ranks hops along the ring.
  const LoadResult direct_on_ring =
      load(run_request(request(Collective::all_reduce, "direct", 6, 6), "", TopologyKind::ring, Arrangement::topology), p);
  REQUIRE(direct_on_ring.model);
  const ViewModel& ring = *direct_on_ring.model;
  CHECK(ring.layout().kind == LayoutKind::ring);
  for (std::size_t i = 0; i < ring.transfer_count(); ++i) {
    const Transfer& t = ring.schedule().transfers[i];
    if (t.is_local()) continue;
    const int far = std::min((t.dst - t.src + 6) % 6, (t.src - t.dst + 6) % 6);
    CHECK(ring.path_of(i).size() == static_cast<std::size_t>(far + 1));
  }
}

TEST_CASE("gui export: the run written as a scenario loads back as the same run") {
  AlgorithmOptions o;
  o.servers = 2;
  o.colocated = true;
  Trace t = trace_of(request(Collective::all_reduce, "parameter_server", 5, 1000, o));
  t.scenario_title = "A \"quoted\" title";
  t.scenario_description = "two lines\nof text";
  t.request.seed = 7;
  t.records.resize(t.schedule.transfers.size());  // the exporters expect one record per transfer
  TopologyConfig topology;
  topology.kind = TopologyKind::star;
  const std::string toml = scenario_toml(t, topology);
  const Scenario back = parse_scenario(toml, "exported.toml");
  CHECK(back.title == t.scenario_title);
  CHECK(back.description == t.scenario_description);
  CHECK(back.request.spec.ranks == 5);
  CHECK(back.request.spec.count == 1000);
  CHECK(back.request.algorithm == "parameter_server");
  CHECK(back.request.options.servers == 2);
  CHECK(back.request.options.colocated);
  CHECK(back.request.seed == 7);
  CHECK(back.topology.kind == TopologyKind::star);
  CHECK(export_path("out/run", ExportKind::chrome).string() == "out/run.chrome.json");
  CHECK_FALSE(export_text(ExportKind::csv, t, topology).empty());
  const auto file = std::filesystem::temp_directory_path() / "collsim_gui_export_test.toml";
  CHECK(write_export(file, toml).empty());
  CHECK(load_scenario(file).request.options.servers == 2);
  CHECK(write_export("/no/such/folder/x.toml", toml).find("/no/such/folder") != std::string::npos);
}

namespace {

int collective_index(Collective c) {
  return static_cast<int>(std::find(std::begin(kAllCollectives), std::end(kAllCollectives), c) - std::begin(kAllCollectives));
}

// The editor's run, loaded (run, predicted, traced) as the Run button does it.
LoadResult load_editor(const RunEditor& e) {
  std::string error;
  const std::optional<RunRequest> rq = e.request(error);
  const std::optional<TopologyConfig> topology = e.topology_config(error);
  REQUIRE_MESSAGE(rq, error);
  REQUIRE_MESSAGE(topology, error);
  LoadRequest lr;
  lr.run = *rq;
  lr.topology = *topology;
  lr.compare = e.compare;
  Progress p;
  return load(lr, p);
}

std::optional<LoadResult> wait_for(BackgroundLoader& loader) {
  std::optional<LoadResult> r;
  while (!(r = loader.take())) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return r;
}

}  // namespace

TEST_CASE("gui editor: every edited field goes into the run and the exported scenario, and load_scenario reads it back") {
  RunEditor e;
  e.collective = collective_index(Collective::reduce);  // rooted, reducing, with an in-place form
  e.algorithm = "binomial_tree";
  e.ranks = 4;
  e.count = "8";
  e.dtype = DataType::f64;
  e.op = ReduceOp::max;
  e.root = 2;
  e.in_place = true;
  e.seed = 9;
  e.set_topology_kind(TopologyKind::two_level);
  e.topology.link = "pcie5";
  e.bandwidth = "20";
  e.latency = "3.5";
  // The "links…" popup's fields and the stragglers.
  e.topology.uplink = "ib_hdr";
  e.uplink_bandwidth = "12.5";
  e.topology.group_size = 2;
  e.topology.nic_per_gpu = true;
  e.reduce_rate = "500";
  e.copy_rate = "800";
  e.add_override("rank1", "5", "");
  e.topology.stragglers.push_back({2, 1.5, 2.0, "test"});
  const LoadResult r = load_editor(e);
  REQUIRE_MESSAGE(r.model, r.error);
  const RunRequest& ran = r.model->trace().request;
  CHECK(ran.spec.dtype == DataType::f64);
  CHECK(ran.spec.root == 2);
  CHECK(r.topology.bandwidth_gbps == 20.0);

  const auto file = std::filesystem::temp_directory_path() / "collsim_gui_editor_export.toml";
  REQUIRE(write_export(file, scenario_toml(r.model->trace(), r.topology)).empty());
  const Scenario back = load_scenario(file);
  const RunRequest& b = back.request;
  CHECK(b.spec.collective == Collective::reduce);
  CHECK(b.algorithm == "binomial_tree");
  CHECK(b.spec.ranks == 4);
  CHECK(b.spec.count == 8);
  CHECK(b.spec.dtype == DataType::f64);
  CHECK(b.spec.op == ReduceOp::max);
  CHECK(b.spec.root == 2);
  CHECK(b.spec.in_place);
  CHECK(b.options.slices == ran.options.slices);
  CHECK(b.seed == 9);
  const TopologyConfig& t = back.topology;
  CHECK(t.kind == TopologyKind::two_level);
  CHECK(t.link == "pcie5");
  CHECK(t.bandwidth_gbps == 20.0);
  CHECK(t.latency_us == 3.5);
  CHECK(t.uplink == "ib_hdr");
  CHECK(t.uplink_bandwidth_gbps == 12.5);
  CHECK_FALSE(t.uplink_latency_us);
  CHECK(t.group_size == 2);
  CHECK(t.nic_per_gpu);
  CHECK(t.reduce_rate_gbps == 500.0);
  CHECK(t.copy_rate_gbps == 800.0);
  REQUIRE(t.overrides.size() == 1);
  CHECK(t.overrides[0].link == "rank1");
  CHECK(t.overrides[0].bandwidth_gbps == 5.0);
  CHECK_FALSE(t.overrides[0].latency_us);
  REQUIRE(t.stragglers.size() == 1);
  CHECK(t.stragglers[0].rank == 2);
  CHECK(t.stragglers[0].late_us == 1.5);
  CHECK(t.stragglers[0].slow == 2.0);
  // Opened again, the file fills the editor with the same fields.
  RunEditor again;
  again.load(b, t);
  CHECK(again.collective == e.collective);
  CHECK(again.count == "8");
  CHECK(again.bandwidth == "20");
  CHECK(again.latency == "3.5");
  CHECK(again.root == 2);
  CHECK(again.uplink_bandwidth == "12.5");
  CHECK(again.uplink_latency.empty());
  CHECK(again.reduce_rate == "500");
  CHECK(again.copy_rate == "800");
  REQUIRE(again.overrides.size() == 1);
  CHECK(again.overrides[0].link == "rank1");
  CHECK(again.overrides[0].bandwidth == "5");
  CHECK(again.overrides[0].latency.empty());
}

TEST_CASE("gui editor: bad fields come back as the library's error text, never an exception") {
  RunEditor e;
  e.count = "8";
  std::string error;
  e.bandwidth = "fast";
  CHECK_FALSE(e.topology_config(error));
  CHECK(error.find("'fast' is not a number") != std::string::npos);
  RunEditor bad_count = e;
  bad_count.count = "lots";
  CHECK_FALSE(bad_count.request(error));
  CHECK(error.find("count: 'lots'") != std::string::npos);
  e.bandwidth = "-1";  // a number: the library decides
  CHECK(load_editor(e).error.find("bandwidth must be > 0, got -1") != std::string::npos);
  e.bandwidth.clear();
  e.latency = "-2";
  CHECK(load_editor(e).error.find("latency must be >= 0, got -2") != std::string::npos);
  e.latency.clear();
  e.collective = collective_index(Collective::broadcast);
  e.algorithm = "binomial_tree";
  e.root = 7;
  CHECK(load_editor(e).error.find("--root must be a rank in 0..3, got 7") != std::string::npos);
  e.root = 0;
  e.collective = collective_index(Collective::gather);
  e.algorithm = "direct";
  e.in_place = true;
  CHECK(load_editor(e).error.find("--in-place") != std::string::npos);
}

TEST_CASE("gui editor: another topology kind keeps the link figures and drops what only the old kind had") {
  RunEditor e;
  e.set_topology_kind(TopologyKind::two_level);
  e.topology.link = "ib_ndr";
  e.topology.uplink = "eth100";
  e.topology.group_size = 4;
  e.uplink_bandwidth = "3";
  e.reduce_rate = "600";
  e.add_override("uplink0", "1", "");
  e.topology.stragglers.push_back({1, 5.0, 1.0, "test"});
  e.bandwidth = "7";
  e.set_topology_kind(TopologyKind::ring);
  CHECK(e.topology.kind == TopologyKind::ring);
  CHECK(e.topology.link == "ib_ndr");
  CHECK(e.bandwidth == "7");
  CHECK(e.reduce_rate == "600");
  CHECK(e.topology.uplink.empty());
  CHECK(e.uplink_bandwidth.empty());
  CHECK(e.topology.group_size == 0);
  CHECK(e.overrides.empty());  // named after two_level's links
  CHECK(e.topology.stragglers.size() == 1);
  e.count = "8";
  const LoadResult r = load_editor(e);
  REQUIRE_MESSAGE(r.model, r.error);
  CHECK(r.model->trace().predicted->topology.find("ring") != std::string::npos);
}

TEST_CASE("gui loader: a cancelled load stops at its next phase and says so") {
  Progress p;
  p.cancel();
  const LoadResult r = load(run_request(request(Collective::all_reduce, "ring", 4, 64)), p);
  CHECK(r.cancelled);
  CHECK_FALSE(r.model);
  CHECK(r.error == "cancelled");
  CHECK(p.phase() == "cancelled");
}

TEST_CASE("gui loader: cancel abandons a run at once, its late result is discarded and the next load is the one taken") {
  BackgroundLoader loader;
  // A large run: 64 ranks, 256 KiB each; whether or not it has finished by the cancel, it must not come out.
  REQUIRE(loader.start(run_request(request(Collective::all_reduce, "ring", 64, 64 * 1024))));
  CHECK(loader.cancel());
  CHECK_FALSE(loader.busy());  // at once, whatever the worker is doing
  CHECK_FALSE(loader.take());
  CHECK(loader.progress().phase() == "cancelled");
  REQUIRE(loader.start(run_request(request(Collective::all_reduce, "ring", 3, 6))));  // another may start at once
  const std::optional<LoadResult> r = wait_for(loader);
  REQUIRE(r->model);
  CHECK(r->model->schedule().spec.ranks == 3);  // the new run, not the late one
  while (loader.abandoned() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_FALSE(loader.take());  // the abandoned worker stopped, and its result never comes out
  CHECK_FALSE(loader.cancel());
}

TEST_CASE("gui compare: the loader runs both algorithms on the same spec, options and topology") {
  LoadRequest lr = run_request(request(Collective::all_reduce, "ring", 4, 1024), "lesson", TopologyKind::star);
  lr.compare = "parameter_server";
  Progress p;
  const LoadResult r = load(lr, p);
  REQUIRE_MESSAGE(r.model, r.error);
  REQUIRE(r.compare);
  CHECK(r.model->schedule().algorithm == "ring");
  CHECK(r.compare->schedule().algorithm == "parameter_server");
  CHECK(r.compare->schedule().spec.ranks == 4);
  CHECK(r.compare->schedule().spec.count == 1024);
  CHECK(r.compare->trace().scenario_title == "lesson");
  REQUIRE(r.compare->trace().predicted);
  CHECK(r.compare->trace().predicted->topology.find("star") != std::string::npos);
  CHECK(p.fraction() == 1.0f);
  // A comparison with an algorithm the collective does not have says which, and loads nothing.
  lr.compare = "chain";
  const LoadResult bad = load(lr, p);
  CHECK_FALSE(bad.model);
  CHECK(bad.error.find("compare with chain: ") == 0);
  // A trace compares on the topology it recorded (one written before traces recorded it
  // cannot be compared: "gui loader: a trace without a recorded topology ...").
  const auto trace = std::filesystem::temp_directory_path() / "collsim_gui_compare_trace.json";
  REQUIRE(write_export(trace, trace_to_json(r.model->trace())).empty());
  LoadRequest from_trace = file_request(trace);
  from_trace.compare = "parameter_server";
  const LoadResult compared = load(from_trace, p);
  REQUIRE_MESSAGE(compared.compare, compared.error);
  CHECK(compared.compare->trace().predicted->topology == r.compare->trace().predicted->topology);
}

namespace {

// A 4-rank ring all-reduce of 64 Ki floats loaded beside the parameter server.
LoadResult ring_beside_parameter_server() {
  LoadRequest lr = run_request(request(Collective::all_reduce, "ring", 4, 64 * 1024));
  lr.compare = "parameter_server";
  Progress progress;
  return load(lr, progress);
}

}  // namespace

TEST_CASE("gui compare: one clock, at time t each side shows its own run at t, the shorter stays complete, the end is the later") {
  const LoadResult r = ring_beside_parameter_server();
  REQUIRE_MESSAGE(r.compare, r.error);
  const ViewModel& a = *r.model;
  const ViewModel& b = *r.compare;
  const Runs runs(a, &b);
  constexpr ClockKind kP = ClockKind::predicted;
  REQUIRE(runs.has_clock(kP));
  const double fa = a.clock(kP).finish, fb = b.clock(kP).finish;
  REQUIRE(fa != fb);
  CHECK(runs.finish(kP) == std::max(fa, fb));
  const ViewModel& shorter = fa < fb ? a : b;
  const ViewModel& longer = fa < fb ? b : a;
  const auto same = [](const Frame& got, const Frame& want) {
    CHECK(got.steps_done == want.steps_done);
    CHECK(got.in_flight.size() == want.in_flight.size());
    CHECK(got.total_bytes == doctest::Approx(want.total_bytes));
  };

  Playback p;
  p.set_clock(runs, kP);
  REQUIRE(p.clock == kP);
  p.seek_time(runs, shorter.clock(kP).finish * 0.5);  // both under way
  for (const ViewModel* vm : {&a, &b}) same(p.frame(*vm), vm->frame(kP, p.t));
  CHECK(p.frame(shorter).steps_done < shorter.step_count());

  p.seek_time(runs, (fa + fb) / 2);  // the shorter is done, the longer is not
  const Frame done = p.frame(shorter);
  CHECK(done.steps_done == shorter.step_count());
  CHECK(done.in_flight.empty());
  CHECK(done.total_bytes == doctest::Approx(shorter.clock(kP).total.bytes.back()));
  same(p.frame(longer), longer.frame(kP, p.t));
  CHECK(p.frame(longer).steps_done < longer.step_count());

  p.home(runs);
  p.toggle_play(runs);
  p.tick(runs, 1e6);  // plays to the end of the longer run, and stops there
  CHECK(p.t == runs.finish(kP));
  CHECK_FALSE(p.playing);
  CHECK(p.frame(a).steps_done == a.step_count());
  CHECK(p.frame(b).steps_done == b.step_count());

  p.home(runs);  // a step goes to the next boundary of either run
  p.step_forward(runs);
  CHECK(p.t == std::min(a.step_time(kP, 1), b.step_time(kP, 1)));

  // The steps clock: each run goes through its own steps, one per step; the end is the larger count.
  p.set_clock(runs, ClockKind::steps);
  p.home(runs);
  for (int k = 0; k < b.step_count(); ++k) p.step_forward(runs);
  CHECK(p.frame(b).steps_done == b.step_count());
  CHECK(p.frame(a).steps_done == b.step_count());
  p.end(runs);
  CHECK(p.t == std::max(a.step_count(), b.step_count()));
  CHECK(p.frame(a).steps_done == a.step_count());
  // Switching clock at the end keeps both complete.
  p.set_clock(runs, kP);
  CHECK(p.t == runs.finish(kP));
}

TEST_CASE("gui compare: the second algorithm takes its own default slices, not the first one's") {
  RunRequest rq = request(Collective::broadcast, "binomial_tree", 4, 64);  // resolved: 1 slice
  REQUIRE(rq.options.slices == 1);
  LoadRequest lr = run_request(rq);
  lr.compare = "chain";  // pipelined: N slices by default
  Progress p;
  const LoadResult r = load(lr, p);
  REQUIRE_MESSAGE(r.compare, r.error);
  CHECK(r.compare->trace().request.options.slices == resolve_options(rq.spec, "chain", {}).slices);
  CHECK(r.compare->trace().request.options.slices > 1);
}

TEST_CASE("gui timeline: comparing, both runs' lanes on one axis, each under a header, culling for both") {
  const LoadResult r = ring_beside_parameter_server();
  REQUIRE_MESSAGE(r.compare, r.error);
  const ViewModel& a = *r.model;
  const ViewModel& b = *r.compare;
  REQUIRE(b.schedule().total_ranks == 5);  // 4 workers and the server

  // Alone: a lane per rank, no header. Compared: header, a's lanes, header, b's lanes.
  const std::vector<TimelineRow> alone = timeline_rows(Runs(a));
  REQUIRE(alone.size() == 4);
  for (std::size_t k = 0; k < alone.size(); ++k) CHECK((alone[k].run == &a && alone[k].rank == static_cast<int>(k)));
  const Runs runs(a, &b);
  const std::vector<TimelineRow> rows = timeline_rows(runs);
  REQUIRE(rows.size() == 1 + 4 + 1 + 5);
  CHECK((rows[0].header() && rows[0].run == &a && rows[0].side == 0));
  CHECK((rows[4].run == &a && rows[4].rank == 3));
  CHECK((rows[5].header() && rows[5].run == &b && rows[5].side == 1));
  CHECK((rows[10].run == &b && rows[10].rank == 4 && rows[10].side == 1));
  CHECK(run_header(b).find("parameter_server: 2 steps, predicted ") == 0);
  CHECK(run_header(a).find("ring: 6 steps") == 0);

  // The axis spans the longer run, on every clock.
  constexpr ClockKind kP = ClockKind::predicted;
  const double fa = a.clock(kP).finish, fb = b.clock(kP).finish;
  REQUIRE(fa != fb);
  CHECK(timeline_range(runs, kP).hi == std::max(fa, fb));
  CHECK(timeline_range(runs, kP).lo == std::min(a.clock(kP).start, b.clock(kP).start));
  CHECK(timeline_range(runs, ClockKind::steps).hi == 6);  // each run on its own steps: the larger count
  CHECK(timeline_range(Runs(b), ClockKind::steps).hi == 2);

  // Culling: every lane of either run returns exactly the transfers that overlap the visible
  // range (1 px per unit over a wide scale: no bar is narrow enough to fold).
  const auto check_lanes = [&](ClockKind c, double t0, double t1) {
    const TimeScale scale{t0, t1, 0, static_cast<float>(1e6)};
    std::vector<LaneBar> bars;
    std::map<const ViewModel*, std::size_t> shown;
    for (const TimelineRow& row : rows) {
      if (row.header()) continue;
      const ClockIndex& k = row.run->clock(c);
      for (bool sends : {true, false}) {
        lane_bars(*row.run, c, row.rank, sends, scale, 3.0f, bars);
        std::set<std::uint32_t> got;
        for (const LaneBar& bar : bars) {
          CHECK(bar.count == 1);
          got.insert(bar.first);
        }
        std::set<std::uint32_t> want;
        for (std::uint32_t i : (sends ? k.send_lane : k.recv_lane)[static_cast<std::size_t>(row.rank)])
          if (k.begin[i] < t1 && k.end[i] > t0) want.insert(i);
        CHECK(got == want);
        shown[row.run] += got.size();
      }
    }
    return shown;
  };
  const double shorter = std::min(fa, fb), longer = std::max(fa, fb);
  auto shown = check_lanes(kP, shorter * 0.25, shorter * 0.75);  // both under way
  CHECK(shown[&a] > 0);
  CHECK(shown[&b] > 0);
  shown = check_lanes(kP, shorter + (longer - shorter) * 0.1, longer);  // past the shorter run's end
  CHECK(shown[fa < fb ? &a : &b] == 0);
  CHECK(shown[fa < fb ? &b : &a] > 0);
  shown = check_lanes(ClockKind::steps, 2.5, 6);  // steps 3..6: the ring's only
  CHECK(shown[&a] > 0);
  CHECK(shown[&b] == 0);
}

TEST_CASE("gui editor: stragglers go into the run's topology, slow it down, are exported and kept on re-runs") {
  RunEditor e;
  e.count = "64K";
  e.set_topology_kind(TopologyKind::ring);
  const LoadResult plain = load_editor(e);
  REQUIRE_MESSAGE(plain.model, plain.error);
  const double base = plain.model->trace().predicted->time_ns;

  e.add_straggler(1, 50, 1);
  std::string error;
  std::optional<TopologyConfig> t = e.topology_config(error);
  REQUIRE(t);
  REQUIRE(t->stragglers.size() == 1);
  CHECK(t->stragglers[0].rank == 1);
  CHECK(t->stragglers[0].late_us == 50.0);
  CHECK(t->stragglers[0].slow == 1.0);
  CHECK(t->stragglers[0].origin == "straggler 1 (toolbar)");
  const LoadResult late = load_editor(e);
  REQUIRE_MESSAGE(late.model, late.error);
  const PredictedSummary& p = *late.model->trace().predicted;
  CHECK(p.time_ns > base);
  CHECK(p.time_ns > 50000);  // rank 1's sends, which every rank needs, start after 50 µs
  CHECK(p.topology.find("stragglers: rank 1 starts 50 us late") != std::string::npos);
  CHECK(late.topology.stragglers.size() == 1);

  e.add_straggler(2, 0, 4);  // reduces 4x slower
  const LoadResult slow = load_editor(e);
  REQUIRE_MESSAGE(slow.model, slow.error);
  CHECK(slow.model->trace().predicted->time_ns > p.time_ns);
  CHECK(slow.model->trace().predicted->topology.find("rank 2 computes 4x slower") != std::string::npos);

  // Exported as a scenario, they load back; a re-run (the editor loaded from the run) keeps them.
  const Scenario back = parse_scenario(scenario_toml(slow.model->trace(), slow.topology), "stragglers.toml");
  REQUIRE(back.topology.stragglers.size() == 2);
  CHECK(back.topology.stragglers[1].rank == 2);
  CHECK(back.topology.stragglers[1].slow == 4.0);
  RunEditor again;
  again.load(slow.model->trace().request, slow.topology);
  REQUIRE(again.topology.stragglers.size() == 2);
  CHECK(again.topology.stragglers[0].late_us == 50.0);

  // Add picks the first rank not listed yet; remove takes one out (out of range: nothing).
  again.add_straggler();
  REQUIRE(again.topology.stragglers.size() == 3);
  CHECK(again.topology.stragglers[2].rank == 0);
  again.remove_straggler(0);
  again.remove_straggler(7);
  REQUIRE(again.topology.stragglers.size() == 2);
  CHECK(again.topology.stragglers[0].rank == 2);
}

TEST_CASE("gui editor: a bad straggler comes back as the library's error text, naming it") {
  RunEditor e;
  e.count = "64";
  e.add_straggler(0, 5, 1);
  e.add_straggler(9, 0, 1);
  CHECK(load_editor(e).error.find("straggler 2 (toolbar): rank 9 is not one of the 4 ranks (0..3)") != std::string::npos);
  e.remove_straggler(1);
  e.add_straggler(3, -1, 1);
  CHECK(load_editor(e).error.find("straggler 2 (toolbar): the late start must be >= 0 µs, got -1") != std::string::npos);
  e.topology.stragglers[1].late_us = 0;
  e.topology.stragglers[1].slow = 0;
  CHECK(load_editor(e).error.find("the slow-down factor must be > 0, got 0") != std::string::npos);
  e.topology.stragglers[1].slow = 0.5;  // faster than the rest: the library allows it
  const LoadResult ok = load_editor(e);
  CHECK_MESSAGE(ok.model, ok.error);
}

TEST_CASE("gui editor: the links popup's uplinks, group size and overrides reach the run, slow it, and are kept on re-runs") {
  RunEditor e;
  e.count = "64K";
  e.set_topology_kind(TopologyKind::two_level);
  e.topology.group_size = 2;  // 4 ranks: two nodes, so a ring crosses the network twice
  const LoadResult plain = load_editor(e);
  REQUIRE_MESSAGE(plain.model, plain.error);
  const PredictedSummary& p0 = *plain.model->trace().predicted;
  CHECK(p0.topology.find("(2 per node)") != std::string::npos);

  // A slower uplink preset figure: every cross-node transfer takes longer.
  e.uplink_bandwidth = "1";
  std::string error;
  std::optional<TopologyConfig> t = e.topology_config(error);
  REQUIRE_MESSAGE(t, error);
  CHECK(t->uplink_bandwidth_gbps == 1.0);
  CHECK_FALSE(t->uplink_latency_us);
  const LoadResult slow_uplinks = load_editor(e);
  REQUIRE_MESSAGE(slow_uplinks.model, slow_uplinks.error);
  CHECK(slow_uplinks.model->trace().predicted->time_ns > p0.time_ns);
  e.uplink_bandwidth.clear();

  // One slow network link, by name: the row becomes a LinkOverride named after its row.
  e.add_override("uplink1", "0.5", "-");  // "-" is not a number: the editor says so, naming the row
  CHECK_FALSE(e.topology_config(error));
  CHECK(error.find("link override 1 (toolbar): latency (µs): '-' is not a number") != std::string::npos);
  e.overrides[0].latency = "";
  t = e.topology_config(error);
  REQUIRE_MESSAGE(t, error);
  REQUIRE(t->overrides.size() == 1);
  CHECK(t->overrides[0].link == "uplink1");
  CHECK(t->overrides[0].bandwidth_gbps == 0.5);
  CHECK_FALSE(t->overrides[0].latency_us);
  CHECK(t->overrides[0].origin == "link override 1 (toolbar)");
  const LoadResult slow_link = load_editor(e);
  REQUIRE_MESSAGE(slow_link.model, slow_link.error);
  CHECK(slow_link.model->trace().predicted->time_ns > p0.time_ns);
  CHECK(slow_link.model->trace().predicted->topology.find("1 link overridden") != std::string::npos);

  // A re-run (the editor loaded from the run) keeps them; so does the exported scenario.
  RunEditor again;
  again.load(slow_link.model->trace().request, slow_link.topology);
  CHECK(again.topology.group_size == 2);
  REQUIRE(again.overrides.size() == 1);
  CHECK(again.overrides[0].link == "uplink1");
  CHECK(again.overrides[0].bandwidth == "0.5");
  const Scenario back = parse_scenario(scenario_toml(slow_link.model->trace(), slow_link.topology), "links.toml");
  CHECK(back.topology.group_size == 2);
  REQUIRE(back.topology.overrides.size() == 1);
  CHECK(back.topology.overrides[0].link == "uplink1");
  CHECK(back.topology.overrides[0].bandwidth_gbps == 0.5);
  CHECK(back.topology.overrides[0].origin.find("links.toml") != std::string::npos);

  // Add picks the first uplink not listed yet; remove takes one out (out of range: nothing);
  // without overrides the run is as fast as before.
  again.add_override();
  again.add_override();
  REQUIRE(again.overrides.size() == 3);
  CHECK(again.overrides[1].link == "uplink0");
  CHECK(again.overrides[2].link == "uplink2");
  again.remove_override(9);
  again.remove_override(0);
  REQUIRE(again.overrides.size() == 2);
  CHECK(again.overrides[0].link == "uplink0");
  again.overrides.clear();
  const LoadResult back_to_plain = load_editor(again);
  REQUIRE_MESSAGE(back_to_plain.model, back_to_plain.error);
  CHECK(back_to_plain.model->trace().predicted->time_ns == p0.time_ns);
}

TEST_CASE("gui editor: a bad link override or rate comes back as an error naming its row or field, never an exception") {
  RunEditor e;
  e.count = "64";
  e.set_topology_kind(TopologyKind::two_level);
  e.add_override("rank0", "100", "");
  e.add_override("uplink9", "1", "");  // 4 ranks make one node of the default size: uplink0 only
  CHECK(load_editor(e).error.find("link override 2 (toolbar): no link 'uplink9' on two_level with 4 ranks") != std::string::npos);
  e.overrides[1] = {"rank2", "0", ""};
  CHECK(load_editor(e).error.find("link override 2 (toolbar): bandwidth must be > 0, got 0") != std::string::npos);
  e.overrides[1] = {"rank2", "", ""};  // a row that changes nothing: the editor refuses it (a scenario could not say it)
  std::string error;
  CHECK_FALSE(e.topology_config(error));
  CHECK(error.find("link override 2 (toolbar): give 'rank2' a bandwidth or a latency") != std::string::npos);
  e.overrides[1].latency = "2";
  e.reduce_rate = "quick";
  CHECK_FALSE(e.topology_config(error));
  CHECK(error.find("reduce rate (GB/s): 'quick' is not a number") != std::string::npos);
  e.reduce_rate = "0";
  CHECK(load_editor(e).error.find("the reduction rate must be > 0, got 0") != std::string::npos);
  e.reduce_rate.clear();
  e.set_topology_kind(TopologyKind::ring);  // rank links are "ring0".. there; the rows were two_level's
  CHECK(e.overrides.empty());
  e.add_override("rank0", "1", "");
  CHECK(load_editor(e).error.find("link override 1 (toolbar): no link 'rank0' on ring with 4 ranks (links: ring0..ring3)") !=
        std::string::npos);
  e.overrides[0].link = "ring0";
  const LoadResult ok = load_editor(e);
  CHECK_MESSAGE(ok.model, ok.error);
}

TEST_CASE("gui numbers: the figures come from the schedule and the closed form, never from formula text") {
  // The double binary tree's "at most 2n" on 4 MiB: once "at most 24 MiB" by substituting
  // n into "2n" character by character.
  const RunRequest r = request(Collective::all_reduce, "double_binary_tree", 8, 1u << 20);  // 4 MiB of f32
  const ViewModel vm(trace_of(r));
  const AlgorithmNumbers n = algorithm_numbers(vm);
  const std::vector<std::uint64_t> sent = bytes_sent_per_rank(vm.schedule());
  const std::uint64_t most = *std::max_element(sent.begin(), sent.end());
  CHECK(most <= 2 * algorithm_bytes(r.spec));  // the formula's bound, from the schedule itself
  CHECK(n.bytes.find(format_bytes(static_cast<double>(most))) != std::string::npos);
  CHECK(n.bytes.find("24 MiB") == std::string::npos);
  CHECK(n.steps.find(fmt::format("this schedule: {}", vm.step_count())) != std::string::npos);
  // The time is the algorithm's own function's, on the default switch.
  const ClosedForm f = closed_form(r.spec, r.algorithm, r.options,
                                   cost_params(make_topology(TopologyConfig{}, r.spec.ranks, vm.schedule().total_ranks)));
  REQUIRE(f.time_ns);
  CHECK(n.closed_form.find(format_duration_ns(*f.time_ns)) != std::string::npos);
  CHECK(n.closed_form.find(f.formula) != std::string::npos);
}

TEST_CASE("gui shading: one rule for cells and ranks, shared by the app and the storyboard") {
  CHECK(shading::stripes(16));
  CHECK_FALSE(shading::stripes(17));
  CHECK(shading::fill(4, 4) == palette::Rgb{60, 200, 170});  // complete
  CHECK(shading::fill(0, 4) == palette::Rgb{51, 77, 115});   // nothing yet
  CHECK(shading::fill(2, 4).g > shading::fill(1, 4).g);      // brighter as it fills
  CHECK(shading::rank_fill(3, 8) == palette::rank(3));
  CHECK(shading::rank_fill(3, 40) == shading::rank_fill(5, 40));
  RankSet have;
  have.mask = 0b1010, have.count = 2;
  const std::vector<palette::Rgb> s = shading::stripe_colours(0b1110, have);
  REQUIRE(s.size() == 3);
  CHECK(s[0] == palette::rank(1));
  CHECK(s[1] == palette::missing_slot);
  CHECK(s[2] == palette::rank(3));
}

TEST_CASE("gui loader: a load checks each distinct schedule once, and the views read that check's history") {
  const std::filesystem::path source = COLLSIM_SOURCE_DIR;
  Progress p;
  std::uint64_t before = checker_runs();
  const LoadResult run = load(run_request(request(Collective::all_reduce, "ring", 4, 8)), p);
  REQUIRE_MESSAGE(run.model, run.error);
  CHECK(checker_runs() - before == 1);  // prepare_run's check, which recorded the view's history
  CHECK(&run.model->buffers() == run.model->trace().history.get());

  // Lesson 12 (DDP): the constructor's all-gather and 3 broadcasts (shapes, f32 and int64
  // state_dict), the buffers' f32 broadcast (equal in both iterations: one run; their int64
  // one equals the constructor's), the rebuild's 2, iteration 1's bucket and iteration 2's 5:
  // 13 distinct collectives,
  // with more phases than that (compute in between) and questions answered from the histories.
  before = checker_runs();
  const LoadResult ddp = load(file_request(source / "scenarios/lessons/12_ddp_resnet34.toml"), p);
  REQUIRE_MESSAGE(ddp.lesson, ddp.error);
  std::set<const RunResult*> distinct;
  for (const PhaseRun& pr : ddp.lesson->program.phases)
    if (pr.run) distinct.insert(pr.run.get());
  CHECK(distinct.size() == 13);
  // Its description's suggestions ([[try]]) are each predicted too, which checks their schedules
  // (the model's dependencies come from the check): as many checks as running them again takes.
  const std::uint64_t loaded = checker_runs() - before;
  const std::uint64_t before_suggestions = checker_runs();
  for (std::size_t k = 0; k < ddp.lesson->scenario.suggestions.size(); ++k) run_suggestion(ddp.lesson->scenario, k);
  const std::uint64_t suggested = checker_runs() - before_suggestions;
  CHECK(suggested > 0);
  CHECK(loaded == distinct.size() + suggested);
  for (const PhaseRun& pr : ddp.lesson->program.phases)
    if (pr.run) CHECK(pr.run->history);

  // A trace import checks its schedule once, and that check gives the view its history.
  const auto file = std::filesystem::temp_directory_path() / "collsim_gui_test_checks.json";
  REQUIRE(write_export(file, trace_to_json(run.model->trace())).empty());
  before = checker_runs();
  const LoadResult imported = load(file_request(file), p);
  REQUIRE_MESSAGE(imported.model, imported.error);
  CHECK(checker_runs() - before == 1);
  CHECK(imported.model->buffers().changes().size() == run.model->buffers().changes().size());
}
