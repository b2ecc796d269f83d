// MSCCL algorithm files (sim/run/msccl_import.h, msccl_export.h): every built-in algorithm
// exported and read back is the same schedule (transfers, regions, check, outputs,
// predicted time); the golden export reads back; hand-written files of each kind run and
// verify; races are reported; each kind of bad input names the file, line, GPU, thread
// block and step.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

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
#include "sim/model/timing_model.h"
#include "sim/schedule/channels.h"
#include "sim/trace/trace.h"
#include "test_support.h"

using namespace collsim;
using testing::TempDir;

namespace {

std::filesystem::path files() { return std::filesystem::path(COLLSIM_SOURCE_DIR) / "tests" / "msccl"; }

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
  TempDir dir("msccl");
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

namespace {

// A hand-written file's schedule run at `count` (the file's collective and ranks).
RunResult run_file(const std::filesystem::path& file, std::uint64_t count) {
  RunRequest r;
  r.algorithm = std::string(kCustomAlgorithm);
  r.options.schedule_file = file.string();
  r = adopt_schedule_spec(r);
  r.spec.count = count;
  return run_collective(r, testing::cpu());
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("msccl hand-written files: ring all-reduce (out of place and in place), all-gather through scratch, all-to-all, fused chain broadcast") {
  struct Case {
    const char* file;
    Collective collective;
    int ranks;
    std::size_t transfers;  // at a count every chunk holds an element
  };
  // The ring's rrs/rrcs read their local operand from the input: reduce_copy transfers, so
  // no copies into the output first.
  for (const Case& c : {Case{"ring_allreduce_4.xml", Collective::all_reduce, 4, 24},
                        Case{"allgather_scratch_3.xml", Collective::all_gather, 3, 6 + 6},
                        Case{"alltoall_3.xml", Collective::all_to_all, 3, 6},
                        Case{"chain_broadcast_4.xml", Collective::broadcast, 4, 6},
                        Case{"ring_allreduce_inplace_4.xml", Collective::all_reduce, 4, 24}}) {
    CAPTURE(c.file);
    const ScheduleFile f = load_msccl_file(files() / c.file);
    CHECK(f.collective == c.collective);
    CHECK(f.ranks == c.ranks);
    CHECK(f.warnings.empty());
    for (std::uint64_t count : {std::uint64_t{12}, std::uint64_t{1001}}) {
      const RunResult r = run_file(files() / c.file, count);
      CHECK(r.verification.ok);
      if (count == 12) CHECK(r.schedule.transfers.size() == c.transfers);
    }
  }
  // In place (inplace="1" outofplace="0"): run in place, every step on the input buffer,
  // the all-gather on channel 1 behind a nop that waits for channel 0's last reduce.
  CHECK(load_msccl_file(files() / "ring_allreduce_inplace_4.xml").in_place == std::optional<bool>(true));
  CHECK(run_file(files() / "ring_allreduce_inplace_4.xml", 8).schedule.spec.in_place);
  // The chain's middle GPUs forward what they receive in the same step (rcs): each chunk
  // reaches GPU 3 three steps after it left GPU 0, the second one step behind the first.
  const ScheduleFile chain = load_msccl_file(files() / "chain_broadcast_4.xml");
  CHECK(chain.steps.size() == 4);
  CHECK(chain.pre.size() == 1);  // GPU 0's copy of its input, waiting for nothing
  CHECK(chain.steps[1].transfers.size() == 2);
}

TEST_CASE("msccl race: a copy out of scratch that does not wait for the receive filling it is named as a race") {
  const std::filesystem::path file = files() / "race_allgather_scratch_3.xml";
  const ScheduleFile f = load_msccl_file(file);
  REQUIRE(f.warnings.size() == 3);  // one per GPU
  const std::string all = f.warnings[0] + f.warnings[1] + f.warnings[2];
  CHECK(count_of(all, "race: ") == 3);
  CHECK(all.find(file.string() + ":7:8: race: GPU 0, thread block 0, step 1 writes chunk 0 of GPU 0's scratch, "
                                 "which GPU 0, thread block 1, step 1 (line 12) reads, but nothing in the file makes one "
                                 "wait for the other") != std::string::npos);
  // In the order collsim takes, GPU 0 copies before the chunk is there: the checker says so.
  std::string why;
  try {
    (void)run_file(file, 3);
  } catch (const WrongScheduleError& e) {
    why = e.explanation();
  }
  CHECK(why.find(file.string() + ":12:8: GPU 0, thread block 1, step 1") == 0);
  CHECK(why.find("nothing has been written there yet") != std::string::npos);
  // The same file with the dependency: no race.
  CHECK(load_msccl_file(files() / "allgather_scratch_3.xml").warnings.empty());
}

TEST_CASE("msccl needless wait: a depid/deps between steps without common data is reported") {
  const std::string text = R"(<algo name="w" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allreduce">
  <gpu id="0" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="1"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="re" srcbuf="i" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="0" deps="1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="2" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";
  const ScheduleFile f = parse_msccl(text, "wait.xml");
  REQUIRE(f.warnings.size() == 1);
  CHECK(f.warnings[0] ==
        "wait.xml:8:8: needless wait: GPU 0, thread block 1, step 0 waits for GPU 0, thread block 0, step 1 "
        "(depid/deps), but they touch no common data (collsim derives no dependency between them): the wait costs "
        "time and prevents no race");
}

namespace {

// A correct 2-GPU exchange all-gather; the bad-input tests break one line of it.
const std::string kGood = R"(<algo name="ag" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather">
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";

// kGood with `from` replaced by `to` (once), parsed: the InputError's message.
std::string bad(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return testing::input_error([&] { parse_msccl(text, "bad.xml"); });
}

}  // namespace

TEST_CASE("msccl bad input: each names the file, line, GPU, thread block and step") {
  CHECK(testing::input_error([] { parse_msccl(kGood, "good.xml"); }).empty());
  SUBCASE("malformed XML") {
    CHECK(bad("</tb>\n    <tb id=\"1\"", "</tbx>\n    <tb id=\"1\"") ==
          "bad.xml:6:7: not well-formed XML: Start-end tags mismatch");
  }
  SUBCASE("unknown attribute") {
    CHECK(bad("cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n      <step s=\"1\"",
              "count=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n      <step s=\"1\"") ==
          "bad.xml:4:8: GPU 0, thread block 0, step 0: <step> has no attribute 'count' (it takes s, type, srcbuf, "
          "srcoff, dstbuf, dstoff, cnt, depid, deps, hasdep, collsim_order, collsim_step)");
  }
  SUBCASE("unknown step type") {
    CHECK(bad("type=\"r\"", "type=\"recv\"") ==
          "bad.xml:5:8: GPU 0, thread block 0, step 1: unknown step type 'recv' (s, r, rcs, rrs, rrc, rrcs, cpy, re or "
          "nop)");
  }
  SUBCASE("unknown element") {
    CHECK(bad("<step s=\"0\" type=\"cpy\"", "<stp s=\"0\" type=\"cpy\"") ==
          "bad.xml:8:8: GPU 0, thread block 1: unknown element <stp> inside <tb> (only <step>)");
  }
  SUBCASE("a send with no matching receive") {
    CHECK(bad("<step s=\"1\" type=\"r\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"",
              "<step s=\"1\" type=\"nop\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"") ==
          "bad.xml:13:8: GPU 1, thread block 0, step 0: sends to GPU 0 on channel 0, but GPU 0 has no receive left to "
          "match it (0 of its steps receive from GPU 1 on channel 0, and this is send number 1)");
  }
  SUBCASE("offsets outside a buffer") {
    CHECK(bad("dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n    <tb id=\"1\"",
              "dstoff=\"2\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n    <tb id=\"1\"") ==
          "bad.xml:5:8: GPU 0, thread block 0, step 1: dstoff=2 cnt=1 reaches chunk 2, but GPU 0's output has chunks "
          "0..1 (o_chunks=2)");
  }
  SUBCASE("a dependency on a missing step") {
    CHECK(bad("dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n  </gpu>",
              "dstoff=\"0\" cnt=\"1\" depid=\"0\" deps=\"5\" hasdep=\"0\"/>\n    </tb>\n  </gpu>") ==
          "bad.xml:8:8: GPU 0, thread block 1, step 0: depends on step 5 of thread block 0 (deps), which has steps 0..1");
    CHECK(bad("dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n  </gpu>",
              "dstoff=\"0\" cnt=\"1\" depid=\"7\" deps=\"0\" hasdep=\"0\"/>\n    </tb>\n  </gpu>") ==
          "bad.xml:8:8: GPU 0, thread block 1, step 0: depends on thread block 7 (depid), which GPU 0 does not have");
  }
  SUBCASE("a dependency on a step that does not signal") {
    CHECK(bad("dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n  </gpu>",
              "dstoff=\"0\" cnt=\"1\" depid=\"0\" deps=\"1\" hasdep=\"0\"/>\n    </tb>\n  </gpu>") ==
          "bad.xml:5:8: GPU 0, thread block 0, step 1: GPU 0, thread block 1, step 0 depends on it, but it has "
          "hasdep=\"0\": MSCCL's runtime signals only the steps marked hasdep=\"1\", so the waiting step would wait "
          "forever");
  }
  SUBCASE("a deadlock") {
    // Both GPUs receive before they send: each waits for the other.
    std::string text = kGood;
    for (const char* gpu : {"<gpu id=\"0\"", "<gpu id=\"1\""}) {
      const std::size_t g = text.find(gpu);
      const std::size_t s0 = text.find("<step s=\"0\" type=\"s\"", g), s1 = text.find("<step s=\"1\" type=\"r\"", g);
      text.replace(s1, 20, "<step s=\"1\" type=\"s\"");
      text.replace(s0, 20, "<step s=\"0\" type=\"r\"");
    }
    const std::string e = testing::input_error([&] { parse_msccl(text, "bad.xml"); });
    CHECK(e.find("deadlock: these steps wait for each other in a circle") != std::string::npos);
    CHECK(e.find("MSCCL's runtime would hang") != std::string::npos);
  }
  SUBCASE("a coll collsim does not read, and chunks that do not divide") {
    CHECK(bad("coll=\"allgather\"", "coll=\"alltoallv\"") ==
          "bad.xml:1:2: <algo>: coll=\"alltoallv\" is not a collective collsim reads (allreduce, allgather, "
          "reducescatter, alltoall, broadcast, reduce, gather, scatter)");
    CHECK(bad("nchunksperloop=\"2\"", "nchunksperloop=\"3\"").find("bad.xml:1:2: <algo>: nchunksperloop=3 is not a "
                                                                   "multiple of ngpus=2") == 0);
  }
}

TEST_CASE("msccl round trip: schedules written by hand and in-place layouts export and read back as the same schedule") {
  TempDir dir("msccl");
  const std::filesystem::path solutions = std::filesystem::path(COLLSIM_SOURCE_DIR) / "scenarios" / "exercises" / "solutions";
  for (const char* name : {"ring_allreduce.schedule.toml", "allgather.schedule.toml"}) {
    CAPTURE(name);
    const ScheduleFile toml = load_schedule_file(solutions / name);
    const CollectiveSpec spec{toml.collective, toml.ranks, 12, DataType::i32, ReduceOp::sum, toml.root, false};
    const AlgorithmOptions from_toml{0, 1, false, 0, (solutions / name).string()};
    const Schedule original = build_schedule(spec, kCustomAlgorithm, from_toml);
    const std::filesystem::path xml = dir.write(std::string(name) + ".xml", export_msccl(original, {}).xml);
    const CheckedCustomSchedule back = build_checked_custom_schedule(spec, {0, 1, false, 0, xml.string()});
    CHECK(transfers_of(back.schedule) == transfers_of(original));
    CHECK(pre_ops_of(back.schedule) == pre_ops_of(original));
  }
  for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
    CAPTURE(to_string(c));
    CollectiveSpec spec{c, 4, 0, DataType::i32, ReduceOp::sum, 0, true};
    spec.count = natural_export_count(spec, default_algorithm(c).name, {});
    const Schedule original = build_schedule(spec, default_algorithm(c).name, {});
    const MscclExport x = export_msccl(original, {});
    CHECK(x.xml.find("inplace=\"1\" outofplace=\"0\"") != std::string::npos);
    const std::filesystem::path xml = dir.write(fmt::format("in_place_{}.xml", to_string(c)), x.xml);
    CHECK(load_msccl_file(xml).in_place == std::optional<bool>(true));  // run in place unless told otherwise
    const CheckedCustomSchedule back = build_checked_custom_schedule(spec, {0, 1, false, 0, xml.string()});
    CHECK(transfers_of(back.schedule) == transfers_of(original));
    CHECK(run_and_predict(request_for(spec, std::string(kCustomAlgorithm), xml.string())).verification.ok);
  }
}

TEST_CASE("msccl explanations: a wrong file is explained in MSCCL's words, naming its GPU, thread block and step") {
  TempDir dir("msccl");
  // The ring's all-gather on GPU 1 reduces a finished chunk instead of storing it (rrcs for rcs).
  std::string text = read_text_file(files() / "ring_allreduce_4.xml", "test file");
  const std::size_t at = text.find("type=\"rcs\"", text.find("<gpu id=\"1\""));
  text.replace(at, 10, "type=\"rrcs\"");
  const std::filesystem::path file = dir.write("ring_wrong.xml", text);
  std::string why;
  try {
    (void)run_file(file, 8);
  } catch (const WrongScheduleError& e) {
    why = e.explanation();
  }
  CHECK(why == file.string() +
                   ":22:8: GPU 1, thread block 0, step 4 (receiving from GPU 0, thread block 0, step 3) (collsim's "
                   "step 4): rank 0 sends chunk 1 to rank 1 to reduce it, but rank 1's output holds nothing yet: a "
                   "reduce adds to what is there (receive with r or rcs instead, or copy something there first)");
}

TEST_CASE("msccl collsim_order and collsim_step: kept where they agree with the file, otherwise ignored with a warning") {
  TempDir dir("msccl");
  const std::string golden = read_text_file(files() / "golden_ring_allreduce_4.xml", "golden file");
  CHECK(parse_msccl(golden, "g.xml").warnings.empty());
  // Two writes of one thread block swapped in collsim's order: MSCCL's order disagrees.
  std::string swapped = golden;
  const std::size_t a = swapped.find("collsim_order=\"0\""), b = swapped.find("collsim_order=\"4\"");
  REQUIRE(a < b);
  swapped.replace(b, 17, "collsim_order=\"0\"");
  swapped.replace(a, 17, "collsim_order=\"4\"");
  const ScheduleFile f = parse_msccl(swapped, "swapped.xml");
  REQUIRE(f.warnings.size() == 1);
  CHECK(f.warnings[0].find("swapped.xml:1:2: the collsim_order and collsim_step attributes") == 0);
  CHECK(f.warnings[0].find("so they are ignored") != std::string::npos);
  // The transfers are the file's either way.
  const CollectiveSpec spec{Collective::all_reduce, 4, 4, DataType::f32, ReduceOp::sum, 0, false};
  const std::filesystem::path file = dir.write("swapped.xml", swapped);
  CHECK(transfers_of(build_checked_custom_schedule(spec, {0, 1, false, 0, file.string()}).schedule) ==
        transfers_of(build_schedule(spec, "ring", {})));
}

namespace {

using ChannelKey = std::tuple<int, int, std::uint64_t, std::uint64_t, std::uint64_t, int>;
std::vector<ChannelKey> channels_of(const Schedule& s) {
  std::vector<ChannelKey> out;
  for (const Transfer& t : s.transfers)
    out.emplace_back(t.src, t.dst, t.src_offset, t.dst_offset, t.count, static_cast<int>(t.channel));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("msccl channels: a schedule spread over channels exports its thread blocks per channel and reads back") {
  TempDir dir("msccl");
  const std::vector<std::tuple<Collective, const char*, int>> cases = {
      {Collective::all_reduce, "ring", 4},
      {Collective::all_gather, "ring", 3},
      {Collective::all_to_all, "direct", 4},
      {Collective::all_reduce, "recursive_doubling", 4},
  };
  for (const auto& row : cases)
    for (int channels : {2, 4}) {
      // Named, not bound: CAPTURE takes them, which clang 14 refuses for structured bindings.
      const Collective collective = std::get<0>(row);
      const std::string algorithm = std::get<1>(row);
      const int n = std::get<2>(row);
      CAPTURE(algorithm);
      CAPTURE(to_string(collective));
      CAPTURE(channels);
      CollectiveSpec spec{collective, n, 0, DataType::i32, ReduceOp::sum, 0, false};
      spec.count = natural_export_count(spec, algorithm, {}) * static_cast<std::uint64_t>(channels);
      const Schedule spread = spread_over_channels(build_schedule(spec, algorithm, {}), channels);
      const MscclExport x = export_msccl(spread, {});
      CHECK(x.xml.find(fmt::format("nchannels=\"{}\"", channels)) != std::string::npos);
      for (int c = 0; c < channels; ++c) CHECK(x.xml.find(fmt::format("chan=\"{}\"", c)) != std::string::npos);
      const std::filesystem::path file = dir.write(fmt::format("{}_{}_{}.xml", algorithm, n, channels), x.xml);
      CHECK(load_msccl_file(file).warnings.empty());
      const CheckedCustomSchedule back = build_checked_custom_schedule(spec, {0, 1, false, 0, file.string()});
      CHECK(back.schedule.channels == channels);
      const std::vector<ChannelKey> got = channels_of(back.schedule), want_keys = channels_of(spread);
      std::vector<ChannelKey> only_got, only_want;
      std::set_difference(got.begin(), got.end(), want_keys.begin(), want_keys.end(), std::back_inserter(only_got));
      std::set_difference(want_keys.begin(), want_keys.end(), got.begin(), got.end(), std::back_inserter(only_want));
      CHECK(only_got.size() + only_want.size() == 0);
      for (const ChannelKey& k : only_want) MESSAGE(fmt::format("spread only: {}", k));
      for (const ChannelKey& k : only_got) MESSAGE(fmt::format("read back only: {}", k));
      // The same prediction as the spread schedule's, and a verified run.
      const RunResult ran = run_and_predict(request_for(spec, std::string(kCustomAlgorithm), file.string()));
      CHECK(ran.verification.ok);
      const double want = run_model(spread, derive_dependencies(spread), TopologyConfig{}).prediction.total_ns;
      CHECK(ran.model->prediction.total_ns == doctest::Approx(want).epsilon(1e-9));
      // A JSON trace keeps the channels, so a replay predicts the same.
      const Trace back_trace = parse_trace_json(trace_to_json(make_trace(ran)), "t.json");
      CHECK(back_trace.schedule.channels == channels);
      CHECK(channels_of(back_trace.schedule) == channels_of(ran.schedule));
    }
}

TEST_CASE("msccl channels: a hand-written file's chan is each transfer's channel, and two channels share a link") {
  // An all-gather of 2 GPUs on two channels: each GPU sends chunk 0 of its input on
  // channel 0 and chunk 1 on channel 1.
  const std::string two = read_text_file(files() / "two_channels_allgather_2.xml", "test file");
  const std::filesystem::path file = files() / "two_channels_allgather_2.xml";
  const ScheduleFile f = load_msccl_file(file);
  CHECK(f.channels == 2);
  const CollectiveSpec spec{Collective::all_gather, 2, 2048, DataType::f32, ReduceOp::sum, 0, false};
  const CheckedCustomSchedule s = build_checked_custom_schedule(spec, {0, 1, false, 0, file.string()});
  CHECK(s.schedule.channels == 2);
  int on_channel[2] = {0, 0};
  for (const Transfer& t : s.schedule.transfers) {
    CHECK(t.channel == (t.src_offset == 0 ? 0 : 1));  // chunk 0 of the input on 0, chunk 1 on 1
    ++on_channel[t.channel];
  }
  CHECK(on_channel[0] == 2);
  CHECK(on_channel[1] == 2);
  // Each link carries both channels at once, each at half its bandwidth: one α, all bytes.
  const ModelRun m = run_model(s.schedule, derive_dependencies(s.schedule), TopologyConfig{});
  const CostParams c = cost_params(m.topology);
  const double chunk_bytes = 1024 * 4;
  CHECK(m.prediction.total_ns == doctest::Approx(c.base_ns + c.alpha_ns + 2 * chunk_bytes * c.beta_ns_per_byte).epsilon(1e-9));
  // A chan at or above nchannels is refused, naming the thread block.
  std::string wrong = two;
  wrong.replace(wrong.find("chan=\"1\""), 8, "chan=\"2\"");
  CHECK(testing::input_error([&] { parse_msccl(wrong, "w.xml"); }).find("w.xml:7:6: GPU 0, thread block 1: chan=2 is outside 0..1") == 0);
}
