// Where the scene draws ranks, switches and links, and which links a transfer travels
// over. Plain data in unit coordinates ([-1, 1] on both axes, y pointing down); the scene
// panel scales it into its rectangle. No ImGui here.
//
// Two arrangements: by the topology the timing model predicted on (recorded in the trace),
// or by the algorithm's own pattern (a ring algorithm on a ring, a parameter server as a
// star, the hierarchical all-reduce in nodes, everything else around a switch) — the only
// one available for a trace without predictions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace/trace.h"

namespace collsim::gui {

struct Vec2 {
  float x = 0, y = 0;
  friend bool operator==(const Vec2&, const Vec2&) = default;
};

enum class LayoutKind : std::uint8_t { ring, fully_connected, parameter_server, switch_star, two_level };
std::string_view to_string(LayoutKind k);

struct LayoutChoice {
  LayoutKind kind = LayoutKind::switch_star;
  int group = 0;                 // two_level: ranks per node (or per PCIe switch)
  bool physical = false;         // the topology's links: a ring's far transfers hop along it
  std::string hub = "switch";    // the label of the central hub
  std::string description;       // "ring topology (as predicted on)", "the algorithm's pattern"
};
// The algorithm's own pattern.
LayoutChoice layout_for_algorithm(const Schedule& s, const AlgorithmOptions& options);
// The topology the trace's predictions were made on, when it has them. Traces record it
// as text (PredictedSummary::topology, sim's describe(Topology): "two_level, 8 ranks (4 per
// node): ..."); this is the one place that reads it.
std::optional<LayoutChoice> layout_for_topology(const Trace& t);

// A box drawn around the ranks of one node (two-level).
struct NodeBox {
  Vec2 min, max;
  std::string label;
};

struct Layout {
  LayoutKind kind = LayoutKind::switch_star;
  int ranks = 0;                // schedule.total_ranks: nodes [0, ranks) are ranks
  std::vector<Vec2> nodes;      // ranks first, then hubs (switches)
  std::vector<std::string> hub_labels;  // one per hub: nodes [ranks, nodes.size())
  std::vector<bool> is_server;  // per rank: a parameter server (extra rank or colocated)
  std::vector<NodeBox> boxes;   // two-level: one per node
  int ranks_per_node = 0;       // two-level: rank r sits in node r / ranks_per_node
  float ring_radius = 0;        // ring: > 0, links between neighbours are arcs of this circle
  bool hop_along_ring = false;  // a physical ring: transfers between far ranks pass the ones between
  float rank_radius = 0.1f;     // a rank's disc, in unit coordinates, sized to its spacing
  // Links between nodes (undirected pairs, a < b): the topology's links plus any pair a
  // transfer uses directly.
  std::vector<std::pair<int, int>> links;

  int hub_count() const { return static_cast<int>(nodes.size()) - ranks; }
};

// Positions and the layout's own links (before any transfer is routed).
Layout make_layout(const Schedule& s, const LayoutChoice& choice);

// The nodes a transfer from src to dst passes (src first, dst last): direct between ring
// neighbours or to a server; along the ring on a physical ring; through the switch on a
// switch; through the top switch between nodes. Empty for a local transfer (src == dst).
std::vector<int> route(const Layout& layout, int src, int dst);

// Whether the link a -- b is drawn as an arc of the ring (neighbours on a ring layout).
bool is_ring_arc(const Layout& layout, int a, int b);

// Where a packet is after `progress` (0..1) of its way along `path`: along the arc
// between ring neighbours, on a curve bent towards a hub it passes, straight otherwise.
Vec2 point_along(const Layout& layout, const std::vector<int>& path, float progress);

}  // namespace collsim::gui
