// An MSCCL algorithm file (the XML that MSCCL's runtime executes, usually written by
// MSCCLang) read as a schedule source, wherever a schedule written by hand is accepted
// (`--schedule algo.xml`, a scenario's `schedule = "algo.xml"`, validate, explain, the
// storyboard, the web page): it becomes the same ScheduleFile a TOML schedule does, so the
// checker proves it and explains what is wrong, the engine runs it and the model times it.
//
// How (docs/msccl.md has the whole mapping): every send is matched with the next receive
// of the same (sender, receiver, channel) connection; chunks become chunk places (chunk c
// is part c % C of block c / C, C = nchunksperloop / the coll's multiplier); the fused
// types (rcs, rrs, rrcs) become the receive's copy or reduce plus the forwarding transfer;
// a `cpy` from the input that waits for nothing becomes a pre-operation. MSCCL's order
// (thread-block order, depid/deps, a receive after its send) and collsim's derived
// dependencies together give the steps; where the two disagree the file has a race (or a
// needless wait), and ScheduleFile::warnings says so, naming the steps.
//
// Built only with pugixml (the CMake option COLLSIM_MSCCL; not in the WebAssembly build):
// without it every function here throws InputError saying why (why_no_msccl).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "sim/run/custom_schedule.h"

namespace collsim {

// Whether a schedule file is an MSCCL algorithm: its name ends in .xml (any case).
inline bool is_msccl_path(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext == ".xml";
}

// Empty when this build reads and writes MSCCL files; otherwise why it does not.
std::string why_no_msccl();

// Parses MSCCL XML. InputError "FILE:LINE:COLUMN: GPU g, thread block t, step s: ..." for
// malformed XML, unknown elements, attributes or step types, a send without its receive,
// offsets outside a buffer, a dependency on a missing step, a deadlock.
ScheduleFile parse_msccl(std::string_view text, const std::string& source);
ScheduleFile load_msccl_file(const std::filesystem::path& path);

}  // namespace collsim
