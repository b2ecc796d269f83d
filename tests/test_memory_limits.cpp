// The memory figure that run.cpp and program.cpp refuse oversized buffers against
// (sim/run/run.h): the smallest of MemAvailable, the rlimits less what the process uses,
// and the memory cgroups' limits less their usage. combine_memory_figures is pure: these
// tests give it the figures and never depend on this machine's own limits. Also the estimate
// of a model-only run at thousands of ranks (sim/run/run_estimate.h), checked against it.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/run.h"
#include "sim/run/run_estimate.h"

using namespace collsim;

namespace {
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint64_t GiB = std::uint64_t{1} << 30;
}  // namespace

TEST_CASE("memory figure: none known is unknown, MemAvailable alone is itself") {
  const AvailableMemory none = combine_memory_figures({});
  CHECK_FALSE(none.known);

  MemoryFigures f;
  f.mem_available = 20 * GiB;
  const AvailableMemory m = combine_memory_figures(f);
  CHECK(m.known);
  CHECK(m.bytes == 20 * GiB);
  CHECK(m.limit == "MemAvailable");
}

TEST_CASE("memory figure: ulimit -v and -d count less what the process maps already, the smaller wins") {
  MemoryFigures f;
  f.mem_available = 20 * GiB;
  f.address_space_limit = 4 * GiB;
  f.address_space_used = 1 * GiB;
  AvailableMemory m = combine_memory_figures(f);
  CHECK(m.bytes == 3 * GiB);
  CHECK(m.limit == "the address-space limit (ulimit -v)");

  f.data_limit = 2 * GiB;
  f.data_used = 512 * MiB;
  m = combine_memory_figures(f);
  CHECK(m.bytes == 1536 * MiB);
  CHECK(m.limit == "the data-segment limit (ulimit -d)");

  // A limit above MemAvailable leaves MemAvailable the figure.
  f.address_space_limit = 64 * GiB;
  f.data_limit.reset();
  m = combine_memory_figures(f);
  CHECK(m.bytes == 20 * GiB);
  CHECK(m.limit == "MemAvailable");
}

TEST_CASE("memory figure: a limit whose use is unknown counts whole, one already reached leaves 0 (known)") {
  MemoryFigures f;
  f.address_space_limit = 3 * GiB;  // no VmSize read
  AvailableMemory m = combine_memory_figures(f);
  CHECK(m.known);
  CHECK(m.bytes == 3 * GiB);

  f.address_space_used = 5 * GiB;
  m = combine_memory_figures(f);
  CHECK(m.known);
  CHECK(m.bytes == 0);
  CHECK(m.limit == "the address-space limit (ulimit -v)");
}

TEST_CASE("memory figure: a cgroup's limit less its usage, reclaimable cache not counted, the tightest level wins") {
  MemoryFigures f;
  f.mem_available = 20 * GiB;
  f.cgroups.push_back({"/sys/fs/cgroup/job", 8 * GiB, 6 * GiB, 2 * GiB});  // 4 GiB left
  AvailableMemory m = combine_memory_figures(f);
  CHECK(m.bytes == 4 * GiB);
  CHECK(m.limit == "the memory cgroup's limit (/sys/fs/cgroup/job)");

  // A parent with less room left sets the figure, whichever order the levels come in.
  f.cgroups.insert(f.cgroups.begin(), {"/sys/fs/cgroup", 10 * GiB, 9 * GiB, 0});
  m = combine_memory_figures(f);
  CHECK(m.bytes == 1 * GiB);
  CHECK(m.limit == "the memory cgroup's limit (/sys/fs/cgroup)");

  // More cache than usage (the figures are read at different moments): nothing used.
  MemoryFigures g;
  g.cgroups.push_back({"/c", 2 * GiB, 1 * GiB, 3 * GiB});
  CHECK(combine_memory_figures(g).bytes == 2 * GiB);
  // Over its limit: nothing left.
  g.cgroups[0] = {"/c", 2 * GiB, 3 * GiB, 0};
  CHECK(combine_memory_figures(g).known);
  CHECK(combine_memory_figures(g).bytes == 0);
}

TEST_CASE("memory figure: this machine's is no more than its MemAvailable, and known on Linux") {
  const MemoryFigures f = read_memory_figures();
  REQUIRE(f.mem_available.has_value());  // every Linux since 3.14
  const AvailableMemory m = combine_memory_figures(f);
  CHECK(m.known);
  CHECK(m.bytes <= *f.mem_available);
  CHECK(available_memory_bytes() >= 1);
  for (const MemoryFigures::Cgroup& g : f.cgroups) CHECK(g.limit > 0);
}

