// Lesson exports (program.h): the Chrome trace, the CSV and the lesson trace
// ("collsim-lesson" version 2), all documented in docs/trace-format.md.
//
// Numbering: ranks, chunks and transfers count from 0 as in the single-run trace; phases
// and steps count from 1, as lesson files, captions and questions do. Predicted times are
// program time (since the program began); measured times are those of the phase's
// collective, which ran on its own (since that collective's run began). Every export is a
// pure function of the program: the same program gives the same bytes.
#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include <collsim/version.h>

#include "sim/core/csv.h"
#include "sim/trace/json_writer.h"
#include "sim/lesson/program.h"
#include "sim/trace/trace.h"

namespace collsim {
namespace {

using json_layout::ObjectWriter;
using json_layout::ojson;
using json_layout::request_json;

const Phase& phase_of(const Scenario& s, const PhaseRun& pr) { return s.phases.at(static_cast<std::size_t>(pr.phase)); }

int workers_of(const ProgramResult& p) { return p.predicted ? p.topology.workers : program_workers(p); }

bool takes_part(const PhaseRun& pr, std::size_t rank) {
  return rank < pr.rank_begin_ns.size() && pr.rank_begin_ns[rank] >= 0;
}

// The measured timing of transfer i of a phase, when its collective was executed.
const TransferTiming* measured(const ProgramResult& p, const PhaseRun& pr, std::size_t i) {
  if (!p.executed || !pr.run) return nullptr;
  const std::size_t j = pr.source_transfer[i];
  return j < pr.run->execution.timings.size() ? &pr.run->execution.timings[j] : nullptr;
}

std::string_view kind_name(PhaseKind k) { return k == PhaseKind::compute ? "compute" : "collective"; }

// The collective's steps that the phase runs, 1-based and inclusive ([0, 0]: it has none).
std::pair<int, int> step_range(const Phase& phase, const PhaseRun& pr) {
  if (phase.first_step > 0) return {phase.first_step, phase.last_step};
  const int steps = pr.run->schedule.step_count();
  return {steps > 0 ? 1 : 0, steps};
}

// ---------------------------------------------------------------------------------------
// Chrome trace
// ---------------------------------------------------------------------------------------

constexpr int kComputeTrack = 1, kCommunicationTrack = 2, kTransfersTrack = 3, kFirstOtherTrack = 4;

int pid_of(std::size_t rank) { return static_cast<int>(rank) + 1; }  // Perfetto treats pid 0 specially

// A track per stream, in the views' lane order (stream_lanes): compute and comm, then the
// lesson's other streams.
std::vector<std::string> other_streams(const Scenario& s) {
  std::vector<std::string> names;
  for (const StreamLane& lane : stream_lanes(s).lanes)
    if (lane.stream != kComputeStream && lane.stream != kCommStream) names.push_back(lane.stream);
  return names;
}

int track_of(const Phase& phase, const std::vector<std::string>& others) {
  const std::string_view stream = phase_stream(phase);
  if (stream == kComputeStream) return kComputeTrack;
  if (stream == kCommStream) return kCommunicationTrack;
  return kFirstOtherTrack + static_cast<int>(std::find(others.begin(), others.end(), stream) - others.begin());
}

std::vector<ojson> chrome_metadata(const ProgramResult& p, const std::vector<std::string>& others) {
  std::vector<ojson> events;
  const int workers = workers_of(p);
  std::vector<std::pair<int, std::string>> tracks = {
      {kComputeTrack, "compute"}, {kCommunicationTrack, "communication"}, {kTransfersTrack, "transfers"}};
  for (std::size_t i = 0; i < others.size(); ++i)
    tracks.emplace_back(kFirstOtherTrack + static_cast<int>(i), "stream " + others[i]);
  for (std::size_t r = 0; r < static_cast<std::size_t>(p.total_ranks); ++r) {
    const int pid = pid_of(r);
    const std::string name =
        static_cast<int>(r) < workers ? fmt::format("rank {}", r) : fmt::format("rank {} (server)", r);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", r}}}});
    for (const auto& [tid, track] : tracks)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", track}}}});
  }
  return events;
}

ojson complete_event(std::string name, std::string_view cat, std::size_t rank, int track, double begin_ns,
                     double end_ns, ojson args) {
  return {{"name", std::move(name)}, {"cat", cat}, {"ph", "X"}, {"pid", pid_of(rank)}, {"tid", track},
          {"ts", begin_ns / 1000.0}, {"dur", (end_ns - begin_ns) / 1000.0}, {"args", std::move(args)}};
}

// Transfer i of a collective phase, on the receiver's transfers track (the receiver executes it).
ojson chrome_transfer(const PhaseRun& pr, int number, std::size_t i) {
  const Schedule& s = pr.schedule;
  const Transfer& x = s.transfers[i];
  std::string name = x.is_local() ? fmt::format("local {} chunk {}", to_string(x.action), x.chunk)
                                  : fmt::format("{} chunk {} from rank {}", to_string(x.action), x.chunk, x.src);
  ojson args = {{"phase", number}, {"step", x.step + 1}, {"step_label", s.step_labels[static_cast<std::size_t>(x.step)]},
                {"src", x.src}, {"dst", x.dst}, {"chunk", x.chunk}, {"bytes", s.bytes(x)},
                {"action", to_string(x.action)}, {"transfer", pr.source_transfer[i]}};
  return complete_event(std::move(name), to_string(x.action), static_cast<std::size_t>(x.dst), kTransfersTrack,
                        pr.begin_ns[i], pr.end_ns[i], std::move(args));
}

// A phase: the instant that marks its beginning, a slice per rank that takes part on the
// track of the phase's stream, and its transfers.
void chrome_phase(const Scenario& s, const PhaseRun& pr, const std::vector<std::string>& others,
                  std::vector<ojson>& events) {
  const Phase& phase = phase_of(s, pr);
  const int number = pr.phase + 1;
  events.push_back({{"name", fmt::format("phase {} begins", number)}, {"ph", "i"}, {"s", "g"}, {"pid", 1},
                    {"tid", kComputeTrack}, {"ts", pr.begin() / 1000.0}, {"args", {{"phase", number}, {"name", phase.name}}}});
  for (std::size_t r = 0; r < pr.rank_begin_ns.size(); ++r)
    if (takes_part(pr, r))
      events.push_back(complete_event(phase.name, kind_name(phase.kind), r, track_of(phase, others), pr.rank_begin_ns[r],
                                      pr.rank_end_ns[r],
                                      {{"phase", number}, {"kind", kind_name(phase.kind)},
                                       {"stream", std::string(phase_stream(phase))}}));
  if (phase.kind != PhaseKind::compute)
    for (std::size_t i = 0; i < pr.schedule.transfers.size(); ++i) events.push_back(chrome_transfer(pr, number, i));
}

// The memory line of each rank as a counter track ("memory", MiB): Perfetto draws it.
void chrome_memory(const ProgramResult& p, std::vector<ojson>& events) {
  for (std::size_t r = 0; r < p.memory.size(); ++r)
    for (const MemoryPoint& m : p.memory[r])
      events.push_back({{"name", "memory"}, {"ph", "C"}, {"pid", pid_of(r)}, {"ts", m.time_ns / 1000.0},
                        {"args", {{"MiB", m.bytes / (1024.0 * 1024.0)}}}});
}

// ---------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------

std::string us_or_empty(bool known, double ns) { return known ? fmt::format("{}", ns / 1000.0) : std::string(); }

void csv_transfers(const ProgramResult& p, const PhaseRun& pr, const std::string& name, std::string& out) {
  const Schedule& s = pr.schedule;
  const bool predicted = p.predicted && pr.begin_ns.size() == s.transfers.size();
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& x = s.transfers[i];
    const TransferTiming* m = measured(p, pr, i);
    fmt::format_to(std::back_inserter(out), "transfer,{},{},{},{},{},{},{},{},{},{},{},{},{}\n", pr.phase + 1, name,
                   x.step + 1, csv_field(s.step_labels[static_cast<std::size_t>(x.step)]), x.src, x.dst, x.chunk,
                   to_string(x.action), s.bytes(x), us_or_empty(predicted, predicted ? pr.begin_ns[i] : 0),
                   us_or_empty(predicted, predicted ? pr.end_ns[i] : 0), m ? fmt::format("{}", m->begin_ns) : "",
                   m ? fmt::format("{}", m->end_ns) : "");
  }
}

// One row per rank that computes in the phase (src = dst = the rank).
void csv_compute(const ProgramResult& p, const Phase& phase, const PhaseRun& pr, const std::string& name,
                 std::string& out) {
  for (std::size_t r = 0; r < phase.compute_us.size(); ++r) {
    if (phase.compute_us[r] <= 0) continue;
    const bool predicted = p.predicted && takes_part(pr, r);
    fmt::format_to(std::back_inserter(out), "compute,{},{},,,{},{},,compute,,{},{},,\n", pr.phase + 1, name, r, r,
                   us_or_empty(predicted, predicted ? pr.rank_begin_ns[r] : 0),
                   us_or_empty(predicted, predicted ? pr.rank_end_ns[r] : 0));
  }
}

// ---------------------------------------------------------------------------------------
// The lesson trace (JSON)
// ---------------------------------------------------------------------------------------


ojson verification_json(const Verification& v) {
  return {{"ok", v.ok}, {"checked", v.checked}, {"mismatches", v.mismatches}, {"first_mismatch", v.first_mismatch},
          {"rule", v.rule}};
}

// The distinct collectives in the order the phases first name them.
std::vector<const RunResult*> collectives(const ProgramResult& p) {
  std::vector<const RunResult*> runs;
  for (const std::size_t k : first_phases_of_runs(p)) runs.push_back(p.phases[k].run.get());
  return runs;
}

ojson collective_json(const ProgramResult& p, const RunResult& r, std::size_t index) {
  ojson j = {{"collective", index}, {"request", request_json(r.request)}, {"steps", r.schedule.step_count()},
             {"transfers", r.schedule.transfers.size()}, {"total_ranks", r.schedule.total_ranks}};
  if (p.executed) {
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["measured_time_ns"] = r.execution.total_ns;
    j["verification"] = verification_json(r.verification);
  }
  return j;
}

ojson transfer_json(const ProgramResult& p, const PhaseRun& pr, std::size_t i) {
  const Schedule& s = pr.schedule;
  const Transfer& x = s.transfers[i];
  ojson j = {{"transfer", i}, {"source_transfer", pr.source_transfer[i]}, {"step", x.step + 1}, {"src", x.src},
             {"dst", x.dst}, {"chunk", x.chunk}, {"action", to_string(x.action)}, {"bytes", s.bytes(x)}};
  if (p.predicted) {
    j["predicted_begin_ns"] = pr.begin_ns[i];
    j["predicted_end_ns"] = pr.end_ns[i];
  }
  if (const TransferTiming* m = measured(p, pr, i)) {
    j["measured_begin_ns"] = m->begin_ns;
    j["measured_end_ns"] = m->end_ns;
    j["worker"] = m->worker;
  }
  return j;
}

ojson phase_json(const Scenario& s, const ProgramResult& p, const PhaseRun& pr,
                 const std::vector<const RunResult*>& runs) {
  const Phase& phase = phase_of(s, pr);
  ojson j = {{"phase", pr.phase + 1}, {"name", phase.name}, {"kind", kind_name(phase.kind)},
             {"reads", phase.reads}, {"writes", phase.writes}, {"stream", std::string(phase_stream(phase))}};
  // Events and memory only where the phase has them: version 1 files without them stay as they were.
  auto numbers = [](const std::vector<int>& phases) {
    std::vector<int> out;
    for (const int k : phases) out.push_back(k + 1);
    return out;
  };
  if (!phase.wait_for.empty()) j["wait_for"] = numbers(phase.wait_for);
  if (!phase.host_wait_for.empty()) j["host_wait_for"] = numbers(phase.host_wait_for);
  if (phase.synchronize) j["synchronize"] = true;
  if (!phase.allocates.empty()) {
    ojson a = ojson::object();
    for (const auto& [name, bytes] : phase.allocates) a[name] = bytes;
    j["allocates"] = std::move(a);
  }
  if (!phase.frees.empty()) j["frees"] = phase.frees;
  if (pr.run) {
    const auto [first, last] = step_range(phase, pr);
    j["collective"] = std::find(runs.begin(), runs.end(), pr.run.get()) - runs.begin();
    j["request"] = request_json(pr.run->request);
    j["steps"] = {first, last};
    j["step_labels"] = pr.schedule.step_labels;
  } else {
    std::vector<double> us(static_cast<std::size_t>(p.total_ranks), 0.0);
    std::copy(phase.compute_us.begin(), phase.compute_us.end(), us.begin());
    j["compute_us"] = us;
  }
  if (p.predicted) {
    j["begin_ns"] = pr.begin();
    j["end_ns"] = pr.end();
    ojson ranks = ojson::array();
    for (std::size_t r = 0; r < pr.rank_begin_ns.size(); ++r)
      if (takes_part(pr, r)) ranks.push_back({{"rank", r}, {"begin_ns", pr.rank_begin_ns[r]}, {"end_ns", pr.rank_end_ns[r]}});
    j["ranks"] = std::move(ranks);
  }
  if (pr.run) {
    ojson transfers = ojson::array();
    for (std::size_t i = 0; i < pr.schedule.transfers.size(); ++i) transfers.push_back(transfer_json(p, pr, i));
    j["transfers"] = std::move(transfers);
  }
  return j;
}

ojson rank_totals_json(const ProgramResult& p, std::size_t r) {
  ojson j = {{"rank", r}, {"compute_ns", p.compute_ns[r]}, {"communication_ns", p.communication_ns[r]},
             {"exposed_communication_ns", p.exposed_communication_ns[r]}};
  if (r < p.memory.size() && !p.memory[r].empty()) {
    j["peak_memory_bytes"] = p.peak_memory_bytes[r];
    j["peak_memory_ns"] = p.peak_memory_ns[r];
    ojson line = ojson::array();
    for (const MemoryPoint& m : p.memory[r]) line.push_back({m.time_ns, m.bytes});
    j["memory"] = std::move(line);
  }
  return j;
}

// A phase's predicted figures: its own span, and the bandwidths only when it is the
// whole collective (the whole run's algorithm bytes over a part of its time mean nothing).
void phase_prediction(PredictedSummary& s, const CollectiveSpec& spec, double duration_ns, bool whole) {
  s.time_ns = duration_ns;
  const Bandwidth bw = whole ? bandwidth(spec, duration_ns) : Bandwidth{};
  s.algbw_gbps = bw.algbw_gbps;
  s.busbw_gbps = bw.busbw_gbps;
  if (!whole) {  // the collective alone's: not this part's
    s.busiest_links.clear();
    s.closed_form.clear();
    s.closed_form_values.clear();
    s.closed_form_ns.reset();
  }
}

}  // namespace

