#include "sim/schedule/channels.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {

Schedule spread_over_channels(const Schedule& s, int channels) {
  if (channels < 1 || channels > kMaxChannels)
    throw InputError(fmt::format("{} channels: 1 to {} are possible", channels, kMaxChannels));
  if (s.channels != 1)
    throw InputError(fmt::format("{} already spreads its transfers over {} channels", s.algorithm, s.channels));
  if (channels == 1) return s;
  Schedule out = s;
  out.channels = channels;
  out.transfers.clear();
  out.transfers.reserve(s.transfers.size() * static_cast<std::size_t>(channels));
  const auto n = static_cast<std::uint64_t>(channels);
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    if (t.count % n != 0)
      throw InputError(fmt::format(
          "transfer {} (step {}, rank {} -> rank {}) moves {} element{}, which do not split into {} equal pieces, one "
          "per channel: choose a count that makes every transfer a multiple of {} elements",
          i, t.step + 1, t.src, t.dst, t.count, t.count == 1 ? "" : "s", channels, channels));
    const std::uint64_t piece = t.count / n;
    for (std::uint64_t k = 0; k < n; ++k) {
      Transfer p = t;
      p.channel = t.is_local() ? 0 : static_cast<std::uint16_t>(k);  // local work is no channel's
      p.src_offset += k * piece;
      p.dst_offset += k * piece;
      p.operand_offset += k * piece;  // a reduce_copy's operand moves with its destination
      p.count = piece;
      out.transfers.push_back(p);
    }
  }
  return out;
}

}  // namespace collsim
