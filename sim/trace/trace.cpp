// Building a Trace from a run, and the CSV exporter (no JSON library needed here).
#include "sim/trace/trace.h"

#include <algorithm>

#include <iterator>

#include <fmt/format.h>

#include <collsim/version.h>

#include "sim/model/cost_formulas.h"
#include "sim/core/csv.h"

namespace collsim {
namespace {

bool has_predictions(const Trace& t) {
  for (const TransferRecord& r : t.records)
    if (r.predicted_begin_ns || r.predicted_end_ns) return true;
  return false;
}

std::string optional_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

// One record per transfer: measured times when the run executed (a --model-only run has
// none: zeros), predicted ones when the model ran.
std::vector<TransferRecord> records_of(const RunResult& run) {
  std::vector<TransferRecord> records(run.schedule.transfers.size());
  for (std::size_t i = 0; i < run.execution.timings.size() && i < records.size(); ++i) {
    const TransferTiming& m = run.execution.timings[i];
    records[i] = {m.begin_ns, m.end_ns, m.worker, {}, {}};
  }
  if (run.model)
    for (std::size_t i = 0; i < records.size(); ++i) {
      records[i].predicted_begin_ns = run.model->prediction.begin_ns[i];
      records[i].predicted_end_ns = run.model->prediction.end_ns[i];
    }
  return records;
}

}  // namespace

Trace make_trace(const RunResult& run, std::string scenario_title, std::string scenario_description) {
  Trace t;
  t.collsim_version = COLLSIM_VERSION;
  t.scenario_title = std::move(scenario_title);
  t.scenario_description = std::move(scenario_description);
  t.request = run.request;
  t.backend = run.backend;
  t.model_only = run.model_only;
  t.recorded = run.recorded;
  t.device = run.device;
  t.execution = run.execution;  // the facts; the times are below
  t.schedule = run.schedule;
  t.history = run.history;
  t.values = run.values;
  t.records = records_of(run);
  t.verification = run.verification;
  const Bandwidth bw = bandwidth(run.schedule.spec, run.execution.total_ns);
  t.summary = {run.execution.total_ns, bw.algbw_gbps, bw.busbw_gbps};
  if (run.model) t.predicted = summarize_prediction(run);
  return t;
}

namespace {
// A closed form as the trace keeps it: where it does not apply, the formula says for what
// it holds.
TraceClosedForm as_kept(const ClosedForm& f) {
  return {f.formula.empty() || f.time_ns ? f.formula : fmt::format("{} (holds for {})", f.formula, f.scope), f.values,
          f.time_ns};
}
}  // namespace

TraceClosedForm closed_form_of(const Trace& t) {
  if (t.predicted) return {t.predicted->closed_form, t.predicted->closed_form_values, t.predicted->closed_form_ns};
  const Topology fabric = make_topology(TopologyConfig{}, t.schedule.spec.ranks, t.schedule.total_ranks);
  return as_kept(closed_form(t.schedule.spec, t.schedule.algorithm, t.request.options, cost_params(fabric)));
}

PredictedSummary summarize_prediction(const RunResult& run) {
  const ModelRun& m = *run.model;
  const CollectiveSpec& spec = run.schedule.spec;
  PredictedSummary p;
  p.topology = describe(m.topology);
  p.topology_config = m.config;
  p.time_ns = m.prediction.total_ns;
  const Bandwidth bw = bandwidth(spec, p.time_ns);
  p.algbw_gbps = bw.algbw_gbps;
  p.busbw_gbps = bw.busbw_gbps;
  for (const LinkLoad& l : m.prediction.busiest)
    p.busiest_links.push_back({link_name(m.topology, l.link), p.time_ns > 0 ? l.busy_ns / p.time_ns : 0});
  // No formula (e.g. a hand-written "custom" schedule): left empty, so reports say there is none.
  const TraceClosedForm f = as_kept(closed_form(spec, run.schedule.algorithm, run.request.options, cost_params(m.topology)));
  p.closed_form = f.formula;
  p.closed_form_values = f.values;
  // The closed forms are the textbooks' (latency per message); under latency as delay a
  // pipelined schedule beats its form, so the values say which rule the form assumes.
  if (!f.values.empty() && m.topology.latency_rule == LatencyRule::delay) p.closed_form_values += ", latency per message";
  p.closed_form_ns = f.time_ns;
  // A count of 0 sends nothing (NCCL returns at once): the run's 0 ns is right, and the form,
  // whose latency term counts the messages of a non-empty run, is not its time.
  if (!f.values.empty() && run.totals.transfers == 0)
    p.closed_form_values += "; a count of 0 sends nothing, so no message pays α and the run takes 0 ns";
  p.protocol = m.topology.protocol;
  p.protocol_candidates = m.candidates;
  return p;
}

std::string trace_to_csv(const Trace& t) {
  const Schedule& s = t.schedule;
  const bool predicted = has_predictions(t);
  std::string out =
      "index,step,step_label,src,dst,chunk,action,src_buffer,src_offset,dst_buffer,dst_offset,count,bytes,"
      "measured_begin_ns,measured_end_ns,worker";
  // The timing model's columns appear only in traces that carry predictions, so today's
  // files stay exactly as documented.
  out += predicted ? ",predicted_begin_ns,predicted_end_ns" : "";
  // And a reduce_copy's operand only in traces that have one.
  const bool operands = std::any_of(s.transfers.begin(), s.transfers.end(), [](const Transfer& x) { return x.has_operand(); });
  out += operands ? ",operand_buffer,operand_offset\n" : "\n";
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& x = s.transfers[i];
    const TransferRecord& r = t.records[i];
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", i, x.step,
                   csv_field(s.step_labels[static_cast<std::size_t>(x.step)]), x.src, x.dst, x.chunk,
                   to_string(x.action), to_string(x.src_buffer), x.src_offset, to_string(x.dst_buffer), x.dst_offset,
                   x.count, s.bytes(x), r.measured_begin_ns, r.measured_end_ns, r.worker);
    if (predicted)
      fmt::format_to(std::back_inserter(out), ",{},{}", optional_number(r.predicted_begin_ns),
                     optional_number(r.predicted_end_ns));
    if (operands && x.has_operand())
      fmt::format_to(std::back_inserter(out), ",{},{}", to_string(x.operand_buffer), x.operand_offset);
    else if (operands)
      out += ",,";
    out += '\n';
  }
  return out;
}

std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return fmt::format("{}:{}", line, offset - line_start + 1);
}

}  // namespace collsim
