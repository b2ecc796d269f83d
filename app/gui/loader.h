// Loading in the background: a scenario file (run on the CPU backend, and its times
// predicted by the timing model on the scenario's topology), a JSON trace, or an edited
// run request, turned into a ViewModel on a worker thread while the window keeps
// drawing. Plain C++ (no ImGui): errors come back as text, never as exceptions.
#pragma once
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/gui/view_model.h"
#include "sim/run.h"
#include "sim/topology.h"

namespace collsim::gui {

// Either a file (a .json trace, or a scenario) or a request to run.
struct LoadRequest {
  std::filesystem::path file;
  std::optional<RunRequest> run;  // set: run this instead of reading `file`
  TopologyConfig topology;         // for `run`: what the timing model predicts on
  std::string title, description;  // for `run`: what the scenario said, kept across re-runs
};

struct LoadResult {
  std::unique_ptr<ViewModel> model;  // null on error
  std::string error;                 // "FILE:LINE:COL: key 'collective.ranks': ..." and the like
  std::string source;                // the file, or "edited run"
  RunRequest request;                // what ran (or what the trace recorded)
  TopologyConfig topology;           // what the prediction was made on (a scenario's, or the request's)
  std::string title, description;
  std::string note;                  // e.g. "the scenario asks for cuda; the GUI runs on the CPU backend"
};

// Phase text and fraction done, written by the worker, read by the window.
class Progress {
 public:
  void set(float fraction, std::string phase);
  float fraction() const { return fraction_.load(); }
  std::string phase() const;

 private:
  std::atomic<float> fraction_{0};
  mutable std::mutex mutex_;
  std::string phase_;
};

// Does the whole load on the calling thread. Never throws.
LoadResult load(const LoadRequest& request, Progress& progress);

// Whether a path names a JSON trace (by extension, or a first character '{').
bool is_trace_file(const std::filesystem::path& path);

class BackgroundLoader {
 public:
  ~BackgroundLoader();
  // Starts a load; false (and nothing started) while one is still running.
  bool start(LoadRequest request);
  bool busy() const { return thread_.joinable() && !done_.load(); }
  // The finished result, once (joins the worker).
  std::optional<LoadResult> take();
  const Progress& progress() const { return progress_; }

 private:
  std::thread thread_;
  std::atomic<bool> done_{false};
  Progress progress_;
  LoadResult result_;
};

}  // namespace collsim::gui
