#include "app/gui/loader.h"

#include <cctype>
#include <fstream>

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/scenario.h"

namespace collsim::gui {
namespace {

Trace run_on_cpu(const RunRequest& request, const TopologyConfig& topology, const std::string& title,
                 const std::string& description, Progress& p) {
  p.set(0.1f, "building and checking the schedule");
  RunResult run = prepare_run(request);
  p.set(0.3f, fmt::format("running {} transfers on the CPU backend", run.schedule.transfers.size()));
  const std::unique_ptr<Backend> backend = make_cpu_backend();
  execute_run(run, *backend);
  p.set(0.6f, fmt::format("predicting the times on a {} topology", to_string(topology.kind)));
  predict_run(run, topology);
  p.set(0.7f, "recording the trace");
  return make_trace(run, title, description);
}

void load_into(const LoadRequest& request, LoadResult& out, Progress& p) {
  Trace trace;
  if (request.run) {
    out.source = "edited run";
    out.topology = request.topology;
    trace = run_on_cpu(*request.run, request.topology, request.title, request.description, p);
  } else if (is_trace_file(request.file)) {
    p.set(0.05f, fmt::format("reading {}", request.file.string()));
    trace = load_trace_json(request.file);
  } else {
    p.set(0.05f, fmt::format("reading {}", request.file.string()));
    const Scenario scenario = load_scenario(request.file);
    if (scenario.backend == "cuda") out.note = "the scenario asks for the cuda backend; the app runs on the CPU backend";
    out.topology = scenario.topology;
    trace = run_on_cpu(scenario.request, scenario.topology, scenario.title, scenario.description, p);
  }
  if (out.source.empty()) out.source = request.file.string();
  out.request = trace.request;
  out.title = trace.scenario_title;
  out.description = trace.scenario_description;
  p.set(0.75f, fmt::format("replaying {} transfers symbolically for the buffers view", trace.schedule.transfers.size()));
  out.model = std::make_unique<ViewModel>(std::move(trace));
}

}  // namespace

void Progress::set(float fraction, std::string phase) {
  const std::lock_guard lock(mutex_);
  fraction_ = fraction;
  phase_ = std::move(phase);
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
  } catch (const InputError& e) {
    out.error = e.what();
  } catch (const ScheduleError& e) {
    out.error = fmt::format("the schedule is broken: {}", e.what());
  } catch (const std::bad_alloc&) {
    out.error = "out of memory: try fewer ranks or a smaller count";
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (!out.error.empty()) out.model.reset();
  progress.set(1.0f, out.error.empty() ? "done" : "failed");
  return out;
}

BackgroundLoader::~BackgroundLoader() {
  if (thread_.joinable()) thread_.join();
}

bool BackgroundLoader::start(LoadRequest request) {
  if (busy()) return false;
  if (thread_.joinable()) thread_.join();  // a finished result nobody took
  done_ = false;
  progress_.set(0.0f, "starting");
  thread_ = std::thread([this, request = std::move(request)] {
    result_ = load(request, progress_);
    done_ = true;
  });
  return true;
}

std::optional<LoadResult> BackgroundLoader::take() {
  if (!thread_.joinable() || !done_.load()) return std::nullopt;
  thread_.join();
  return std::move(result_);
}

}  // namespace collsim::gui
