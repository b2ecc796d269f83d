// Loading in the background: a scenario file (every phase run as one program on the CPU
// backend, verified, and its times predicted by the timing model on the scenario's
// topology: a Lesson, lesson.h), a JSON trace, or an edited run request, turned into view
// models on a worker thread while the window keeps drawing — and, for a comparison, the
// same spec run again with another algorithm on the same topology. Plain C++ (no ImGui):
// errors come back as text, never as exceptions.
//
// Cancelling: a load checks for a cancel between its phases (prepare, execute, predict,
// trace, view model; and the same again for the comparison's run), and its CPU backend
// between two transfers (CpuBackendOptions::should_stop). A cancelled load is abandoned
// at once — the window goes on with what it showed before — and its worker stops soon
// after, in the background; whatever it produced is discarded.
#pragma once
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/views/lesson.h"
#include "app/views/view_model.h"
#include "sim/run/run.h"
#include "sim/run/run_estimate.h"
#include "sim/model/topology.h"

namespace collsim::gui {

// Either a file (a .json trace, or a scenario) or a request to run.
struct LoadRequest {
  std::filesystem::path file;
  std::optional<RunRequest> run;  // set: run this instead of reading `file`
  TopologyConfig topology;         // for `run`: what the timing model predicts on
  std::string title, description;  // for `run`: what the scenario said, kept across re-runs
  // Set: also run this algorithm on the same spec, options and topology, for a side-by-side
  // comparison (a scenario, a run, or a trace that records its topology's configuration:
  // older traces have only its description).
  std::string compare;
  // With `run`: the lesson it edits, run again with the run's changes (rerun_scenario).
  std::shared_ptr<const Scenario> lesson;
  // A lesson of several phases: the phase (0-based) whose collective `compare` runs with
  // another algorithm (a compute phase is refused).
  std::size_t phase = 0;
};

struct LoadResult {
  // The run shown first: a lesson's first phase (null when that is a compute phase); null on error.
  std::shared_ptr<ViewModel> model;
  std::shared_ptr<Lesson> lesson;      // a scenario's program, its views and answers (null for a trace or a plain run)
  std::unique_ptr<ViewModel> compare;  // the `compare` algorithm's run, when one was asked for
  std::size_t compared_phase = 0;      // a lesson: the phase it is compared with (LoadRequest::phase)
  std::string error;                   // "FILE:LINE:COL: key 'collective.ranks': ..." and the like
  bool cancelled = false;              // stopped at a phase boundary because the load was cancelled
  std::string source;                  // the file, or "edited run"
  RunRequest request;                  // what ran (or what the trace recorded)
  TopologyConfig topology;             // what the prediction was made on (a scenario's, the request's, the
                                       // trace's recorded one; the default for a trace without one)
  std::string title, description;
  std::string note;                    // e.g. "the scenario asks for cuda; the GUI runs on the CPU backend"
};

// Thrown by Progress::set once the load has been cancelled; load() turns it into a result.
struct LoadCancelled : std::runtime_error {
  LoadCancelled() : std::runtime_error("cancelled") {}
};

// Phase text and fraction done, written by the worker, read by the window; and the
// cancel flag, written by the window, checked by the worker at every phase it reports.
class Progress {
 public:
  // Reports a new phase; throws LoadCancelled when cancel() has been called.
  void set(float fraction, std::string phase);
  // Reports without the check (the last word of a load, cancelled or not).
  void report(float fraction, std::string phase);
  // Later fractions map into [lo, hi] and phases start with `label` (one run of two).
  void scope(float lo, float hi, std::string label);
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_.load(); }
  float fraction() const { return fraction_.load(); }
  std::string phase() const;

 private:
  std::atomic<float> fraction_{0};
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::string phase_, label_;
  float lo_ = 0, hi_ = 1;
};

// What the progress bar says while the CPU backend runs: `what` and, when the run takes
// more than a few seconds, the estimate the CLI gives (run_estimate.h: "at least 82 s: its
// transfers read and write ..."); the bar then moves with the transfers. The app refuses no
// run for its length, as the CLI does without --allow-long: a student sees how long it will
// take at least, and can Cancel.
std::string running_text(const std::string& what, const RunTimeEstimate& e);

// Does the whole load on the calling thread. Never throws.
LoadResult load(const LoadRequest& request, Progress& progress);

// Whether a path names a JSON trace (by extension, or a first character '{').
bool is_trace_file(const std::filesystem::path& path);

class BackgroundLoader {
 public:
  BackgroundLoader() = default;
  BackgroundLoader(const BackgroundLoader&) = delete;
  BackgroundLoader& operator=(const BackgroundLoader&) = delete;
  // Cancels the load in progress and waits for every worker (each stops at its next phase).
  ~BackgroundLoader();
  // Starts a load; false (and nothing started) while one is still running.
  bool start(LoadRequest request);
  bool busy() const { return job_ && !job_->done.load(); }
  // Abandons the load in progress (or finished and not yet taken): take() will not return
  // it, and start() may begin another at once. Its worker runs on to its next phase
  // boundary and is joined later. False when there was nothing to cancel.
  bool cancel();
  // The finished result, once (joins the worker).
  std::optional<LoadResult> take();
  // The current load's progress (of the last one when idle).
  const Progress& progress() const { return job_ ? job_->progress : idle_; }
  // Cancelled workers that have not stopped yet (joins those that have).
  std::size_t abandoned();

 private:
  struct Job {
    std::thread thread;
    std::atomic<bool> done{false};
    Progress progress;
    LoadResult result;
  };
  std::unique_ptr<Job> job_;
  std::vector<std::unique_ptr<Job>> abandoned_;
  Progress idle_;
};

}  // namespace collsim::gui
