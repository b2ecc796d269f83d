// Topologies for the timing model, as plain data: which directed links exist, how fast
// each one is, and which links a transfer from one rank to another holds (routing).
// docs/timing-model.md describes every kind with a picture; the presets' figures and
// their sources are in the table in topology.cpp.
//
// Units: bandwidths in GB/s (1e9 bytes per second, so 1 GB/s is exactly 1 byte per ns),
// latencies in µs in the configuration and ns inside the model.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/protocol.h"

namespace collsim {

enum class TopologyKind : std::uint8_t {
  switch_fabric,    // "switch": one non-blocking switch, each rank one full-duplex port (NVSwitch)
  ring,             // links only between neighbours r and r+1; other transfers hop along the ring
  fully_connected,  // a dedicated full-duplex link for every pair of ranks
  pcie_tree,        // GPUs under PCIe switches under a root complex: the switches' uplinks are shared
  two_level,        // nodes x GPUs: a switch inside each node, one network link per node (or per GPU)
  star,             // a switch whose extra ranks (parameter servers) have links of their own
};
inline constexpr TopologyKind kAllTopologyKinds[] = {TopologyKind::switch_fabric,   TopologyKind::ring,
                                                     TopologyKind::fully_connected, TopologyKind::pcie_tree,
                                                     TopologyKind::two_level,       TopologyKind::star};
std::string_view to_string(TopologyKind k);
std::optional<TopologyKind> parse_topology_kind(std::string_view s);
// "switch ring fully_connected pcie_tree two_level star", for messages.
std::string topology_kind_names();

// How the views place the ranks: in the algorithm's own shape (a ring on a circle in its
// order, trees by depth, a server at the hub), as the topology wires them (its links and
// switches, for a lesson about the wires), or both: the algorithm's shape with the
// topology's switches and wires drawn inside it (a ring around its switch). Not an input
// of the timing model: it rides in the configuration so that every view of a run (the app,
// the page, the storyboard) reads the one choice its file or flag made ([topology] arrange,
// --arrange).
enum class Arrangement : std::uint8_t { algorithm, topology, both };
inline constexpr Arrangement kAllArrangements[] = {Arrangement::algorithm, Arrangement::topology, Arrangement::both};
std::string_view to_string(Arrangement a);  // "algorithm", "topology", "both": file and flag names

// What a link's latency α does to a message (docs/timing-model.md, rule 4):
//   message  α per message, holding the link (the Hockney model of the textbooks' closed
//            forms: a message holds its links for α + bytes·β, so S messages in a row on one
//            link pay S·α);
//   delay    α is delay: a message holds its links for its bytes only and arrives α later, and
//            up to kMessagesInFlight messages of one link are on their way at once, as NCCL
//            keeps NCCL_STEPS chunks in flight per connection (src/include/device.h), so S
//            messages in a row pay one α and S times the bytes.
enum class LatencyRule : std::uint8_t { message, delay };
inline constexpr LatencyRule kAllLatencyRules[] = {LatencyRule::message, LatencyRule::delay};
inline constexpr int kMessagesInFlight = 8;  // NCCL_STEPS
std::string_view to_string(LatencyRule r);    // "message", "delay": file and flag names
std::string latency_rule_names();             // "message or delay", for messages
std::optional<LatencyRule> parse_latency_rule(std::string_view s);
// "algorithm, topology or both", for messages.
std::string arrangement_names();
std::optional<Arrangement> parse_arrangement(std::string_view s);

// One row of the preset table (topology.cpp): a kind of link, its speed per direction,
// its latency (NCCL's per-hop figure for its LL protocol on the link's class: what a hop
// costs with protocol `none`) and the class whose protocol figures it takes otherwise.
struct LinkPreset {
  std::string_view name;  // "nvlink4"
  double bandwidth_gbps;  // per direction
  double latency_us;
  LinkClass link_class;
  std::string_view what;  // "NVLink 4 (H100 SXM), per GPU"
  std::string_view family;        // the kind of link as a person names it: "NVLink", "PCIe", "InfiniBand", "Ethernet"
  std::string_view latency_from;  // where latency_us comes from, for the text that quotes it
};
std::span<const LinkPreset> link_presets();
const LinkPreset* find_link_preset(std::string_view name);
// "nvlink4 nvlink3 pcie5 ...", for messages.
std::string link_preset_names();

// The memory of a rank, for the work done there rather than on a link: a reduction
// (bytes·γ) and a local copy (bytes·δ). Defaults: topology.cpp.
inline constexpr double kDefaultReduceRateGbps = 1117;  // H100 HBM3 3350 GB/s / 3 (reads two operands, writes one)
inline constexpr double kDefaultCopyRateGbps = 1675;    // H100 HBM3 3350 GB/s / 2 (reads and writes every byte)

// A link whose figures differ from the rest: `link` is a physical link's name (both
// directions), e.g. "rank3", "ring0", "pair0-5", "uplink1". Unset figures keep the
// link's own. `origin` names where it was given, for error messages ("--link-override"
// or "lesson.toml:12:5: key 'topology.overrides[0]'").
struct LinkOverride {
  std::string link;
  std::optional<double> bandwidth_gbps, latency_us;
  std::string origin;
  // Equal when they say the same: where it was said (origin) does not count.
  friend bool operator==(const LinkOverride& a, const LinkOverride& b) {
    return a.link == b.link && a.bandwidth_gbps == b.bandwidth_gbps && a.latency_us == b.latency_us;
  }
};

// A rank that starts late (none of its transfers, sent or received, starts before
// late_us) or computes slowly (its reductions and local copies take `slow` times longer).
struct Straggler {
  int rank = 0;
  double late_us = 0;
  double slow = 1;
  std::string origin;
  friend bool operator==(const Straggler& a, const Straggler& b) {  // (origin does not count)
    return a.rank == b.rank && a.late_us == b.late_us && a.slow == b.slow;
  }
};

// The topology and the costs as the user gave them (scenario `[topology]`, CLI flags).
// Unset values take the kind's defaults (default_link_preset, ...).
struct TopologyConfig {
  TopologyKind kind = TopologyKind::switch_fabric;
  std::string link;                                  // preset of the rank links; empty: the kind's default
  std::optional<double> bandwidth_gbps, latency_us;  // override the preset's figures
  std::string uplink;  // preset of pcie_tree's switch uplinks, two_level's network links, star's server links
  std::optional<double> uplink_bandwidth_gbps, uplink_latency_us;
  int group_size = 0;        // GPUs per PCIe switch (pcie_tree) or per node (two_level); 0: 4 or 8
  bool nic_per_gpu = false;  // two_level: one network link per GPU instead of one per node
  std::optional<double> reduce_rate_gbps, copy_rate_gbps;
  std::vector<LinkOverride> overrides;
  std::vector<Straggler> stragglers;
  // NCCL's protocol (protocol.h): none keeps the links' own figures; simple, ll and ll128
  // give every link the protocol's per-hop latency for its class (unless the user gave
  // the latency) and its share of the bandwidth, and the collective a base latency; auto
  // is whichever of the three predicts the least time (run_model).
  Protocol protocol = Protocol::none;
  // delay by default (timing-model.md): pipelined libraries overlap one message's latency with
  // the next one's bytes; message is the textbooks' closed forms.
  LatencyRule latency_rule = LatencyRule::delay;
  Arrangement arrange = Arrangement::algorithm;  // the views' choice, not the model's (above)
  // The topology file (--topology-file) whose [topology] gave these values, for messages that
  // refuse them; empty where flags or a scenario did. Not a property of the machine.
  std::string file;
  friend bool operator==(const TopologyConfig&, const TopologyConfig&) = default;
};

std::string_view default_link_preset(TopologyKind k);
std::string_view default_uplink_preset(TopologyKind k);
int default_group_size(TopologyKind k);
// Whether the kind has uplinks (pcie_tree, two_level, star) or groups (pcie_tree, two_level).
bool has_uplinks(TopologyKind k);
bool has_groups(TopologyKind k);

// One hop of a route: the links it holds at once, and what crossing it costs. A switched
// path (a switch port pair, a PCIe tree, the network between two nodes) is one hop: the
// switches forward bytes as they arrive, so it costs one α (the largest latency on it)
// and bytes at its slowest link. A ring's path through other ranks is one hop per
// neighbour: each rank on the way receives the whole message before it forwards it.
struct Hop {
  std::array<std::uint32_t, 4> links{};
  int count = 0;
  double alpha_ns = 0;
  double beta_ns_per_byte = 0;  // 1 / the slowest link's bandwidth in GB/s
};

// A topology resolved for one schedule: every directed link with its figures, the
// ranks' compute rates and stragglers. Links are numbered densely (see topology.cpp);
// link_name and physical_link translate between numbers and names.
struct Topology {
  TopologyKind kind = TopologyKind::switch_fabric;
  int ranks = 0;    // the schedule's total ranks (workers and extra servers)
  int workers = 0;  // spec.ranks: ranks >= workers are extra servers (star gives them uplinks)
  int group = 1;    // GPUs per PCIe switch or node
  bool nic_per_gpu = false;
  std::string link_preset, uplink_preset;  // names as resolved ("custom" when figures were overridden)
  LinkClass link_class = LinkClass::nvlink, uplink_class = LinkClass::network;  // the presets'
  // The links' bandwidths as given (before the protocol's share) and latencies as the
  // protocol makes them (the protocol's per-hop figure unless the user gave one).
  double link_gbps = 0, link_latency_us = 0, uplink_gbps = 0, uplink_latency_us = 0;
  // Where each latency comes from, as the summary labels it: "NCCL LL hop" (the preset's, from
  // NCCL's tuning.cc), "NCCL Simple hop" (a protocol's), "assumed" (Ethernet's), "given".
  std::string link_latency_from, uplink_latency_from;
  // The protocol applied (never auto: make_topology leaves auto's links as none's, and
  // run_model chooses), its share of every link's bandwidth and the collective's base latency.
  Protocol protocol = Protocol::none;
  bool protocol_to_choose = false;  // configured auto, not yet chosen: describe() says so
  LatencyRule latency_rule = LatencyRule::delay;
  double bandwidth_share = 1;
  double base_latency_ns = 0;
  double reduce_rate_gbps = kDefaultReduceRateGbps, copy_rate_gbps = kDefaultCopyRateGbps;
  std::vector<double> latency_ns;   // per directed link
  std::vector<double> ns_per_byte;  // per directed link: 1 / (bandwidth in GB/s x bandwidth_share)
  std::vector<double> late_ns;      // per rank
  std::vector<double> slow;         // per rank, >= 0; 1 = as fast as the rest
  int overridden_links = 0;         // physical links given other figures

