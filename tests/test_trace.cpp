// Traces: the JSON trace round-trips byte for byte, the Chrome trace and the CSV have one
// event/row per transfer, and the importer rejects bad files naming the file and the key.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/trace/trace.h"
#include "test_support.h"

using namespace collsim;

namespace {

Trace run_trace(const RunRequest& req, std::string title = {}, std::string description = {}) {
  const RunResult r = run_collective(req, *make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {}}));
  REQUIRE(r.verification.ok);
  return make_trace(r, std::move(title), std::move(description));
}

RunRequest request(std::string algorithm, int ranks, std::uint64_t count, DataType dtype = DataType::f32,
                   ReduceOp op = ReduceOp::sum) {
  RunRequest r;
  r.spec.collective = Collective::all_reduce;
  r.spec.ranks = ranks;
  r.spec.count = count;
  r.spec.dtype = dtype;
  r.spec.op = op;
  r.algorithm = std::move(algorithm);
  return r;
}

// The configurations the round-trip tests sweep: every shape of schedule the JSON holds
// (pre/post operations, scratch on extra ranks, empty schedules, 16-bit and integer types).
std::vector<std::pair<std::string, Trace>> sample_traces() {
  std::vector<std::pair<std::string, Trace>> out;
  out.emplace_back("ring f32 sum", run_trace(request("ring", 4, 1000), "Ring", "Line one\nline \"two\", with a comma"));
  out.emplace_back("ring count 0", run_trace(request("ring", 3, 0)));
  RunRequest given = request("ring", 4, 8, DataType::f16);
  given.input_values = {2048, 0.5};
  out.emplace_back("ring f16 given inputs", run_trace(given));
  out.emplace_back("direct f64 max", run_trace(request("direct", 5, 77, DataType::f64, ReduceOp::max)));
  out.emplace_back("ring bf16 avg", run_trace(request("ring", 6, 1001, DataType::bf16, ReduceOp::avg)));
  RunRequest ps = request("parameter_server", 5, 1003, DataType::i32, ReduceOp::prod);
  ps.options.servers = 2;
  ps.seed = 12345678901234ull;
  out.emplace_back("parameter_server with 2 extra servers", run_trace(ps));
  RunRequest colocated = request("parameter_server", 4, 64, DataType::f16);
  colocated.options.servers = 2;
  colocated.options.colocated = true;
  out.emplace_back("parameter_server colocated", run_trace(colocated));
  return out;
}

std::string exported(const Trace& t) { return trace_to_json(t); }

