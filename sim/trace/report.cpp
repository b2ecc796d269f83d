#include "sim/trace/report.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "sim/model/cost_formulas.h"
#include "sim/trace/trace.h"

namespace collsim {
namespace {

std::string gbps(const std::optional<double>& v) { return v ? fmt::format("{:.2f} GB/s", *v) : std::string("n/a"); }

// The busiest links, the first being the bottleneck: "rank8 (...) busy 99.1 % of the time; next: ...".
std::string busiest_text(const PredictedSummary& p) {
  if (p.busiest_links.empty()) return "none: no transfer used a link";
  const auto& links = p.busiest_links;
  std::string text = fmt::format("{} busy {:.1f} % of the time", links[0].link, 100 * links[0].utilisation);
  for (std::size_t i = 1; i < links.size(); ++i)
    text += fmt::format("{} {} {:.1f} %", i == 1 ? "; next:" : ",", links[i].link, 100 * links[i].utilisation);
  // With latency as delay a link is busy only while bytes cross it: an idle bottleneck means
  // the run waits on its messages' latencies, which is worth saying instead of "0.0 %" alone.
  const bool delay = p.topology_config && p.topology_config->latency_rule == LatencyRule::delay;
  if (delay && links[0].utilisation < 0.05) text += " (latency-bound: its messages spend their time on their way)";
  return text;
}

// "LL (auto: LL 12.1 µs, LL128 14.5 µs, Simple 20.3 µs)", or "Simple" when it was given.
std::string protocol_text(const PredictedSummary& p) {
  std::string text(protocol_label(p.protocol));
  for (std::size_t i = 0; i < p.protocol_candidates.size(); ++i)
    text += fmt::format("{}{} {}", i == 0 ? " (auto: " : ", ", protocol_label(p.protocol_candidates[i].protocol),
                        format_duration_ns(p.protocol_candidates[i].total_ns));
  return p.protocol_candidates.empty() ? text : text + ")";
}

// The timing model's lines of the run summary.
void append_prediction(std::string& out, const RunResult& r) {
  const PredictedSummary p = summarize_prediction(r);
  auto line = [&](std::string_view key, const std::string& value) {
    fmt::format_to(std::back_inserter(out), "  {:<11} {}\n", key, value);
  };
  line("predicted", fmt::format("{} on {}", format_duration_ns(p.time_ns), p.topology));
  if (p.protocol != Protocol::none) line("protocol", protocol_text(p));
  line("pred. algbw", gbps(p.algbw_gbps));
  line("pred. busbw", gbps(p.busbw_gbps));
  line("bottleneck", busiest_text(p));
  if (p.closed_form.empty()) return line("closed form", "none for this algorithm: the simulation is the answer");
  line("closed form", p.closed_form);
  line("", p.closed_form_ns ? fmt::format("= {} with {}", format_duration_ns(*p.closed_form_ns), p.closed_form_values)
                            : "does not apply to this run");
}

std::string range(BufferKind b, std::uint64_t offset, std::uint64_t count) {
  return fmt::format("{}[{},{})", to_string(b), offset, offset + count);
}

std::string spec_line(const Schedule& s) {
  const CollectiveSpec& spec = s.spec;
  std::string line = fmt::format("{} with {} on {} rank{}", to_string(spec.collective), s.algorithm, spec.ranks,
                                 spec.ranks == 1 ? "" : "s");
  if (s.total_ranks > spec.ranks) line += fmt::format(" + {} server rank{}", s.total_ranks - spec.ranks,
                                                       s.total_ranks - spec.ranks == 1 ? "" : "s");
  if (spec.collective == Collective::barrier) return line + ", zero-byte signals (one-element i32 tokens)";
  line += fmt::format(", count {} ({} per rank), {}", spec.count,
                      format_bytes(static_cast<double>(spec.count * dtype_size(spec.dtype))), to_string(spec.dtype));
  if (collective_reduces(spec.collective)) line += fmt::format(", {}", to_string(spec.op));
  if (collective_has_root(spec.collective)) line += fmt::format(", root {}", spec.root);
  if (spec.in_place) line += ", in place";
  return line;
}

void append_local_ops(std::string& out, const char* when, const std::vector<LocalOp>& ops) {
  for (const LocalOp& op : ops) {
    fmt::format_to(std::back_inserter(out), "  {:<5} rank {:<3} {:<13} {}", when, op.target.rank, to_string(op.kind),
                   range(op.target.buffer, op.target.offset, op.target.count));
    if (op.kind == LocalOpKind::copy)
      fmt::format_to(std::back_inserter(out), " <- {}", range(op.source.buffer, op.source.offset, op.source.count));
    out += '\n';
  }
}

template <class T>
std::pair<std::size_t, std::size_t> min_max_index(const std::vector<T>& v, std::size_t n) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  return {static_cast<std::size_t>(lo - v.begin()), static_cast<std::size_t>(hi - v.begin())};
}

}  // namespace

