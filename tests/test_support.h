// Helpers shared by the unit tests that run collectives on the CPU backend.
#pragma once
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/exec/backend.h"
#include "sim/core/errors.h"
#include "sim/model/topology.h"
#include "sim/schedule/schedule.h"

namespace collsim::testing {

// One CPU backend (a thread per hardware thread) for all tests of a binary.
// A topology configuration a timing-model test predicts on, named for its messages.
struct ModelCase {
  std::string name;
  collsim::TopologyConfig config;
};
// Where the model tests that hold one prediction to another start (test_streamed_model.cpp,
// test_symmetric_model.cpp): a switch under both latency rules, and nodes of 4 under LL.
inline std::vector<ModelCase> base_model_cases() {
  std::vector<ModelCase> cases;
  cases.push_back({"switch, latency as delay", {}});
  TopologyConfig message;
  message.latency_rule = LatencyRule::message;
  cases.push_back({"switch, latency per message", message});
  TopologyConfig two_level;
  two_level.kind = TopologyKind::two_level;
  two_level.group_size = 4;
  two_level.protocol = Protocol::ll;
  cases.push_back({"two_level of 4 per node, LL", two_level});
  return cases;
}

inline Backend& cpu() {
  static std::unique_ptr<Backend> backend = make_cpu_backend();
  return *backend;
}

// --- COLLSIM_TEST_SCALE: the size of the collective sweeps ---------------------------------
// full (unset, empty or "full"; every normal pass): ranks 1..17 and the large prime counts
// 65 537 and 1 000 003. small (scripts/test's sanitizer passes, where every run is 5-20
// times slower): ranks 1..9 and the large prime counts 4 099 and 40 009. Either way every
// collective x algorithm x data type x op is swept, at counts 0, 1, 7 and 1000, over odd
// rank counts, powers of two and others; any other value fails the test that reads it.
enum class TestScale { full, small };

inline TestScale test_scale() {
  const char* v = std::getenv("COLLSIM_TEST_SCALE");
  const std::string_view value = v ? v : "";
  if (value.empty() || value == "full") return TestScale::full;
  if (value == "small") return TestScale::small;
  throw std::invalid_argument("COLLSIM_TEST_SCALE='" + std::string(value) + "': use full or small");
}

// The sweeps' rank counts run 1..sweep_max_ranks().
inline int sweep_max_ranks() { return test_scale() == TestScale::small ? 9 : 17; }
// The large count of the rooted and collective sweeps (prime: no block or slice divides it).
inline std::uint64_t sweep_large_count() { return test_scale() == TestScale::small ? 4099 : 65537; }
// The largest count (all-reduce ring, parameter server, direct; prime as well).
inline std::uint64_t sweep_largest_count() { return test_scale() == TestScale::small ? 40009 : 1000003; }

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
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace collsim::testing
