// The protocol table. Every figure is NCCL 2.30.7's (NVIDIA/nccl at 5067397c):
//   src/graph/tuning.cc, ncclTunerConstantsDefaults:
//     baseLatencies[Ring]         LL 6.6, LL128 14.0, Simple 8.4 µs (Tree: 6.8, 14.0, 8.4)
//     hwLatencies[NVLINK][Ring]   LL 0.6, LL128 1.9,  Simple 3.4 µs (Tree: 0.6, 1.25, 4.0)
//     hwLatencies[PCI][Ring]      LL 1.0, LL128 2.5,  Simple 5.7 µs (Tree: 1.0, 1.9, 4.0)
//     hwLatencies[NET][Ring]      LL 2.7, LL128 4.0,  Simple 14.0 µs (Tree: 5.0, 8.5, 14)
//   src/include/device.h: union ncclLLFifoLine (data1, flag1, data2, flag2: 8 data bytes
//     in every 16) and NCCL_LL128_LINESIZE 128 with NCCL_LL128_DATAELEMS = 15 of its 16
//     eight-byte elements (120 data bytes in every 128).
// collsim takes the Ring rows for every algorithm: a link's hop costs the same whatever
// schedule crosses it. NCCL's tuner scales the ring's bandwidth by 0.5 for LL and by 0.92
// for LL128 (tuning.cc, "busBw * (0.92 /*120.0/128.0*/)") and caps both per channel
// (llMaxBws, perChMaxRingLL128Bws); collsim takes the line formats' exact shares and no caps.
#include "sim/model/protocol.h"

#include <utility>

namespace collsim {
namespace {

constexpr std::pair<Protocol, std::string_view> kNames[] = {
    {Protocol::none, "none"}, {Protocol::simple, "simple"}, {Protocol::ll, "ll"},
    {Protocol::ll128, "ll128"}, {Protocol::automatic, "auto"},
};

//                                        base   NVLink  PCIe  network   data / line bytes
constexpr ProtocolFigures kSimple{8.4, {3.4, 5.7, 14.0}, 1, 1};
constexpr ProtocolFigures kLl{6.6, {0.6, 1.0, 2.7}, 8, 16};
constexpr ProtocolFigures kLl128{14.0, {1.9, 2.5, 4.0}, 120, 128};

}  // namespace

std::string_view to_string(LinkClass c) {
  switch (c) {
    case LinkClass::nvlink: return "NVLink";
    case LinkClass::pcie: return "PCIe";
    case LinkClass::network: return "network";
  }
  return "?";
}

std::string_view to_string(Protocol p) {
  for (const auto& [protocol, name] : kNames)
    if (protocol == p) return name;
  return "?";
}

std::string_view protocol_label(Protocol p) {
  switch (p) {
    case Protocol::none: return "no protocol";
    case Protocol::simple: return "Simple";
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::automatic: return "auto";
  }
  return "?";
}

std::optional<Protocol> parse_protocol(std::string_view s) {
  for (const auto& [protocol, name] : kNames)
    if (name == s) return protocol;
  return std::nullopt;
}

std::string protocol_names() {
  std::string names;
  for (const auto& [protocol, name] : kNames) names.append(names.empty() ? "" : " ").append(name);
  return names;
}

std::optional<ProtocolFigures> protocol_figures(Protocol p) {
  if (p == Protocol::simple) return kSimple;
  if (p == Protocol::ll) return kLl;
  if (p == Protocol::ll128) return kLl128;
  return std::nullopt;
}

bool auto_considers(Protocol p, LinkClass rank_links) {
  return p != Protocol::ll128 || rank_links == LinkClass::nvlink;
}

}  // namespace collsim
