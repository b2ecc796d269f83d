// The JSON trace: exporter and importer (schema: docs/trace-format.md).
//
// Round trip: export -> import -> export must give the same bytes. The exporter is a pure
// function of the Trace; the importer reads every field back into the Trace losslessly:
// integers stay integers, doubles are printed by nlohmann-json in their shortest form
// that parses back to the same double, "n/a" stays a string, and non-finite doubles
// (a verification error of inf or nan) are written as the strings "inf", "-inf", "nan".
//
// Layout: small objects on one line, arrays of objects or strings one element per line,
// so a trace reads well, diffs well, and is streamed without building one huge tree.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/check/buffer_history.h"
#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/json_writer.h"
#include "sim/trace/trace.h"

namespace collsim {
namespace {

using json_layout::ObjectWriter;
using json_layout::ojson;
using json_layout::request_json;
using json = nlohmann::json;
using json_reading::Field;
using json_reading::read_array;
using json_reading::read_request;
using json_reading::read_topology_config;
using json_reading::read_verification;

constexpr std::string_view kFormatName = "collsim-trace";

// ----------------------------------------------------------------------------------------
// Export
// ----------------------------------------------------------------------------------------

// Doubles that JSON cannot hold as numbers become strings.
ojson finite_or_string(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// A bandwidth or an optional time: "n/a" when absent.
ojson bandwidth_json(const std::optional<double>& gbps) { return gbps ? finite_or_string(*gbps) : ojson("n/a"); }

ojson local_op_json(const LocalOp& op) {
  ojson j = {{"kind", to_string(op.kind)}, {"rank", op.target.rank}, {"buffer", to_string(op.target.buffer)},
             {"offset", op.target.offset}, {"count", op.target.count}};
  if (op.kind == LocalOpKind::copy) {
    j["source_buffer"] = to_string(op.source.buffer);
    j["source_offset"] = op.source.offset;
  }
  return j;
}

// "channel" only where the schedule has channels, so that other traces stay as they were.
ojson transfer_json(const Transfer& t) {
  ojson j = {{"step", t.step}, {"src", t.src}, {"dst", t.dst}, {"chunk", t.chunk}, {"action", to_string(t.action)},
             {"src_buffer", to_string(t.src_buffer)}, {"src_offset", t.src_offset},
             {"dst_buffer", to_string(t.dst_buffer)}, {"dst_offset", t.dst_offset}, {"count", t.count}};
  if (t.channel != 0) j["channel"] = t.channel;
  if (t.has_operand()) {  // the receiver's region added to the source (reduce_copy only)
    j["operand_buffer"] = to_string(t.operand_buffer);
    j["operand_offset"] = t.operand_offset;
  }
  return j;
}

ojson record_json(std::size_t index, const TransferRecord& r) {
  ojson j = {{"transfer", index}, {"measured_begin_ns", r.measured_begin_ns}, {"measured_end_ns", r.measured_end_ns},
             {"worker", r.worker}};
  if (r.predicted_begin_ns) j["predicted_begin_ns"] = finite_or_string(*r.predicted_begin_ns);
  if (r.predicted_end_ns) j["predicted_end_ns"] = finite_or_string(*r.predicted_end_ns);
  return j;
}

// The configuration in the words of a scenario's [topology] (its keys, docs/scenario-format.md):
// the kind, and only what the configuration sets, so that an unset figure stays "the
// preset's" when read back. A figure is finite (make_topology checked it before the prediction).
}  // namespace

ojson json_layout::topology_config_json(const TopologyConfig& c) {
  ojson j = {{"kind", to_string(c.kind)}};
  auto add_figure = [&j](const char* key, const std::optional<double>& v) {
    if (v) j[key] = *v;
  };
  if (!c.link.empty()) j["link"] = c.link;
  add_figure("bandwidth", c.bandwidth_gbps);
  add_figure("latency", c.latency_us);
  if (!c.uplink.empty()) j["uplink"] = c.uplink;
  add_figure("uplink_bandwidth", c.uplink_bandwidth_gbps);
  add_figure("uplink_latency", c.uplink_latency_us);
  if (c.group_size > 0) j["group_size"] = c.group_size;
  if (c.nic_per_gpu) j["nic"] = "gpu";
  add_figure("reduce_rate", c.reduce_rate_gbps);
  add_figure("copy_rate", c.copy_rate_gbps);
  if (c.protocol != Protocol::none) j["protocol"] = to_string(c.protocol);
  j["latency_rule"] = to_string(c.latency_rule);  // always: traces before the key were all "message"
  if (c.arrange != Arrangement::algorithm) j["arrange"] = to_string(c.arrange);
  if (!c.overrides.empty()) {
    ojson& overrides = j["overrides"] = ojson::array();
    for (const LinkOverride& o : c.overrides) {
      ojson& x = overrides.emplace_back(ojson{{"link", o.link}});
      if (o.bandwidth_gbps) x["bandwidth"] = *o.bandwidth_gbps;
      if (o.latency_us) x["latency"] = *o.latency_us;
    }
  }
  if (!c.stragglers.empty()) {
    ojson& stragglers = j["stragglers"] = ojson::array();
    for (const Straggler& st : c.stragglers) {
      ojson& x = stragglers.emplace_back(ojson{{"rank", st.rank}});
      if (st.late_us != 0) x["late"] = st.late_us;
      if (st.slow != 1) x["slow"] = st.slow;
    }
  }
  return j;
}

namespace {

ojson predicted_json(const PredictedSummary& p) {
  ojson links = ojson::array();
  for (const PredictedSummary::LinkUse& l : p.busiest_links)
    links.push_back({{"link", l.link}, {"utilisation", finite_or_string(l.utilisation)}});
  ojson j = {{"topology", p.topology}};
  if (p.topology_config) j["topology_config"] = json_layout::topology_config_json(*p.topology_config);
  j["time_ns"] = finite_or_string(p.time_ns);
  j["algbw_gbps"] = bandwidth_json(p.algbw_gbps);
  j["busbw_gbps"] = bandwidth_json(p.busbw_gbps);
  j["busiest_links"] = links;
  j["closed_form"] = p.closed_form;
  j["closed_form_values"] = p.closed_form_values;
  j["closed_form_ns"] = bandwidth_json(p.closed_form_ns);
  // Only where a protocol was used, so traces without one read as before.
  if (p.protocol != Protocol::none) j["protocol"] = to_string(p.protocol);
  if (!p.protocol_candidates.empty()) {
    ojson& candidates = j["protocol_candidates"] = ojson::array();
    for (const ProtocolTime& c : p.protocol_candidates)
      candidates.push_back({{"protocol", to_string(c.protocol)}, {"time_ns", finite_or_string(c.total_ns)}});
  }
  return j;
}

void write_schedule(ObjectWriter& parent, const Schedule& s) {
  ObjectWriter w = parent.open("schedule");
  w.add("total_ranks", s.total_ranks);
  w.add("scratch_count", s.scratch_count);
  w.add("average_divisor", s.average_divisor);
  if (s.channels != 1) w.add("channels", s.channels);
  w.add_array("steps", s.step_labels.size(), [&](std::size_t i) { return ojson(s.step_labels[i]); });
  if (!s.step_stages.empty())
    w.add_array("stages", s.step_stages.size(), [&](std::size_t i) { return ojson(s.step_stages[i]); });
  w.add_array("pre_ops", s.pre_ops.size(), [&](std::size_t i) { return local_op_json(s.pre_ops[i]); });
  w.add_array("transfers", s.transfers.size(), [&](std::size_t i) { return transfer_json(s.transfers[i]); });
  w.add_array("post_ops", s.post_ops.size(), [&](std::size_t i) { return local_op_json(s.post_ops[i]); });
  w.close();
}

}  // namespace

std::string trace_to_json(const Trace& t) {
  std::string out;
  ObjectWriter w(out, 0);
  w.add("format", kFormatName);
  w.add("version", t.format_version);
  w.add("collsim_version", t.collsim_version);
  const bool scenario = !t.scenario_title.empty() || !t.scenario_description.empty();
  w.add("scenario", scenario ? ojson{{"title", t.scenario_title}, {"description", t.scenario_description}} : ojson());
  w.add("request", request_json(t.request));
  w.add("backend", {{"name", t.backend}, {"device", t.device}, {"workers", t.execution.workers}});
  write_schedule(w, t.schedule);
  w.add_array("records", t.records.size(), [&](std::size_t i) { return record_json(i, t.records[i]); });
  const Verification& v = t.verification;
  w.add("verification", {{"ok", v.ok}, {"checked", v.checked}, {"mismatches", v.mismatches},
                         {"max_error", finite_or_string(v.max_error)}, {"first_mismatch", v.first_mismatch},
                         {"rule", v.rule}});
  w.add("summary", {{"time_ns", t.summary.time_ns}, {"algbw_gbps", bandwidth_json(t.summary.algbw_gbps)},
                    {"busbw_gbps", bandwidth_json(t.summary.busbw_gbps)}});
  if (t.predicted) w.add("predicted", predicted_json(*t.predicted));
  if (!t.execution.processes.empty()) {
    ojson processes = ojson::array();
    for (const ProcessClock& p : t.execution.processes)
      processes.push_back({{"rank", p.rank}, {"host", p.host}, {"pid", p.pid}, {"offset_start_ns", p.offset_start_ns},
                           {"offset_end_ns", p.offset_end_ns}, {"uncertainty_ns", p.uncertainty_ns}});
    w.add("processes", processes);
    w.add("causality", {{"violations", t.execution.causality_violations}, {"first", t.execution.first_causality_violation}});
  }
  w.close();
  out += '\n';
  return out;
}

// ----------------------------------------------------------------------------------------
// Import
// ----------------------------------------------------------------------------------------
namespace {

constexpr Action kActions[] = {Action::copy, Action::reduce, Action::reduce_copy};
constexpr LocalOpKind kLocalOpKinds[] = {LocalOpKind::copy, LocalOpKind::fill_identity, LocalOpKind::divide,
                                         LocalOpKind::signal};

int read_rank(const Field& f, const Schedule& s) { return f.int32(0, s.total_ranks - 1); }

LocalOp read_local_op(const Field& f, const Schedule& s) {
  LocalOp op;
  op.kind = f["kind"].name_of(kLocalOpKinds, "local operation");
  if (op.kind == LocalOpKind::copy)
    f.only_keys({"kind", "rank", "buffer", "offset", "count", "source_buffer", "source_offset"});
  else
    f.only_keys({"kind", "rank", "buffer", "offset", "count"});
  op.target = {read_rank(f["rank"], s), f["buffer"].name_of(kAllBufferKinds, "buffer"), f["offset"].unsigned_integer(),
               f["count"].unsigned_integer()};
  if (op.kind == LocalOpKind::copy)
    op.source = {op.target.rank, f["source_buffer"].name_of(kAllBufferKinds, "buffer"),
                 f["source_offset"].unsigned_integer(), op.target.count};
  return op;
}

Transfer read_transfer(const Field& f, const Schedule& s) {
  f.only_keys({"step", "src", "dst", "chunk", "action", "src_buffer", "src_offset", "dst_buffer", "dst_offset", "count",
               "channel", "operand_buffer", "operand_offset"});
  Transfer t;
  t.step = f["step"].int32(0, s.step_count() - 1);
  t.src = read_rank(f["src"], s);
  t.dst = read_rank(f["dst"], s);
  t.chunk = f["chunk"].int32(0, std::numeric_limits<int>::max());
  t.action = f["action"].name_of(kActions, "action");
  t.src_buffer = f["src_buffer"].name_of(kAllBufferKinds, "buffer");
  t.src_offset = f["src_offset"].unsigned_integer();
  t.dst_buffer = f["dst_buffer"].name_of(kAllBufferKinds, "buffer");
  t.dst_offset = f["dst_offset"].unsigned_integer();
  t.count = f["count"].unsigned_integer();
  if (f.has("channel")) t.channel = static_cast<std::uint16_t>(f["channel"].int32(0, s.channels - 1));
  if (t.has_operand()) {  // required for a reduce_copy, refused on the others
    t.operand_buffer = f["operand_buffer"].name_of(kAllBufferKinds, "buffer");
    t.operand_offset = f["operand_offset"].unsigned_integer();
  } else {
    for (const char* key : {"operand_buffer", "operand_offset"})
      if (f.has(key)) f[key].fail(fmt::format("only a reduce_copy has an operand (this one is a {})", to_string(t.action)));
  }
  return t;
}


// The schedule must be one the engine could have run: regions inside buffers, contributions
// right. The checker proves it, exactly as before a run, once; `history`, when given, gets
// the buffer history that check recorded (for a view of the trace).
void check_imported_schedule(const Field& f, const Schedule& s, std::shared_ptr<const BufferHistory>* history) {
  try {
    if (history)
      *history = std::make_shared<const BufferHistory>(BufferHistory::record(s));
    else
      check_schedule(s);
  } catch (const ScheduleError& e) {
    f.fail(fmt::format("not a valid schedule: {}", e.what()));
  }
}

Schedule read_schedule(const Field& f, const RunRequest& request, std::shared_ptr<const BufferHistory>* history) {
  f.only_keys({"total_ranks", "scratch_count", "average_divisor", "channels", "steps", "stages", "pre_ops", "transfers",
               "post_ops"});
  Schedule s;
  s.spec = request.spec;
  s.algorithm = request.algorithm;
  s.total_ranks = f["total_ranks"].int32(request.spec.ranks, 2 * kMaxRanks);
  const Field scratch = f["scratch_count"];
  if (scratch.size() != static_cast<std::size_t>(s.total_ranks))
    scratch.fail(fmt::format("has {} entries, expected one per rank ({})", scratch.size(), s.total_ranks));
  s.scratch_count = read_array<std::uint64_t>(scratch, [](const Field& x) { return x.unsigned_integer(); });
  s.average_divisor = f["average_divisor"].integer(1);
  if (f.has("channels")) s.channels = f["channels"].int32(1, kMaxChannels);
  s.step_labels = read_array<std::string>(f["steps"], [](const Field& x) { return x.str(); });
  if (f.has("stages")) {  // optional: traces written before stages existed have none
    const Field stages = f["stages"];
    if (stages.size() != s.step_labels.size())
      stages.fail(fmt::format("has {} entries, expected one per step ({})", stages.size(), s.step_labels.size()));
    s.step_stages = read_array<std::string>(stages, [](const Field& x) { return x.str(); });
  }
  s.pre_ops = read_array<LocalOp>(f["pre_ops"], [&](const Field& x) { return read_local_op(x, s); });
  s.transfers = read_array<Transfer>(f["transfers"], [&](const Field& x) { return read_transfer(x, s); });
  s.post_ops = read_array<LocalOp>(f["post_ops"], [&](const Field& x) { return read_local_op(x, s); });
  check_imported_schedule(f, s, history);
  return s;
}

TransferRecord read_record(const Field& f, std::size_t index) {
  f.only_keys({"transfer", "measured_begin_ns", "measured_end_ns", "worker", "predicted_begin_ns", "predicted_end_ns"});
  // Records are in schedule order; the index is there for human readers, and must agree.
  if (const Field n = f["transfer"]; n.integer() != static_cast<std::int64_t>(index))
    n.fail(fmt::format("is {}, expected {} (records follow the order of schedule.transfers)", n.integer(), index));
  TransferRecord r;
  r.measured_begin_ns = f["measured_begin_ns"].integer();
  r.measured_end_ns = f["measured_end_ns"].integer();
  r.worker = f["worker"].int32(0, std::numeric_limits<int>::max());
  if (f.has("predicted_begin_ns")) r.predicted_begin_ns = f["predicted_begin_ns"].number();
  if (f.has("predicted_end_ns")) r.predicted_end_ns = f["predicted_end_ns"].number();
  return r;
}

std::vector<TransferRecord> read_records(const Field& f, std::size_t transfers) {
  if (f.size() != transfers) f.fail(fmt::format("has {} records, expected one per transfer ({})", f.size(), transfers));
  std::vector<TransferRecord> v;
  v.reserve(transfers);
  for (std::size_t i = 0; i < transfers; ++i) v.push_back(read_record(f.at(i), i));
  return v;
}

TraceSummary read_summary(const Field& f) {
  f.only_keys({"time_ns", "algbw_gbps", "busbw_gbps"});
  return {f["time_ns"].integer(), f["algbw_gbps"].number_or_na(), f["busbw_gbps"].number_or_na()};
}

PredictedSummary read_predicted(const Field& f) {
  f.only_keys({"topology", "topology_config", "time_ns", "algbw_gbps", "busbw_gbps", "busiest_links", "closed_form",
               "closed_form_values", "closed_form_ns", "protocol", "protocol_candidates"});
  PredictedSummary p{f["topology"].str(), std::nullopt, f["time_ns"].number(), f["algbw_gbps"].number_or_na(),
                     f["busbw_gbps"].number_or_na(), {}, f["closed_form"].str(), f["closed_form_values"].str(),
                     f["closed_form_ns"].number_or_na(), Protocol::none, {}};
  // Optional: traces written before collsim recorded the configuration have only its description.
  if (f.has("topology_config")) p.topology_config = read_topology_config(f["topology_config"]);
  const Field links = f["busiest_links"];
  for (std::size_t i = 0; i < links.size(); ++i) {
    const Field l = links.at(i);
    l.only_keys({"link", "utilisation"});
    p.busiest_links.push_back({l["link"].str(), l["utilisation"].number()});
  }
  if (f.has("protocol")) p.protocol = f["protocol"].name_of(kAllProtocols, "protocol");
  if (f.has("protocol_candidates")) {
    const Field candidates = f["protocol_candidates"];
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Field c = candidates.at(i);
      c.only_keys({"protocol", "time_ns"});
      p.protocol_candidates.push_back({c["protocol"].name_of(kAllProtocols, "protocol"), c["time_ns"].number()});
    }
  }
  return p;
}

// "format" and "version" first: a file that is not ours, or from another version, gets
// that message rather than a complaint about some key deep inside.
void check_identity(const Field& root, const std::string& source_name) {
  if (root.has("format") && root["format"].is_string() && root["format"].str() == "collsim-lesson")
    throw InputError(fmt::format("{}: a lesson trace (\"collsim-lesson\", written by `collsim run LESSON --trace`): "
                                 "it holds a whole lesson, not one run; open it as a lesson (collsim-gui FILE, "
                                 "`collsim html FILE`, `collsim storyboard FILE`, `collsim convert FILE`)",
                                 source_name));
  if (!root.has("format") || !root["format"].is_string() || root["format"].str() != kFormatName)
    throw InputError(fmt::format("{}: not a collsim trace (the top-level key 'format' is not \"{}\")", source_name,
                                 kFormatName));
  const std::int64_t version = root["version"].integer();
  if (version != kTraceFormatVersion)
    root["version"].fail(fmt::format("trace format version {} is not supported (this build reads version {})", version,
                                     kTraceFormatVersion));
}

// A run across MPI processes: one entry per rank, in rank order, and the causality check.
void read_processes(const Field& root, Trace& t) {
  const Field list = root["processes"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Field f = list.at(i);
    f.only_keys({"rank", "host", "pid", "offset_start_ns", "offset_end_ns", "uncertainty_ns"});
    ProcessClock p{f["rank"].int32(static_cast<int>(i), static_cast<int>(i)), f["host"].str(), f["pid"].integer(0),
                   f["offset_start_ns"].number(), f["offset_end_ns"].number(), f["uncertainty_ns"].number()};
    t.execution.processes.push_back(std::move(p));
  }
  const Field c = root["causality"];
  c.only_keys({"violations", "first"});
  t.execution.causality_violations = c["violations"].unsigned_integer();
  t.execution.first_causality_violation = c["first"].str();
}

Trace read_trace(const Field& root, const std::string& source_name, bool record_history) {
  check_identity(root, source_name);
  root.only_keys({"format", "version", "collsim_version", "scenario", "request", "backend", "schedule", "records",
                  "verification", "summary", "predicted", "processes", "causality"});
  Trace t;
  t.collsim_version = root["collsim_version"].str();
  t.recorded = true;
  if (const Field sc = root["scenario"]; !sc.is_null()) {
    sc.only_keys({"title", "description"});
    t.scenario_title = sc["title"].str();
    t.scenario_description = sc["description"].str();
  }
  t.request = read_request(root["request"]);
  const Field backend = root["backend"];
  backend.only_keys({"name", "device", "workers"});
  t.backend = backend["name"].str();
  t.device = backend["device"].str();
  t.execution.workers = backend["workers"].int32(0, std::numeric_limits<int>::max());
  t.schedule = read_schedule(root["schedule"], t.request, record_history ? &t.history : nullptr);
  // With the history, the numbers behind it, as a run records them (RunResult::values).
  if (record_history) t.values = values_or_record(nullptr, t.schedule, t.request.seed, t.request.input_values);
  t.records = read_records(root["records"], t.schedule.transfers.size());
  t.verification = read_verification(root["verification"]);
  // The file has no key for it: a --model-only run writes backend "none" (prepare_model_run)
  // and checks nothing.
  t.model_only = t.backend == "none" && t.verification.checked == 0;
  t.summary = read_summary(root["summary"]);
  if (root.has("predicted")) t.predicted = read_predicted(root["predicted"]);
  if (root.has("processes")) read_processes(root, t);
  return t;
}

}  // namespace

Trace parse_trace_json(std::string_view text, const std::string& source_name, bool record_history) {
  const json doc = json_reading::parse_document(text, source_name, "a collsim trace");
  return read_trace(Field(doc, "", source_name), source_name, record_history);
}

Trace load_trace_json(const std::filesystem::path& path, bool record_history) {
  return parse_trace_json(read_text_file(path, "trace file"), path.string(), record_history);
}

namespace json_layout {

ojson request_json(const RunRequest& r) {
  ojson j = {{"collective", to_string(r.spec.collective)}, {"algorithm", r.algorithm}, {"ranks", r.spec.ranks},
             {"count", r.spec.count}, {"dtype", to_string(r.spec.dtype)}, {"op", to_string(r.spec.op)},
             {"root", r.spec.root}, {"in_place", r.spec.in_place}, {"slices", r.options.slices},
             {"servers", r.options.servers}, {"colocated", r.options.colocated},
             {"ranks_per_node", r.options.ranks_per_node}, {"seed", r.seed}};
  // Only custom runs have one; other traces keep the key out, as version 1 always did.
  if (!r.options.schedule_file.empty()) j["schedule_file"] = r.options.schedule_file;
  if (!r.input_values.empty()) j["inputs"] = r.input_values;  // given inputs only; absent: seeded
  return j;
}

}  // namespace json_layout

}  // namespace collsim
