// Helpers shared by the unit tests that run collectives on the CPU backend.
#pragma once
#include <cstdint>
#include <memory>

#include "sim/backend.h"
#include "sim/schedule.h"

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

}  // namespace collsim::testing