// The message of the InputError that parsing `text` throws ("" if none).
std::string import_error(const std::string& text, const std::string& name = "bad.json") {
  return testing::input_error([&] { parse_trace_json(text, name); });
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("a JSON trace round-trips byte for byte: export, import, export") {
  for (const auto& sample : sample_traces()) {
    const auto& name = sample.first;  // not bound: CAPTURE takes it (clang 14)
    const auto& trace = sample.second;
    CAPTURE(name);
    const std::string first = exported(trace);
    const Trace back = parse_trace_json(first, name);
    CHECK(exported(back) == first);
    CHECK(back.records == trace.records);
    CHECK(back.schedule.transfers.size() == trace.schedule.transfers.size());
    CHECK(back.request.seed == trace.request.seed);
    CHECK(back.request.input_values == trace.request.input_values);
    CHECK(back.scenario_description == trace.scenario_description);
  }
}

TEST_CASE("a JSON trace keeps n/a bandwidths, predicted times and non-finite errors exactly") {
  Trace t = run_trace(request("ring", 4, 100));
  t.summary = {0, std::nullopt, std::nullopt};  // what a 0 ns run reports
  t.verification.max_error = std::numeric_limits<double>::infinity();
  t.records[0].predicted_begin_ns = 0.1;  // the timing model's slot: fractions of a ns
  t.records[0].predicted_end_ns = 1234.5678901234567;
  const std::string text = trace_to_json(t);
  CHECK(text.find(R"("algbw_gbps": "n/a")") != std::string::npos);
  CHECK(text.find(R"("max_error": "inf")") != std::string::npos);
  const Trace back = parse_trace_json(text, "t.json");
  CHECK_FALSE(back.summary.algbw_gbps.has_value());
  CHECK(back.records[0].predicted_end_ns == t.records[0].predicted_end_ns);
  CHECK_FALSE(back.records[1].predicted_begin_ns.has_value());
  CHECK(trace_to_json(back) == text);
}

TEST_CASE("a --model-only run's trace says so, and so does the same trace read back from its JSON") {
  RunResult model = prepare_model_run(request("ring", 4, 100));
  predict_run(model, TopologyConfig{});
  const Trace t = make_trace(model);
  CHECK(t.model_only);
  const Trace back = parse_trace_json(trace_to_json(t), "model.json");
  CHECK(back.model_only);
  // An executed run is not, in memory or read back.
  const Trace executed = run_trace(request("ring", 4, 100));
  CHECK_FALSE(executed.model_only);
  CHECK_FALSE(parse_trace_json(trace_to_json(executed), "run.json").model_only);
}

TEST_CASE("closed_form_of: a predicted trace's own closed form (what the CLI printed), else the default switch's") {
  RunResult model = prepare_model_run(request("ring", 8, 1u << 20));
  TopologyConfig slow;
  slow.bandwidth_gbps = 3;  // not the default switch: the two figures differ
  slow.latency_us = 7;
  predict_run(model, slow);
  const Trace predicted = make_trace(model);
  REQUIRE(predicted.predicted);
  const TraceClosedForm mine = closed_form_of(predicted);
  CHECK(mine.formula == predicted.predicted->closed_form);
  CHECK(mine.values == predicted.predicted->closed_form_values);
  REQUIRE(mine.time_ns);
  CHECK(*mine.time_ns == *predicted.predicted->closed_form_ns);
  // The same schedule without predictions: on the default switch, a different (faster) figure.
  Trace plain = predicted;
  plain.predicted.reset();
  const TraceClosedForm fabric = closed_form_of(plain);
  CHECK(fabric.formula == mine.formula);
  REQUIRE(fabric.time_ns);
  CHECK(*fabric.time_ns < *mine.time_ns);
  // Read back from its JSON, the predicted trace still gives the CLI's figure.
  CHECK(closed_form_of(parse_trace_json(trace_to_json(predicted), "p.json")).time_ns == mine.time_ns);
}

TEST_CASE("a trace records the run: metadata, schedule, records, verification") {
  RunRequest req = request("ring", 4, 10);
  const RunResult r = run_collective(req, *make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {}}));
  const Trace t = make_trace(r, "Title", "Text");
  CHECK(t.format_version == kTraceFormatVersion);
  CHECK_FALSE(t.collsim_version.empty());
  CHECK(t.backend == "cpu");
  CHECK(t.execution.workers == 2);
  CHECK(t.schedule.transfers.size() == r.schedule.transfers.size());
  REQUIRE(t.records.size() == r.execution.timings.size());
  CHECK(t.records[5].measured_end_ns == r.execution.timings[5].end_ns);
  CHECK(t.records[5].worker == r.execution.timings[5].worker);
  CHECK(t.verification.checked == r.verification.checked);
  CHECK(t.summary.time_ns == r.execution.total_ns);
  CHECK(t.request.options.slices >= 1);  // recorded as built, not "0: the default"
}

