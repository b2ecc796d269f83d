// NCCL's three protocols as the timing model sees them: what one hop costs on each class
// of link, what share of a link's bandwidth carries data, and the latency a collective
// pays once. The figures and their sources are in the table in protocol.cpp;
// docs/timing-model.md ("Protocols") explains the rules.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

// The class of a link, as NCCL's tuner tables tell them apart (tuning.cc: NCCL_HW_NVLINK,
// NCCL_HW_PCI, NCCL_HW_NET). Every link preset belongs to one (topology.cpp's table).
enum class LinkClass : std::uint8_t { nvlink, pcie, network };
std::string_view to_string(LinkClass c);  // "NVLink", "PCIe", "network"

enum class Protocol : std::uint8_t {
  none,    // no protocol: every link's own latency and full bandwidth, no base latency
  simple,  // NCCL's Simple: bulk copies, a flag and a fence per step
  ll,      // NCCL's LL: 16-byte lines of 8 data bytes and 8 flag bytes
  ll128,   // NCCL's LL128: 128-byte lines of 120 data bytes and an 8-byte flag
  automatic,  // "auto": the one of simple, ll, ll128 that predicts the smallest time (run_model)
};
inline constexpr Protocol kAllProtocols[] = {Protocol::none, Protocol::simple, Protocol::ll, Protocol::ll128,
                                             Protocol::automatic};
// The protocols `auto` compares, in the order NCCL's tuner walks them (NCCL_PROTO_LL = 0,
// LL128 = 1, SIMPLE = 2), which breaks ties in favour of the earlier one as NCCL's does.
inline constexpr Protocol kCandidateProtocols[] = {Protocol::ll, Protocol::ll128, Protocol::simple};

std::string_view to_string(Protocol p);   // "none", "simple", "ll", "ll128", "auto": CLI and file names
std::string_view protocol_label(Protocol p);  // "no protocol", "Simple", "LL", "LL128", "auto": for people
std::optional<Protocol> parse_protocol(std::string_view s);
// "none simple ll ll128 auto", for messages.
std::string protocol_names();

// What a protocol costs (NCCL's Ring rows; protocol.cpp cites each figure).
struct ProtocolFigures {
  double base_latency_us = 0;               // once per collective
  std::array<double, 3> hop_latency_us{};  // per hop, by LinkClass
  int data_bytes = 1, line_bytes = 1;       // data_bytes of every line_bytes carry data
  double bandwidth_share() const { return static_cast<double>(data_bytes) / line_bytes; }
  double hop_latency(LinkClass c) const { return hop_latency_us[static_cast<std::size_t>(c)]; }
};
// The figures of simple, ll and ll128; none for `none` and `auto`.
std::optional<ProtocolFigures> protocol_figures(Protocol p);

// Whether `auto` considers the protocol on a topology whose rank links are of class
// `rank_links`: LL128 only over NVLink (NCCL enables it by default only where the path
// inside a node is NVLink, tuning.cc: `pEnable &= (graphs[a]->typeIntra <= PATH_NVB)`).
bool auto_considers(Protocol p, LinkClass rank_links);

}  // namespace collsim
