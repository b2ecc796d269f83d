// The checks behind the fuzz targets (tests/fuzz/README.md). Each takes one input, feeds it
// to a loader the way the CLI does, and goes on with what loaded as far as is cheap (build,
// check, predict, export). It returns when the input was fine or was refused the
// documented way: an InputError (the CLI's exit 2), or a WrongScheduleError where a
// hand-written schedule that is wrong is the documented answer. Anything else escapes —
// another exception, an assertion, a sanitizer report — and is a finding: libFuzzer stops
// on it, and collsim_fuzz_replay (which ctest runs over the corpora and the regressions in
// every build) fails on it.
#pragma once
#include <span>
#include <string_view>

namespace collsim {
struct ScheduleFile;
}

namespace collsim::fuzz {

void check_scenario(std::string_view input);  // scenario and lesson files (scenario.h)
void check_schedule(std::string_view input);  // hand-written schedule files (custom_schedule.h)
void check_trace(std::string_view input);     // JSON traces (trace.h's importer)
void check_values(std::string_view input);    // the command line's counts, sizes, numbers and names
#ifdef COLLSIM_FUZZ_MSCCL
void check_msccl(std::string_view input);  // MSCCL algorithm files (msccl_import.h)
#endif

// What check_schedule does once a schedule file has loaded (check_msccl too): build it at
// its own spec when that is small, check it, and explain it when it is wrong.
void build_and_check(const ScheduleFile& file);

struct Target {
  std::string_view name;  // the folder names under corpus/ and regressions/
  void (*check)(std::string_view input);
};
// Every target this build has.
std::span<const Target> targets();

// A broken invariant the check found by itself (an export that does not read back): says
// what, then aborts, so that libFuzzer keeps the input and the replay fails.
[[noreturn]] void finding(std::string_view what);

}  // namespace collsim::fuzz
