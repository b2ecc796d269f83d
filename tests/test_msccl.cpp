// MSCCL algorithm files (sim/run/msccl_import.h, msccl_export.h): every built-in algorithm
// exported and read back is the same schedule (transfers, regions, check, outputs,
// predicted time); the golden export reads back; hand-written files of each kind run and
// verify; races are reported; each kind of bad input names the file, line, GPU, thread
// block and step.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <unistd.h>

#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_export.h"
#include "sim/run/msccl_import.h"
#include "sim/run/run.h"
#include "test_support.h"

using namespace collsim;

namespace {

std::filesystem::path files() { return std::filesystem::path(COLLSIM_SOURCE_DIR) / "tests" / "msccl"; }

// A scratch folder for the files of one test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> n{0};
    path_ = std::filesystem::temp_directory_path() /
            ("collsim-msccl-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(path_);
  }
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

using TransferKey = std::tuple<int, int, BufferKind, BufferKind, std::uint64_t, std::uint64_t, std::uint64_t, Action>;
std::vector<TransferKey> transfers_of(const Schedule& s) {
  std::vector<TransferKey> out;
  for (const Transfer& t : s.transfers)
    out.emplace_back(t.src, t.dst, t.src_buffer, t.dst_buffer, t.src_offset, t.dst_offset, t.count, t.action);
  std::sort(out.begin(), out.end());
  return out;
}
using RegionKey = std::tuple<int, BufferKind, std::uint64_t, std::uint64_t>;
RegionKey key(const Region& r) { return {r.rank, r.buffer, r.offset, r.count}; }
std::vector<std::tuple<LocalOpKind, RegionKey, RegionKey>> pre_ops_of(const Schedule& s) {
  std::vector<std::tuple<LocalOpKind, RegionKey, RegionKey>> out;
  for (const LocalOp& op : s.pre_ops) out.emplace_back(op.kind, key(op.target), key(op.source));
  std::sort(out.begin(), out.end());
  return out;
}

RunRequest request_for(const CollectiveSpec& spec, std::string algorithm, const std::string& schedule_file = "") {
  RunRequest r;
  r.spec = spec;
  r.algorithm = std::move(algorithm);
  r.options.schedule_file = schedule_file;
  return r;
}

// Runs the request on the CPU backend with the timing model (default topology).
RunResult run_and_predict(const RunRequest& r) {
  RunResult result = run_collective(r, testing::cpu());
  predict_run(result, TopologyConfig{});
  return result;
}

// The file as MSCCL's runtime reads it: collsim_order and collsim_step left out.
std::string without_collsim_attributes(std::string xml) {
  for (const std::string key : {" collsim_order=\"", " collsim_step=\""})
    for (std::size_t at = xml.find(key); at != std::string::npos; at = xml.find(key, at))
      xml.erase(at, xml.find('"', at + key.size()) + 1 - at);
  return xml;
}

// What MSCCL cannot say, by design: the collectives without a `coll`, and the parameter
// server (its own ranks; its servers fill their sums with the identity).
bool refused_by_design(const AlgorithmInfo& a) {
  return a.collective == Collective::barrier || a.collective == Collective::send_recv || a.name == "parameter_server";
}

}  // namespace

TEST_CASE("msccl round trip: every built-in algorithm at N in 2 3 4 8 exports and reads back as the same schedule") {
  TempDir dir;
  int round_trips = 0, refused = 0;
  for (const AlgorithmInfo& a : all_algorithms())
    for (int n : {2, 3, 4, 8}) {
      CAPTURE(a.name);
      CAPTURE(to_string(a.collective));
      CAPTURE(n);
      // i32: sums are exact whatever the order, so outputs compare bit for bit.
      CollectiveSpec spec{a.collective, n, 0, DataType::i32, ReduceOp::sum, n - 1, false};
      if (!collective_has_root(a.collective)) spec.root = 0;
      std::string why_invalid;
      try {
        validate_request(spec, &a, resolve_options(spec, a.name, {}));
      } catch (const InputError& e) {
        why_invalid = e.what();  // not an algorithm for N ranks (e.g. hierarchical needs a divisor)
      }
      if (!why_invalid.empty()) continue;
      if (refused_by_design(a)) {
        spec.count = 4;
        const Schedule s = build_schedule(spec, a.name, {});
        CHECK_FALSE(testing::input_error([&] { export_msccl(s, {}); }).empty());
        ++refused;
        continue;
      }
      try {
      spec.count = natural_export_count(spec, a.name, {});
      const Schedule original = build_schedule(spec, a.name, {});
      const MscclExport x = export_msccl(original, {});
      const std::filesystem::path file =
          dir.write(fmt::format("{}_{}_{}.xml", to_string(a.collective), a.name, n), x.xml);
      const CheckedCustomSchedule back = build_checked_custom_schedule(spec, {0, 1, false, 0, file.string()});
      CHECK(transfers_of(back.schedule) == transfers_of(original));
      CHECK(pre_ops_of(back.schedule) == pre_ops_of(original));
      CHECK(load_msccl_file(file).warnings.empty());
      const RunResult ran = run_and_predict(request_for(spec, std::string(a.name)));
      const RunResult ran_back = run_and_predict(request_for(spec, std::string(kCustomAlgorithm), file.string()));
      CHECK(ran.verification.ok);
      CHECK(ran_back.verification.ok);
      for (int r = 0; r < n; ++r) {
        const auto want = output_after_run(ran, r), got = output_after_run(ran_back, r);
        CHECK(std::equal(want.begin(), want.end(), got.begin(), got.end()));
      }
      CHECK(ran_back.model->prediction.total_ns == doctest::Approx(ran.model->prediction.total_ns).epsilon(1e-9));
      // Without collsim's own attributes (what MSCCL's runtime reads): the same transfers,
      // proved right and verified, in the order MSCCL's dependencies give.
      const std::filesystem::path bare = dir.write(fmt::format("bare_{}_{}_{}.xml", to_string(a.collective), a.name, n),
                                                   without_collsim_attributes(x.xml));
      const CheckedCustomSchedule msccl_only = build_checked_custom_schedule(spec, {0, 1, false, 0, bare.string()});
      CHECK(transfers_of(msccl_only.schedule) == transfers_of(original));
      CHECK(load_msccl_file(bare).warnings.empty());
      const RunResult ran_bare = run_and_predict(request_for(spec, std::string(kCustomAlgorithm), bare.string()));
      CHECK(ran_bare.verification.ok);
      ++round_trips;
      } catch (const std::exception& e) {
        FAIL_CHECK(std::string(e.what()));
      }
    }
  // Every algorithm of every collective MSCCL has a `coll` for went round (most at every N).
  CHECK(round_trips >= 4 * 20);
  CHECK(refused > 0);
}

TEST_CASE("msccl golden export: a ring all-reduce on 4 GPUs, as kept under tests/msccl, reads back") {
  const CollectiveSpec spec{Collective::all_reduce, 4, 4, DataType::f32, ReduceOp::sum, 0, false};
  const Schedule ring = build_schedule(spec, "ring", {});
  const std::filesystem::path golden = files() / "golden_ring_allreduce_4.xml";
  CHECK(export_msccl(ring, {}).xml == read_text_file(golden, "golden file"));
  const CheckedCustomSchedule back = build_checked_custom_schedule(spec, {0, 1, false, 0, golden.string()});
  CHECK(transfers_of(back.schedule) == transfers_of(ring));
  CHECK(back.schedule.step_count() == ring.step_count());
}