std::string program_to_chrome(const Scenario& s, const ProgramResult& p) {
  check_lesson_viewable(s, "a Chrome trace shows every transfer");
  if (!p.predicted) throw std::logic_error("program_to_chrome: predict_program has not run");
  const std::vector<std::string> others = other_streams(s);
  std::vector<ojson> events = chrome_metadata(p, others);
  for (const PhaseRun& pr : p.phases) chrome_phase(s, pr, others, events);
  chrome_memory(p, events);
  std::string out;
  ObjectWriter w(out, 0);
  w.add("displayTimeUnit", "ns");
  w.add("otherData", {{"generator", std::string("collsim ") + COLLSIM_VERSION},
                      {"title", s.title},
                      {"phases", p.phases.size()},
                      {"total_ranks", p.total_ranks},
                      {"topology", describe(p.topology)},
                      {"predicted_time_ns", p.total_ns}});
  w.add_array("traceEvents", events.size(), [&](std::size_t i) { return events[i]; });
  w.close();
  out += '\n';
  return out;
}

std::string program_to_csv(const Scenario& s, const ProgramResult& p) {
  check_lesson_viewable(s, "a CSV export shows every transfer");
  std::string out =
      "kind,phase,phase_name,step,step_label,src,dst,chunk,action,bytes,predicted_begin_us,predicted_end_us,"
      "measured_begin_ns,measured_end_ns\n";
  for (const PhaseRun& pr : p.phases) {
    const Phase& phase = phase_of(s, pr);
    const std::string name = csv_field(phase.name);
    if (pr.run)
      csv_transfers(p, pr, name, out);
    else
      csv_compute(p, phase, pr, name, out);
  }
  return out;
}

