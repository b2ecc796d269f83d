#include "app/views/layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim::gui {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kMaxRankRadius = 0.15f;

Vec2 on_circle(float radius, float angle, Vec2 centre = {}) {
  return {centre.x + radius * std::cos(angle), centre.y + radius * std::sin(angle)};
}

Vec2& at(Layout& l, int node) { return l.nodes[static_cast<std::size_t>(node)]; }

// A disc radius that keeps neighbours `spacing` apart from touching.
float radius_for_spacing(float spacing) { return std::clamp(0.42f * spacing, 0.004f, kMaxRankRadius); }

float chord(float radius, int n) { return n <= 1 ? 2 * radius : 2 * radius * std::sin(kPi / static_cast<float>(n)); }

// `ranks` on a circle, the first at the top, going clockwise (y points down).
void place_on_circle(Layout& l, const std::vector<int>& ranks, float radius, Vec2 centre = {}) {
  const int n = static_cast<int>(ranks.size());
  for (int i = 0; i < n; ++i)
    at(l, ranks[static_cast<std::size_t>(i)]) =
        on_circle(radius, -kPi / 2 + 2 * kPi * static_cast<float>(i) / static_cast<float>(n), centre);
  l.rank_radius = radius_for_spacing(chord(radius, n));
}

std::vector<int> iota(int first, int count) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

int add_hub(Layout& l, Vec2 position, std::string label) {
  l.nodes.push_back(position);
  l.hub_labels.push_back(std::move(label));
  return static_cast<int>(l.nodes.size()) - 1;
}

void add_link(Layout& l, int a, int b, int tree = -1) {
  if (a == b) return;
  l.links.emplace_back(std::min(a, b), std::max(a, b));
  l.link_tree.push_back(tree);
}

// The ranks of `order` around the circle, linked order[i] -- order[i + 1] (and the last
// to the first on a closed ring); ranks not in the order (extra servers) below it.
void layout_ring(Layout& l, const std::vector<int>& order, bool closed) {
  const int n = static_cast<int>(order.size());
  place_on_circle(l, order, 0.8f);
  l.ring_radius = n >= 3 ? 0.8f : 0.0f;
  l.ring_size = n;
  l.ring_closed = closed;
  l.ring_pos.assign(static_cast<std::size_t>(l.ranks), -1);
  for (int i = 0; i < n; ++i) l.ring_pos[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  for (int i = 0; i + 1 < n; ++i) add_link(l, order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(i + 1)]);
  if (closed && n > 2) add_link(l, order.back(), order.front());
}

// Every rank around one circle (all-pairs and hypercube patterns, a switch, fully connected).
void layout_circle(Layout& l) { place_on_circle(l, iota(0, l.ranks), 0.8f); }

// The ranks that are not hubs on an arc of 240 degrees opening downwards; the hubs in a
// row at `hub_y` (the centre for an algorithm's star, the arc's opening for a topology's).
void layout_star(Layout& l, const std::vector<int>& hubs, float hub_y) {
  std::vector<int> spokes;
  for (int r = 0; r < l.ranks; ++r)
    if (std::find(hubs.begin(), hubs.end(), r) == hubs.end()) spokes.push_back(r);
  if (spokes.empty() || hubs.empty()) return layout_circle(l);
  const int w = static_cast<int>(spokes.size()), servers = static_cast<int>(hubs.size());
  const float span = 4 * kPi / 3, start = -kPi / 2 - span / 2;
  for (int i = 0; i < w; ++i) {
    const float f = w == 1 ? 0.5f : static_cast<float>(i) / static_cast<float>(w - 1);
    at(l, spokes[static_cast<std::size_t>(i)]) = on_circle(0.8f, start + span * f);
  }
  l.rank_radius = radius_for_spacing(w == 1 ? 1.0f : 0.8f * span / static_cast<float>(w - 1));
  const float row = std::min(0.3f, 1.0f / static_cast<float>(servers));
  for (int s = 0; s < servers; ++s)
    at(l, hubs[static_cast<std::size_t>(s)]) = {row * (static_cast<float>(s) - 0.5f * static_cast<float>(servers - 1)), hub_y};
  if (servers > 1) l.rank_radius = std::min(l.rank_radius, radius_for_spacing(row));
  for (int h : hubs) l.is_server[static_cast<std::size_t>(h)] = true;
}

