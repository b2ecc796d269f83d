// Hand-written schedule files: parsed as `--schedule FILE` parses them, built at the file's
// collective, ranks, root and count, checked with the buffer history recorded up to the
// first error, and a wrong one explained — what `collsim run --schedule` and `collsim
// validate` do before any data moves.
#include <optional>

#include "sim/check/buffer_history.h"
#include "sim/core/errors.h"
#include "sim/run/custom_schedule.h"
#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {
namespace {

// Past these the work is large by request: the file is only parsed.
constexpr int kMaxRanks = 64;
constexpr std::uint64_t kMaxCount = 1 << 16;
// A file without a count runs at the CLI's count; a small one keeps every chunk non-empty
// for a few chunks per block.
constexpr std::uint64_t kCountWhenFree = 24;

}  // namespace

void build_and_check(const ScheduleFile& file) {
  const CollectiveSpec spec{file.collective, file.ranks, file.count.value_or(kCountWhenFree)};
  if (spec.ranks > kMaxRanks || spec.count > kMaxCount) return;
  CollectiveSpec as_written = spec;
  as_written.root = file.root;
  as_written.in_place = file.in_place.value_or(false);
  const BuiltSchedule built = build_from_file(file, as_written);
  std::optional<CheckError> error;
  const BufferHistory history = BufferHistory::record_until_error(built.schedule, error);
  if (error) (void)explain_schedule_error(file, built, *error, history);
}

void check_schedule(std::string_view input) {
  (void)is_schedule_text(input);  // `collsim validate` asks it of every file first
  try {
    build_and_check(parse_schedule_file(input, "fuzz.toml"));
  } catch (const InputError&) {
    // the documented answer to a bad file: exit 2 with file:line:column and the key
  }
}

}  // namespace collsim::fuzz
