// The vocabulary of MSCCL's algorithm files (XML), shared by the importer and the exporter
// (msccl_import.h, msccl_export.h) so that the two cannot drift apart: the `coll` names and
// how big one chunk is, the step types, the buffer letters. The facts are those of the
// MSCCL runtime's parser (docs/msccl.md has the mapping and its sources).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/types.h"

namespace collsim::msccl {

// `coll` and collsim's collective. One chunk is count * multiplier / nchunksperloop
// elements (the runtime's sizePerMscclChunk), where count is NCCL's count argument: K for
// every collective here, and the multiplier is N for allgather, reducescatter and
// alltoall, 1 for the others. So a block of K elements holds nchunksperloop / multiplier
// chunks (chunks_per_block).
struct CollName {
  std::string_view name;
  Collective collective;
  bool multiplier_is_ranks;
};
inline constexpr CollName kCollNames[] = {
    {"allreduce", Collective::all_reduce, false},        {"allgather", Collective::all_gather, true},
    {"reducescatter", Collective::reduce_scatter, true}, {"alltoall", Collective::all_to_all, true},
    {"broadcast", Collective::broadcast, false},         {"reduce", Collective::reduce, false},
    {"gather", Collective::gather, false},               {"scatter", Collective::scatter, false},
};

inline const CollName* find_coll(std::string_view name) {
  for (const CollName& c : kCollNames)
    if (c.name == name) return &c;
  return nullptr;
}
inline const CollName* find_coll(Collective c) {
  for (const CollName& n : kCollNames)
    if (n.collective == c) return &n;
  return nullptr;
}
// "allreduce, allgather, ...", for messages.
inline std::string coll_names() {
  std::string s;
  for (const CollName& c : kCollNames) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

// A step's type and what it does on the GPU that runs it. A receive takes the data its
// thread block's `recv` peer sends on the same channel; a send gives it to the `send` peer.
enum class StepType : std::uint8_t { s, r, rcs, rrs, rrc, rrcs, cpy, re, nop };
struct StepTypeInfo {
  std::string_view name;
  StepType type;
  bool receives;  // takes a chunk from the recv peer, into dst
  bool sends;     // gives a chunk to the send peer (s: from src; the fused ones: what they received)
  bool reduces;   // combines with what is there (rr*: the received chunk with src; re: src into dst)
  bool local;     // a copy or reduce within the GPU: src -> dst
};
inline constexpr StepTypeInfo kStepTypes[] = {
    {"s", StepType::s, false, true, false, false},       {"r", StepType::r, true, false, false, false},
    {"rcs", StepType::rcs, true, true, false, false},    {"rrs", StepType::rrs, true, true, true, false},
    {"rrc", StepType::rrc, true, false, true, false},    {"rrcs", StepType::rrcs, true, true, true, false},
    {"cpy", StepType::cpy, false, false, false, true},   {"re", StepType::re, false, false, true, true},
    {"nop", StepType::nop, false, false, false, false},
};
inline const StepTypeInfo* find_step_type(std::string_view name) {
  for (const StepTypeInfo& t : kStepTypes)
    if (t.name == name) return &t;
  return nullptr;
}
inline const StepTypeInfo& step_type(StepType type) {
  for (const StepTypeInfo& t : kStepTypes)
    if (t.type == type) return t;
  return kStepTypes[0];
}

// i, o, s: input, output, scratch.
inline std::optional<BufferKind> parse_buffer(std::string_view letter) {
  if (letter == "i") return BufferKind::input;
  if (letter == "o") return BufferKind::output;
  if (letter == "s") return BufferKind::scratch;
  return std::nullopt;
}
inline std::string_view buffer_letter(BufferKind b) {
  return b == BufferKind::input ? "i" : b == BufferKind::output ? "o" : "s";
}

// MSCCL's protocol names.
inline constexpr std::string_view kProtocols[] = {"Simple", "LL", "LL128"};

}  // namespace collsim::msccl