// Ranks on a grid by their bits: the even bits give the column, the odd bits the row,
// so that round k's partners (r and r xor 2^k) sit on one axis, 2^(k/2) cells apart,
// and the pairs of one round are parallel edges of one length. Every pair that differs
// in one bit is a link (the hypercube's edges).
void layout_hypercube(Layout& l) {
  const int n = l.ranks;
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  const int cols = 1 << ((bits + 1) / 2), rows = 1 << (bits / 2);
  const auto spread = [](int r, int first_bit) {
    int v = 0;
    for (int b = first_bit, out = 0; (r >> b) != 0; b += 2, ++out) v |= ((r >> b) & 1) << out;
    return v;
  };
  const float g = std::min(cols > 1 ? 1.8f / static_cast<float>(cols - 1) : 1.8f, rows > 1 ? 1.6f / static_cast<float>(rows - 1) : 1.6f);
  for (int r = 0; r < n; ++r)
    at(l, r) = {g * (static_cast<float>(spread(r, 0)) - 0.5f * static_cast<float>(cols - 1)),
                g * (static_cast<float>(spread(r, 1)) - 0.5f * static_cast<float>(rows - 1))};
  l.grid_step = g;
  l.rank_radius = radius_for_spacing(g);
  for (int r = 0; r < n; ++r)
    for (int b = 0; b < bits; ++b)
      if (const int p = r ^ (1 << b); p > r && p < n) add_link(l, r, p);
}

// Tree placement: depth from the root, and x by the leaves under each rank (a tidy tree).
struct TreePlace {
  std::vector<std::vector<int>> children;
  std::vector<int> depth;
  std::vector<float> x;
  float next_leaf = 0;
  int max_depth = 0;

  void visit(int r, int d) {
    depth[static_cast<std::size_t>(r)] = d;
    max_depth = std::max(max_depth, d);
    const std::vector<int>& kids = children[static_cast<std::size_t>(r)];
    for (int c : kids) visit(c, d + 1);
    x[static_cast<std::size_t>(r)] =
        kids.empty() ? next_leaf++ : (x[static_cast<std::size_t>(kids.front())] + x[static_cast<std::size_t>(kids.back())]) / 2;
  }
};

// Ranks by depth in the first tree, root at the top, children below their parent; ranks
// outside it in a row at the bottom. Every tree's edges are links, tagged with its index.
void layout_trees(Layout& l, const std::vector<TreeShape>& trees) {
  const TreeShape& first = trees.front();
  TreePlace p{std::vector<std::vector<int>>(static_cast<std::size_t>(l.ranks)),
              std::vector<int>(static_cast<std::size_t>(l.ranks), -1), std::vector<float>(static_cast<std::size_t>(l.ranks), 0)};
  for (int r = 0; r < l.ranks && r < static_cast<int>(first.parent.size()); ++r)
    if (const int q = first.parent[static_cast<std::size_t>(r)]; q >= 0 && q < l.ranks) p.children[static_cast<std::size_t>(q)].push_back(r);
  if (first.root >= 0 && first.root < l.ranks) p.visit(first.root, 0);
  std::vector<int> outside;
  for (int r = 0; r < l.ranks; ++r)
    if (p.depth[static_cast<std::size_t>(r)] < 0) outside.push_back(r);
  const int rows = p.max_depth + 1 + (outside.empty() ? 0 : 1);
  const float width = std::max(p.next_leaf, static_cast<float>(outside.size()));
  const float dx = width > 1 ? 1.8f / (width - 1) : 1.0f, dy = rows > 1 ? 1.6f / static_cast<float>(rows - 1) : 1.0f;
  const auto x_of = [&](float slot, float count) { return count > 1 ? -0.9f + 1.8f * slot / (count - 1) : 0.0f; };
  for (int r = 0; r < l.ranks; ++r)
    if (const int d = p.depth[static_cast<std::size_t>(r)]; d >= 0)
      at(l, r) = {x_of(p.x[static_cast<std::size_t>(r)], p.next_leaf), -0.8f + dy * static_cast<float>(d)};
  for (std::size_t i = 0; i < outside.size(); ++i)
    at(l, outside[i]) = {x_of(static_cast<float>(i), static_cast<float>(outside.size())), 0.8f};
  l.rank_radius = radius_for_spacing(std::min(dx, dy));
  for (std::size_t k = 0; k < trees.size(); ++k)
    for (int r = 0; r < l.ranks && r < static_cast<int>(trees[k].parent.size()); ++r)
      if (const int q = trees[k].parent[static_cast<std::size_t>(r)]; q >= 0 && q < l.ranks) add_link(l, q, r, static_cast<int>(k));
}

// `ranks` in a row from x0 to x1 at height y (a node's GPUs over their switch).
void place_in_row(Layout& l, const std::vector<int>& ranks, float x0, float x1, float y) {
  const int n = static_cast<int>(ranks.size());
  const float dx = n > 1 ? (x1 - x0) / static_cast<float>(n - 1) : 0.0f;
  for (int i = 0; i < n; ++i) at(l, ranks[static_cast<std::size_t>(i)]) = {n > 1 ? x0 + dx * static_cast<float>(i) : (x0 + x1) / 2, y};
  l.rank_radius = radius_for_spacing(n > 1 ? dx : 1.0f);
}