bool phase_runs_every_step(const PhaseRun& pr) {
  return pr.run && pr.source_transfer.size() == pr.run->schedule.transfers.size();
}

Trace phase_trace(const Scenario& s, const ProgramResult& p, std::size_t k, const std::string& description) {
  check_lesson_viewable(s, "a phase's view shows every transfer");
  const PhaseRun& pr = p.phases.at(k);
  Trace whole = make_trace(*pr.run, s.title, description);
  if (s.single_collective()) return whole;
  Trace t = whole;
  t.schedule = pr.schedule;
  t.records.clear();
  std::int64_t first = 0, last = 0;
  for (std::size_t i = 0; i < pr.source_transfer.size(); ++i) {
    const TransferRecord& r = whole.records[pr.source_transfer[i]];
    first = i == 0 ? r.measured_begin_ns : std::min(first, r.measured_begin_ns);
    last = std::max(last, r.measured_end_ns);
  }
  const bool predicted = p.predicted && pr.begin_ns.size() == pr.source_transfer.size();
  const double origin = predicted ? pr.begin() : 0.0;
  for (std::size_t i = 0; i < pr.source_transfer.size(); ++i) {
    TransferRecord r = whole.records[pr.source_transfer[i]];
    r.measured_begin_ns -= first;
    r.measured_end_ns -= first;
    r.predicted_begin_ns.reset();
    r.predicted_end_ns.reset();
    if (predicted) r.predicted_begin_ns = pr.begin_ns[i] - origin, r.predicted_end_ns = pr.end_ns[i] - origin;
    t.records.push_back(r);
  }
  const bool every_step = phase_runs_every_step(pr);
  if (!every_step) {  // the measured figures of the part: its span, no bandwidths
    t.history.reset();  // the whole collective's: a view takes its window (BufferHistory::window)
    t.values.reset();   // numbers of the whole schedule's transfers, not of the part's
    t.summary.time_ns = last - first;
    t.summary.algbw_gbps.reset();
    t.summary.busbw_gbps.reset();
  }
  if (t.predicted && predicted)
    phase_prediction(*t.predicted, t.schedule.spec, pr.end() - pr.begin(), every_step);
  else
    t.predicted.reset();
  return t;
}

