// The Chrome trace-event exporter (JSON Object Format), for Perfetto (ui.perfetto.dev)
// and chrome://tracing.
//
// One process per rank, named "rank r" (extra parameter-server ranks: "rank r (server)").
// pid = rank + 1: Perfetto treats pid 0 specially (it is the kernel's idle task), so
// synthetic traces should start at 1. Inside each process, thread 1 is the "measured"
// track: one complete event ("ph": "X") per transfer on the receiver's process, because
// the receiver executes it (a pull). Thread 2, "predicted", carries the timing model's
// events when the trace has predictions. ts and dur are in microseconds with fractions.
#include <fmt/format.h>

#include "sim/trace/json_writer.h"
#include "sim/trace/trace.h"

namespace collsim {
namespace {

using json_layout::ObjectWriter;
using json_layout::ojson;

constexpr int kMeasuredTrack = 1;
constexpr int kPredictedTrack = 2;

int pid_of(int rank) { return rank + 1; }

std::string rank_name(const Schedule& s, int rank) {
  return rank < s.spec.ranks ? fmt::format("rank {}", rank) : fmt::format("rank {} (server)", rank);
}

bool has_predictions(const Trace& t) {
  for (const TransferRecord& r : t.records)
    if (r.predicted_begin_ns && r.predicted_end_ns) return true;
  return false;
}

// Names and order of the processes and their tracks ("M" metadata events).
std::vector<ojson> metadata_events(const Trace& t, bool predicted) {
  std::vector<ojson> events;
  for (int r = 0; r < t.schedule.total_ranks; ++r) {
    const int pid = pid_of(r);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", rank_name(t.schedule, r)}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", r}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", kMeasuredTrack},
                      {"args", {{"name", "measured"}}}});
    if (predicted)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", kPredictedTrack},
                        {"args", {{"name", "predicted"}}}});
  }
  return events;
}

std::string region_text(int rank, BufferKind b, std::uint64_t offset, std::uint64_t count) {
  return fmt::format("rank {} {}[{},{})", rank, to_string(b), offset, offset + count);
}

// One transfer as a complete event on `track` from begin to end (ns).
ojson transfer_event(const Trace& t, std::size_t index, int track, double begin_ns, double end_ns) {
  const Schedule& s = t.schedule;
  const Transfer& x = s.transfers[index];
  const std::string name = x.is_local() ? fmt::format("local {} chunk {}", to_string(x.action), x.chunk)
                                        : fmt::format("{} chunk {} from rank {}", to_string(x.action), x.chunk, x.src);
  ojson args = {{"transfer", index},
                {"step", x.step},
                {"step_label", s.step_labels[static_cast<std::size_t>(x.step)]},
                {"chunk", x.chunk},
                {"peer", x.src},
                {"bytes", s.bytes(x)},
                {"action", to_string(x.action)},
                {"elements", x.count},
                {"source", region_text(x.src, x.src_buffer, x.src_offset, x.count)},
                {"destination", region_text(x.dst, x.dst_buffer, x.dst_offset, x.count)}};
  if (s.channels != 1) args["channel"] = x.channel;
  if (x.has_operand()) args["operand"] = region_text(x.dst, x.operand_buffer, x.operand_offset, x.count);
  if (track == kMeasuredTrack) args["worker"] = t.records[index].worker;
  return {{"name", name}, {"cat", to_string(x.action)}, {"ph", "X"}, {"pid", pid_of(x.dst)}, {"tid", track},
          {"ts", begin_ns / 1000.0}, {"dur", (end_ns - begin_ns) / 1000.0}, {"args", args}};
}

// The measured events, then (the timing model's hook) the predicted ones.
std::vector<ojson> transfer_events(const Trace& t, bool predicted) {
  std::vector<ojson> events;
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    const TransferRecord& r = t.records[i];
    events.push_back(transfer_event(t, i, kMeasuredTrack, static_cast<double>(r.measured_begin_ns),
                                    static_cast<double>(r.measured_end_ns)));
  }
  if (predicted)
    for (std::size_t i = 0; i < t.records.size(); ++i) {
      const TransferRecord& r = t.records[i];
      if (r.predicted_begin_ns && r.predicted_end_ns)
        events.push_back(transfer_event(t, i, kPredictedTrack, *r.predicted_begin_ns, *r.predicted_end_ns));
    }
  return events;
}

}  // namespace

std::string trace_to_chrome(const Trace& t) {
  const bool predicted = has_predictions(t);
  std::vector<ojson> events = metadata_events(t, predicted);
  std::vector<ojson> transfers = transfer_events(t, predicted);
  events.insert(events.end(), std::make_move_iterator(transfers.begin()), std::make_move_iterator(transfers.end()));

  const CollectiveSpec& spec = t.request.spec;
  std::string out;
  ObjectWriter w(out, 0);
  w.add("displayTimeUnit", "ns");
  ojson other = {{"generator", "collsim " + t.collsim_version},
                 {"title", t.scenario_title},
                 {"collective", to_string(spec.collective)},
                 {"algorithm", t.request.algorithm},
                 {"ranks", spec.ranks},
                 {"count", spec.count},
                 {"dtype", to_string(spec.dtype)},
                 {"op", to_string(spec.op)},
                 {"backend", t.backend},
                 {"device", t.device}};
  if (t.predicted) {  // what the "predicted" tracks were predicted on
    other["topology"] = t.predicted->topology;
    other["predicted_time_ns"] = t.predicted->time_ns;
  }
  w.add("otherData", other);
  w.add_array("traceEvents", events.size(), [&](std::size_t i) { return events[i]; });
  w.close();
  out += '\n';
  return out;
}

}  // namespace collsim
