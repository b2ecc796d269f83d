#include "sim/schedule/schedule_builder.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace collsim {
namespace {

// A barrier carries no data: its tokens are one i32 each, combined with max. Max is
// idempotent, so a token that hears from a rank twice (dissemination for N not a power
// of two) is still right; --count, --dtype, --op and --in-place do not apply.
CollectiveSpec normalized(CollectiveSpec spec) {
  if (spec.collective == Collective::barrier) {
    spec.count = 0;
    spec.dtype = DataType::i32;
    spec.op = ReduceOp::max;
    spec.in_place = false;
  }
  return spec;
}

// The sink of the StreamSteps scope open on this thread, until a builder takes it.
thread_local StepSink* t_stream_sink = nullptr;
thread_local int t_senders_below = 0;  // 0: no KeepSendersBelow scope open

}  // namespace

StreamSteps::StreamSteps(StepSink& sink) {
  if (t_stream_sink) throw std::logic_error("StreamSteps: a stream is already open on this thread");
  t_stream_sink = &sink;
}

StreamSteps::~StreamSteps() { t_stream_sink = nullptr; }

KeepSendersBelow::KeepSendersBelow(int senders) {
  if (t_senders_below > 0) throw std::logic_error("KeepSendersBelow: a scope is already open on this thread");
  if (senders < 1) throw std::logic_error("KeepSendersBelow: no sender kept");
  t_senders_below = senders;
}

KeepSendersBelow::~KeepSendersBelow() { t_senders_below = 0; }

ScheduleBuilder::ScheduleBuilder(const CollectiveSpec& spec, std::string algorithm, int total_ranks)
    : sink_(std::exchange(t_stream_sink, nullptr)) {
  schedule_.spec = normalized(spec);
  schedule_.algorithm = std::move(algorithm);
  schedule_.total_ranks = std::max(total_ranks, spec.ranks);
  senders_end_ = std::min(schedule_.total_ranks, t_senders_below > 0 ? std::exchange(t_senders_below, 0) : schedule_.total_ranks);
  if (senders_end_ < schedule_.total_ranks) schedule_.senders_kept = senders_end_;
  schedule_.scratch_count.assign(static_cast<std::size_t>(schedule_.total_ranks), 0);
  schedule_.average_divisor = spec.ranks;
}

void ScheduleBuilder::set_scratch(int rank, std::uint64_t count) {
  schedule_.scratch_count.at(static_cast<std::size_t>(rank)) = count;
}

void ScheduleBuilder::pre_copy(Region from, Region to) {
  if (from.rank != to.rank || from.count != to.count)
    throw std::logic_error("pre_copy: source and target must be on one rank and equally long");
  if (to.count > 0 && storage_of(schedule_, from) != storage_of(schedule_, to))
    schedule_.pre_ops.push_back({LocalOpKind::copy, to, from});
}

void ScheduleBuilder::pre_signal(Region token) {
  if (token.count != 1) throw std::logic_error("pre_signal: a barrier token is one element");
  schedule_.pre_ops.push_back({LocalOpKind::signal, token, {}});
}

void ScheduleBuilder::pre_fill_identity(Region target) {
  if (target.count > 0) schedule_.pre_ops.push_back({LocalOpKind::fill_identity, target, {}});
}

void ScheduleBuilder::step(std::string label) {
  if (sink_) {
    hand_on_step();
    step_label_ = std::move(label);
    step_stage_ = stage_;
    current_step_ = 0;  // numbered when handed on
    return;
  }
  schedule_.step_labels.push_back(std::move(label));
  schedule_.step_stages.push_back(stage_);
  current_step_ = static_cast<int>(schedule_.step_labels.size()) - 1;
}