TEST_CASE("the Chrome trace has one complete event per transfer on the receiver's process") {
  for (const auto& sample : sample_traces()) {
    const auto& name = sample.first;  // not bound: CAPTURE takes it (clang 14)
    const auto& trace = sample.second;
    CAPTURE(name);
    const nlohmann::json doc = nlohmann::json::parse(trace_to_chrome(trace));
    REQUIRE(doc["traceEvents"].is_array());
    std::size_t complete = 0, process_names = 0;
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name") ++process_names;
      if (e["ph"] != "X") continue;
      const std::size_t i = e["args"]["transfer"].get<std::size_t>();
      REQUIRE(i < trace.schedule.transfers.size());
      const Transfer& x = trace.schedule.transfers[i];
      const TransferRecord& rec = trace.records[i];
      CHECK(e["pid"].get<int>() == x.dst + 1);  // pid 0 is special in Perfetto
      CHECK(e["tid"].get<int>() == 1);          // the measured track
      CHECK(e["ts"].get<double>() == doctest::Approx(static_cast<double>(rec.measured_begin_ns) / 1000.0));
      CHECK(e["dur"].get<double>() ==
            doctest::Approx(static_cast<double>(rec.measured_end_ns - rec.measured_begin_ns) / 1000.0));
      CHECK(e["args"]["peer"].get<int>() == x.src);
      CHECK(e["args"]["chunk"].get<int>() == x.chunk);
      CHECK(e["args"]["step"].get<int>() == x.step);
      CHECK(e["args"]["bytes"].get<std::uint64_t>() == trace.schedule.bytes(x));
      CHECK(e["args"]["action"].get<std::string>() == to_string(x.action));
      ++complete;
    }
    CHECK(complete == trace.schedule.transfers.size());
    CHECK(process_names == static_cast<std::size_t>(trace.schedule.total_ranks));
  }
}

TEST_CASE("the Chrome trace adds a predicted track only when the trace has predictions") {
  Trace t = run_trace(request("ring", 3, 30));
  for (TransferRecord& r : t.records) {
    r.predicted_begin_ns = 10.5;
    r.predicted_end_ns = 20.25;
  }
  const nlohmann::json doc = nlohmann::json::parse(trace_to_chrome(t));
  std::size_t measured = 0, predicted = 0;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") (e["tid"] == 1 ? measured : predicted) += 1;
  CHECK(measured == t.records.size());
  CHECK(predicted == t.records.size());
}

TEST_CASE("the CSV has a header and one row per transfer, labels quoted") {
  const Trace t = run_trace(request("ring", 4, 100));
  const std::vector<std::string> lines = lines_of(trace_to_csv(t));
  REQUIRE(lines.size() == 1 + t.schedule.transfers.size());
  // The ring's reduce-scatter adds each receiver's input (reduce_copy): the operand's columns.
  CHECK(lines[0] ==
        "index,step,step_label,src,dst,chunk,action,src_buffer,src_offset,dst_buffer,dst_offset,count,bytes,"
        "measured_begin_ns,measured_end_ns,worker,operand_buffer,operand_offset");
  // Step labels contain commas: quoted, so every row still has 18 fields.
  CHECK(lines[1].find(",\"reduce-scatter 1/3: ") != std::string::npos);
  const Transfer& x = t.schedule.transfers[0];
  REQUIRE(x.action == Action::reduce_copy);
  CHECK(lines[1].starts_with(fmt::format("0,{},", x.step)));
  CHECK(lines[1].ends_with(fmt::format(",{},{},{},input,{}", t.records[0].measured_begin_ns, t.records[0].measured_end_ns,
                                       t.records[0].worker, x.operand_offset)));
  // A copy leaves them empty.
  CHECK(lines.back().ends_with(fmt::format(",{},,", t.records.back().worker)));
  // A schedule without a reduce_copy has no operand columns.
  CHECK(lines_of(trace_to_csv(run_trace(request("parameter_server", 4, 100))))[0].ends_with(",worker"));
}