// Nodes as boxes in a row (a grid beyond four), each node's ranks on a small circle in
// its box, and the hub `top` below them for the traffic between nodes. With `fabric`,
// each box also gets a switch of its own ("fabric"), just below it, and up to eight ranks
// sit in a row at the box's top, so that every rank's way down to the switch passes no
// other rank (on a circle, the bottom rank sat on the others' ways, and so did their packets).
void layout_groups(Layout& l, int per_node, const std::string& top, const std::string& fabric = "") {
  l.ranks_per_node = per_node;
  const int nodes = (l.ranks + per_node - 1) / per_node;
  const int cols = nodes <= 4 ? nodes : static_cast<int>(std::ceil(std::sqrt(static_cast<float>(nodes))));
  const int rows = (nodes + cols - 1) / cols;
  constexpr float box = 1.0f, gap = 0.7f, inner = 0.3f;  // gap: room for the byte labels between boxes
  const float below = fabric.empty() ? 0.0f : 0.3f;      // room for the boxes' switches
  float rank_radius = kMaxRankRadius;
  for (int m = 0; m < nodes; ++m) {
    const Vec2 centre{(static_cast<float>(m % cols) - 0.5f * static_cast<float>(cols - 1)) * (box + gap),
                      (static_cast<float>(m / cols) - 0.5f * static_cast<float>(rows - 1)) * (box + gap)};
    const int first = m * per_node, count = std::min(per_node, l.ranks - first);
    if (!fabric.empty() && count > 1 && count <= 8)
      place_in_row(l, iota(first, count), centre.x - box * 0.38f, centre.x + box * 0.38f, centre.y - box * 0.15f);
    else
      place_on_circle(l, iota(first, count), count == 1 ? 0.0f : inner, centre);
    rank_radius = std::min(rank_radius, count == 1 ? radius_for_spacing(box) : l.rank_radius);
    l.boxes.push_back({{centre.x - box / 2, centre.y - box / 2}, {centre.x + box / 2, centre.y + box / 2}, fmt::format("node {}", m)});
    if (!fabric.empty()) l.fabric_hub.push_back(add_hub(l, {centre.x, centre.y + box / 2 + below / 2}, fabric));
  }
  l.rank_radius = rank_radius;
  if (nodes > 1 || !fabric.empty())
    l.top_hub = add_hub(l, {0, 0.5f * static_cast<float>(rows) * (box + gap) + 0.2f + below}, top);
}

// The topology's own drawing: where its ranks and switches go.
void place_topology(Layout& l, const Topology& t) {
  switch (t.kind) {
    case TopologyKind::switch_fabric:
      layout_circle(l);
      l.fabric_hub.push_back(add_hub(l, {0, 0}, "switch"));
      return;
    case TopologyKind::star:
      layout_star(l, iota(t.workers, t.ranks - t.workers), 0.75f);
      l.fabric_hub.push_back(add_hub(l, {0, 0}, "switch"));
      return;
    case TopologyKind::ring: return layout_ring(l, iota(0, l.ranks), true);
    case TopologyKind::fully_connected: return layout_circle(l);
    case TopologyKind::pcie_tree: return layout_groups(l, std::max(1, t.group), "PCIe root", "PCIe switch");
    case TopologyKind::two_level: return layout_groups(l, std::max(1, t.group), "network", "switch");
  }
}

int node_of(const Layout& l, const LinkEnd& e) {
  switch (e.kind) {
    case LinkEnd::Kind::rank: return e.index;
    case LinkEnd::Kind::fabric:
      return e.index >= 0 && e.index < static_cast<int>(l.fabric_hub.size()) ? l.fabric_hub[static_cast<std::size_t>(e.index)] : -1;
    case LinkEnd::Kind::top: return l.top_hub;
  }
  return -1;
}

// The topology's physical links as drawn links, and which one each directed link is part of.
void add_topology_links(Layout& l, const Topology& t) {
  std::map<std::pair<int, int>, std::uint32_t> drawn;
  l.drawn_link.assign(t.link_count(), 0);
  for (std::uint32_t k = 0; k < t.link_count(); ++k) {
    const LinkEnds e = link_ends(t, k);
    const int a = node_of(l, e.from), b = node_of(l, e.to);
    if (a < 0 || b < 0) throw std::logic_error(fmt::format("layout: no node for an end of {}", link_name(t, k)));
    const auto [it, added] = drawn.emplace(std::pair{std::min(a, b), std::max(a, b)}, static_cast<std::uint32_t>(l.links.size()));
    if (added) add_link(l, a, b);
    l.drawn_link[k] = it->second;
  }
}