void ScheduleBuilder::add(Action action, int chunk, const Region& from, const Region& to, int channel) {
  if (channel < 0 || channel >= schedule_.channels)
    throw std::logic_error(fmt::format("ScheduleBuilder: channel {} of {}", channel, schedule_.channels));
  if (current_step_ < 0) throw std::logic_error("ScheduleBuilder: transfer added before the first step()");
  if (from.count != to.count)
    throw std::logic_error(fmt::format("ScheduleBuilder: transfer of {} elements into a region of {}", from.count,
                                       to.count));
  if (from.count == 0 || from.rank >= senders_end_) return;  // empty data transfers are dropped, and other periods'
  if (action == Action::copy && schedule_.spec.in_place && storage_of(schedule_, from) == storage_of(schedule_, to))
    return;  // in place: the data is already there
  Transfer& t = schedule_.transfers.emplace_back();  // filled in place: a copy of a Transfer built field by field stalls
  t.step = current_step_;
  t.src = from.rank;
  t.dst = to.rank;
  t.chunk = chunk;
  t.src_buffer = from.buffer;
  t.dst_buffer = to.buffer;
  t.action = action;
  t.channel = static_cast<std::uint16_t>(channel);
  t.src_offset = from.offset;
  t.dst_offset = to.offset;
  t.count = from.count;
}

void ScheduleBuilder::reduce_copy(int chunk, const Region& from, const Region& operand, const Region& to, int channel) {
  if (operand.rank != to.rank || operand.count != to.count)
    throw std::logic_error(fmt::format("ScheduleBuilder: reduce_copy operand {} elements on rank {}, into {} on rank {}",
                                       operand.count, operand.rank, to.count, to.rank));
  const std::size_t before = schedule_.transfers.size();
  const bool same = schedule_.spec.in_place ? storage_of(schedule_, operand) == storage_of(schedule_, to) : operand == to;
  add(same ? Action::reduce : Action::reduce_copy, chunk, from, to, channel);
  if (same || schedule_.transfers.size() == before) return;
  schedule_.transfers.back().operand_buffer = operand.buffer;
  schedule_.transfers.back().operand_offset = operand.offset;
}

void ScheduleBuilder::hand_on_step() {
  Schedule& s = schedule_;
  if (s.transfers.empty()) return;
  const int index = s.step_count();
  bool remote = false;
  for (Transfer& t : s.transfers) {
    t.step = index;
    remote = remote || !t.is_local();
  }
  s.step_labels.push_back(remote ? std::move(step_label_) : std::string("local"));
  s.step_stages.push_back(std::move(step_stage_));
  sink_->step_done(s, s.transfers);
  s.transfers.clear();
}

Schedule ScheduleBuilder::finish() && {
  Schedule& s = schedule_;
  if (sink_)
    hand_on_step();  // every step is numbered, labelled and handed on already
  else
    renumber_steps();
  // No stage named anywhere: the schedule has none (an empty list, as Schedule says).
  if (std::all_of(s.step_stages.begin(), s.step_stages.end(), [](const std::string& x) { return x.empty(); }))
    s.step_stages.clear();

  if (s.spec.op == ReduceOp::avg && collective_reduces(s.spec.collective))
    for (int r = 0; r < s.spec.ranks; ++r)
      if (const std::uint64_t n = s.buffer_elements(r, BufferKind::output); n > 0)
        s.post_ops.push_back({LocalOpKind::divide, {r, BufferKind::output, 0, n}, {}});
  return std::move(s);
}

// Renumbers the steps that kept at least one transfer; relabels all-local steps.
void ScheduleBuilder::renumber_steps() {
  Schedule& s = schedule_;
  const std::size_t old_steps = s.step_labels.size();
  std::vector<int> new_index(old_steps, -1);
  std::vector<bool> has_remote(old_steps, false);
  for (const Transfer& t : s.transfers) {
    new_index[static_cast<std::size_t>(t.step)] = 0;
    if (!t.is_local()) has_remote[static_cast<std::size_t>(t.step)] = true;
  }
  std::vector<std::string> labels, stages;
  for (std::size_t i = 0; i < old_steps; ++i) {
    if (new_index[i] < 0) continue;
    new_index[i] = static_cast<int>(labels.size());
    labels.push_back(has_remote[i] ? std::move(s.step_labels[i]) : std::string("local"));
    stages.push_back(i < s.step_stages.size() ? std::move(s.step_stages[i]) : std::string());
  }
  for (Transfer& t : s.transfers) t.step = new_index[static_cast<std::size_t>(t.step)];
  s.step_labels = std::move(labels);
  s.step_stages = std::move(stages);
}

}  // namespace collsim
