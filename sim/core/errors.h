// The project's error types. Front ends map them to exit codes: InputError -> 2.
#pragma once
#include <stdexcept>
#include <string>

namespace collsim {

// Something the user gave us (a flag, a file, a value) is wrong. The message names it.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A schedule broke an invariant: a bug in an algorithm, caught before any data moves.
struct ScheduleError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace collsim