// The algorithm's pattern: the shape sim gave it.
void place_pattern(Layout& l, LayoutKind kind, const AlgorithmLayout& a) {
  switch (kind) {
    case LayoutKind::ring:
    case LayoutKind::chain: return layout_ring(l, a.order, kind == LayoutKind::ring);
    case LayoutKind::trees: return layout_trees(l, a.trees);
    case LayoutKind::hypercube: return layout_hypercube(l);
    case LayoutKind::star: return layout_star(l, a.hubs, 0.1f);
    case LayoutKind::two_level:
      layout_groups(l, std::max(1, a.group_size), "network");
      if (l.top_hub >= 0)
        for (int r = 0; r < l.ranks; ++r) add_link(l, r, l.top_hub);
      return;
    default: return layout_circle(l);
  }
}

// Whether every rank of `order` is one of the schedule's, each once.
bool valid_order(const std::vector<int>& order, int ranks) {
  std::vector<bool> seen(static_cast<std::size_t>(std::max(ranks, 0)), false);
  for (int r : order) {
    if (r < 0 || r >= ranks || seen[static_cast<std::size_t>(r)]) return false;
    seen[static_cast<std::size_t>(r)] = true;
  }
  return order.size() >= 2;
}

}  // namespace

std::string_view to_string(LayoutKind k) {
  switch (k) {
    case LayoutKind::ring: return "ring";
    case LayoutKind::chain: return "chain";
    case LayoutKind::trees: return "trees";
    case LayoutKind::star: return "star";
    case LayoutKind::circle: return "circle";
    case LayoutKind::fully_connected: return "fully connected";
    case LayoutKind::switch_star: return "switch";
    case LayoutKind::two_level: return "nodes";
    case LayoutKind::hypercube: return "hypercube";
  }
  return "?";
}

LayoutChoice layout_for_algorithm(AlgorithmLayout a) {
  LayoutKind kind = LayoutKind::circle;
  switch (a.shape) {
    case LayoutShape::ring: kind = LayoutKind::ring; break;
    case LayoutShape::chain: kind = LayoutKind::chain; break;
    case LayoutShape::trees: kind = a.trees.empty() ? LayoutKind::circle : LayoutKind::trees; break;
    case LayoutShape::star: kind = a.hubs.empty() ? LayoutKind::circle : LayoutKind::star; break;
    case LayoutShape::hierarchy: kind = a.group_size > 0 ? LayoutKind::two_level : LayoutKind::circle; break;
    case LayoutShape::hypercube: kind = LayoutKind::hypercube; break;
    case LayoutShape::all_pairs:
    case LayoutShape::shifts: kind = LayoutKind::circle; break;
  }
  return {kind, std::move(a), std::nullopt, std::nullopt, fmt::format("the algorithm's pattern ({})", to_string(kind))};
}

LayoutChoice layout_for_algorithm(const Schedule& s, const AlgorithmOptions& options) {
  return layout_for_algorithm(algorithm_layout(s.spec, s.algorithm, options));
}

LayoutChoice layout_for_topology(Topology t) {
  static constexpr LayoutKind kKinds[] = {LayoutKind::switch_star, LayoutKind::ring,      LayoutKind::fully_connected,
                                          LayoutKind::two_level,   LayoutKind::two_level, LayoutKind::star};
  const LayoutKind kind = kKinds[static_cast<std::size_t>(t.kind)];
  std::string why = fmt::format("the {} topology the timing model predicted on", to_string(t.kind));
  return {kind, {}, std::move(t), std::nullopt, std::move(why)};
}

void with_wires(LayoutChoice& pattern, Topology t) {
  // A hierarchy draws its nodes and their network itself: its wiring, with hubs of its own.
  if (pattern.kind == LayoutKind::two_level) return;
  pattern.description = fmt::format("the algorithm's pattern ({}) on the {} topology's wires", to_string(pattern.kind),
                                     to_string(t.kind));
  pattern.wires = std::move(t);
}

std::optional<LayoutChoice> layout_for_topology(const Trace& t) {
  if (!t.predicted || !t.predicted->topology_config) return std::nullopt;
  try {
    return layout_for_topology(make_topology(*t.predicted->topology_config, t.schedule.spec.ranks, t.schedule.total_ranks));
  } catch (const InputError&) {  // (a trace edited by hand: arranged by the algorithm instead)
    return std::nullopt;
  }
}

