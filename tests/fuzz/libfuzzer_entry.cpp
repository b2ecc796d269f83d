// One libFuzzer target: COLLSIM_FUZZ_CHECK names its check (fuzz_checks.h). An exception
// that escapes the check reaches libFuzzer, which reports it as a crash ("deadly signal"
// after std::terminate) and keeps the input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  collsim::fuzz::COLLSIM_FUZZ_CHECK(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
