// The one way algorithm files produce a Schedule: open a step, add transfers, finish.
// finish() applies the conventions every schedule shares, so no algorithm repeats them:
// empty transfers and steps are dropped, steps are renumbered, steps whose transfers are
// all local are labelled "local", and avg gets its division as a post-operation.
// In place (spec.in_place), a copy whose source and destination are the same storage
// (storage_of) is dropped as it is added: the data is already there, so an algorithm
// written for separate buffers needs no in-place branch for its initial copies.
// A barrier's spec is normalised (count 0, i32, max): it moves one-element tokens only.
#pragma once
#include <string>

#include "sim/schedule/schedule.h"

namespace collsim {

class ScheduleBuilder {
 public:
  // total_ranks > spec.ranks adds extra ranks that hold only scratch buffers.
  ScheduleBuilder(const CollectiveSpec& spec, std::string algorithm, int total_ranks = 0);

  const CollectiveSpec& spec() const { return schedule_.spec; }
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
  void copy(int chunk, Region from, Region to) { add(Action::copy, chunk, from, to); }
  void reduce(int chunk, Region from, Region to) { add(Action::reduce, chunk, from, to); }
  // to = op(operand, from): `operand` is the receiver's own region (to.rank), read in
  // place of a pre-copy into `to` (NCCL's recvReduceCopy). When the operand is `to`'s own
  // storage (in place: the input is the output) it is an ordinary reduce.
  void reduce_copy(int chunk, Region from, Region operand, Region to, int channel = 0);
  void add(Action action, int chunk, Region from, Region to, int channel = 0);
  // How many channels the transfers may use (Schedule::channels); 1 by default.
  void set_channels(int n) { schedule_.channels = n; }

  Schedule finish() &&;

 private:
  Schedule schedule_;
  int current_step_ = -1;
  std::string stage_;
};

}  // namespace collsim
