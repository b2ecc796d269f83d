// Topologies: the preset table, resolving a configuration into directed links, routing
// and link names.
//
// Directed links are numbered densely so the timing model keeps one double per link:
//   switch, star, two_level (inside a node): rank r's port: 2r (r -> switch), 2r+1 (switch -> r)
//   ring: link r joins r and r+1 mod N: 2r (r -> r+1), 2r+1 (r+1 -> r)
//   fully_connected: a -> b is a*(N-1) + (b < a ? b : b-1)
//   pcie_tree: GPU r: 2r up, 2r+1 down; then PCIe switch p's uplink: 2N+2p up, 2N+2p+1 down
//   two_level: ports as for switch; then network link m (node m, or GPU m with nic_per_gpu):
//              2N+2m (out to the network), 2N+2m+1 (in from it)
#include "sim/model/topology.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {
namespace {

// Every figure is per direction. Bandwidths come from the vendors' datasheets and the
// link standards; latencies from NCCL's own cost model (src/graph/tuning.cc,
// ncclTunerConstantsDefaults.hwLatencies, the Ring/LL column: the per-step latency NCCL
// assumes for its low-latency protocol on that class of link), except Ethernet's, which
// NCCL does not tabulate. These latencies are what protocol `none` uses; under simple,
// ll or ll128 every link takes its class's figures from protocol.cpp instead (so Ethernet
// takes NCCL's NET row, as NCCL's tuner does whatever the transport).
constexpr std::string_view kNcclLL =
    "NCCL's per-hop latency for its LL protocol on this class of link (src/graph/tuning.cc, hwLat)";
constexpr std::string_view kTcpAssumed = "an assumption: a one-way TCP message on a LAN, which NCCL does not tabulate";
constexpr LinkPreset kLinkPresets[] = {
    // NVLink 4, H100 SXM5: 900 GB/s per GPU, both directions together (NVIDIA H100 datasheet),
    // so 450 each way; latency: tuning.cc hwLat[NVLINK][Ring][LL] = 0.6 us.
    {"nvlink4", 450, 0.6, LinkClass::nvlink, "NVLink 4 (H100 SXM), all 18 links of one GPU", "NVLink", kNcclLL},
    // NVLink 3, A100 SXM4: 600 GB/s both directions (NVIDIA A100 datasheet), so 300; latency as NVLink 4.
    {"nvlink3", 300, 0.6, LinkClass::nvlink, "NVLink 3 (A100 SXM), all 12 links of one GPU", "NVLink", kNcclLL},
    // PCIe 5.0 x16: 32 GT/s x 16 lanes x 128/130 (encoding) / 8 bits = 63.0 GB/s (PCI-SIG base
    // specification 5.0); latency: tuning.cc hwLat[PCI][Ring][LL] = 1.0 us.
    {"pcie5", 63.0, 1.0, LinkClass::pcie, "PCIe 5.0 x16", "PCIe", kNcclLL},
    // PCIe 4.0 x16: 16 GT/s, the same arithmetic: 31.5 GB/s (PCI-SIG base specification 4.0).
    {"pcie4", 31.5, 1.0, LinkClass::pcie, "PCIe 4.0 x16", "PCIe", kNcclLL},
    // InfiniBand NDR: 400 Gb/s = 50 GB/s per port (NVIDIA ConnectX-7 datasheet);
    // latency: tuning.cc hwLat[NET][Ring][LL] = 2.7 us.
    {"ib_ndr", 50, 2.7, LinkClass::network, "InfiniBand NDR 400 Gb/s", "InfiniBand", kNcclLL},
    // InfiniBand HDR: 200 Gb/s = 25 GB/s per port (NVIDIA ConnectX-6 datasheet); latency as NDR.
    {"ib_hdr", 25, 2.7, LinkClass::network, "InfiniBand HDR 200 Gb/s", "InfiniBand", kNcclLL},
    // 100 Gb Ethernet: 12.5 GB/s (IEEE 802.3ba). Latency: an assumption, not a datasheet
    // figure: kernel TCP sockets (NCCL's socket transport) take about 10 us one way on a LAN.
    {"eth100", 12.5, 10, LinkClass::network, "Ethernet 100 Gb/s, TCP sockets", "Ethernet", kTcpAssumed},
    // 10 Gb Ethernet: 1.25 GB/s (IEEE 802.3ae); latency as above.
    {"eth10", 1.25, 10, LinkClass::network, "Ethernet 10 Gb/s, TCP sockets", "Ethernet", kTcpAssumed},
};

constexpr std::pair<TopologyKind, std::string_view> kKindNames[] = {
    {TopologyKind::switch_fabric, "switch"},
    {TopologyKind::ring, "ring"},
    {TopologyKind::fully_connected, "fully_connected"},
    {TopologyKind::pcie_tree, "pcie_tree"},
    {TopologyKind::two_level, "two_level"},
    {TopologyKind::star, "star"},
};

std::uint32_t id(int i) { return static_cast<std::uint32_t>(i); }

// Whether a directed link takes the uplink figures: pcie_tree's and two_level's links
// after the ranks' own, and a star's server ports. The rest are rank links.
bool is_uplink(const Topology& t, std::uint32_t link) {
  if (t.kind == TopologyKind::star) return static_cast<int>(link / 2) >= t.workers;
  return (t.kind == TopologyKind::pcie_tree || t.kind == TopologyKind::two_level) && link >= id(2 * t.ranks);
}

int uplink_count(const Topology& t) {
  if (t.kind == TopologyKind::pcie_tree) return t.groups();
  if (t.kind == TopologyKind::two_level) return t.nic_per_gpu ? t.ranks : t.groups();
  return 0;
}

std::size_t directed_links(const Topology& t) {
  const auto n = static_cast<std::size_t>(t.ranks);
  if (t.kind == TopologyKind::fully_connected) return n * (n - (n > 0 ? 1 : 0));
  return 2 * n + 2 * static_cast<std::size_t>(uplink_count(t));
}

std::uint32_t pair_link(int ranks, int a, int b) { return id(a * (ranks - 1) + (b < a ? b : b - 1)); }

// A figure from the preset, unless the user gave one; the latency from the protocol
// (if any) for the preset's class, unless the user gave one.
struct Figures {
  std::string preset;
  double gbps, latency_us;
  LinkClass link_class;
  std::string latency_from;  // a short label for the summary: "NCCL LL hop", "assumed", "given"
};

Figures figures(std::string preset, std::optional<double> gbps, std::optional<double> latency_us, Protocol which,
                const std::optional<ProtocolFigures>& protocol, std::string_view what) {
  const LinkPreset* p = find_link_preset(preset);
  if (!p) throw InputError(fmt::format("{}: unknown link preset '{}' (use {})", what, preset, link_preset_names()));
  const double own_latency = protocol ? protocol->hop_latency(p->link_class) : p->latency_us;
  std::string from = p->latency_from == kNcclLL ? "NCCL LL hop" : "assumed";
  if (protocol) from = fmt::format("NCCL {} hop", protocol_label(which));
  if (latency_us) from = "given";
  Figures f{preset, gbps.value_or(p->bandwidth_gbps), latency_us.value_or(own_latency), p->link_class, from};
  if (gbps || latency_us) f.preset = fmt::format("{} (changed)", preset);
  return f;
}

// A bandwidth must be > 0, a latency >= 0; both finite.
void check_figure(double v, bool may_be_zero, std::string_view what) {
  if (!std::isfinite(v) || v < 0 || (!may_be_zero && v == 0))
    throw InputError(fmt::format("{} must be {}, got {}", what, may_be_zero ? ">= 0" : "> 0", v));
}

// The protocol's share applies to every bandwidth, the user's too: it is the share of a
// line that carries data, whatever the link.
void set_link(Topology& t, std::uint32_t link, double gbps, double latency_us) {
  t.ns_per_byte[link] = 1.0 / (gbps * t.bandwidth_share);  // GB/s = bytes per ns
  t.latency_ns[link] = latency_us * 1000.0;
}

void apply_override(Topology& t, const LinkOverride& o) {
  const auto links = physical_link(t, o.link);
  if (!links)
    throw InputError(fmt::format("{}: no link '{}' on {} with {} ranks (links: {})", o.origin, o.link,
                                 to_string(t.kind), t.ranks, physical_link_names(t)));
  if (o.bandwidth_gbps) check_figure(*o.bandwidth_gbps, false, o.origin + ": bandwidth");
  if (o.latency_us) check_figure(*o.latency_us, true, o.origin + ": latency");
  for (std::uint32_t l : *links) {
    if (o.bandwidth_gbps) t.ns_per_byte[l] = 1.0 / (*o.bandwidth_gbps * t.bandwidth_share);
    if (o.latency_us) t.latency_ns[l] = *o.latency_us * 1000.0;
  }
  ++t.overridden_links;
}

void apply_straggler(Topology& t, const Straggler& s) {
  if (s.rank < 0 || s.rank >= t.ranks)
    throw InputError(
        fmt::format("{}: rank {} is not one of the {} ranks (0..{})", s.origin, s.rank, t.ranks, t.ranks - 1));
  if (!std::isfinite(s.late_us) || s.late_us < 0)
    throw InputError(fmt::format("{}: the late start must be >= 0 µs, got {}", s.origin, s.late_us));
  if (!std::isfinite(s.slow) || s.slow <= 0)
    throw InputError(fmt::format("{}: the slow-down factor must be > 0, got {}", s.origin, s.slow));
  const auto r = static_cast<std::size_t>(s.rank);
  t.late_ns[r] = std::max(t.late_ns[r], s.late_us * 1000.0);
  t.slow[r] = s.slow;
}

// A non-negative decimal number, exactly (no sign, no blanks).
std::optional<int> number(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

std::optional<int> indexed(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  return number(name.substr(prefix.size()));
}

// "pairA-B": the link between ranks A and B, in either order.
std::optional<std::array<std::uint32_t, 2>> pair_by_name(const Topology& t, std::string_view name) {
  const auto dash = name.find('-');
  if (!name.starts_with("pair") || dash == std::string_view::npos) return std::nullopt;
  const auto a = number(name.substr(4, dash - 4)), b = number(name.substr(dash + 1));
  if (!a || !b || *a == *b || *a >= t.ranks || *b >= t.ranks) return std::nullopt;
  return std::array{pair_link(t.ranks, *a, *b), pair_link(t.ranks, *b, *a)};
}

Hop hop(const Topology& t, std::initializer_list<std::uint32_t> links) {
  Hop h;
  for (std::uint32_t l : links) {
    h.links[static_cast<std::size_t>(h.count++)] = l;
    h.alpha_ns = std::max(h.alpha_ns, t.latency_ns[l]);
    h.beta_ns_per_byte = std::max(h.beta_ns_per_byte, t.ns_per_byte[l]);
  }
  return h;
}

// Along the ring in the shorter direction (clockwise on a tie), one hop per neighbour.
void ring_route(const Topology& t, int src, int dst, std::vector<Hop>& out) {
  const int n = t.ranks, forward = ((dst - src) % n + n) % n;
  if (forward <= n - forward) {
    for (int i = 0, r = src; i < forward; ++i, r = (r + 1) % n) out.push_back(hop(t, {id(2 * r)}));
  } else {
    for (int i = 0, r = src; i < n - forward; ++i, r = (r - 1 + n) % n)
      out.push_back(hop(t, {id(2 * ((r - 1 + n) % n) + 1)}));
  }
}

void pcie_route(const Topology& t, int src, int dst, std::vector<Hop>& out) {
  const int ps = src / t.group, pd = dst / t.group, base = 2 * t.ranks;
  if (ps == pd)
    out.push_back(hop(t, {id(2 * src), id(2 * dst + 1)}));
  else
    out.push_back(hop(t, {id(2 * src), id(base + 2 * ps), id(base + 2 * pd + 1), id(2 * dst + 1)}));
}

// Across nodes the data goes GPU -> NIC -> network -> NIC -> GPU (GPUDirect RDMA): it
// holds the network links, not the NVLink ports.
void two_level_route(const Topology& t, int src, int dst, std::vector<Hop>& out) {
  const int ms = src / t.group, md = dst / t.group, base = 2 * t.ranks;
  if (ms == md) {
    out.push_back(hop(t, {id(2 * src), id(2 * dst + 1)}));
    return;
  }
  const int out_link = t.nic_per_gpu ? src : ms, in_link = t.nic_per_gpu ? dst : md;
  out.push_back(hop(t, {id(base + 2 * out_link), id(base + 2 * in_link + 1)}));
}

std::string port_owner(const Topology& t, int rank) {
  if (t.kind == TopologyKind::star && rank >= t.workers) return fmt::format("server rank {}", rank);
  if (t.kind == TopologyKind::pcie_tree) return fmt::format("GPU {}", rank);
  return fmt::format("rank {}", rank);
}

std::string fabric(const Topology& t, int rank) {
  if (t.kind == TopologyKind::pcie_tree) return fmt::format("PCIe switch {}", rank / t.group);
  if (t.kind == TopologyKind::two_level) return fmt::format("node {} switch", rank / t.group);
  return "switch";
}

std::string uplink_name(const Topology& t, int i, bool up) {
  if (t.kind == TopologyKind::pcie_tree)
    return fmt::format("uplink{} (PCIe switch {} {} root)", i, i, up ? "->" : "<-");
  const std::string owner = t.nic_per_gpu ? fmt::format("rank {}", i) : fmt::format("node {}", i);
  return fmt::format("uplink{} ({} {} network)", i, owner, up ? "->" : "<-");
}

// "nvlink4 (450 GB/s, 0.6 us = NCCL LL hop)": the latency labelled with where it comes from.
std::string figures_text(std::string_view preset, double gbps, double latency_us, std::string_view from) {
  return fmt::format("{} ({:g} GB/s, {:g} us{}{})", preset, gbps, latency_us, from == "given" || from == "assumed" ? " " : " = ", from);
}

// "; stragglers: rank 3 starts 50 us late, rank 5 computes 2x slower" (the first few).
std::string stragglers_text(const Topology& t) {
  std::vector<std::string> items;
  for (std::size_t r = 0; r < t.late_ns.size(); ++r) {
    std::string item;
    if (t.late_ns[r] > 0) item = fmt::format("starts {:g} us late", t.late_ns[r] / 1000.0);
    if (t.slow[r] != 1) item += fmt::format("{}computes {:g}x slower", item.empty() ? "" : " and ", t.slow[r]);
    if (!item.empty()) items.push_back(fmt::format("rank {} {}", r, item));
  }
  if (items.empty()) return "";
  std::string text = "; stragglers: ";
  for (std::size_t i = 0; i < items.size() && i < 4; ++i) text += (i > 0 ? ", " : "") + items[i];
  if (items.size() > 4) text += fmt::format(" and {} more", items.size() - 4);
  return text;
}

}  // namespace

std::string_view to_string(TopologyKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name;
  return "?";
}

std::optional<TopologyKind> parse_topology_kind(std::string_view s) {
  for (const auto& [kind, name] : kKindNames)
    if (name == s) return kind;
  return std::nullopt;
}

std::string_view to_string(Arrangement a) {
  switch (a) {
    case Arrangement::algorithm: return "algorithm";
    case Arrangement::topology: return "topology";
    case Arrangement::both: return "both";
  }
  return "?";
}

std::string arrangement_names() { return "algorithm, topology or both"; }

std::string_view to_string(LatencyRule r) { return r == LatencyRule::delay ? "delay" : "message"; }

std::string latency_rule_names() { return "message or delay"; }

std::optional<LatencyRule> parse_latency_rule(std::string_view s) {
  for (const LatencyRule r : kAllLatencyRules)
    if (to_string(r) == s) return r;
  return std::nullopt;
}

std::optional<Arrangement> parse_arrangement(std::string_view s) {
  for (const Arrangement a : kAllArrangements)
    if (to_string(a) == s) return a;
  return std::nullopt;
}

std::string topology_kind_names() {
  std::string names;
  for (const auto& [kind, name] : kKindNames) names.append(names.empty() ? "" : " ").append(name);
  return names;
}

std::span<const LinkPreset> link_presets() { return kLinkPresets; }

const LinkPreset* find_link_preset(std::string_view name) {
  for (const LinkPreset& p : kLinkPresets)
    if (p.name == name) return &p;
  return nullptr;
}

std::string link_preset_names() {
  std::string names;
  for (const LinkPreset& p : kLinkPresets) names.append(names.empty() ? "" : " ").append(p.name);
  return names;
}

// The defaults make each kind a lesson of its own without further flags: an NVSwitch box,
// an NVLink ring, PCIe GPUs under shared uplinks, H100 nodes on InfiniBand, and a
// parameter-server cluster on Ethernet, where the server's link is as fast as a worker's.
std::string_view default_link_preset(TopologyKind k) {
  if (k == TopologyKind::pcie_tree) return "pcie4";
  if (k == TopologyKind::star) return "eth100";
  return "nvlink4";
}

std::string_view default_uplink_preset(TopologyKind k) {
  if (k == TopologyKind::pcie_tree) return "pcie4";
  if (k == TopologyKind::two_level) return "ib_ndr";
  if (k == TopologyKind::star) return "eth100";
  return "";
}

int default_group_size(TopologyKind k) {
  return k == TopologyKind::pcie_tree ? 4 : k == TopologyKind::two_level ? 8 : 1;
}
bool has_uplinks(TopologyKind k) {
  return k == TopologyKind::pcie_tree || k == TopologyKind::two_level || k == TopologyKind::star;
}
bool has_groups(TopologyKind k) { return k == TopologyKind::pcie_tree || k == TopologyKind::two_level; }

Topology make_topology(const TopologyConfig& c, int workers, int total_ranks) {
  Topology t;
  t.kind = c.kind;
  t.ranks = total_ranks;
  t.workers = workers;
  t.group = has_groups(c.kind) ? (c.group_size > 0 ? c.group_size : default_group_size(c.kind)) : 1;
  t.nic_per_gpu = c.kind == TopologyKind::two_level && c.nic_per_gpu;
  t.protocol_to_choose = c.protocol == Protocol::automatic;
  t.latency_rule = c.latency_rule;
  const std::optional<ProtocolFigures> protocol = protocol_figures(c.protocol);
  if (protocol) {
    t.protocol = c.protocol;
    t.bandwidth_share = protocol->bandwidth_share();
    t.base_latency_ns = protocol->base_latency_us * 1000.0;
  }
  const Figures link = figures(c.link.empty() ? std::string(default_link_preset(c.kind)) : c.link, c.bandwidth_gbps,
                               c.latency_us, c.protocol, protocol, "link");
  check_figure(link.gbps, false, "the links' bandwidth");
  check_figure(link.latency_us, true, "the links' latency");
  std::tie(t.link_preset, t.link_gbps, t.link_latency_us, t.link_class, t.link_latency_from) =
      std::tuple(link.preset, link.gbps, link.latency_us, link.link_class, link.latency_from);
  if (has_uplinks(c.kind)) {
    const Figures up = figures(c.uplink.empty() ? std::string(default_uplink_preset(c.kind)) : c.uplink,
                               c.uplink_bandwidth_gbps, c.uplink_latency_us, c.protocol, protocol, "uplink");
    check_figure(up.gbps, false, "the uplinks' bandwidth");
    check_figure(up.latency_us, true, "the uplinks' latency");
    std::tie(t.uplink_preset, t.uplink_gbps, t.uplink_latency_us, t.uplink_class, t.uplink_latency_from) =
        std::tuple(up.preset, up.gbps, up.latency_us, up.link_class, up.latency_from);
  }
  t.reduce_rate_gbps = c.reduce_rate_gbps.value_or(kDefaultReduceRateGbps);
  t.copy_rate_gbps = c.copy_rate_gbps.value_or(kDefaultCopyRateGbps);
  check_figure(t.reduce_rate_gbps, false, "the reduction rate");
  check_figure(t.copy_rate_gbps, false, "the copy rate");

  const std::size_t links = directed_links(t);
  t.latency_ns.assign(links, 0);
  t.ns_per_byte.assign(links, 0);
  for (std::uint32_t l = 0; l < links; ++l)
    is_uplink(t, l) ? set_link(t, l, t.uplink_gbps, t.uplink_latency_us)
                    : set_link(t, l, t.link_gbps, t.link_latency_us);
  for (const LinkOverride& o : c.overrides) apply_override(t, o);
  t.late_ns.assign(static_cast<std::size_t>(total_ranks), 0);
  t.slow.assign(static_cast<std::size_t>(total_ranks), 1);
  for (const Straggler& s : c.stragglers) apply_straggler(t, s);
  return t;
}

TopologyConfig with_protocol(TopologyConfig config, Protocol protocol) {
  config.protocol = protocol;
  return config;
}

void route(const Topology& t, int src, int dst, std::vector<Hop>& out) {
  out.clear();
  if (src == dst) return;
  switch (t.kind) {
    case TopologyKind::switch_fabric:
    case TopologyKind::star:
      out.push_back(hop(t, {id(2 * src), id(2 * dst + 1)}));
      return;
    case TopologyKind::ring:
      ring_route(t, src, dst, out);
      return;
    case TopologyKind::fully_connected:
      out.push_back(hop(t, {pair_link(t.ranks, src, dst)}));
      return;
    case TopologyKind::pcie_tree:
      pcie_route(t, src, dst, out);
      return;
    case TopologyKind::two_level:
      two_level_route(t, src, dst, out);
      return;
  }
}

namespace {

// The period of the links alone (rotation_period without the ranks' starts and speeds).
int wiring_period(const Topology& t) {
  if (t.workers != t.ranks || t.overridden_links > 0) return 0;
  switch (t.kind) {
    case TopologyKind::switch_fabric:
    case TopologyKind::fully_connected:
      return 1;
    case TopologyKind::ring:  // a route through other ranks holds neighbouring links, which one period folds into one
      return 0;
    case TopologyKind::pcie_tree:
    case TopologyKind::two_level:
      return t.ranks % t.group == 0 ? t.group : 0;
    case TopologyKind::star:
      return 0;
  }
  return 0;
}

// Whether every rank starts and computes as the rank `period` before it.
bool ranks_repeat(const Topology& t, std::size_t period) {
  for (std::size_t r = period; r < t.late_ns.size(); ++r)
    if (t.late_ns[r] != t.late_ns[r - period] || t.slow[r] != t.slow[r - period]) return false;
  return true;
}

}  // namespace

int rotation_period(const Topology& t) {
  const int wiring = wiring_period(t);
  if (wiring == 0) return 0;
  // Late or slow ranks keep a period where they repeat (a lesson's phase whose ranks start
  // when their node's last phase ended). A pattern that repeats only after all the ranks (a
  // straggler) leaves none, unless the links' own period is all the ranks already.
  for (int period = wiring; period <= t.ranks; period += wiring)
    if (t.ranks % period == 0 && ranks_repeat(t, static_cast<std::size_t>(period)))
      return period < t.ranks || period == wiring ? period : 0;
  return 0;
}

std::vector<std::uint32_t> link_orbits(const Topology& t, int period) {
  const int n = t.ranks;
  if (period < 1 || n % period != 0 || (rotation_period(t) > 0 && period % rotation_period(t) != 0))
    throw std::logic_error(fmt::format("link_orbits: a period of {} does not turn {} ranks of {} onto themselves",
                                       period, n, to_string(t.kind)));
  std::vector<std::uint32_t> first(t.link_count());
  for (std::uint32_t link = 0; link < first.size(); ++link) {
    if (t.kind == TopologyKind::fully_connected) {  // a -> b turned back until a < period
      const int a = static_cast<int>(link) / (n - 1), j = static_cast<int>(link) % (n - 1), b = j < a ? j : j + 1;
      const int back = a - a % period;
      first[link] = pair_link(n, a - back, (b - back + n) % n);
      continue;
    }
    const int i = static_cast<int>(link / 2), direction = static_cast<int>(link % 2);
    int turned = i % period;  // a rank's own link
    if (i >= n) {             // an uplink: of a GPU (nic_per_gpu) or of a group of t.group GPUs
      const int uplink = i - n, per_period = t.kind == TopologyKind::two_level && t.nic_per_gpu ? period : period / t.group;
      turned = n + uplink % per_period;
    }
    first[link] = id(2 * turned + direction);
  }
  return first;
}

std::string link_name(const Topology& t, std::uint32_t link) {
  const int n = t.ranks;
  if (t.kind == TopologyKind::fully_connected) {
    const int a = static_cast<int>(link) / (n - 1), j = static_cast<int>(link) % (n - 1), b = j < a ? j : j + 1;
    return fmt::format("pair{}-{} ({} -> {})", std::min(a, b), std::max(a, b), a, b);
  }
  const int i = static_cast<int>(link / 2);
  const bool first = link % 2 == 0;
  if (t.kind == TopologyKind::ring)
    return first ? fmt::format("ring{} ({} -> {})", i, i, (i + 1) % n)
                 : fmt::format("ring{} ({} -> {})", i, (i + 1) % n, i);
  if (i >= n) return uplink_name(t, i - n, first);
  return first ? fmt::format("rank{} ({} -> {})", i, port_owner(t, i), fabric(t, i))
               : fmt::format("rank{} ({} -> {})", i, fabric(t, i), port_owner(t, i));
}

std::optional<std::array<std::uint32_t, 2>> physical_link(const Topology& t, std::string_view name) {
  if (t.kind == TopologyKind::fully_connected) return pair_by_name(t, name);
  const bool ring = t.kind == TopologyKind::ring;
  if (const auto r = indexed(name, ring ? "ring" : "rank"); r && *r < t.ranks)
    return std::array{id(2 * *r), id(2 * *r + 1)};
  if (const auto u = indexed(name, "uplink"); u && *u < uplink_count(t))
    return std::array{id(2 * t.ranks + 2 * *u), id(2 * t.ranks + 2 * *u + 1)};
  return std::nullopt;
}

std::string physical_link_names(const Topology& t) {
  const int last = t.ranks - 1;
  if (t.kind == TopologyKind::fully_connected) return fmt::format("pairA-B for ranks A != B in 0..{}", last);
  std::string names = fmt::format("{}0..{}{}", t.kind == TopologyKind::ring ? "ring" : "rank",
                                  t.kind == TopologyKind::ring ? "ring" : "rank", last);
  if (uplink_count(t) > 0) names += fmt::format(", uplink0..uplink{}", uplink_count(t) - 1);
  return names;
}

std::string describe(const Topology& t) {
  std::string out = fmt::format("{}, {} ranks", to_string(t.kind), t.ranks);
  if (t.kind == TopologyKind::pcie_tree) out += fmt::format(" ({} per PCIe switch)", t.group);
  if (t.kind == TopologyKind::two_level) out += fmt::format(" ({} per node)", t.group);
  const std::string_view links = t.kind == TopologyKind::ring              ? "ring links"
                                 : t.kind == TopologyKind::fully_connected ? "pair links"
                                                                           : "rank links";
  out += fmt::format(": {} {}", links, figures_text(t.link_preset, t.link_gbps, t.link_latency_us, t.link_latency_from));
  if (has_uplinks(t.kind)) {
    const std::string_view ups = t.kind == TopologyKind::star        ? "server links"
                                 : t.kind == TopologyKind::pcie_tree ? "switch uplinks"
                                 : t.nic_per_gpu                     ? "network links per GPU"
                                                                     : "network links per node";
    out += fmt::format(", {} {}", ups, figures_text(t.uplink_preset, t.uplink_gbps, t.uplink_latency_us, t.uplink_latency_from));
  }
  if (t.overridden_links > 0)
    out += fmt::format(", {} link{} overridden", t.overridden_links, t.overridden_links == 1 ? "" : "s");
  if (const auto p = protocol_figures(t.protocol))
    out += fmt::format("; protocol {}: base {:g} us, {} of every link's bandwidth", protocol_label(t.protocol),
                       p->base_latency_us,
                       p->data_bytes == p->line_bytes ? std::string("all")
                                                      : fmt::format("{}/{}", p->data_bytes, p->line_bytes));
  if (t.protocol_to_choose) out += "; protocol auto (the fastest of LL, LL128 and Simple per collective)";
  out += fmt::format("; reduce {:g} GB/s, copy {:g} GB/s", t.reduce_rate_gbps, t.copy_rate_gbps);
  out += t.latency_rule == LatencyRule::delay
             ? fmt::format("; latency as delay ({} messages in flight per link)", kMessagesInFlight)
             : std::string("; latency per message, holding the link");
  return out + stragglers_text(t);
}

LinkEnds link_ends(const Topology& t, std::uint32_t link) {
  using K = LinkEnd::Kind;
  const int n = t.ranks;
  auto pair = [&](LinkEnd a, LinkEnd b, bool first) { return first ? LinkEnds{a, b} : LinkEnds{b, a}; };
  if (t.kind == TopologyKind::fully_connected) {
    const int a = static_cast<int>(link) / (n - 1), j = static_cast<int>(link) % (n - 1);
    return {{K::rank, a}, {K::rank, j < a ? j : j + 1}};
  }
  const int i = static_cast<int>(link / 2);
  const bool first = link % 2 == 0;
  if (t.kind == TopologyKind::ring) return pair({K::rank, i}, {K::rank, (i + 1) % n}, first);
  const int group = std::max(1, t.group);
  if (i < n) {
    const int fabric = t.kind == TopologyKind::pcie_tree || t.kind == TopologyKind::two_level ? i / group : 0;
    return pair({K::rank, i}, {K::fabric, fabric}, first);
  }
  const int u = i - n;  // an uplink: a PCIe switch's, a node's or (nic_per_gpu) a GPU's
  const LinkEnd below = t.nic_per_gpu ? LinkEnd{K::rank, u} : LinkEnd{K::fabric, u};
  return pair(below, {K::top, 0}, first);
}

}  // namespace collsim
