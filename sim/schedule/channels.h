// Spreading a schedule over channels, as NCCL runs every collective on several channels and
// MSCCLang replicates an algorithm with `instances`: each transfer is cut into `channels`
// equal pieces, piece k on channel k (its elements k·c/channels .. (k+1)·c/channels of the
// transfer's c; a local transfer's pieces stay on channel 0, as local work is no
// channel's), the pieces in the transfer's place and step. The data moved, and so the
// result, stay the same; the timing model then runs the pieces side by side, each on its
// channel's share of the links (timing_model.h).
#pragma once
#include "sim/schedule/schedule.h"

namespace collsim {

// InputError when the schedule already uses channels, when `channels` is outside
// 1..kMaxChannels, or when a transfer's count does not split into equal pieces (naming it).
Schedule spread_over_channels(const Schedule& s, int channels);

}  // namespace collsim
