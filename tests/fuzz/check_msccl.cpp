// MSCCL algorithm files: parsed as `--schedule algo.xml` parses them (their races become
// warnings), then built, checked and explained like a schedule written by hand.
#include "sim/core/errors.h"
#include "sim/run/msccl_import.h"
#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {

void check_msccl(std::string_view input) {
  try {
    build_and_check(parse_msccl(input, "fuzz.xml"));
  } catch (const InputError&) {
    // the documented answer to a bad file: exit 2 with file:line:column, the GPU and the step
  }
}

}  // namespace collsim::fuzz