// --- --model-only at thousands of ranks: said, or refused, before the work ---------------------

TEST_CASE("model estimate: the ring's transfers at 2048 ranks, extrapolated from 128 and 256, within 2 % of 2N(N-1), streamed") {
  RunRequest r = default_run_request();
  r.spec.ranks = 2048;
  r.spec.count = 1000000;  // not a multiple of 2048: unequal chunks, so streamed, not predicted by symmetry
  const std::optional<ModelRunEstimate> e = estimate_model_run(r, TopologyConfig{});
  REQUIRE(e.has_value());
  const double exact = 2.0 * 2048 * 2047;
  CHECK(e->transfers == doctest::Approx(exact).epsilon(0.02));
  // The ring streams: its memory is a few batches of steps (each of N transfers), not its transfers.
  CHECK(e->streamed);
  CHECK(e->symmetric_period == 0);
  CHECK(e->bytes == doctest::Approx(kStreamedBytesBase + kStreamedBytesPerRank * 2048 +
                                    kStreamedStepsHeld * kModelBytesPerTransfer * 2048)
                        .epsilon(0.01));
  CHECK(e->seconds > 0);
  CHECK(describe(*e).find("M transfers predicted step by step, extrapolated from the same run at 128 and 256 ranks") !=
        std::string::npos);
  // With equal chunks (the default 1M) from rank 0's transfers alone: the whole model's bytes
  // for 2(N-1) of them, and the ranks'.
  r.spec.count = 1 << 20;
  const std::optional<ModelRunEstimate> by_symmetry = estimate_model_run(r, TopologyConfig{});
  REQUIRE(by_symmetry.has_value());
  CHECK(by_symmetry->symmetric_period == 1);
  CHECK(by_symmetry->bytes == doctest::Approx(kModelBytesPerTransfer * by_symmetry->transfers / 2048 +
                                              kStreamedBytesPerRank * 2048));
  INFO(describe(*by_symmetry));  // "about 8.45 M transfers predicted from the 4128 that rank 0 sends" (4 094 exactly)
  CHECK(describe(*by_symmetry).find("M transfers predicted from the 4") != std::string::npos);
  CHECK(describe(*by_symmetry).find(" that rank 0 sends, extrapolated from the same run") != std::string::npos);
  // Recursive doubling does not: predicted whole, kModelBytesPerTransfer a transfer.
  r.algorithm = "recursive_doubling";
  const std::optional<ModelRunEstimate> whole = estimate_model_run(r, TopologyConfig{});
  REQUIRE(whole.has_value());
  CHECK_FALSE(whole->streamed);
  CHECK(whole->bytes == doctest::Approx(whole->transfers * kModelBytesPerTransfer));
  CHECK(describe(*whole).find("M transfers, extrapolated from the same run") != std::string::npos);
}

TEST_CASE("model estimate: none at kMaxRanks ranks or fewer, none for a hand-written schedule") {
  RunRequest r = default_run_request();
  r.spec.ranks = kMaxRanks;
  CHECK_FALSE(estimate_model_run(r, TopologyConfig{}).has_value());
  r.spec.ranks = 2048;
  r.algorithm = std::string(kCustomAlgorithm);
  CHECK_FALSE(estimate_model_run(r, TopologyConfig{}).has_value());
}

TEST_CASE("model estimate: more memory than available is an input error naming --model-only, the need and the limit") {
  ModelRunEstimate e;
  e.transfers = 33.5e6;
  e.seconds = 30;
  e.bytes = 3.5e9;
  CHECK_NOTHROW(check_model_memory(e, 0, "MemAvailable"));  // unknown: nothing to refuse on
  CHECK_NOTHROW(check_model_memory(e, 4'000'000'000ull, "MemAvailable"));
  try {
    check_model_memory(e, 1'000'000'000ull, "the address-space limit (ulimit -v)");
    FAIL("no error");
  } catch (const InputError& error) {
    const std::string what = error.what();
    CHECK(what.find("--model-only: this prediction needs 3.26 GiB") != std::string::npos);
    CHECK(what.find("more than the 953.67 MiB available (the address-space limit (ulimit -v))") != std::string::npos);
  }
}
