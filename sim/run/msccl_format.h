// The vocabulary of MSCCL's algorithm files (XML), shared by the importer and the exporter
// (msccl_import.h, msccl_export.h) so that the two cannot drift apart: the `coll` names and
// how big one chunk is, the step types, the buffer letters. The facts are those of the
// MSCCL runtime's parser (docs/msccl.md has the mapping and its sources).
#pragma once
#include <map>
#include <tuple>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

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

// The runtime's fixed limits (msccl_struct.h): MSCCL_MAX_NUM_STEPS steps per thread block
// (256 in the NCCL-based runtime; some versions have 64), and
// MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL send peers and receive peers per channel of a GPU
// (32; the parser refuses the file: "too many sends per channel").
inline constexpr int kMaxStepsPerThreadBlock = 256;
inline constexpr int kMaxPeersPerChannel = 32;

// One thread block as the limits see it.
struct ThreadBlockShape {
  int gpu = 0, tb = 0, chan = 0, steps = 0;
  bool sends = false, receives = false;
};
// Where a file would break the runtime's limits: (index of the first thread block to blame,
// why), one sentence per limit and channel, saying which limit, how many break it, and
// what to do.
inline std::vector<std::pair<std::size_t, std::string>> runtime_limit_problems(const std::vector<ThreadBlockShape>& tbs) {
  std::vector<std::pair<std::size_t, std::string>> out;
  std::size_t long_tbs = 0, first_long = 0;
  struct Over {
    int peers = 0;
    std::size_t first = 0;
  };
  std::map<std::tuple<int, bool, int>, Over> peers;  // (chan, sends, gpu)
  for (std::size_t i = 0; i < tbs.size(); ++i) {
    const ThreadBlockShape& t = tbs[i];
    if (t.steps > kMaxStepsPerThreadBlock && long_tbs++ == 0) first_long = i;
    for (const bool sends : {true, false})
      if (sends ? t.sends : t.receives) {
        Over& o = peers[{t.chan, sends, t.gpu}];
        if (++o.peers == kMaxPeersPerChannel + 1) o.first = i;
      }
  }
  if (long_tbs > 0) {
    const ThreadBlockShape& t = tbs[first_long];
    out.emplace_back(first_long, fmt::format("GPU {}, thread block {} has {} steps{}, and MSCCL's runtime takes at most "
                                             "{} per thread block (MSCCL_MAX_NUM_STEPS; 64 in some versions): it would "
                                             "refuse the file",
                                             t.gpu, t.tb, t.steps,
                                             long_tbs == 1 ? "" : fmt::format(" ({} thread blocks have more than {})",
                                                                              long_tbs, kMaxStepsPerThreadBlock),
                                             kMaxStepsPerThreadBlock));
  }
  std::map<std::pair<int, bool>, std::pair<int, const Over*>> worst;  // (chan, sends) -> (GPUs over, first GPU's)
  for (const auto& [key, o] : peers) {
    if (o.peers <= kMaxPeersPerChannel) continue;
    auto& [gpus, first] = worst[{std::get<0>(key), std::get<1>(key)}];
    if (gpus++ == 0) first = &o;
  }
  for (const auto& [key, w] : worst) {
    const ThreadBlockShape& t = tbs[w.second->first];
    out.emplace_back(w.second->first,
                     fmt::format("GPU {} has {} thread blocks that {} on channel {}{}, and MSCCL's runtime takes at most "
                                 "{} per channel (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL): it would refuse the file; "
                                 "put the peers on more channels",
                                 t.gpu, w.second->peers, key.second ? "send" : "receive", key.first,
                                 w.first == 1 ? "" : fmt::format(" ({} GPUs have more than {})", w.first, kMaxPeersPerChannel),
                                 kMaxPeersPerChannel));
  }
  return out;
}

}  // namespace collsim::msccl