std::string program_to_json(const Scenario& s, const ProgramResult& p) {
  check_lesson_viewable(s, "a lesson trace shows every transfer");
  const std::vector<const RunResult*> runs = collectives(p);
  std::string out;
  ObjectWriter w(out, 0);
  w.add("format", kLessonTraceFormat);
  w.add("version", kLessonTraceVersion);
  w.add("collsim_version", COLLSIM_VERSION);
  w.add("title", s.title);
  w.add("description", s.description);
  // What rebuilds the lesson (lesson_trace.cpp): its file's text, and what the run gave it.
  w.add("lesson", {{"source", s.source},
                   {"ranks", s.ranks},
                   {"seed", s.request.seed},
                   {"topology", p.predicted ? json_layout::topology_config_json(p.topology_config) : ojson()},
                   {"text", s.text}});
  w.add("total_ranks", p.total_ranks);
  w.add("executed", p.executed);
  w.add("verified", p.verified());
  w.add("predicted", p.predicted ? ojson{{"topology", describe(p.topology)}, {"total_ns", p.total_ns}} : ojson());
  w.add_array("ranks", p.predicted ? p.compute_ns.size() : 0, [&](std::size_t r) { return rank_totals_json(p, r); });
  w.add_array("collectives", runs.size(), [&](std::size_t i) { return collective_json(p, *runs[i], i); });
  ojson phases = ojson::array();
  for (const PhaseRun& pr : p.phases) phases.push_back(phase_json(s, p, pr, runs));
  w.add("phases", phases);
  w.close();
  out += '\n';
  return out;
}

}  // namespace collsim
