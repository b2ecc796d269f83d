#include "app/views/loader.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "sim/schedule/algorithm.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/msccl_import.h"
#include "sim/run/run_estimate.h"
#include "sim/core/errors.h"
#include "sim/core/throttle.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/pipeline/pipeline.h"

namespace collsim::gui {
namespace {

// The CPU backend of a load. `on_transfers(done, total)` moves the bar as its transfers
// finish, at most ten times a second (after_transfer runs on the workers). Once the load
// is cancelled the backend skips the transfers not yet started: the execution throws
// ExecutionStopped, which run_cancellably turns into the load's LoadCancelled.
std::unique_ptr<Backend> cancellable_cpu_backend(Progress& p, std::function<void(std::size_t, std::size_t)> on_transfers) {
  auto throttle = std::make_shared<Throttle>(std::chrono::milliseconds(100));
  return make_cpu_backend({.threads = 0,
                           .before_transfer = {},
                           .should_stop = [&p] { return p.cancelled(); },
                           .after_transfer = [throttle, on_transfers = std::move(on_transfers)](
                                                 std::size_t done, std::size_t total) {
                             if (throttle->due()) on_transfers(done, total);
                           }});
}

// The pipeline's run, with a cancelled execution reported as the load's LoadCancelled.
PipelineResult run_cancellably(const PipelineRequest& request, const PipelineHooks& hooks) {
  try {
    return run_pipeline(request, hooks);
  } catch (const ExecutionStopped&) {
    throw LoadCancelled();
  }
}

// "running on the CPU backend (...): 1200 of 4000 transfers", and the bar from lo to hi.
void report_transfers(Progress& p, float lo, float hi, const std::string& text, std::size_t done, std::size_t total) {
  p.report(lo + (hi - lo) * static_cast<float>(done) / static_cast<float>(std::max<std::size_t>(total, 1)),
           fmt::format("{}: {} of {} transfers", text, done, total));
}

// One run, from its request to the view model: the pipeline (sim/pipeline/pipeline.h) on
// the CPU backend. Every p.set is a phase boundary, where a cancelled load stops
// (LoadCancelled); the execution stops between two transfers.
std::unique_ptr<ViewModel> run_on_cpu(const RunRequest& request, const TopologyConfig& topology, const std::string& title,
                                      const std::string& description, Progress& p) {
  p.set(0.05f, "building and checking the schedule");
  const PipelineRequest run{.run = request,
                            .topology = topology,
                            .record_history = true,  // the view's history: checked once
                            .title = title,
                            .description = description};
  std::string running;
  PipelineHooks hooks;
  hooks.built = [&](const Schedule&) {
    p.set(0.25f, fmt::format("predicting the times on a {} topology", to_string(topology.kind)));
  };
  hooks.backend = [&](const PipelineResult& checked) {
    running = running_text("running on the CPU backend", estimate_cpu_run(checked.run->schedule));
    p.set(0.3f, running);
    return cancellable_cpu_backend(
        p, [&](std::size_t done, std::size_t total) { report_transfers(p, 0.3f, 0.7f, running, done, total); });
  };
  PipelineResult result = run_cancellably(run, hooks);
  p.set(0.75f, "building the view");
  return std::make_unique<ViewModel>(std::move(*result.trace));
}

// The comparison's request: the same spec and options with another algorithm (each
// algorithm ignores the options it has no use for; a hand-written schedule goes with "custom").
RunRequest with_algorithm(RunRequest r, const std::string& algorithm) {
  // Slices the first algorithm took by default (a re-run's request has them resolved) are
  // left to the second's default: the pipelined chain's is not 1.
  AlgorithmOptions defaults = r.options;
  defaults.slices = 0;
  if (r.options.slices == resolve_options(r.spec, r.algorithm, defaults).slices) r.options.slices = 0;
  r.algorithm = algorithm;
  if (algorithm != kCustomAlgorithm) r.options.schedule_file.clear();
  return r;
}

// Runs `request` (and the comparison, if asked for) into `out`.
void run_into(const LoadRequest& load, const RunRequest& request, const TopologyConfig& topology, const std::string& title,
              const std::string& description, LoadResult& out, Progress& p) {
  out.topology = topology;
  if (!load.compare.empty()) p.scope(0.0f, 0.5f, fmt::format("{}: ", request.algorithm));
  out.model = run_on_cpu(request, topology, title, description, p);
  if (load.compare.empty()) return;
  p.scope(0.5f, 1.0f, fmt::format("{}: ", load.compare));
  try {
    out.compare = run_on_cpu(with_algorithm(request, load.compare), topology, title, description, p);
  } catch (const InputError& e) {
    throw InputError(fmt::format("compare with {}: {}", load.compare, e.what()));
  }
}

// A comparison of a lesson of several phases names a collective phase.
void check_comparable(const LoadRequest& load, const Scenario& s) {
  if (!load.compare.empty() && !s.single_collective()) {
    if (load.phase >= s.phases.size())
      throw InputError(fmt::format("{}: compare with {}: there is no phase {} (phases 1..{})", s.source, load.compare,
                                   load.phase + 1, s.phases.size()));
    if (s.phases[load.phase].kind == PhaseKind::compute)
      throw InputError(fmt::format("{}: compare with {}: phase {} ({}) is a compute phase: pick a collective phase",
                                   s.source, load.compare, load.phase + 1, s.phases[load.phase].name));
  }
}

// A lesson's program, run or read back, turned into its views and answers (build_lesson);
// and the comparison's run of the chosen phase's collective.
void show_lesson(const LoadRequest& load, std::shared_ptr<Lesson> lesson, LoadResult& out, Progress& p) {
  build_lesson(*lesson, [&p](std::size_t k, std::size_t n) {
    p.set(0.7f + 0.25f * static_cast<float>(k) / static_cast<float>(n),
          n == 1 ? std::string("building the view") : fmt::format("building the view of phase {} of {}", k + 1, n));
  });
  const Scenario& sc = lesson->scenario;
  out.topology = sc.topology;
  out.title = sc.title;
  out.description = lesson->description;
  out.model = lesson->views.front();
  // What the editor starts from: the first collective phase's run (a single collective's own).
  out.request = sc.request;
  for (const PhaseRun& pr : lesson->program.phases)
    if (pr.run) {
      out.request = pr.run->request;
      break;
    }
  // A lesson of several phases compares the chosen phase's collective.
  RunRequest compared = out.request;
  if (!sc.single_collective()) {
    out.compared_phase = load.phase;
    for (const PhaseRun& pr : lesson->program.phases)
      if (pr.phase == static_cast<int>(load.phase) && pr.run) compared = pr.run->request;
  }
  out.lesson = std::move(lesson);
  if (load.compare.empty()) return;
  p.scope(0.5f, 1.0f, fmt::format("{}: ", load.compare));
  try {
    out.compare = run_on_cpu(with_algorithm(compared, load.compare), out.topology, out.title, out.description, p);
  } catch (const InputError& e) {
    throw InputError(fmt::format("compare with {}: {}", load.compare, e.what()));
  }
}

// A scenario: every phase as one program (lesson.h), predicted before the execution so
// that a bad topology is reported at once, then the views and the answers; and the
// comparison's run (one collective only).
void run_lesson(const LoadRequest& load, Scenario s, LoadResult& out, Progress& p) {
  check_comparable(load, s);
  if (s.backend == "cuda") out.note = "the scenario asks for the cuda backend; the app runs on the CPU backend";
  if (!load.compare.empty()) p.scope(0.0f, 0.5f, fmt::format("{}: ", s.request.algorithm));
  auto lesson = std::make_shared<Lesson>();
  const std::size_t phases = s.phases.size();
  p.set(0.05f, phases == 1 ? std::string("building and checking the schedule")
                           : fmt::format("building and checking the schedules of {} phases", phases));
  // Field by field: GCC 12 warns of an uninitialized string in the designated initializer here.
  PipelineRequest program;
  program.scenario = &s;
  program.program = true;
  program.topology = s.topology;
  program.record_history = true;  // the views' histories: checked once
  program.model_only = s.model_only;  // [run] model_only: predicted, nothing executed
  std::string running;
  std::size_t runs = 0;
  std::atomic<int> running_now{0};  // the collective whose transfers run (read on the workers)
  // Each distinct collective has its share of the bar, which moves with its transfers; a
  // cancel stops the lesson between two transfers.
  const auto share = [&runs](int k) {
    return 0.3f + 0.4f * static_cast<float>(k) / static_cast<float>(std::max<std::size_t>(runs, 1));
  };
  const auto text = [&](int k) { return runs <= 1 ? running : fmt::format("{}, collective {} of {}", running, k + 1, runs); };
  PipelineHooks hooks;
  hooks.built = [&](const Schedule&) {
    p.set(0.25f, fmt::format("predicting the times on a {} topology", to_string(s.topology.kind)));
  };
  if (!s.model_only) hooks.backend = [&](const PipelineResult& checked) {
    runs = first_phases_of_runs(*checked.program).size();
    running = running_text("running on the CPU backend", estimate_cpu_program(*checked.program));
    p.set(0.3f, running);
    return cancellable_cpu_backend(p, [&](std::size_t done, std::size_t total) {
      const int k = running_now.load();
      report_transfers(p, share(k), share(k + 1), text(k), done, total);
    });
  };
  hooks.program_progress = [&](int done, int total) {
    running_now = done;
    p.set(share(done), done < total ? text(done) : running);
  };
  lesson->program = std::move(*run_cancellably(program, hooks).program);
  lesson->scenario = std::move(s);
  show_lesson(load, std::move(lesson), out, p);
}

// A lesson trace (sim/lesson/program.h): the lesson rebuilt from the text it carries and
// checked against the file, shown with the file's measured times; nothing runs.
void load_lesson_trace_file(const LoadRequest& load, LoadResult& out, Progress& p) {
  if (!load.compare.empty()) p.scope(0.0f, 0.5f, "trace: ");
  p.set(0.05f, fmt::format("reading {} and rebuilding its lesson", load.file.string()));
  ImportedLesson imported = load_lesson_trace(load.file, {.record_history = true});
  check_comparable(load, imported.scenario);
  auto lesson = std::make_shared<Lesson>();
  lesson->program = std::move(imported.program);
  lesson->scenario = std::move(imported.scenario);
  out.note = imported.note;
  show_lesson(load, std::move(lesson), out, p);
}

// A JSON trace, replayed as it was recorded; the comparison's run goes on the topology
// configuration the trace recorded (traces written before collsim recorded one have only
// its description: nothing to run the other algorithm on).
void load_trace(const LoadRequest& load, LoadResult& out, Progress& p) {
  if (!load.compare.empty()) p.scope(0.0f, 0.5f, "trace: ");
  p.set(0.05f, fmt::format("reading {}", load.file.string()));
  Trace trace = load_trace_json(load.file, true);  // its one check records the view's history
  const std::optional<TopologyConfig> recorded = trace.predicted ? trace.predicted->topology_config : std::nullopt;
  if (!load.compare.empty() && !recorded)
    throw InputError(fmt::format("{}: a trace cannot be compared with another algorithm: it records its topology's "
                                 "description, not its configuration (open the scenario, or run it, instead)",
                                 load.file.string()));
  out.topology = recorded.value_or(TopologyConfig{});
  p.set(0.75f, "building the view");
  out.model = std::make_unique<ViewModel>(std::move(trace));
  if (load.compare.empty()) return;
  const Trace& t = out.model->trace();
  p.scope(0.5f, 1.0f, fmt::format("{}: ", load.compare));
  try {
    out.compare = run_on_cpu(with_algorithm(t.request, load.compare), *recorded, t.scenario_title,
                             t.scenario_description, p);
  } catch (const InputError& e) {
    throw InputError(fmt::format("compare with {}: {}", load.compare, e.what()));
  }
}

void load_into(const LoadRequest& request, LoadResult& out, Progress& p) {
  if (request.run && request.lesson) {
    out.source = request.lesson->source;
    run_lesson(request, rerun_scenario(*request.lesson, *request.run, request.topology), out, p);
    return;
  }
  if (request.run) {
    out.source = "edited run";
    run_into(request, *request.run, request.topology, request.title, request.description, out, p);
  } else if (is_trace_file(request.file) && is_lesson_trace(request.file)) {
    out.source = request.file.string();
    load_lesson_trace_file(request, out, p);
    return;
  } else if (is_trace_file(request.file)) {
    load_trace(request, out, p);
  } else if (is_msccl_path(request.file)) {
    // An MSCCL algorithm file opened on its own: run as a schedule written by hand, at a
    // count that gives every chunk a few elements (a view, not a benchmark).
    p.set(0.02f, fmt::format("reading {}", request.file.string()));
    RunRequest r = default_run_request();
    r.algorithm = std::string(kCustomAlgorithm);
    r.options.schedule_file = request.file.string();
    r = adopt_schedule_spec(r);
    const ScheduleFile f = load_schedule_file(request.file);
    r.spec.count = static_cast<std::uint64_t>(f.chunks_per_block) * 4;
    out.source = request.file.string();
    run_into(request, r, request.topology, f.title, f.description, out, p);
  } else {
    p.set(0.02f, fmt::format("reading {}", request.file.string()));
    out.source = request.file.string();
    run_lesson(request, load_scenario(request.file), out, p);
    return;
  }
  if (out.source.empty()) out.source = request.file.string();
  const Trace& trace = out.model->trace();
  out.request = trace.request;
  out.title = trace.scenario_title;
  out.description = trace.scenario_description;
}

}  // namespace

std::string running_text(const std::string& what, const RunTimeEstimate& e) {
  if (e.seconds <= kSayEstimateSeconds) return what;
  return fmt::format("{} ({})", what, describe(e));
}

void Progress::set(float fraction, std::string phase) {
  if (cancelled()) throw LoadCancelled();
  report(fraction, std::move(phase));
}

void Progress::report(float fraction, std::string phase) {
  const std::lock_guard lock(mutex_);
  fraction_ = lo_ + (hi_ - lo_) * std::clamp(fraction, 0.0f, 1.0f);
  phase_ = label_ + std::move(phase);
}

void Progress::scope(float lo, float hi, std::string label) {
  const std::lock_guard lock(mutex_);
  lo_ = lo, hi_ = hi;
  label_ = std::move(label);
}

std::string Progress::phase() const {
  const std::lock_guard lock(mutex_);
  return phase_;
}

bool is_trace_file(const std::filesystem::path& path) {
  if (path.extension() == ".json") return true;
  if (path.extension() == ".toml") return false;
  std::ifstream in(path);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  return false;
}

LoadResult load(const LoadRequest& request, Progress& progress) {
  LoadResult out;
  try {
    load_into(request, out, progress);
  } catch (const LoadCancelled&) {
    out.cancelled = true;
    out.error = "cancelled";
  } catch (const InputError& e) {
    out.error = e.what();
  } catch (const ScheduleError& e) {
    out.error = fmt::format("the schedule is broken: {}", e.what());
  } catch (const std::bad_alloc&) {
    out.error = "out of memory: try fewer ranks or a smaller count";
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (!out.error.empty()) out.model.reset(), out.compare.reset(), out.lesson.reset();
  progress.scope(0.0f, 1.0f, "");
  progress.report(1.0f, out.cancelled ? "cancelled" : out.error.empty() ? "done" : "failed");
  return out;
}

BackgroundLoader::~BackgroundLoader() {
  cancel();
  for (const auto& job : abandoned_) job->thread.join();
}

bool BackgroundLoader::start(LoadRequest request) {
  abandoned();  // joins the cancelled workers that have stopped meanwhile
  if (busy()) return false;
  if (job_) job_->thread.join();  // a finished result nobody took
  job_ = std::make_unique<Job>();
  job_->progress.report(0.0f, "starting");
  Job* job = job_.get();  // owned by job_, or by abandoned_ once cancelled, until joined
  job->thread = std::thread([job, request = std::move(request)] {
    job->result = load(request, job->progress);
    job->done = true;
  });
  return true;
}

bool BackgroundLoader::cancel() {
  if (!job_) return false;
  job_->progress.cancel();
  idle_.report(1.0f, "cancelled");
  abandoned_.push_back(std::move(job_));
  abandoned();
  return true;
}

std::optional<LoadResult> BackgroundLoader::take() {
  if (!job_ || !job_->done.load()) return std::nullopt;
  job_->thread.join();
  std::optional<LoadResult> r(std::move(job_->result));
  idle_.report(1.0f, job_->progress.phase());
  job_.reset();
  return r;
}

std::size_t BackgroundLoader::abandoned() {
  std::erase_if(abandoned_, [](const std::unique_ptr<Job>& job) {
    if (!job->done.load()) return false;
    job->thread.join();
    return true;
  });
  return abandoned_.size();
}

}  // namespace collsim::gui