namespace {
void bend_tree_links(Layout& l);  // below, beside the curves it checks

float distance(Vec2 a, Vec2 b) { return std::hypot(b.x - a.x, b.y - a.y); }

// A switch of the wires is a box as wide as its name ("PCIe switch"): at a projector's
// 1280x800 and --scale 1.5, about 0.6 by 0.25 of the unit square.
constexpr float kWireHubHalfW = 0.34f, kWireHubHalfH = 0.15f;

// Whether a switch's box at p stays inside the drawing and off every rank's disc.
bool off_discs(const Layout& l, Vec2 p) {
  if (std::abs(p.x) > 0.95f || std::abs(p.y) > 0.95f) return false;
  for (int r = 0; r < l.ranks; ++r) {
    const Vec2 q = l.nodes[static_cast<std::size_t>(r)];
    if (std::abs(p.x - q.x) < kWireHubHalfW + 1.3f * l.rank_radius && std::abs(p.y - q.y) < kWireHubHalfH + 1.3f * l.rank_radius)
      return false;
  }
  return true;
}

// The switches in a column at the pattern's centre (inside a ring, a circle, between the
// trees' levels), `order` naming them top to bottom: spots[order[k]] is the k-th place.
// Empty when the column would touch a disc: then each goes the nearest clear place to its
// ranks (below).
std::vector<Vec2> hub_column(const Layout& l, const std::vector<std::size_t>& order) {
  constexpr float gap = 2 * kWireHubHalfH + 0.04f;
  std::vector<Vec2> spots(order.size());
  const float top = -0.5f * gap * static_cast<float>(order.size() - 1);
  for (std::size_t k = 0; k < order.size(); ++k) {
    spots[order[k]] = {0, top + gap * static_cast<float>(k)};
    if (!off_discs(l, spots[order[k]])) return {};
  }
  return spots;
}

// The nearest place to `middle` that keeps the box off every disc and switch placed so far.
Vec2 clear_spot(const Layout& l, Vec2 middle) {
  const auto clear = [&](Vec2 p) {
    if (!off_discs(l, p)) return false;
    for (int n = l.ranks; n < static_cast<int>(l.nodes.size()); ++n) {
      const Vec2 q = l.nodes[static_cast<std::size_t>(n)];
      if (std::abs(p.x - q.x) < 2 * kWireHubHalfW && std::abs(p.y - q.y) < 2 * kWireHubHalfH) return false;
    }
    return true;
  };
  const float step = 0.5f * l.rank_radius;
  for (int k = 0; k <= 24; ++k)
    for (int a = 0; a < (k == 0 ? 1 : 16); ++a) {
      const Vec2 p = on_circle(static_cast<float>(k) * step, 2 * kPi * static_cast<float>(a) / 16, middle);
      if (clear(p)) return p;
    }
  return middle;
}

Vec2 middle_of(const Layout& l, const std::vector<int>& nodes) {
  Vec2 sum;
  for (const int n : nodes) sum.x += l.nodes[static_cast<std::size_t>(n)].x, sum.y += l.nodes[static_cast<std::size_t>(n)].y;
  const auto count = static_cast<float>(std::max<std::size_t>(nodes.size(), 1));
  return {sum.x / count, sum.y / count};
}

// Arranged by both: the topology's switches where they connect (each fabric switch amid its
// ranks, the top amid the switches or ranks it joins) and its links as wires.
void add_wires(Layout& l, const Topology& t) {
  std::map<int, std::vector<int>> fabric_ranks;  // fabric switch group -> its ranks
  std::vector<int> top_members;                  // ranks and fabric groups (as -1 - g) joined to the top
  bool has_top = false;
  for (std::uint32_t k = 0; k < t.link_count(); ++k) {
    const LinkEnds e = link_ends(t, k);
    for (const auto& [a, b] : {std::pair{e.from, e.to}, std::pair{e.to, e.from}}) {
      if (a.kind == LinkEnd::Kind::rank && b.kind == LinkEnd::Kind::fabric) fabric_ranks[b.index].push_back(a.index);
      if (b.kind == LinkEnd::Kind::top) {
        has_top = true;
        if (a.kind == LinkEnd::Kind::rank) top_members.push_back(a.index);
        if (a.kind == LinkEnd::Kind::fabric) top_members.push_back(-1 - a.index);
      }
    }
  }
  // Each fabric switch amid its ranks, the top amid what it joins: in a column at the centre
  // where that fits, else each at the clear place nearest its own middle.
  std::vector<Vec2> middles;
  for (auto& [group, ranks] : fabric_ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    middles.push_back(middle_of(l, ranks));
  }
  // The column's order: the fabric switches by where their ranks are (so that wires cross
  // little), the top of a tree of switches in the middle of them.
  std::vector<std::size_t> order(middles.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return middles[a].y < middles[b].y; });
  if (has_top) order.insert(order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2), middles.size());
  const std::vector<Vec2> column = hub_column(l, order);
  const auto spot = [&](std::size_t k, Vec2 middle) { return column.empty() ? clear_spot(l, middle) : column[k]; };
  const std::string fabric_name = t.kind == TopologyKind::pcie_tree ? "PCIe switch" : "switch";
  std::map<int, int> fabric_node;
  std::size_t k = 0;
  for (const auto& [group, ranks] : fabric_ranks) {
    fabric_node[group] = add_hub(l, spot(k, middles[k]), fabric_name);
    ++k;
  }
  int top = -1;
  if (has_top) {
    std::vector<int> joined;
    for (const int m : top_members) joined.push_back(m >= 0 ? m : fabric_node.at(-1 - m));
    top = add_hub(l, spot(k, middle_of(l, joined)), t.kind == TopologyKind::pcie_tree ? "PCIe root" : "network");
  }
  const auto node = [&](const LinkEnd& e) {
    switch (e.kind) {
      case LinkEnd::Kind::rank: return e.index;
      case LinkEnd::Kind::fabric: return fabric_node.at(e.index);
      case LinkEnd::Kind::top: return top;
    }
    return -1;
  };
  for (std::uint32_t k = 0; k < t.link_count(); ++k) {
    const LinkEnds e = link_ends(t, k);
    const int a = node(e.from), b = node(e.to);
    const std::pair wire{std::min(a, b), std::max(a, b)};
    if (std::find(l.wires.begin(), l.wires.end(), wire) == l.wires.end()) l.wires.push_back(wire);
  }
}
}  // namespace

