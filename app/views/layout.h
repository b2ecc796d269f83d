// Where the scene draws ranks, switches and links, and which links a transfer travels
// over. Plain data in unit coordinates ([-1, 1] on both axes, y pointing down); the scene
// panel scales it into its rectangle. No ImGui here.
//
// Two arrangements, both read from sim, never from names or printed text:
//   - the algorithm's pattern, its AlgorithmLayout (sim/schedule/algorithm.h): a ring or a
//     chain on a circle in the algorithm's order, trees by depth (root at the top), a star
//     with its hubs at the centre, a hierarchy as node boxes, a hypercube on a grid by the
//     ranks' bits (each round's partners along one axis), all-pairs and shift patterns
//     around a circle; transfers go from sender to receiver (between nodes through the
//     network), each direction in a lane of its own so that opposite packets never meet;
//   - the topology the timing model predicted on (the trace's structured topology_config):
//     its physical links (link_ends), and each transfer along sim's route() over them.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/topology.h"
#include "sim/schedule/algorithm.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

struct Vec2 {
  float x = 0, y = 0;
  friend bool operator==(const Vec2&, const Vec2&) = default;
};

enum class LayoutKind : std::uint8_t { ring, chain, trees, star, circle, fully_connected, switch_star, two_level, hypercube };
std::string_view to_string(LayoutKind k);

struct LayoutChoice {
  LayoutKind kind = LayoutKind::circle;
  AlgorithmLayout algorithm;        // the pattern's structure (order, trees, hubs, group size)
  std::optional<Topology> topology;  // arranged by the topology: its links and routes
  // Arranged by both: the pattern, with this topology's switches and wires drawn inside it.
  std::optional<Topology> wires;
  std::string description;          // "the ring topology the timing model predicted on", "the algorithm's pattern"
};
// The algorithm's own pattern, as sim lays it out: algorithm_layout(spec, algorithm, options).
LayoutChoice layout_for_algorithm(const Schedule& s, const AlgorithmOptions& options);
LayoutChoice layout_for_algorithm(AlgorithmLayout a);
// The topology the trace's predictions were made on, from its structured configuration
// (PredictedSummary::topology_config); nullopt without one.
std::optional<LayoutChoice> layout_for_topology(const Trace& t);
LayoutChoice layout_for_topology(Topology t);
// The pattern `pattern` with the topology's switches and wires drawn inside it (Arrangement::both);
// a hierarchy's pattern stays as it is: it draws its nodes and network itself.
void with_wires(LayoutChoice& pattern, Topology t);

// A box drawn around the ranks of one node (two-level).
struct NodeBox {
  Vec2 min, max;
  std::string label;
};

struct Layout {
  LayoutKind kind = LayoutKind::circle;
  int ranks = 0;                // schedule.total_ranks: nodes [0, ranks) are ranks
  std::vector<Vec2> nodes;      // ranks first, then hubs (switches)
  std::vector<std::string> hub_labels;  // one per hub: nodes [ranks, nodes.size())
  std::vector<bool> is_server;  // per rank: a parameter server (extra rank or star hub)
  std::vector<NodeBox> boxes;   // two-level: one per node
  int ranks_per_node = 0;       // two-level: rank r sits in node r / ranks_per_node
  float ring_radius = 0;        // ring: > 0, links between neighbours are arcs of this circle
  std::vector<int> ring_pos;    // ring, chain: rank -> its place in the order (-1: not on it)
  int ring_size = 0;            // ring, chain: ranks on it
  bool ring_closed = false;     // ring: the last rank of the order neighbours the first
  float rank_radius = 0.1f;     // a rank's disc, in unit coordinates, sized to its spacing
  float grid_step = 0;          // hypercube: the distance between neighbouring cells of its grid
  // Links between nodes (undirected pairs, a < b): the layout's own links plus any pair a
  // transfer uses directly.
  std::vector<std::pair<int, int>> links;
  // Per link: the tree it is an edge of (trees: 0 for the first tree, 1 for the second
  // one, drawn in another style), -1 for every other link.
  std::vector<int> link_tree;
  // Trees: the edges a straight line would draw over other ranks' discs (the second tree's
  // along a row of leaves), each with its curve's bend: the control point's offset from the
  // edge's middle, keyed by its (lo, hi) ends (make_layout).
  std::map<std::pair<int, int>, Vec2> link_bend;
  // Arranged by a topology: its links and routes; per directed topology link, the drawn
  // link it is part of; per fabric switch (topology.h's LinkEnd), its hub node, and the top's.
  std::optional<Topology> topology;
  std::vector<std::uint32_t> drawn_link;
  std::vector<int> fabric_hub;
  int top_hub = -1;
  // Arranged by both: the topology's physical links (node pairs, a < b, its switches among
  // the hubs) drawn under the pattern as the wires its transfers really take; they carry no
  // packets and no traffic (the pattern's links do). Empty otherwise, and for a hierarchy's
  // pattern, whose network already draws them (with_wires).
  std::vector<std::pair<int, int>> wires;

  int hub_count() const { return static_cast<int>(nodes.size()) - ranks; }
};

// Positions and the layout's own links (before any transfer is routed).
Layout make_layout(const Schedule& s, const LayoutChoice& choice);

// The nodes a transfer from src to dst passes (src first, dst last), and the drawn links
// it holds; both empty for a local transfer (src == dst). On a topology: sim's route(),
// its links' ends as nodes. In the algorithm's pattern: straight from src to dst, or
// through the network between two nodes of a hierarchy.
struct Path {
  std::vector<int> nodes;
  std::vector<std::uint32_t> links;  // topology: indices into Layout::links; pattern: none (see add_links)
};
Path route(const Layout& layout, int src, int dst);

// Whether the link a -- b is drawn as an arc of the ring (neighbours on a ring layout).
bool is_ring_arc(const Layout& layout, int a, int b);
// Whether point_along draws `path` as one straight segment (two nodes, no arc, no bend,
// not on a lane): the views then need only its ends.
bool is_straight(const Layout& layout, const std::vector<int>& path, bool on_lane = false);

// Where a packet is after `progress` (0..1) of its way along `path`: along the arc
// between ring neighbours, on a curve bent towards a hub it passes, on a curve around the
// cells between a hypercube's partners more than one cell apart, straight otherwise.
// `on_lane`: a packet's own lane, lane_width() to the left of the drawn link in its
// direction of travel (a ring's arc: inside or outside it), so that packets going both
// ways between two ranks pass each other instead of meeting half-way.
Vec2 point_along(const Layout& layout, const std::vector<int>& path, float progress, bool on_lane = false);
float lane_width(const Layout& layout);

// A packet's radius in unit coordinates: the scene draws it (clamped to a few pixels), the
// overlap checks measure with it.
inline float packet_radius(const Layout& layout) { return 0.42f * layout.rank_radius; }
// The fraction of `path` (for point_along) a packet `progress` of its way is at: it leaves
// from the edge of the sender's disc and arrives at the edge of the receiver's.
float packet_way(const Layout& layout, const std::vector<int>& path, float progress);

}  // namespace collsim::gui