namespace {

// A reduce_copy's operand after its destination: " + own input" where it has the
// destination's offsets (the ring's), else the region, " + input[2,4)".
std::string operand_text(const Transfer& t) {
  if (!t.has_operand()) return {};
  if (t.operand_offset == t.dst_offset) return fmt::format(" + own {}", to_string(t.operand_buffer));
  return fmt::format(" + {}[{},{})", to_string(t.operand_buffer), t.operand_offset, t.operand_offset + t.count);
}

}  // namespace

std::string transfer_sentence(const Transfer& t) {
  const std::string into = range(t.dst_buffer, t.dst_offset, t.count);
  const bool local = t.src == t.dst;
  const std::string what = local ? "its own " + range(t.src_buffer, t.src_offset, t.count)
                                 : fmt::format("rank {}'s chunk {}", t.src, t.chunk);
  if (t.has_operand()) {
    // The ring's operand has the destination's offsets: "its own input" says all.
    const std::string operand = t.operand_offset == t.dst_offset ? std::string(to_string(t.operand_buffer))
                                                                 : range(t.operand_buffer, t.operand_offset, t.count);
    return fmt::format("rank {} adds {} to its own {} and writes the sum to its {}", t.dst, what, operand, into);
  }
  if (reduces(t.action)) return fmt::format("rank {} adds {} into its {}", t.dst, what, into);
  if (local) return fmt::format("rank {} copies {} into its {}", t.dst, what, into);
  return fmt::format("rank {} copies chunk {} into rank {}'s {}", t.src, t.chunk, t.dst, into);
}

std::string format_step_table(const Schedule& s) { return format_step_table(s, {}); }

std::string format_step_table(const Schedule& s, std::span<const std::string> step_notes) {
  std::string out = spec_line(s) + "\n";
  append_local_ops(out, "pre", s.pre_ops);
  // A channel column only where the schedule spreads its transfers over channels.
  const bool channels = s.channels > 1;
  // Every column as wide as its widest cell (at least the widths most schedules need), so
  // that a long range or a 4-digit rank keeps the columns under their headings at any size.
  const auto elements = [&](const Transfer& t) {
    return range(t.src_buffer, t.src_offset, t.count) + " -> " + range(t.dst_buffer, t.dst_offset, t.count) +
           operand_text(t);
  };
  const auto digits = [](std::uint64_t v) { return fmt::formatted_size("{}", v); };
  std::size_t w_src = 4, w_dst = 3, w_chunk = 5, w_elements = 42, w_action = 11, w_bytes = 10;
  for (const Transfer& t : s.transfers) {
    w_src = std::max(w_src, digits(static_cast<std::uint64_t>(t.src)));
    w_dst = std::max(w_dst, digits(static_cast<std::uint64_t>(t.dst)));
    w_chunk = std::max(w_chunk, digits(static_cast<std::uint64_t>(t.chunk)));
    w_elements = std::max(w_elements, elements(t).size());
    w_action = std::max(w_action, to_string(t.action).size());
    w_bytes = std::max(w_bytes, digits(s.bytes(t)));
  }
  fmt::format_to(std::back_inserter(out), "{:>5}  {:^{}} {:>{}}  {:<{}} {:<{}} {:>{}}{}\n", "step", "src -> dst",
                 w_src + 4 + w_dst, "chunk", w_chunk, "elements", w_elements, "action", w_action, "bytes", w_bytes,
                 channels ? "  channel" : "");
  int step = -1;
  for (const Transfer& t : s.transfers) {
    if (t.step != step) {
      step = t.step;
      fmt::format_to(std::back_inserter(out), "step {}/{}: {}\n", step + 1, s.step_count(),
                     s.step_labels[static_cast<std::size_t>(step)]);
      if (static_cast<std::size_t>(step) < step_notes.size() && !step_notes[static_cast<std::size_t>(step)].empty())
        fmt::format_to(std::back_inserter(out), "  » {}\n", step_notes[static_cast<std::size_t>(step)]);
    }
    fmt::format_to(std::back_inserter(out), "{:>5}  {:>{}} -> {:<{}} {:>{}}  {:<{}} {:<{}} {:>{}}{}\n", step + 1, t.src,
                   w_src, t.dst, w_dst, t.chunk, w_chunk, elements(t), w_elements, to_string(t.action), w_action,
                   s.bytes(t), w_bytes, channels ? fmt::format("  {:>7}", t.channel) : std::string());
  }
  append_local_ops(out, "post", s.post_ops);
  return out;
}

