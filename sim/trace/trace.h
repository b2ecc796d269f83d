// A Trace is everything one run produced, as plain data: what was asked, the whole
// schedule, when each transfer ran (measured now; predicted by the timing model later),
// and whether the result was right. Exporters turn it into files (JSON, Chrome/Perfetto,
// CSV) and the importer reads the JSON back, so the GUI can replay a run made anywhere
// without running it again. docs/trace-format.md documents the JSON schema.
//
// This header is cheap to include: the JSON library appears only in the .cpp files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/run.h"
#include "sim/model/topology.h"

namespace collsim {

// The JSON schema version this build reads and writes (the "version" key).
inline constexpr int kTraceFormatVersion = 1;

// What happened to one transfer. Index i describes schedule.transfers[i].
struct TransferRecord {
  // Measured on the backend: integer ns since the run started, and the worker thread
  // (CPU) or stream (CUDA) that ran it.
  std::int64_t measured_begin_ns = 0;
  std::int64_t measured_end_ns = 0;
  int worker = 0;
  // Predicted by the timing model, in ns with fractions; absent until a model ran.
  std::optional<double> predicted_begin_ns;
  std::optional<double> predicted_end_ns;

  friend bool operator==(const TransferRecord&, const TransferRecord&) = default;
};

// The timing model's headline figures (docs/timing-model.md); present when the records
// carry predictions.
struct PredictedSummary {
  std::string topology;  // describe(Topology): kind, ranks, link figures, overrides, stragglers
  // The configuration it was made on, as given (ModelRun::config), so that a replay can run
  // again, or another algorithm, on the same topology. Absent in traces written before
  // collsim recorded it (the JSON key "predicted.topology_config" is optional).
  std::optional<TopologyConfig> topology_config;
  double time_ns = 0;    // the last predicted end
  std::optional<double> algbw_gbps, busbw_gbps;  // from time_ns; nullopt when it is 0 (and for a barrier)
  struct LinkUse {
    std::string link;    // link_name(): "rank8 (server rank 8 -> switch)"
    double utilisation;  // busy time / time_ns, 0..1
    friend bool operator==(const LinkUse&, const LinkUse&) = default;
  };
  std::vector<LinkUse> busiest_links;  // busiest first; the first is the bottleneck
  // The algorithm's closed form (cost_formulas.h) on the rank links' figures: the formula
  // (empty when there is none), the values plugged in, and its time, or nullopt ("n/a" in
  // files) where it does not apply to this run (e.g. double_binary_tree with N = 6).
  std::string closed_form, closed_form_values;
  std::optional<double> closed_form_ns;
  // The protocol the prediction used (auto's choice; none in traces written before
  // protocols, whose JSON has no "protocol" key) and, under auto, every candidate's time.
  Protocol protocol = Protocol::none;
  std::vector<ProtocolTime> protocol_candidates;
  friend bool operator==(const PredictedSummary&, const PredictedSummary&) = default;
};

// The headline figures. Bandwidths are nullopt ("n/a" in files) when the time is 0.
struct TraceSummary {
  std::int64_t time_ns = 0;  // pre-operations through post-operations
  std::optional<double> algbw_gbps;
  std::optional<double> busbw_gbps;
};

struct Trace {
  int format_version = kTraceFormatVersion;
  std::string collsim_version;        // of the build that wrote it, e.g. "0.1.0"
  std::string scenario_title;         // empty when the run did not come from a scenario
  std::string scenario_description;
  RunRequest request;                 // spec, algorithm, options, seed
  std::string backend;                // "cpu"; "none" for a --model-only run
  // `collsim run --model-only`: predicted, never executed (the records' measured times are 0,
  // nothing was verified). From the run (RunResult::model_only), or, read from a file, from
  // its backend "none" with nothing checked: the one rule, here, that every view reads.
  bool model_only = false;
  // Its measured times were read from a file (a trace, or a lesson trace's run): they were
  // measured wherever that file was written, not by this process (RunResult::recorded).
  bool recorded = false;
  std::string device;                 // "host CPU (2 worker threads)"
  Schedule schedule;                  // its spec and algorithm equal the request's
  std::vector<TransferRecord> records;  // one per schedule transfer, same order
  Verification verification;
  TraceSummary summary;
  std::optional<PredictedSummary> predicted;  // with the timing model's predictions only
  // The execution's facts as the backend gave them (workers; across MPI processes each
  // process's host, pid and clock offset to rank 0's, and the causality check of the
  // aligned times, empty for one process); its times are the records and the summary.
  ExecutionFacts execution;
  // What every buffer cell held when, as the run's or the import's one check recorded it
  // (PrepareOptions::record_history, parse_trace_json's record_history); null when nobody
  // asked. Not written to the file: it is derived from the schedule.
  std::shared_ptr<const BufferHistory> history;
  // The numbers behind the cells (RunResult::values), where the run or the import recorded
  // them; null otherwise. Not written to the file either.
  std::shared_ptr<const ValueHistory> values;
};

// The figures of a run's prediction (run.model must be set).
PredictedSummary summarize_prediction(const RunResult& run);

// The algorithm's closed form as every view shows it: the trace's own (its prediction's,
// on the topology it was predicted on, as `collsim run` prints it) when it has one, else on
// the default switch (a trace without predictions). Empty formula: the algorithm has none
// (e.g. a hand-written schedule).
struct TraceClosedForm {
  std::string formula;  // with "(holds for ...)" appended where it does not apply here
  std::string values;   // "N = 4, n = 4 MiB, α = 600 ns, ..."
  std::optional<double> time_ns;  // nullopt where the formula does not apply
};
TraceClosedForm closed_form_of(const Trace& t);

// Builds a trace from a finished run, or from a --model-only one (measured times 0, backend
// "none"), with the predictions when run.model is set. The title and description are the
// scenario's, if any.
Trace make_trace(const RunResult& run, std::string scenario_title = {}, std::string scenario_description = {});

// --- exporters: each returns the whole file's text ------------------------------------
// The versioned JSON trace (docs/trace-format.md). Deterministic: equal traces give
// byte-identical text, so export -> import -> export reproduces a file exactly.
std::string trace_to_json(const Trace& t);
// Chrome trace-event JSON (Perfetto, chrome://tracing): one process per rank, one
// complete event per transfer on the receiver's "measured" track; ts/dur in µs.
std::string trace_to_chrome(const Trace& t);
// A header and one row per transfer (RFC 4180 quoting).
std::string trace_to_csv(const Trace& t);

// --- importer ------------------------------------------------------------------------
// Parses a JSON trace. Throws InputError naming `source_name`, the line:column when the
// text is not JSON, and the JSON path of the offending key ("schedule.transfers[3].src")
// when it is JSON but not a valid collsim trace of this version. The schedule is checked
// once; with `record_history` that check also records Trace::history (for a view).
Trace parse_trace_json(std::string_view text, const std::string& source_name, bool record_history = false);
// Reads and parses a file (InputError naming the file when it cannot be read).
Trace load_trace_json(const std::filesystem::path& path, bool record_history = false);

// "12:7" for the byte `offset` of `text` (1-based line and column, counted in bytes).
std::string line_column(std::string_view text, std::size_t offset);

}  // namespace collsim
