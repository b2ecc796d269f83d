// Building a Trace from a run, and the CSV exporter (no JSON library needed here).
#include "sim/trace.h"

#include <iterator>

#include <fmt/format.h>

#include <collsim/version.h>

namespace collsim {
namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

bool has_predictions(const Trace& t) {
  for (const TransferRecord& r : t.records)
    if (r.predicted_begin_ns || r.predicted_end_ns) return true;
  return false;
}

std::string optional_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

}  // namespace

Trace make_trace(const RunResult& run, std::string scenario_title, std::string scenario_description) {
  Trace t;
  t.collsim_version = COLLSIM_VERSION;
  t.scenario_title = std::move(scenario_title);
  t.scenario_description = std::move(scenario_description);
  t.request = run.request;
  t.backend = run.backend;
  t.device = run.device;
  t.workers = run.execution.workers;
  t.schedule = run.schedule;
  t.records.reserve(run.execution.timings.size());
  for (const TransferTiming& m : run.execution.timings) t.records.push_back({m.begin_ns, m.end_ns, m.worker, {}, {}});
  t.verification = run.verification;
  const Bandwidth bw = bandwidth(run.schedule.spec, run.execution.total_ns);
  t.summary = {run.execution.total_ns, bw.algbw_gbps, bw.busbw_gbps};
  return t;
}

std::string trace_to_csv(const Trace& t) {
  const Schedule& s = t.schedule;
  const bool predicted = has_predictions(t);
  std::string out =
      "index,step,step_label,src,dst,chunk,action,src_buffer,src_offset,dst_buffer,dst_offset,count,bytes,"
      "measured_begin_ns,measured_end_ns,worker";
  // The timing model's columns appear only in traces that carry predictions, so today's
  // files stay exactly as documented.
  out += predicted ? ",predicted_begin_ns,predicted_end_ns\n" : "\n";
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
