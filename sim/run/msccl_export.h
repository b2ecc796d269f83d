// A collsim schedule written as an MSCCL algorithm file (XML), for NCCL's MSCCL runtime to
// run: every built-in algorithm at a given N and count, and schedules written by hand.
//
// How (docs/msccl.md has the whole mapping): the chunk is the largest element count that
// divides every region (so regions are whole chunks); each transfer becomes a send on its
// sender and a receive on its receiver, a local one a cpy or re, a pre-operation a cpy at
// the head of the GPU's local thread block; a receive whose chunk is next forwarded
// unchanged becomes rcs, reduced and forwarded rrcs (rrs where the sum is not needed
// afterwards); thread blocks are per (receive peer, send peer, channel) — each transfer's
// channel, nchannels the schedule's (channels.h spreads one over channels) — their steps
// in the schedule's order, and where a step needs another thread block's step (collsim's
// derived dependencies, restricted to one GPU) it says so with depid/deps (a nop carries
// each further one). InputError where MSCCL cannot say it: no `coll` (barrier,
// send_recv), ranks beyond the communicator (a parameter server's own ranks), a fill with
// the identity, a divide (avg).
//
// Built only with pugixml (COLLSIM_MSCCL); without it export_msccl throws InputError
// saying why (why_no_msccl in msccl_import.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/schedule/schedule.h"

namespace collsim {

struct MscclExportOptions {
  std::string name;                // the algo's name attribute
  std::string protocol = "Simple"; // Simple, LL or LL128
};

// What the export made, besides the text, for the command's summary.
struct MscclExport {
  std::string xml;
  int thread_blocks = 0, steps = 0, fused = 0, dependencies = 0;
  int chunks_per_loop = 0;
  // Where the file is beyond MSCCL's runtime limits (msccl_format.h), one sentence each.
  std::vector<std::string> warnings;
};

// The schedule (checked, built with op sum) as MSCCL XML.
MscclExport export_msccl(const Schedule& s, const MscclExportOptions& options);

// The smallest count at which `algorithm` has as many transfers as at a large count: every
// chunk holds at least one element, so the file's chunks are the algorithm's own pieces.
std::uint64_t natural_export_count(CollectiveSpec spec, std::string_view algorithm, const AlgorithmOptions& options);

}  // namespace collsim