std::string format_step_overview(const Schedule& s, const ScheduleTotals& totals) {
  std::string out;
  for (std::size_t i = 0; i < totals.step_transfers.size(); ++i)
    fmt::format_to(std::back_inserter(out), "  step {:>3}  {:>4} transfers  {:>10}  {}\n", i + 1, totals.step_transfers[i],
                   format_bytes(static_cast<double>(totals.step_bytes[i])), s.step_labels[i]);
  return out;
}

// A run across MPI processes: where they ran, how well their clocks were aligned, and the
// causality check of the aligned times (mpi_backend.h).
static void append_processes(std::string& out, const Execution& ex) {
  if (ex.processes.empty()) return;
  std::vector<std::string> hosts;
  double offset = 0, uncertainty = 0;
  for (const ProcessClock& p : ex.processes) {
    if (std::find(hosts.begin(), hosts.end(), p.host) == hosts.end()) hosts.push_back(p.host);
    offset = std::max({offset, std::abs(p.offset_start_ns), std::abs(p.offset_end_ns)});
    uncertainty = std::max(uncertainty, p.uncertainty_ns);
  }
  out += fmt::format("  {:<11} {} on {} host{} ({}); clocks aligned to rank 0's: offsets up to {}, within ±{}\n",
                     "processes", ex.processes.size(), hosts.size(), hosts.size() == 1 ? "" : "s",
                     fmt::join(hosts, ", "), format_duration_ns(offset), format_duration_ns(uncertainty));
  out += fmt::format("  {:<11} {}\n", "causality",
                     ex.causality_violations == 0
                         ? std::string("every receive ended after its send began (aligned clocks)")
                         : fmt::format("{} transfer{} ended before {} began: {}", ex.causality_violations,
                                       ex.causality_violations == 1 ? "" : "s", ex.causality_violations == 1 ? "it" : "they",
                                       ex.first_causality_violation));
}

std::string format_run_summary(const RunResult& r) {
  const Schedule& s = r.schedule;
  const AlgorithmInfo* algo = find_algorithm(s.spec.collective, s.algorithm);
  const std::vector<std::uint64_t>& sent = r.totals.bytes_sent;
  const auto [lo, hi] = sent.empty() ? std::pair<std::size_t, std::size_t>{0, 0} : min_max_index(sent, sent.size());
  const auto at = [&](std::size_t i) { return sent.empty() ? 0.0 : static_cast<double>(sent[i]); };
  const Bandwidth bw = bandwidth(s.spec, r.execution.total_ns);
  const Verification& v = r.verification;

  std::string out;
  auto line = [&](std::string_view key, const std::string& value) {
    fmt::format_to(std::back_inserter(out), "  {:<11} {}\n", key, value);
  };
  out += spec_line(s) + "\n";
  if (algo) line("algorithm", fmt::format("{}: {}", algo->name, algo->summary));
  // A hand-written schedule (custom, an MSCCL file) is written for its own rank count: no
  // formula in N exists, and its figures above are the schedule's own.
  const auto formula = [&](std::string_view f) {
    return algo ? fmt::format("formula {}", f) : std::string("no formula in N (a hand-written schedule)");
  };
  line("schedule", fmt::format("{} steps ({} communication; {}), {} transfers", r.totals.steps,
                               r.totals.communication_steps, formula(algo ? algo->steps_formula : ""), r.totals.transfers));
  line("bytes sent", fmt::format("min {} (rank {}), max {} (rank {}); {}", format_bytes(at(lo)), lo, format_bytes(at(hi)),
                                 hi, formula(algo ? algo->bytes_formula : "")));
  if (r.model) append_prediction(out, r);
  if (r.model_only) {
    line("result", v.rule);
    return out;
  }
  line("backend", fmt::format("{}: {}", r.backend, r.device));
  append_processes(out, r.execution);
  line("time", format_duration_ns(static_cast<double>(r.execution.total_ns)));
  line("algbw", gbps(bw.algbw_gbps));
  line("busbw", bw.busbw_gbps
                    ? fmt::format("{} (algbw * {})", gbps(bw.busbw_gbps), busbw_factor_formula(s.spec.collective))
                    : std::string("n/a"));
  const char* what = s.spec.collective == Collective::barrier ? "tokens" : "output elements";  // a barrier has no data
  if (v.ok)
    line("result", fmt::format("verified: {} {}, {}{}", v.checked, what, v.rule,
                               v.rule.starts_with("exact") ? "" : fmt::format(", max error {:.3g}", v.max_error)));
  else
    line("result",
         fmt::format("WRONG: {} of {} {} differ; first: {}", v.mismatches, v.checked, what, v.first_mismatch));
  return out;
}