Layout make_layout(const Schedule& s, const LayoutChoice& choice) {
  Layout l;
  l.kind = choice.kind;
  l.ranks = std::max(s.total_ranks, 0);
  l.nodes.assign(static_cast<std::size_t>(l.ranks), Vec2{});
  l.is_server.assign(static_cast<std::size_t>(l.ranks), false);
  LayoutKind kind = choice.kind;
  if (!choice.topology && (kind == LayoutKind::ring || kind == LayoutKind::chain) && !valid_order(choice.algorithm.order, l.ranks))
    kind = l.kind = LayoutKind::circle;
  if (choice.topology) {
    l.topology = choice.topology;
    place_topology(l, *choice.topology);
    add_topology_links(l, *choice.topology);
  } else {
    place_pattern(l, kind, choice.algorithm);
    bend_tree_links(l);
    if (choice.wires) add_wires(l, *choice.wires);
  }
  // Extra ranks (beyond the spec's) are servers.
  for (int r = s.spec.ranks; r < l.ranks; ++r) l.is_server[static_cast<std::size_t>(r)] = true;
  return l;
}

Path route(const Layout& l, int src, int dst) {
  Path p;
  if (src == dst) return p;
  if (!l.topology) {
    const bool between_nodes = l.kind == LayoutKind::two_level && l.ranks_per_node > 0 && l.top_hub >= 0 &&
                               src / l.ranks_per_node != dst / l.ranks_per_node;
    p.nodes = between_nodes ? std::vector<int>{src, l.top_hub, dst} : std::vector<int>{src, dst};
    return p;
  }
  std::vector<Hop> hops;
  collsim::route(*l.topology, src, dst, hops);
  p.nodes.push_back(src);
  for (const Hop& h : hops)
    for (int k = 0; k < h.count; ++k) {
      const std::uint32_t link = h.links[static_cast<std::size_t>(k)];
      const LinkEnds e = link_ends(*l.topology, link);
      for (const int n : {node_of(l, e.from), node_of(l, e.to)})
        if (n != p.nodes.back()) p.nodes.push_back(n);
      p.links.push_back(l.drawn_link[link]);
    }
  if (p.nodes.back() != dst) p.nodes.push_back(dst);
  return p;
}

bool is_ring_arc(const Layout& l, int a, int b) {
  if (l.ring_radius <= 0 || a < 0 || b < 0 || a >= l.ranks || b >= l.ranks || l.ring_pos.empty()) return false;
  const int pa = l.ring_pos[static_cast<std::size_t>(a)], pb = l.ring_pos[static_cast<std::size_t>(b)];
  if (pa < 0 || pb < 0) return false;
  const int d = std::abs(pa - pb);
  return d == 1 || (l.ring_closed && d == l.ring_size - 1);
}

namespace {

// One leg of a path: an arc between ring neighbours (of radius `radius`), a quadratic
// curve through the control point `c`, or a straight line.
struct Leg {
  Vec2 a, b, c;
  float from = 0, delta = 0, radius = 0;  // arcs: start angle, signed sweep, radius
  bool arc = false, curved = false;
  float length = 0;
};


// Where the curve between hypercube partners more than one cell apart (or a fold's
// partners, which differ in more than one bit) bends: its control
// point's offset to the left of lo -> hi (lo < hi, so that both directions share it), a
// quarter of its length, so that it passes beside the ranks between them.
float hypercube_bend(const Layout& l, int lo, int hi) {
  if (l.kind != LayoutKind::hypercube || l.grid_step <= 0 || lo >= l.ranks || hi >= l.ranks) return 0;
  const float d = distance(l.nodes[static_cast<std::size_t>(lo)], l.nodes[static_cast<std::size_t>(hi)]);
  const bool edge = std::popcount(static_cast<unsigned>(lo ^ hi)) == 1;  // not a fold's partners
  return d > 1.5f * l.grid_step || !edge ? 0.25f * d : 0.0f;
}

// On a circle of ranks, chords near the centre bend outwards: each step's packets (all
// at one point of their ways on the steps clock) then sit on a circle at least 0.4 of the
// ranks' radius from the centre, wide enough for N packets abreast, instead of piling up
// where the diameters cross. `n` becomes the side it bends to (outwards).
float circle_bend(const Layout& l, int lo, int hi, Vec2& n) {
  if ((l.kind != LayoutKind::circle && l.kind != LayoutKind::fully_connected) || lo >= l.ranks || hi >= l.ranks) return 0;
  const Vec2 a = l.nodes[static_cast<std::size_t>(lo)], b = l.nodes[static_cast<std::size_t>(hi)];
  const Vec2 mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
  const float rho = std::hypot(mid.x, mid.y), radius = std::hypot(a.x, a.y);
  const float bend = 2 * (0.4f * radius + 0.5f * lane_width(l) - rho);
  if (bend <= 0) return 0;
  if (rho > 1e-4f) n = {mid.x / rho, mid.y / rho};
  return bend;
}

Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }


