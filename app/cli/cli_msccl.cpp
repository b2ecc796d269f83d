#include "app/cli/cli_msccl.h"

#include <cstdio>

#include <fmt/format.h>

#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/model/protocol.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_export.h"
#include "sim/run/msccl_import.h"
#include "sim/run/run.h"
#include "sim/schedule/channels.h"

namespace collsim::cli {
namespace {

// simple, ll, ll128 in any case: MSCCL's spelling.
std::string protocol_name(const std::string& given) {
  std::string lower;
  for (char c : given) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "simple") return "Simple";
  if (lower == "ll") return "LL";
  if (lower == "ll128") return "LL128";
  throw InputError(fmt::format("--protocol: '{}' is not one of MSCCL's protocols (Simple, LL, LL128)", given));
}

// The count to export at: --count, the schedule file's, or the algorithm's natural one
// (times the channels it is spread over, so that every piece holds whole elements).
std::uint64_t export_count(const RunRequest& r, const flags::FlagGiven& given, int channels) {
  if (given("--count")) return r.spec.count;
  const auto n = static_cast<std::uint64_t>(channels);
  if (r.algorithm == kCustomAlgorithm) {
    const ScheduleFile f = load_schedule_file(r.options.schedule_file);
    return f.count ? *f.count : static_cast<std::uint64_t>(f.chunks_per_block) * n;
  }
  return natural_export_count(r.spec, r.algorithm, r.options) * n;
}

}  // namespace

int command_export_msccl(RunRequest request, const flags::FlagGiven& given, const MscclFlags& flags) {
  if (const std::string why = why_no_msccl(); !why.empty()) throw InputError("export-msccl: " + why);
  const MscclExportOptions options{flags.name, protocol_name(flags.protocol)};
  if (flags.channels < 1 || flags.channels > kMaxChannels)
    throw InputError(fmt::format("--nchannels {}: 1 to {} channels are possible (NCCL's MAXCHANNELS)", flags.channels,
                                 kMaxChannels));
  if (!flags.out.empty()) check_output_path("--out", flags.out);
  RunRequest r = adopt_schedule_spec(std::move(request), fields_given_by_flags(given));
  r.spec.count = export_count(r, given, flags.channels);
  Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  if (r.algorithm != kCustomAlgorithm) check_schedule(s);  // a hand-written one was checked while built
  if (flags.channels > 1) {
    try {
      s = spread_over_channels(s, flags.channels);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--nchannels {}: {}", flags.channels, e.what()));
    }
    check_schedule(s);
  }
  const MscclExport x = export_msccl(s, options);
  for (const std::string& w : x.warnings) std::fprintf(stderr, "collsim: warning: %s\n", w.c_str());
  if (flags.out.empty()) {
    fmt::print("{}", x.xml);
    return 0;
  }
  OutputFileSet files;
  files.stage(flags.out, x.xml);
  files.commit();
  fmt::print(
      "export-msccl: {} with {} on {} GPUs at count {} -> {}\n  {} chunks per loop, {} thread blocks, {} steps "
      "({} fused receive-and-send), {} dependencies across thread blocks, protocol {}, {} channel{}\n",
      to_string(s.spec.collective), s.algorithm, s.spec.ranks, s.spec.count, flags.out, x.chunks_per_loop,
      x.thread_blocks, x.steps, x.fused, x.dependencies, options.protocol, s.channels, s.channels == 1 ? "" : "s");
  return 0;
}

void print_schedule_warnings(const RunRequest& request) {
  if (request.algorithm != kCustomAlgorithm || !is_msccl_path(request.options.schedule_file)) return;
  for (const std::string& w : load_schedule_file(request.options.schedule_file).warnings)
    std::fprintf(stderr, "collsim: warning: %s\n", w.c_str());
}

}  // namespace collsim::cli
