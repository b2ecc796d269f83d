// Reading a lesson trace back (program.h, docs/trace-format.md "Lesson trace"). The file
// records what ran and when, not how to draw it: the program is rebuilt from the lesson's
// own text that the file carries, at the ranks, seed and topology it ran with, and every
// request and transfer the file recorded must be what that rebuild gives. Only then are the
// file's measured times, backends, devices and verifications attached: the views show the
// run that was recorded (a teacher's GPU machine), with the lesson's captions and questions.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include <collsim/version.h>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/json_writer.h"

namespace collsim {
namespace {

using json_reading::Field;
using json_reading::json;

const std::string kFormatWords = fmt::format("lesson trace format version {}", kLessonTraceVersion);

// "format" and "version" first, so that another file or version says so, not some key inside.
void check_identity(const Field& root) {
  if (!root.has("format") || !root["format"].is_string() || root["format"].str() != kLessonTraceFormat)
    throw InputError(fmt::format("{}: not a lesson trace (the top-level key 'format' is not \"{}\")", root.file(),
                                 kLessonTraceFormat));
  const std::int64_t version = root["version"].integer();
  if (version == 1)
    root["version"].fail("a version 1 lesson trace does not carry its lesson's text, which this build rebuilds the "
                         "program from: run the lesson again with this collsim (`collsim run LESSON --trace FILE`)");
  if (version != kLessonTraceVersion)
    root["version"].fail(fmt::format("lesson trace format version {} is not supported (this build reads version {})",
                                     version, kLessonTraceVersion));
}

// The lesson from the text the file carries, with the run's ranks, seed and topology (as
// the app's run editor gives them: rerun_scenario). Its errors name the file and the key.
Scenario rebuild_scenario(const Field& root) {
  const Field lesson = root["lesson"];
  lesson.only_keys({"source", "ranks", "seed", "topology", "text"});
  const std::string source = lesson["source"].str();
  const std::string text = lesson["text"].str();
  if (text.empty())
    lesson["text"].fail("is empty: the lesson was not read from a file, so nothing can rebuild it");
  Scenario s;
  try {
    s = parse_scenario(text, source);
  } catch (const InputError& e) {
    lesson["text"].fail(e.what());
  }
  RunRequest run = s.request;
  if (s.single_collective()) {
    run = json_reading::read_request(root["collectives"].at(0)["request"]);
  } else {
    run.spec.ranks = lesson["ranks"].int32(1, kMaxRanks);
    run.seed = lesson["seed"].unsigned_integer();
  }
  const Field topology = lesson["topology"];
  const TopologyConfig config = topology.is_null() ? s.topology : json_reading::read_topology_config(topology);
  try {
    return rerun_scenario(s, run, config);
  } catch (const InputError& e) {
    lesson.fail(e.what());
  }
}

// The file's value and the rebuild's must be equal, or the file is not this lesson's run.
void expect_same(const Field& f, const json& rebuilt) {
  const json& recorded = f.value();
  if (recorded != rebuilt)
    f.fail(fmt::format("the lesson it carries rebuilds {}, but the file records {}", rebuilt.dump(), recorded.dump()));
}

void expect_size(const Field& f, std::size_t rebuilt) {
  if (f.size() != rebuilt)
    f.fail(fmt::format("has {} entries, but the lesson it carries rebuilds {}", f.size(), rebuilt));
}

json plain(const json_layout::ojson& j) { return json::parse(j.dump()); }

// A transfer of a collective phase: the schedule's, and its measured time when executed.
void read_transfer(const Field& f, const PhaseRun& pr, std::size_t i, bool executed) {
  f.only_keys({"transfer", "source_transfer", "step", "src", "dst", "chunk", "action", "bytes", "predicted_begin_ns",
               "predicted_end_ns", "measured_begin_ns", "measured_end_ns", "worker"});
  const Transfer& x = pr.schedule.transfers[i];
  expect_same(f["transfer"], i);
  expect_same(f["source_transfer"], pr.source_transfer[i]);
  expect_same(f["step"], x.step + 1);
  expect_same(f["src"], x.src);
  expect_same(f["dst"], x.dst);
  expect_same(f["chunk"], x.chunk);
  expect_same(f["action"], to_string(x.action));
  expect_same(f["bytes"], pr.schedule.bytes(x));
  if (!executed) return;
  TransferTiming& m = pr.run->execution.timings.at(pr.source_transfer[i]);
  m.begin_ns = f["measured_begin_ns"].integer();
  m.end_ns = f["measured_end_ns"].integer();
  m.worker = f["worker"].int32(0, std::numeric_limits<int>::max());
}

// The first prediction that differs from the file's by more than rounding, for the note.
struct PredictionCheck {
  std::string first_difference;
  void compare(const Field& f, double here, std::string_view what) {
    if (!first_difference.empty() || !f.is_number()) return;
    const double there = f.number();
    if (std::abs(here - there) <= 1e-9 * std::max({1.0, std::abs(here), std::abs(there)})) return;
    first_difference = fmt::format("{} ({} ns here, {} ns in the file)", what, here, there);
  }
};

// A phase: the same name, kind, request and steps as the rebuild's, and its transfers.
void read_phase(const Field& f, const Phase& phase, const PhaseRun& pr, bool executed, PredictionCheck& predictions) {
  expect_same(f["phase"], pr.phase + 1);
  expect_same(f["name"], phase.name);
  expect_same(f["kind"], phase.kind == PhaseKind::compute ? "compute" : "collective");
  if (!pr.run) return;
  expect_same(f["request"], plain(json_layout::request_json(pr.run->request)));
  const Field transfers = f["transfers"];
  expect_size(transfers, pr.schedule.transfers.size());
  for (std::size_t i = 0; i < pr.schedule.transfers.size(); ++i) {
    const Field t = transfers.at(i);
    read_transfer(t, pr, i, executed);
    if (t.has("predicted_begin_ns") && i < pr.begin_ns.size()) {
      const std::string what = fmt::format("phase {}, transfer {}", pr.phase + 1, i);
      predictions.compare(t["predicted_begin_ns"], pr.begin_ns[i], what);
      predictions.compare(t["predicted_end_ns"], pr.end_ns[i], what);
    }
  }
}

Verification read_lesson_verification(const Field& f) {
  // The lesson trace's verification has no max_error (docs/trace-format.md).
  f.only_keys({"ok", "checked", "mismatches", "first_mismatch", "rule"});
  Verification v;
  v.ok = f["ok"].boolean();
  v.checked = f["checked"].unsigned_integer();
  v.mismatches = f["mismatches"].unsigned_integer();
  v.first_mismatch = f["first_mismatch"].str();
  v.rule = f["rule"].str();
  return v;
}

// A distinct collective: the same request and shape as the rebuild's, and once executed
// where and how it ran. Its transfers' times come with the phases that run them; a
// transfer no phase runs keeps none (0, 0), and no view shows it.
void read_collective(const Field& f, RunResult& run, std::size_t index, bool executed) {
  f.only_keys({"collective", "request", "steps", "transfers", "total_ranks", "backend", "device", "measured_time_ns",
               "verification"});
  expect_same(f["collective"], index);
  expect_same(f["request"], plain(json_layout::request_json(run.request)));
  expect_same(f["steps"], run.schedule.step_count());
  expect_same(f["transfers"], run.schedule.transfers.size());
  expect_same(f["total_ranks"], run.schedule.total_ranks);
  if (!executed) return;
  run.model_only = false;
  run.recorded = true;
  run.backend = f["backend"].str();
  run.device = f["device"].str();
  run.execution.total_ns = f["measured_time_ns"].integer();
  run.execution.timings.assign(run.schedule.transfers.size(), TransferTiming{});
  run.verification = read_lesson_verification(f["verification"]);
}

ImportedLesson read_lesson_trace(const Field& root, const PrepareOptions& options) {
  check_identity(root);
  root.only_keys({"format", "version", "collsim_version", "title", "description", "lesson", "total_ranks", "executed",
                  "verified", "predicted", "ranks", "collectives", "phases"});
  ImportedLesson out;
  out.scenario = rebuild_scenario(root);
  const Scenario& s = out.scenario;
  ProgramResult& p = out.program;
  try {
    p = prepare_program(s, true, options);
    if (!root["predicted"].is_null()) predict_program(p, s, s.topology);
  } catch (const InputError& e) {
    root["lesson"].fail(e.what());
  }
  expect_same(root["title"], s.title);
  expect_same(root["total_ranks"], p.total_ranks);
  const bool executed = root["executed"].boolean();
  const std::vector<std::size_t> firsts = first_phases_of_runs(p);
  const Field collectives = root["collectives"];
  expect_size(collectives, firsts.size());
  for (std::size_t i = 0; i < firsts.size(); ++i) read_collective(collectives.at(i), *p.phases[firsts[i]].run, i, executed);
  const Field phases = root["phases"];
  expect_size(phases, p.phases.size());
  PredictionCheck predictions;
  for (std::size_t k = 0; k < p.phases.size(); ++k) read_phase(phases.at(k), s.phases[k], p.phases[k], executed, predictions);
  p.executed = executed;
  for (const std::size_t k : firsts) {
    Execution& e = p.phases[k].run->execution;
    for (const TransferTiming& m : e.timings) e.workers = std::max(e.workers, m.worker + 1);
  }
  expect_same(root["verified"], p.verified());
  const Field predicted = root["predicted"];
  if (!predicted.is_null()) predictions.compare(predicted["total_ns"], p.total_ns, "the whole program");
  if (!predictions.first_difference.empty())
    out.note = fmt::format("the predicted times shown are this collsim's ({}); the file's, written by collsim {}, differ "
                           "first at {}",
                           COLLSIM_VERSION, root["collsim_version"].str(), predictions.first_difference);
  return out;
}

}  // namespace

ImportedLesson parse_lesson_trace(std::string_view text, const std::string& source_name, const PrepareOptions& options) {
  const json doc = json_reading::parse_document(text, source_name, "a lesson trace");
  return read_lesson_trace(Field(doc, "", source_name, kFormatWords), options);
}

ImportedLesson load_lesson_trace(const std::filesystem::path& path, const PrepareOptions& options) {
  return parse_lesson_trace(read_text_file(path, "lesson trace"), path.string(), options);
}

bool is_lesson_trace(const std::filesystem::path& path) {
  try {
    // Writers put "format" first: a file whose start does not name the format is not one,
    // and a run's trace of hundreds of MiB is not parsed twice to learn that.
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.find(kLessonTraceFormat) == std::string::npos) return false;
    const json doc = json::parse(read_text_file(path, "trace"));
    return doc.is_object() && doc.contains("format") && doc["format"] == kLessonTraceFormat;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace collsim