std::string format_catalogue() {
  std::string out =
      "collectives and algorithms (N = ranks; n = bytes of the whole vector: the buffer for all_reduce, broadcast,\n"
      "reduce and send_recv; the whole result for all_gather and gather; the whole input for reduce_scatter and\n"
      "scatter; one rank's send buffer for all_to_all):\n"
      "  N' = 2^floor(lg N): where N is not a power of two, recursive doubling and halving fold the other\n"
      "  N - N' ranks in first and out last (2 more steps); S = --slices; G = --ranks-per-node\n"
      "  time: what the timing model gives on a switch with latency α, 1/β = bandwidth, 1/γ = reduction rate,\n"
      "  1/δ = local copy rate (docs/timing-model.md); the textbook form where there is one\n"
      "  used by: the libraries that offer the algorithm, under their names (docs/lessons-sources.md, section 11)\n";
  for (Collective c : kAllCollectives) {
    bool any = false;
    for (const AlgorithmInfo& a : all_algorithms()) {
      if (a.collective != c) continue;
      if (!any && c == Collective::barrier)
        out += "  barrier (zero-byte signals: no algbw or busbw)\n";
      else if (!any)
        fmt::format_to(std::back_inserter(out), "  {} (busbw = algbw * {})\n", to_string(c), busbw_factor_formula(c));
      any = true;
      fmt::format_to(std::back_inserter(out), "    {:<18} steps {:<8} bytes sent per rank {}\n", a.name, a.steps_formula,
                     a.bytes_formula);
      fmt::format_to(std::back_inserter(out), "    {:<18} {}{}\n", "", a.summary,
                     a.is_default ? fmt::format(" (the default for {})", to_string(c)) : "");
      if (!a.used_by.empty()) fmt::format_to(std::back_inserter(out), "    {:<18} used by {}\n", "", a.used_by);
      if (a.streams)
        fmt::format_to(std::back_inserter(out), "    {:<18} streams: --model-only predicts it step by step, up to {} ranks{}\n",
                       "", kMaxStreamedRanks,
                       a.rotation ? "; where its chunks are equal, on a switch or nodes of equal GPUs, from one "
                                    "node's transfers alone (it looks the same from every rank)"
                                  : "");
      else if (a.rotation)
        fmt::format_to(std::back_inserter(out),
                       "    {:<18} one node: --model-only predicts it from one node's transfers alone, up to {} ranks, where "
                       "its chunks are equal on a switch or nodes of equal GPUs (it looks the same from every rank)\n",
                       "", kMaxStreamedRanks);
      if (const ClosedFormInfo* f = find_cost_formula(a.collective, a.name)) {
        fmt::format_to(std::back_inserter(out), "    {:<18} time {} ({})\n", "", f->formula, f->scope);
        if (!f->more.empty()) fmt::format_to(std::back_inserter(out), "    {:<18}      {}\n", "", f->more);
      }
    }
  }
  out += "data types: f32 f64 f16 bf16 i32 i64\n";
  out += "reduce ops: sum prod min max avg (avg = sum, then one division by N)\n";
  out += "link presets (--link, --uplink; per direction; the latency is NCCL's LL per-hop figure for the class,\n"
         "  except Ethernet's: what a hop costs with --protocol none):\n";
  for (const LinkPreset& p : link_presets())
    fmt::format_to(std::back_inserter(out), "  {:<8} {:>7g} GB/s {:>5g} us  {:<8} {}\n", p.name, p.bandwidth_gbps,
                   p.latency_us, to_string(p.link_class), p.what);
  out += "protocols (--protocol; NCCL's figures, docs/timing-model.md):\n"
         "  none     every link's own latency and full bandwidth, no base latency (the default)\n";
  for (Protocol p : {Protocol::simple, Protocol::ll, Protocol::ll128}) {
    const ProtocolFigures f = *protocol_figures(p);
    fmt::format_to(std::back_inserter(out),
                   "  {:<8} base {:g} us; per hop NVLink {:g}, PCIe {:g}, network {:g} us; {}/{} of the bandwidth\n",
                   to_string(p), f.base_latency_us, f.hop_latency(LinkClass::nvlink), f.hop_latency(LinkClass::pcie),
                   f.hop_latency(LinkClass::network), f.data_bytes, f.line_bytes);
  }
  out += "  auto     the fastest of ll, ll128 (NVLink rank links only) and simple for each collective\n";
  return out;
}

}  // namespace collsim