TEST_CASE("importing something that is not a collsim trace names the file") {
  CHECK(import_error(R"({"traceEvents": []})", "chrome.json").starts_with("chrome.json: not a collsim trace"));
  CHECK(import_error("[1, 2]", "list.json").starts_with("list.json: not a collsim trace"));
  // A lesson trace is collsim's too, but not one to replay: say what to open instead.
  CHECK(import_error(R"({"format": "collsim-lesson", "version": 1})", "lesson.json")
            .starts_with("lesson.json: a lesson trace (\"collsim-lesson\", written by `collsim run LESSON --trace`)"));
  CHECK(import_error(R"({"format": "collsim-trace"})").find("key 'version' is missing") != std::string::npos);
}

TEST_CASE("importing a truncated or damaged trace names the file, line and column") {
  const std::string good = trace_to_json(run_trace(request("ring", 3, 9)));
  const std::string truncated = good.substr(0, good.size() / 2);
  const std::string msg = import_error(truncated, "cut.json");
  CHECK(msg.starts_with("cut.json:"));
  CHECK(msg.find("not valid JSON") != std::string::npos);
  // The error is at the end of the text: its line is the last line of the truncated file.
  const std::size_t last_line = lines_of(truncated).size();
  CHECK(msg.find(fmt::format("cut.json:{}:", last_line)) == 0);
  const std::string damaged = replace_once(good, "\"version\": 1,", "\"version\": 1,,");
  CHECK(import_error(damaged, "d.json").starts_with("d.json:3:"));
}

TEST_CASE("importing a trace of another version or with wrong types names the key") {
  const std::string good = trace_to_json(run_trace(request("ring", 3, 9)));
  CHECK(import_error(replace_once(good, "\"version\": 1", "\"version\": 2"))
            .find("key 'version': trace format version 2 is not supported") != std::string::npos);
  CHECK(import_error(replace_once(good, "\"ranks\": 3", "\"ranks\": \"3\""))
            .find("bad.json: key 'request.ranks': expected an integer, got string") != std::string::npos);
  CHECK(import_error(replace_once(good, "\"src\": 0", "\"src\": 7"))
            .find("key 'schedule.transfers[0].src'") != std::string::npos);
  CHECK(import_error(replace_once(good, "\"measured_begin_ns\"", "\"measured_start_ns\""))
            .find("key 'records[0].measured_start_ns': unknown key") != std::string::npos);
  CHECK(import_error(replace_once(good, "\"dtype\": \"f32\"", "\"dtype\": \"f31\""))
            .find("key 'request.dtype': unknown data type 'f31'") != std::string::npos);
  CHECK(import_error(replace_once(good, "\"algbw_gbps\": ", "\"algbw_gbps\": [], \"x\": "))
            .find("key 'summary") != std::string::npos);
}

TEST_CASE("importing a trace whose schedule is wrong is refused by the checker") {
  const std::string good = trace_to_json(run_trace(request("ring", 3, 9)));
  // Make the first reduce_copy add the (still empty) output instead of the input.
  const std::string bad = replace_once(good, "\"operand_buffer\": \"input\"", "\"operand_buffer\": \"output\"");
  CHECK(import_error(bad).find("bad.json: key 'schedule': not a valid schedule") != std::string::npos);
}

