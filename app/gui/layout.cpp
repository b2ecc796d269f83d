#include "app/gui/layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "sim/model/topology.h"

namespace collsim::gui {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kMaxRankRadius = 0.15f;

Vec2 on_circle(float radius, float angle, Vec2 centre = {}) {
  return {centre.x + radius * std::cos(angle), centre.y + radius * std::sin(angle)};
}

// A disc radius that keeps neighbours `spacing` apart from touching.
float radius_for_spacing(float spacing) { return std::clamp(0.42f * spacing, 0.004f, kMaxRankRadius); }

// n points on a circle, the first at the top, going clockwise (y points down).
void place_on_circle(Layout& l, int first, int n, float radius, Vec2 centre = {}) {
  for (int i = 0; i < n; ++i)
    l.nodes[static_cast<std::size_t>(first + i)] =
        on_circle(radius, -kPi / 2 + 2 * kPi * static_cast<float>(i) / static_cast<float>(n), centre);
}

float chord(float radius, int n) { return n <= 1 ? 2 * radius : 2 * radius * std::sin(kPi / static_cast<float>(n)); }

int add_hub(Layout& l, Vec2 at, std::string label) {
  l.nodes.push_back(at);
  l.hub_labels.push_back(std::move(label));
  return static_cast<int>(l.nodes.size()) - 1;
}

void add_link(Layout& l, int a, int b) {
  if (a == b) return;
  l.links.emplace_back(std::min(a, b), std::max(a, b));
}

void layout_ring(Layout& l) {
  const int n = l.ranks;
  place_on_circle(l, 0, n, 0.8f);
  l.ring_radius = n >= 3 ? 0.8f : 0.0f;
  l.rank_radius = radius_for_spacing(chord(0.8f, n));
  for (int r = 0; r < n && n > 1; ++r) add_link(l, r, (r + 1) % n);
}

void layout_switch(Layout& l) {
  place_on_circle(l, 0, l.ranks, 0.8f);
  l.rank_radius = radius_for_spacing(chord(0.8f, l.ranks));
  const int hub = add_hub(l, {0, 0}, "switch");
  for (int r = 0; r < l.ranks; ++r) add_link(l, r, hub);
}

// Workers on an arc of 240 degrees opening downwards; extra servers in a row at the centre.
void layout_parameter_server(Layout& l, int workers) {
  const int servers = l.ranks - workers;
  if (servers == 0) {  // colocated: servers are workers, all on one circle
    place_on_circle(l, 0, l.ranks, 0.8f);
    l.rank_radius = radius_for_spacing(chord(0.8f, l.ranks));
    return;
  }
  const float span = 4 * kPi / 3, start = -kPi / 2 - span / 2;
  for (int w = 0; w < workers; ++w) {
    const float f = workers == 1 ? 0.5f : static_cast<float>(w) / static_cast<float>(workers - 1);
    l.nodes[static_cast<std::size_t>(w)] = on_circle(0.8f, start + span * f);
  }
  const float spacing = workers == 1 ? 1.0f : 0.8f * span / static_cast<float>(workers - 1);
  l.rank_radius = radius_for_spacing(spacing);
  const float row = std::min(0.3f, 1.0f / static_cast<float>(servers));
  for (int s = 0; s < servers; ++s)
    l.nodes[static_cast<std::size_t>(workers + s)] = {row * (static_cast<float>(s) - 0.5f * static_cast<float>(servers - 1)), 0.1f};
  if (servers > 1) l.rank_radius = std::min(l.rank_radius, radius_for_spacing(row));
}

// Nodes as boxes in a row (a grid beyond four), each node's ranks on a small circle in
// its box, and the network switch below them for the traffic between nodes.
void layout_two_level(Layout& l, int per_node) {
  l.ranks_per_node = per_node;
  const int nodes = (l.ranks + per_node - 1) / per_node;
  const int cols = nodes <= 4 ? nodes : static_cast<int>(std::ceil(std::sqrt(static_cast<float>(nodes))));
  const int rows = (nodes + cols - 1) / cols;
  constexpr float box = 1.0f, gap = 0.7f, inner = 0.3f;  // gap: room for the byte labels between boxes
  l.rank_radius = radius_for_spacing(per_node == 1 ? box : chord(inner, per_node));
  for (int m = 0; m < nodes; ++m) {
    const Vec2 centre{(static_cast<float>(m % cols) - 0.5f * static_cast<float>(cols - 1)) * (box + gap),
                      (static_cast<float>(m / cols) - 0.5f * static_cast<float>(rows - 1)) * (box + gap)};
    const int first = m * per_node, count = std::min(per_node, l.ranks - first);
    place_on_circle(l, first, count, count == 1 ? 0.0f : inner, centre);
    l.boxes.push_back({{centre.x - box / 2, centre.y - box / 2}, {centre.x + box / 2, centre.y + box / 2}, fmt::format("node {}", m)});
  }
  if (nodes > 1) {
    const int hub = add_hub(l, {0, 0.5f * static_cast<float>(rows) * (box + gap) + 0.2f}, "network");
    for (int r = 0; r < l.ranks; ++r) add_link(l, r, hub);
  }
}

// The two-level layout with another label on the hub (a PCIe tree's root complex).
void layout_grouped(Layout& l, int per_node, const std::string& hub) {
  layout_two_level(l, per_node);
  if (l.hub_count() > 0) l.hub_labels.back() = hub;
}

// "two_level, 8 ranks (4 per node): ..." -> 4; 0 when absent.
int group_in(std::string_view text) {
  const std::size_t open = text.find(" ranks (");
  if (open == std::string_view::npos) return 0;
  int g = 0;
  for (std::size_t i = open + 8; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
    g = g * 10 + (text[i] - '0');
  return g;
}

// The ring between a and b, the short way round: a, a±1, ..., b.
std::vector<int> along_ring(int n, int a, int b) {
  const int forward = ((b - a) % n + n) % n;
  const int step = forward <= n - forward ? 1 : n - 1;
  std::vector<int> path{a};
  for (int r = a; r != b;) path.push_back(r = (r + step) % n);
  return path;
}

}  // namespace

std::string_view to_string(LayoutKind k) {
  switch (k) {
    case LayoutKind::ring: return "ring";
    case LayoutKind::fully_connected: return "fully connected";
    case LayoutKind::parameter_server: return "parameter server (star)";
    case LayoutKind::switch_star: return "switch";
    case LayoutKind::two_level: return "nodes";
  }
  return "?";
}

LayoutChoice layout_for_algorithm(const Schedule& s, const AlgorithmOptions& options) {
  const std::string_view a = s.algorithm;
  const std::string why = "the algorithm's pattern";
  if (a == "parameter_server") return {LayoutKind::parameter_server, 0, false, "switch", why};
  if (a == "hierarchical" && options.ranks_per_node > 0)
    return {LayoutKind::two_level, options.ranks_per_node, false, "network", why};
  if (a.find("ring") != std::string_view::npos || a == "chain") return {LayoutKind::ring, 0, false, "switch", why};
  return {LayoutKind::switch_star, 0, false, "switch", why};
}

std::optional<LayoutChoice> layout_for_topology(const Trace& t) {
  if (!t.predicted) return std::nullopt;
  const std::string& text = t.predicted->topology;
  const std::optional<TopologyKind> kind = parse_topology_kind(text.substr(0, text.find(',')));
  if (!kind) return std::nullopt;
  const int group = group_in(text);
  const std::string why = fmt::format("the {} topology the timing model predicted on", to_string(*kind));
  switch (*kind) {
    case TopologyKind::switch_fabric: return LayoutChoice{LayoutKind::switch_star, 0, true, "switch", why};
    case TopologyKind::ring: return LayoutChoice{LayoutKind::ring, 0, true, "switch", why};
    case TopologyKind::fully_connected: return LayoutChoice{LayoutKind::fully_connected, 0, true, "switch", why};
    case TopologyKind::pcie_tree: return LayoutChoice{LayoutKind::two_level, std::max(1, group), true, "PCIe root", why};
    case TopologyKind::two_level: return LayoutChoice{LayoutKind::two_level, std::max(1, group), true, "network", why};
    case TopologyKind::star: return LayoutChoice{LayoutKind::parameter_server, 0, true, "switch", why};
  }
  return std::nullopt;
}

Layout make_layout(const Schedule& s, const LayoutChoice& choice) {
  Layout l;
  l.kind = choice.kind;
  l.ranks = std::max(s.total_ranks, 0);
  l.nodes.assign(static_cast<std::size_t>(l.ranks), Vec2{});
  l.is_server.assign(static_cast<std::size_t>(l.ranks), false);
  switch (choice.kind) {
    case LayoutKind::ring:
      layout_ring(l);
      l.hop_along_ring = choice.physical && l.ring_radius > 0;
      break;
    case LayoutKind::fully_connected:
      place_on_circle(l, 0, l.ranks, 0.8f);
      l.rank_radius = radius_for_spacing(chord(0.8f, l.ranks));
      break;
    case LayoutKind::switch_star: layout_switch(l); break;
    case LayoutKind::parameter_server: layout_parameter_server(l, s.spec.ranks); break;
    case LayoutKind::two_level: layout_grouped(l, std::max(1, choice.group), choice.hub); break;
  }
  // Servers: extra ranks, and colocated ones (the ranks that receive a parameter server's pushes).
  for (int r = s.spec.ranks; r < l.ranks; ++r) l.is_server[static_cast<std::size_t>(r)] = true;
  if (s.algorithm == "parameter_server")
    for (const Transfer& t : s.transfers)
      if (t.action == Action::reduce) l.is_server[static_cast<std::size_t>(t.dst)] = true;
  return l;
}

std::vector<int> route(const Layout& l, int src, int dst) {
  if (src == dst) return {};
  if (l.hop_along_ring && !is_ring_arc(l, src, dst) && src < l.ranks && dst < l.ranks) return along_ring(l.ranks, src, dst);
  const bool between_nodes = l.kind == LayoutKind::two_level && l.ranks_per_node > 0 &&
                             src / l.ranks_per_node != dst / l.ranks_per_node;
  const bool via_hub = l.hub_count() > 0 && (l.kind == LayoutKind::switch_star || between_nodes);
  if (via_hub) return {src, l.ranks, dst};
  return {src, dst};
}

bool is_ring_arc(const Layout& l, int a, int b) {
  if (l.ring_radius <= 0 || a < 0 || b < 0 || a >= l.ranks || b >= l.ranks) return false;
  const int d = std::abs(a - b);
  return d == 1 || d == l.ranks - 1;
}

namespace {

// One leg of a path: an arc between ring neighbours, a straight line otherwise.
struct Leg {
  Vec2 a, b;
  float from = 0, delta = 0;  // arcs: start angle and signed sweep
  bool arc = false;
  float length = 0;
};

Leg leg(const Layout& l, int i, int j) {
  Leg g{l.nodes[static_cast<std::size_t>(i)], l.nodes[static_cast<std::size_t>(j)]};
  g.arc = is_ring_arc(l, i, j);
  if (g.arc) {
    g.from = std::atan2(g.a.y, g.a.x);
    g.delta = std::atan2(g.b.y, g.b.x) - g.from;
    if (g.delta > kPi) g.delta -= 2 * kPi;
    if (g.delta < -kPi) g.delta += 2 * kPi;
    g.length = std::abs(g.delta) * l.ring_radius;
  } else {
    g.length = std::hypot(g.b.x - g.a.x, g.b.y - g.a.y);
  }
  return g;
}

Vec2 along_leg(const Layout& l, const Leg& g, float f) {
  if (g.arc) return on_circle(l.ring_radius, g.from + g.delta * f);
  return {g.a.x + (g.b.x - g.a.x) * f, g.a.y + (g.b.y - g.a.y) * f};
}

}  // namespace

Vec2 point_along(const Layout& l, const std::vector<int>& path, float progress) {
  if (path.empty()) return {};
  if (path.size() == 1) return l.nodes[static_cast<std::size_t>(path[0])];
  if (path.size() == 3 && path[1] >= l.ranks) {
    // Through a hub: a curve with the hub as its control point, so that packets between
    // different pairs do not all meet in one spot half-way.
    const Vec2 a = l.nodes[static_cast<std::size_t>(path[0])], h = l.nodes[static_cast<std::size_t>(path[1])],
               b = l.nodes[static_cast<std::size_t>(path[2])];
    const float t = std::clamp(progress, 0.0f, 1.0f), u = 1 - t;
    return {u * u * a.x + 2 * u * t * h.x + t * t * b.x, u * u * a.y + 2 * u * t * h.y + t * t * b.y};
  }
  std::vector<Leg> legs;
  float total = 0;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    legs.push_back(leg(l, path[i], path[i + 1]));
    total += legs.back().length;
  }
  float left = std::clamp(progress, 0.0f, 1.0f) * total;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (left <= legs[i].length || i + 1 == legs.size())
      return along_leg(l, legs[i], legs[i].length > 0 ? std::min(left / legs[i].length, 1.0f) : 1.0f);
    left -= legs[i].length;
  }
  return l.nodes[static_cast<std::size_t>(path.back())];
}

}  // namespace collsim::gui
