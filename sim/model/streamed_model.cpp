// predict_streamed (timing_model.h): a schedule predicted while its algorithm generates it,
// with the simulation of simulation.h on a worker thread. docs/timing-model.md, "Thousands
// of ranks", says why it is exact.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "sim/model/simulation.h"
#include "sim/model/timing_model.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

using des::Simulation;

// Feeds a schedule to the simulation as its algorithm generates it (StepSink), in batches
// of at least `batch_transfers` transfers. Two threads share the work, a batch apart: this
// one runs the algorithm and derives each batch's dependencies (the one derivation every
// other view uses, dependencies.h), while a worker simulates the batch before. The order of
// what the simulation does is the same as on one thread, so the times are too.
//
// A batch's dependencies are derived over the batch and the steps before it that may still
// be in flight when it is added: window_steps + 2 steps back. If more is still in flight by
// then (a straggler lets the ranks drift apart), the batch is derived again from the first
// transfer still needed, once the worker has said which that is.
class StreamedSimulation final : public StepSink {
 public:
  StreamedSimulation(const Topology& t, const StreamOptions& o) : t_(t), options_(o) {}
  StreamedSimulation(const StreamedSimulation&) = delete;
  StreamedSimulation& operator=(const StreamedSimulation&) = delete;
  ~StreamedSimulation() override { stop_worker(); }

  void step_done(const Schedule& header, std::span<const Transfer> step) override {
    if (!sim_) start(header);
    totals_.add_step(header, step);
    generated_.transfers.insert(generated_.transfers.end(), step.begin(), step.end());
    if (generated_.transfers.size() - new_from_ >= std::max<std::size_t>(options_.batch_transfers, 1)) {
      generated_.scratch_count = header.scratch_count;  // an algorithm may size scratch as it goes
      send_batch(true);
    }
  }

  StreamedModel finish(Schedule header) && {
    StreamedModel out;
    if (sim_) {
      generated_.scratch_count = header.scratch_count;
      send_batch(false);
      stop_worker();
      rethrow_worker_error();
      out.prediction = std::move(*sim_).finish();
    }
    out.schedule = std::move(header);
    if (totals_.bytes_sent.empty()) totals_ = schedule_totals(out.schedule);  // no transfers at all
    out.totals = std::move(totals_);
    out.peak_window_transfers = peak_window_;
    out.batches_derived_again = derived_again_;
    return out;
  }

 private:
  // What the worker adds: a window of the schedule and its dependencies.
  struct Batch {
    Schedule window;  // transfers window_first.. of the schedule
    std::uint64_t window_first = 0;
    std::size_t new_from = 0;  // window.transfers[new_from..] are the new ones
    DependencyGraph dependencies;
    bool more = true;  // more batches will follow
  };

  void start(const Schedule& header) {
    generated_ = schedule_header(header);
    sim_.emplace(t_, header.channels, &options_.observe, false, options_.window_steps);
    worker_ = std::thread([this] { work(); });
  }

  // The batch of the transfers generated since the last one, derived over the steps that may
  // still be in flight, handed to the worker once it has finished the one before.
  void send_batch(bool more) {
    const std::vector<Transfer>& all = generated_.transfers;
    const int first_new_step = new_from_ < all.size() ? all[new_from_].step : std::numeric_limits<int>::max();
    const int back = first_new_step - std::max(1, options_.window_steps) - 2;
    const auto from = static_cast<std::size_t>(
        std::lower_bound(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(new_from_), back,
                         [](const Transfer& x, int step) { return x.step < step; }) -
        all.begin());
    Batch b = window_from(from, more);
    const std::uint64_t needed = wait_until_idle();
    if (needed < b.window_first) {  // the ranks drifted apart: derive again over what is still in flight
      b = window_from(static_cast<std::size_t>(needed - generated_first_), more);
      ++derived_again_;
    }
    // Forget what the worker no longer needs (it said so after its last batch).
    const auto drop = static_cast<std::size_t>(std::min<std::uint64_t>(needed, b.window_first) - generated_first_);
    generated_.transfers.erase(generated_.transfers.begin(), generated_.transfers.begin() + static_cast<std::ptrdiff_t>(drop));
    generated_first_ += drop;
    new_from_ = generated_.transfers.size();
    peak_window_ = std::max(peak_window_, b.window.transfers.size());
    {
      const std::lock_guard lock(mutex_);
      pending_ = std::move(b);
      idle_ = false;
    }
    wake_.notify_all();
  }

  // generated_.transfers[from..] as a batch, with its dependencies.
  Batch window_from(std::size_t from, bool more) {
    Batch b;
    b.window = schedule_header(generated_);
    b.window.transfers.assign(generated_.transfers.begin() + static_cast<std::ptrdiff_t>(from), generated_.transfers.end());
    b.window_first = generated_first_ + from;
    b.new_from = new_from_ - from;
    b.more = more;
    b.dependencies = derive_dependencies(b.window);
    return b;
  }

  // Waits for the worker to finish its batch; the first transfer it still needs.
  std::uint64_t wait_until_idle() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return idle_; });
    if (error_) {
      lock.unlock();
      stop_worker();
      rethrow_worker_error();
    }
    return needed_;
  }

  void work() {
    std::optional<Batch> current;  // the window the simulation reads
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return pending_.has_value() || stopping_; });
        if (!pending_) return;
        current = std::move(pending_);
        pending_.reset();
      }
      std::uint64_t needed = 0;
      try {
        sim_->add(current->window, current->window_first, current->new_from, current->dependencies);
        sim_->advance(current->more);
        needed = sim_->first_needed_transfer();
        sim_->forget_ended();
        if (options_.progress) options_.progress(needed);
      } catch (...) {
        const std::lock_guard lock(mutex_);
        error_ = std::current_exception();
        idle_ = true;
        wake_.notify_all();
        return;
      }
      {
        const std::lock_guard lock(mutex_);
        needed_ = needed;
        idle_ = true;
      }
      wake_.notify_all();
      if (!current->more) return;
    }
  }

  void stop_worker() {
    if (!worker_.joinable()) return;
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  void rethrow_worker_error() {
    if (error_) std::rethrow_exception(error_);
  }

  const Topology& t_;
  const StreamOptions& options_;
  std::optional<Simulation> sim_;    // the worker's, once started
  Schedule generated_;               // the transfers generated and maybe still needed
  std::uint64_t generated_first_ = 0;  // the schedule's index of generated_.transfers[0]
  std::size_t new_from_ = 0;         // generated_.transfers[new_from_..]: not yet in a batch
  std::size_t peak_window_ = 0, derived_again_ = 0;
  ScheduleTotals totals_;

  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Batch> pending_;     // handed over, not yet taken
  bool idle_ = true, stopping_ = false;
  std::uint64_t needed_ = 0;         // after the worker's last batch: the first transfer it still needs
  std::exception_ptr error_;
};

}  // namespace

StreamedModel predict_streamed(const ScheduleGenerator& generate, const Topology& t, const StreamOptions& options) {
  StreamedSimulation sim(t, options);
  Schedule header = [&] {
    StreamSteps stream(sim);
    return generate();
  }();
  return std::move(sim).finish(std::move(header));
}

}  // namespace collsim