TEST_CASE("load_trace_json names a file it cannot read") {
  try {
    load_trace_json("/nonexistent/trace.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).starts_with("/nonexistent/trace.json: cannot read"));
  }
  // A folder is named as one (it used to read as an empty, invalid JSON text).
  const auto dir = std::filesystem::temp_directory_path();
  CHECK(testing::input_error([&] { load_trace_json(dir); }) == dir.string() + ": cannot read the trace file: it is a folder");
}

TEST_CASE("line_column counts lines and columns from 1") {
  CHECK(line_column("ab\ncd", 0) == "1:1");
  CHECK(line_column("ab\ncd", 4) == "2:2");
  CHECK(line_column("ab\n", 3) == "2:1");
}

namespace {

// A prediction on a configuration that sets every key of a scenario's [topology].
Trace predicted_trace(const TopologyConfig& config, std::string algorithm = "direct", int ranks = 4) {
  RunResult r = run_collective(request(std::move(algorithm), ranks, 100),
                               *make_cpu_backend({.threads = 2, .before_transfer = {}, .should_stop = {}, .after_transfer = {}}));
  predict_run(r, config);
  return make_trace(r);
}

TopologyConfig full_two_level() {
  TopologyConfig c;
  c.kind = TopologyKind::two_level;
  c.link = "pcie5";
  c.bandwidth_gbps = 20;
  c.latency_us = 3.5;
  c.uplink = "ib_hdr";
  c.uplink_bandwidth_gbps = 12.5;
  c.uplink_latency_us = 0.25;
  c.group_size = 2;
  c.nic_per_gpu = true;
  c.reduce_rate_gbps = 500;
  c.copy_rate_gbps = 800.125;
  c.overrides.push_back({"rank1", 5.0, std::nullopt, "test"});
  c.overrides.push_back({"uplink0", std::nullopt, 7.0, "test"});
  c.stragglers.push_back({2, 1.5, 1, "test"});
  c.stragglers.push_back({3, 0, 2.0, "test"});
  return c;
}

}  // namespace

TEST_CASE("a JSON trace records the topology configuration, overrides and stragglers included, and round-trips it") {
  const TopologyConfig config = full_two_level();
  const Trace t = predicted_trace(config);
  REQUIRE(t.predicted);
  REQUIRE(t.predicted->topology_config);
  CHECK(*t.predicted->topology_config == config);
  const std::string text = trace_to_json(t);
  // The scenario's [topology] keys; only what the configuration sets (no late 0, no slow 1).
  CHECK(text.find(R"("kind": "two_level")") != std::string::npos);
  CHECK(text.find(R"("nic": "gpu")") != std::string::npos);
  CHECK(text.find(R"({"link": "uplink0", "latency": 7.0})") != std::string::npos);
  CHECK(text.find(R"({"rank": 2, "late": 1.5})") != std::string::npos);
  CHECK(text.find(R"({"rank": 3, "slow": 2.0})") != std::string::npos);
  const Trace back = parse_trace_json(text, "t.json");
  CHECK(trace_to_json(back) == text);
  REQUIRE(back.predicted->topology_config);
  CHECK(*back.predicted->topology_config == config);
  CHECK(back.predicted == t.predicted);
  // A re-run on the recorded configuration predicts the same.
  const Trace again = predicted_trace(*back.predicted->topology_config);
  CHECK(again.predicted->time_ns == t.predicted->time_ns);

  // A bare configuration writes its kind and its latency rule alone.
  TopologyConfig ring;
  ring.kind = TopologyKind::ring;
  const std::string bare = trace_to_json(predicted_trace(ring));
  CHECK(bare.find(R"("topology_config": {"kind": "ring", "latency_rule": "delay"},)") != std::string::npos);
  // A trace written before the rule was recorded predicted per message (the default then).
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(bare);
  doc["predicted"]["topology_config"].erase("latency_rule");
  CHECK(parse_trace_json(doc.dump(2), "old.json").predicted->topology_config->latency_rule == LatencyRule::message);
}

TEST_CASE("a JSON trace without the topology configuration (written before it was recorded) still imports") {
  const Trace t = predicted_trace(full_two_level());
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(trace_to_json(t));
  REQUIRE(doc["predicted"].contains("topology_config"));
  doc["predicted"].erase("topology_config");
  const Trace old = parse_trace_json(doc.dump(2), "old.json");
  REQUIRE(old.predicted);
  CHECK_FALSE(old.predicted->topology_config);
  CHECK(old.predicted->topology == t.predicted->topology);
  CHECK(trace_to_json(old).find("topology_config") == std::string::npos);
  // And a trace without predictions has neither.
  CHECK(trace_to_json(run_trace(request("ring", 3, 9))).find("topology_config") == std::string::npos);
}

TEST_CASE("importing a bad topology configuration names its key") {
  const std::string good = trace_to_json(predicted_trace(full_two_level()));
  auto error_for = [&](const std::string& from, const std::string& to) { return import_error(replace_once(good, from, to)); };
  CHECK(error_for(R"("nic": "gpu")", R"("nic": "gpu", "speed": 3)")
            .find("bad.json: key 'predicted.topology_config.speed': unknown key") != std::string::npos);
  CHECK(error_for(R"("kind": "two_level")", R"("kind": "torus")")
            .find("key 'predicted.topology_config.kind': unknown topology 'torus'") != std::string::npos);
  CHECK(error_for(R"("link": "pcie5")", R"("link": "pcie9")")
            .find("key 'predicted.topology_config.link': unknown link preset 'pcie9'") != std::string::npos);
  CHECK(error_for(R"("bandwidth": 20.0)", R"("bandwidth": 0)")
            .find("key 'predicted.topology_config.bandwidth': must be > 0, got 0") != std::string::npos);
  CHECK(error_for(R"("uplink_latency": 0.25)", R"("uplink_latency": "fast")")
            .find("key 'predicted.topology_config.uplink_latency': expected a number") != std::string::npos);
  CHECK(error_for(R"("group_size": 2)", R"("group_size": 0)")
            .find("key 'predicted.topology_config.group_size': 0 is out of range") != std::string::npos);
  CHECK(error_for(R"("nic": "gpu")", R"("nic": "card")")
            .find("key 'predicted.topology_config.nic': unknown nic 'card'") != std::string::npos);
  CHECK(error_for(R"({"link": "rank1", "bandwidth": 5.0})", R"({"link": "rank1", "bandwith": 5.0})")
            .find("key 'predicted.topology_config.overrides[0].bandwith': unknown key") != std::string::npos);
  CHECK(error_for(R"({"link": "rank1", "bandwidth": 5.0})", R"({"link": "rank1"})")
            .find("key 'predicted.topology_config.overrides[0]': gives no `bandwidth` or `latency`") != std::string::npos);
  CHECK(error_for(R"({"rank": 2, "late": 1.5})", R"({"late": 1.5})")
            .find("key 'predicted.topology_config.stragglers[0].rank' is missing") != std::string::npos);
  CHECK(error_for(R"({"rank": 3, "slow": 2.0})", R"({"rank": 3, "slow": -2.0})")
            .find("key 'predicted.topology_config.stragglers[1].slow': must be > 0") != std::string::npos);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(good);
  doc["predicted"]["topology_config"]["overrides"] = {{"link", "rank1"}};
  CHECK(import_error(doc.dump()).find("key 'predicted.topology_config.overrides': expected an array") !=
        std::string::npos);
}

TEST_CASE("an imported override or straggler that does not fit the ranks is named by its key when the topology is resolved") {
  const std::string good = trace_to_json(predicted_trace(full_two_level()));
  // The importer checks each value; whether a link or a rank exists is for make_topology,
  // on the ranks of the run that uses it.
  const Trace t = parse_trace_json(replace_once(good, R"({"rank": 3, "slow")", R"({"rank": 9, "slow")"), "t.json");
  try {
    make_topology(*t.predicted->topology_config, 4, 4);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).starts_with("t.json: key 'predicted.topology_config.stragglers[1]': rank 9"));
  }
}

TEST_CASE("a JSON trace's given inputs must be numbers its type holds") {
  RunRequest r = request("ring", 2, 4, DataType::i32);
  r.input_values = {7};
  std::string text = exported(run_trace(r));
  const std::string written = "\"inputs\": [7.0]";
  const std::size_t at = text.find(written);
  REQUIRE(at != std::string::npos);
  CHECK(import_error(text.replace(at, written.size(), "\"inputs\": [7.5]"), "t.json") ==
        "t.json: key 'request.inputs': value 1 (7.5) is no i32 number: i32 holds whole numbers from -2147483648 to "
        "2147483647");
}