// Where a rank sits in its node's box, from the box's centre (nothing outside a hierarchy).
Vec2 box_offset(const Layout& l, int rank) {
  if (l.ranks_per_node <= 0 || rank < 0 || rank >= l.ranks) return {};
  const std::size_t box = static_cast<std::size_t>(rank / l.ranks_per_node);
  if (box >= l.boxes.size()) return {};
  const NodeBox& b = l.boxes[box];
  const Vec2 p = l.nodes[static_cast<std::size_t>(rank)];
  return {p.x - (b.min.x + b.max.x) / 2, p.y - (b.min.y + b.max.y) / 2};
}

// The unit normal to the left of a -> b (y points down: "left" as the picture shows it).
Vec2 left_of(Vec2 a, Vec2 b) {
  const float d = std::max(distance(a, b), 1e-6f);
  return {(b.y - a.y) / d, -(b.x - a.x) / d};
}

Leg leg(const Layout& l, int i, int j, bool on_lane) {
  Leg g{l.nodes[static_cast<std::size_t>(i)], l.nodes[static_cast<std::size_t>(j)], {}};
  const float lane = on_lane ? lane_width(l) : 0.0f;
  g.arc = is_ring_arc(l, i, j);
  if (g.arc) {
    g.from = std::atan2(g.a.y, g.a.x);
    g.delta = std::atan2(g.b.y, g.b.x) - g.from;
    if (g.delta > kPi) g.delta -= 2 * kPi;
    if (g.delta < -kPi) g.delta += 2 * kPi;
    // Clockwise (delta > 0, y down) runs outside the circle, anticlockwise inside.
    g.radius = l.ring_radius + (g.delta > 0 ? 0.5f : -0.5f) * lane;
    g.length = std::abs(g.delta) * g.radius;
    return g;
  }
  const int lo = std::min(i, j), hi = std::max(i, j);
  Vec2 n = left_of(l.nodes[static_cast<std::size_t>(lo)], l.nodes[static_cast<std::size_t>(hi)]);
  float bend = hypercube_bend(l, lo, hi);
  if (const float b = circle_bend(l, lo, hi, n); b > 0) bend = b;
  if (const auto it = l.link_bend.find({lo, hi}); it != l.link_bend.end()) {  // a tree's edge round discs
    bend = std::hypot(it->second.x, it->second.y);
    n = {it->second.x / bend, it->second.y / bend};
  }
  const Vec2 lane_dir = left_of(g.a, g.b);
  g.c = {(g.a.x + g.b.x) / 2 + n.x * bend + lane_dir.x * lane, (g.a.y + g.b.y) / 2 + n.y * bend + lane_dir.y * lane};
  g.curved = bend != 0 || lane != 0;
  g.length = g.curved ? (distance(g.a, g.b) + distance(g.a, g.c) + distance(g.c, g.b)) / 2 : distance(g.a, g.b);
  return g;
}

Vec2 bezier(Vec2 a, Vec2 c, Vec2 b, float t) {
  const float u = 1 - t;
  return {u * u * a.x + 2 * u * t * c.x + t * t * b.x, u * u * a.y + 2 * u * t * c.y + t * t * b.y};
}

Vec2 along_leg(const Leg& g, float f) {
  if (g.arc) return on_circle(g.radius, g.from + g.delta * f);
  if (g.curved) return bezier(g.a, g.c, g.b, f);
  return {g.a.x + (g.b.x - g.a.x) * f, g.a.y + (g.b.y - g.a.y) * f};
}

// Whether a packet going from `from` to `to` on its lane, drawn as the views draw it
// (point_along), keeps clear of every other rank's disc from the edge of one end's disc to
// the other's (packet_way).
bool clear_of_discs(const Layout& l, int from, int to) {
  const std::vector<int> way{from, to};
  const float room = l.rank_radius + packet_radius(l);
  constexpr int kSamples = 32;
  for (int k = 0; k <= kSamples; ++k) {
    const Vec2 p = point_along(l, way, packet_way(l, way, static_cast<float>(k) / kSamples), true);
    for (int r = 0; r < l.ranks; ++r)
      if (r != from && r != to && distance(p, l.nodes[static_cast<std::size_t>(r)]) < room) return false;
  }
  return true;
}

