// Scenario and lesson files: parsed as `collsim run FILE` parses them, then, when the program
// is small, prepared, predicted, its texts rendered and its trace exported as `collsim run
// --model-only` and `collsim validate` do.
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/run/custom_schedule.h"
#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {
namespace {

// Past these the work is large by request (a 4096-rank lesson takes a minute: that is
// issue 21's estimate-before-the-work, not a fault): the file is only parsed.
constexpr int kMaxRanks = 32;
constexpr std::size_t kMaxPhases = 64;
constexpr int kMaxSlices = 16;

bool small_enough(const Scenario& s) {
  if (s.phases.size() > kMaxPhases || s.ranks > kMaxRanks) return false;
  return std::all_of(s.phases.begin(), s.phases.end(), [](const Phase& p) {
    const RunRequest& r = p.request;
    return r.spec.ranks <= kMaxRanks && r.options.slices <= kMaxSlices && r.options.servers <= kMaxRanks &&
           r.options.ranks_per_node <= kMaxRanks;
  });
}

}  // namespace

void check_scenario(std::string_view input) {
  try {
    const Scenario s = parse_scenario(input, "fuzz.toml");
    if (!small_enough(s)) return;
    ProgramResult p = prepare_program(s, /*model_only=*/true);
    predict_program(p, s, s.topology);
    const LessonFacts facts = lesson_facts(s, p);
    check_lesson_text(s, p, facts);
    (void)program_to_json(s, p);
  } catch (const InputError&) {
    // the documented answer to a bad file: exit 2 with file:line:column
  } catch (const WrongScheduleError&) {
    // a scenario that names a hand-written schedule that is wrong: explained, exit 1
  }
}

}  // namespace collsim::fuzz
