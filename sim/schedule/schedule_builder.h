// The one way algorithm files produce a Schedule: open a step, add transfers, finish.
// finish() applies the conventions every schedule shares, so no algorithm repeats them:
// empty transfers and steps are dropped, steps are renumbered, steps whose transfers are
// all local are labelled "local", and avg gets its division as a post-operation.
// In place (spec.in_place), a copy whose source and destination are the same storage
// (storage_of) is dropped as it is added: the data is already there, so an algorithm
// written for separate buffers needs no in-place branch for its initial copies.
// A barrier's spec is normalised (count 0, i32, max): it moves one-element tokens only.
//
// Streaming: while a StreamSteps scope is open on a thread, the next ScheduleBuilder made
// on that thread hands every finished step to the scope's sink (its transfers with their
// final step number, as finish() would number them) and keeps none, so that a timing model
// can predict a schedule of billions of transfers in the memory of a few steps
// (timing_model.h, predict_streamed). finish() then returns the schedule without its
// transfers: labels, stages, local operations. The algorithm files need not know: they
// build as always.
#pragma once
#include <span>
#include <string>

#include "sim/schedule/schedule.h"

namespace collsim {

// Receives a streamed schedule step by step: `header` is the schedule so far without its
// transfers (spec, ranks, scratch, channels, the labels of the steps before).
class StepSink {
 public:
  virtual ~StepSink() = default;
  virtual void step_done(const Schedule& header, std::span<const Transfer> step) = 0;
};

// The scope in which the next ScheduleBuilder streams to `sink` (one builder: the first
// made takes the sink). Not nestable.
class StreamSteps {
 public:
  explicit StreamSteps(StepSink& sink);
  ~StreamSteps();
  StreamSteps(const StreamSteps&) = delete;
  StreamSteps& operator=(const StreamSteps&) = delete;
};

// The scope in which the next ScheduleBuilder made on this thread keeps only the transfers
// sent by ranks 0..senders-1 (one period of a schedule that looks the same from every
// rank: sim/model/symmetric_model.h predicts the rest by symmetry). Not nestable.
class KeepSendersBelow {
 public:
  explicit KeepSendersBelow(int senders);
  ~KeepSendersBelow();
  KeepSendersBelow(const KeepSendersBelow&) = delete;
  KeepSendersBelow& operator=(const KeepSendersBelow&) = delete;
};

class ScheduleBuilder {
 public:
  // total_ranks > spec.ranks adds extra ranks that hold only scratch buffers.
  ScheduleBuilder(const CollectiveSpec& spec, std::string algorithm, int total_ranks = 0);

  const CollectiveSpec& spec() const { return schedule_.spec; }
  // The ranks whose transfers are kept, 0..senders_end()-1 (all but under KeepSendersBelow):
  // an algorithm that sends from every rank in turn need not visit the others.
  int senders_end() const { return senders_end_; }
  void set_scratch(int rank, std::uint64_t count);

  void pre_copy(Region from, Region to);
  void pre_fill_identity(Region target);
  // Barrier: the rank's one-element token starts as its own "I have arrived".
  void pre_signal(Region token);

  // Starts a new step; following transfers belong to it.
  void step(std::string label);
  // The algorithm's stage the following steps belong to ("reduce-scatter"), until the next
  // call; "" (the default) for none. Schedule::step_stages records it per step.
  void stage(std::string name) { stage_ = std::move(name); }
  void copy(int chunk, const Region& from, const Region& to) { add(Action::copy, chunk, from, to); }
  void reduce(int chunk, const Region& from, const Region& to) { add(Action::reduce, chunk, from, to); }
  // to = op(operand, from): `operand` is the receiver's own region (to.rank), read in
  // place of a pre-copy into `to` (NCCL's recvReduceCopy). When the operand is `to`'s own
  // storage (in place: the input is the output) it is an ordinary reduce.
  void reduce_copy(int chunk, const Region& from, const Region& operand, const Region& to, int channel = 0);
  // Regions by reference: a streamed model adds billions, and a Region copied whole after it
  // was built field by field stalls on the store buffer.
  void add(Action action, int chunk, const Region& from, const Region& to, int channel = 0);
  // How many channels the transfers may use (Schedule::channels); 1 by default.
  void set_channels(int n) { schedule_.channels = n; }

  Schedule finish() &&;

 private:
  // Streaming: the step being built goes to the sink, numbered and labelled as finish()
  // would (an empty step is dropped; an all-local one is labelled "local").
  void hand_on_step();
  void renumber_steps();

  Schedule schedule_;
  int current_step_ = -1;
  std::string stage_;
  StepSink* sink_ = nullptr;  // streaming (StreamSteps)
  int senders_end_ = 0;       // transfers from ranks at or above it are dropped (KeepSendersBelow)
  std::string step_label_, step_stage_;  // streaming: the step being built
};

}  // namespace collsim