// Trees: every edge that a straight line would draw over another rank's disc (the second
// tree's edges along a row of leaves: 0-4 behind 2) bends round them, by the smallest bend,
// in steps of half a disc, whose curve clears every disc on both directions' lanes; to either
// side, outwards from the centre first. Each bend tried is set in link_bend, where leg()
// reads it, so that the check measures the curves the views draw.
void bend_tree_links(Layout& l) {
  if (l.kind != LayoutKind::trees || l.ranks > 64) return;
  const float step = 0.5f * l.rank_radius;
  for (const std::pair<int, int>& link : l.links) {
    const int lo = link.first, hi = link.second;
    if (lo >= l.ranks || hi >= l.ranks) continue;
    const auto clear = [&l, lo, hi] { return clear_of_discs(l, lo, hi) && clear_of_discs(l, hi, lo); };
    if (clear()) continue;  // straight
    const Vec2 a = l.nodes[static_cast<std::size_t>(lo)], b = l.nodes[static_cast<std::size_t>(hi)];
    const Vec2 mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
    Vec2 out = left_of(a, b);
    if (out.x * mid.x + out.y * mid.y < 0) out = {-out.x, -out.y};
    bool found = false;
    for (int k = 1; k <= 40 && !found; ++k) {
      const float d = step * static_cast<float>(k);
      for (const Vec2 v : {Vec2{out.x * d, out.y * d}, Vec2{-out.x * d, -out.y * d}}) {
        l.link_bend[{lo, hi}] = v;
        if ((found = clear())) break;
      }
    }
    if (!found) l.link_bend.erase({lo, hi});  // no bend clears them: drawn straight, as before
  }
}

}  // namespace

float lane_width(const Layout& l) { return 1.1f * l.rank_radius; }

bool is_straight(const Layout& l, const std::vector<int>& path, bool on_lane) {
  if (path.size() != 2) return false;
  const Leg g = leg(l, path[0], path[1], on_lane);
  return !g.arc && !g.curved;
}

float packet_way(const Layout& l, const std::vector<int>& path, float progress) {
  if (path.size() < 2) return progress;
  const float length = std::max(distance(l.nodes[static_cast<std::size_t>(path.front())], l.nodes[static_cast<std::size_t>(path.back())]), 1e-6f);
  const float trim = std::min(0.3f, (l.rank_radius + packet_radius(l)) / length);
  return trim + (1 - 2 * trim) * progress;
}

Vec2 point_along(const Layout& l, const std::vector<int>& path, float progress, bool on_lane) {
  if (path.empty()) return {};
  if (path.size() == 1) return l.nodes[static_cast<std::size_t>(path[0])];
  if (path.size() == 3 && path[1] >= l.ranks) {
    // Through a hub: a curve with the hub as its control point, so that packets between
    // different pairs do not all meet in one spot half-way (on a lane: the control point
    // moved to the left of the way, so that the two directions of one pair do not either).
    const Vec2 a = l.nodes[static_cast<std::size_t>(path[0])], h = l.nodes[static_cast<std::size_t>(path[1])],
               b = l.nodes[static_cast<std::size_t>(path[2])];
    const Vec2 n = left_of(a, b);
    const float lane = on_lane ? lane_width(l) : 0.0f;
    // Between node boxes, each pair's curve keeps its ranks' places in their boxes, so that
    // the pairs crossing at once do not meet at the hub either.
    Vec2 spread = box_offset(l, path[0]) + box_offset(l, path[2]);
    // Never beyond the hub, away from the pair: the curve would then run over the hub and its name.
    const Vec2 mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
    const float dl = std::hypot(h.x - mid.x, h.y - mid.y);
    if (dl > 1e-6f) {
      const Vec2 d{(h.x - mid.x) / dl, (h.y - mid.y) / dl};
      if (const float along = spread.x * d.x + spread.y * d.y; along > 0) spread = {spread.x - d.x * along, spread.y - d.y * along};
    }
    return bezier(a, {h.x + spread.x + n.x * lane, h.y + spread.y + n.y * lane}, b, std::clamp(progress, 0.0f, 1.0f));
  }
  std::vector<Leg> legs;
  float total = 0;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    legs.push_back(leg(l, path[i], path[i + 1], on_lane));
    total += legs.back().length;
  }
  float left = std::clamp(progress, 0.0f, 1.0f) * total;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (left <= legs[i].length || i + 1 == legs.size())
      return along_leg(legs[i], legs[i].length > 0 ? std::min(left / legs[i].length, 1.0f) : 1.0f);
    left -= legs[i].length;
  }
  return l.nodes[static_cast<std::size_t>(path.back())];
}

}  // namespace collsim::gui