  std::size_t link_count() const { return latency_ns.size(); }
  int groups() const { return (ranks + group - 1) / group; }
};

// Resolves a configuration for `workers` ranks plus `total_ranks - workers` extra servers.
// Throws InputError naming the origin of a bad override (unknown link) or straggler
// (rank out of range), or the key/flag of a bad figure. With protocol auto the links get
// protocol none's figures and `protocol` says none: auto needs a schedule to choose
// (run_model); structure, routes and names are the same under every protocol.
Topology make_topology(const TopologyConfig& config, int workers, int total_ranks);
// The same configuration under another protocol (auto's candidates, a recorded choice).
TopologyConfig with_protocol(TopologyConfig config, Protocol protocol);

// The hops from src to dst, appended to `out` (cleared first); none when src == dst.
void route(const Topology& t, int src, int dst, std::vector<Hop>& out);

// The symmetry a timing model may use (sim/model/symmetric_model.h): the fewest ranks by
// which the ranks can be turned (rank r's place given to r + period, mod N) so that the
// topology maps onto itself, every link with the same figures: 1 for switch and
// fully_connected, a node or PCIe switch's GPUs for two_level and pcie_tree — or the least
// multiple of it after which late or slow ranks repeat. 0 when there is none: a straggler
// that does not repeat, overridden links, a star's servers, groups that do not divide the ranks —
// and for the ring topology, whose routes pass through other ranks: a message holding the
// links r -> r+1 and r+1 -> r+2 stands, in one period, for two messages contending with each
// other, which the period cannot show.
int rotation_period(const Topology& t);
// Per directed link, the first link of its orbit under that turning: the one link among
// those the ranks 0..period-1 would use in its place. `period` a multiple of
// rotation_period(t) that divides t.ranks.
std::vector<std::uint32_t> link_orbits(const Topology& t, int period);

// Where a directed link starts or ends, as structure (views draw links from it, never
// from link_name's text): a rank; the switch its rank ports join (`fabric`: the one
// switch of switch and star, PCIe switch g of pcie_tree, node g's switch of two_level);
// or the top of the tree (`top`: pcie_tree's root complex, two_level's network).
struct LinkEnd {
  enum class Kind : std::uint8_t { rank, fabric, top };
  Kind kind = Kind::rank;
  int index = 0;  // the rank, or the group of the fabric switch (0 for top)
  friend bool operator==(const LinkEnd&, const LinkEnd&) = default;
};
struct LinkEnds {
  LinkEnd from, to;
};
LinkEnds link_ends(const Topology& t, std::uint32_t link);

// "rank3 (rank 3 -> switch)", "ring0 (0 -> 1)", "uplink1 (node 1 -> network)".
std::string link_name(const Topology& t, std::uint32_t link);
// The directed links of a physical link's name ("rank3"); nullopt when it has none.
std::optional<std::array<std::uint32_t, 2>> physical_link(const Topology& t, std::string_view name);
// What a user may name, for messages: "rank0..rank7, uplink0..uplink1".
std::string physical_link_names(const Topology& t);

// One line: "switch, 8 ranks, ports nvlink4 (450 GB/s, 0.6 us), reduce 1117 GB/s, copy 1675 GB/s".
std::string describe(const Topology& t);

}  // namespace collsim
