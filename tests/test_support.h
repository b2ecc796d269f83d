// Helpers shared by the unit tests that run collectives on the CPU backend.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "sim/exec/backend.h"
#include "sim/core/errors.h"
#include "sim/schedule/schedule.h"

namespace collsim::testing {

// One CPU backend (a thread per hardware thread) for all tests of a binary.
inline Backend& cpu() {
  static std::unique_ptr<Backend> backend = make_cpu_backend();
  return *backend;
}

// Output elements the reference must compare: every output element (a barrier: one token
// per rank).
inline std::uint64_t outputs_of(const Schedule& s) {
  if (s.spec.collective == Collective::barrier) return static_cast<std::uint64_t>(s.spec.ranks);
  std::uint64_t n = 0;
  for (int r = 0; r < s.spec.ranks; ++r) n += s.buffer_elements(r, BufferKind::output);
  return n;
}

// The message of the InputError that `call()` throws ("" if it throws none): how the tests
// compare error messages with the exact words a user sees.
template <class Call>
std::string input_error(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace collsim::testing
