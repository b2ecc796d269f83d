#include "sim/schedule/schedule.h"

#include <algorithm>

namespace collsim {

std::string_view to_string(Action a) {
  switch (a) {
    case Action::copy: return "copy";
    case Action::reduce: return "reduce";
    case Action::reduce_copy: return "reduce_copy";
  }
  return "?";
}

std::string_view to_string(LocalOpKind k) {
  switch (k) {
    case LocalOpKind::copy: return "copy";
    case LocalOpKind::fill_identity: return "fill_identity";
    case LocalOpKind::divide: return "divide";
    case LocalOpKind::signal: return "signal";
  }
  return "?";
}

std::size_t Schedule::step_first(int k) const {
  const auto first = std::lower_bound(transfers.begin(), transfers.end(), k,
                                      [](const Transfer& t, int step) { return t.step < step; });
  return static_cast<std::size_t>(first - transfers.begin());
}

std::vector<std::size_t> Schedule::step_firsts() const {
  std::vector<std::size_t> firsts;
  for (int k = 0; k <= step_count(); ++k) firsts.push_back(step_first(k));
  return firsts;
}

std::uint64_t Schedule::buffer_elements(int rank, BufferKind b) const {
  switch (b) {
    case BufferKind::input: return input_elements(spec, algorithm, rank);
    case BufferKind::output: return output_elements(spec, algorithm, rank);
    case BufferKind::scratch:
      return rank >= 0 && rank < static_cast<int>(scratch_count.size()) ? scratch_count[static_cast<std::size_t>(rank)] : 0;
  }
  return 0;
}

std::optional<Alias> in_place_alias(const Schedule& s, int rank) {
  if (!s.spec.in_place) return std::nullopt;
  const std::uint64_t in = s.buffer_elements(rank, BufferKind::input);
  const std::uint64_t out = s.buffer_elements(rank, BufferKind::output);
  if (in == 0 || out == 0) return std::nullopt;
  const std::uint64_t block = static_cast<std::uint64_t>(rank) * s.spec.count;
  switch (s.spec.collective) {
    case Collective::all_reduce:
    case Collective::broadcast:
    case Collective::reduce: return Alias{BufferKind::input, BufferKind::output, 0};
    case Collective::all_gather: return Alias{BufferKind::input, BufferKind::output, block};
    case Collective::reduce_scatter: return Alias{BufferKind::output, BufferKind::input, block};
    default: return std::nullopt;
  }
}

Region storage_of(const Schedule& s, const Region& r) {
  const std::optional<Alias> a = in_place_alias(s, r.rank);
  if (!a || r.buffer != a->inner) return r;
  return {r.rank, a->outer, a->offset + r.offset, r.count};
}

std::uint64_t storage_elements(const Schedule& s, int rank, BufferKind b) {
  const std::optional<Alias> a = in_place_alias(s, rank);
  return a && a->inner == b ? 0 : s.buffer_elements(rank, b);
}

bool may_write(const Schedule& s, const Region& r) {
  const Region at = storage_of(s, r);
  if (at.buffer != BufferKind::input) return true;
  const std::optional<Alias> a = in_place_alias(s, r.rank);
  return a && a->inner == BufferKind::output && at.offset >= a->offset &&
         at.end() <= a->offset + s.buffer_elements(r.rank, BufferKind::output);
}

bool outputs_start_empty(const Schedule& s) {
  if (s.spec.in_place) return false;
  return std::none_of(s.pre_ops.begin(), s.pre_ops.end(),
                      [](const LocalOp& op) { return op.target.buffer == BufferKind::output; });
}

int communication_steps(const Schedule& s) {
  std::vector<bool> remote(static_cast<std::size_t>(s.step_count()), false);
  for (const Transfer& t : s.transfers)
    if (!t.is_local()) remote[static_cast<std::size_t>(t.step)] = true;
  int n = 0;
  for (bool r : remote) n += r ? 1 : 0;
  return n;
}

namespace {
std::vector<std::uint64_t> bytes_per_rank(const Schedule& s, bool by_sender) {
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(s.total_ranks), 0);
  for (const Transfer& t : s.transfers)
    if (!t.is_local()) bytes[static_cast<std::size_t>(by_sender ? t.src : t.dst)] += s.bytes(t);
  return bytes;
}
}  // namespace

std::vector<std::uint64_t> bytes_sent_per_rank(const Schedule& s) { return bytes_per_rank(s, true); }

Schedule schedule_header(const Schedule& s) {
  Schedule out;
  out.spec = s.spec;
  out.algorithm = s.algorithm;
  out.total_ranks = s.total_ranks;
  out.channels = s.channels;
  out.senders_kept = s.senders_kept;
  out.scratch_count = s.scratch_count;
  out.average_divisor = s.average_divisor;
  return out;
}
std::vector<std::uint64_t> bytes_received_per_rank(const Schedule& s) { return bytes_per_rank(s, false); }

void ScheduleTotals::add_step(const Schedule& header, std::span<const Transfer> step) {
  const auto ranks = static_cast<std::size_t>(header.total_ranks);
  if (bytes_sent.size() < ranks) bytes_sent.resize(ranks, 0), bytes_received.resize(ranks, 0);
  bool remote = false;
  for (const Transfer& t : step) {
    if (t.is_local()) continue;
    remote = true;
    bytes_sent[static_cast<std::size_t>(t.src)] += header.bytes(t);
    bytes_received[static_cast<std::size_t>(t.dst)] += header.bytes(t);
  }
  std::uint64_t bytes = 0;
  for (const Transfer& t : step) bytes += header.bytes(t);
  step_transfers.push_back(step.size());
  step_bytes.push_back(bytes);
  transfers += step.size();
  ++steps;
  communication_steps += remote ? 1 : 0;
}

ScheduleTotals schedule_totals(const Schedule& s) {
  ScheduleTotals totals;
  totals.bytes_sent.assign(static_cast<std::size_t>(s.total_ranks), 0);
  totals.bytes_received.assign(static_cast<std::size_t>(s.total_ranks), 0);
  for (int k = 0; k < s.step_count(); ++k) {  // the transfers are ordered by step: count step by step
    const std::span<const Transfer> all(s.transfers);
    totals.add_step(s, all.subspan(s.step_first(k), s.step_first(k + 1) - s.step_first(k)));
  }
  return totals;
}

}  // namespace collsim
