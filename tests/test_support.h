// Helpers shared by the unit tests that run collectives on the CPU backend.
#pragma once
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
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

// A scratch folder for the files of one test (named after `what`), removed afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& what) {
    static std::atomic<int> n{0};
    path_ = std::filesystem::temp_directory_path() /
            ("collsim-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace collsim::testing
