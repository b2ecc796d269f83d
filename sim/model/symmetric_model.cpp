// predict_symmetric (symmetric_model.h): one period of a symmetric schedule, predicted.
#include "sim/model/symmetric_model.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/model/simulation.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// `offset` in a buffer of `size` elements, turned back by `ranks` ranks of `per_rank`
// elements each (mod size).
std::uint64_t turned_back(std::uint64_t offset, std::uint64_t count, std::uint64_t size, std::uint64_t ranks,
                          std::uint64_t per_rank) {
  if (size == 0) return offset;
  const std::uint64_t by = (ranks % size) * (per_rank % size) % size;
  const std::uint64_t turned = (offset + size - by) % size;
  if (turned + count > size)
    throw std::logic_error(fmt::format("turning a region of {} elements at {} back by {} crosses the end of its "
                                       "buffer of {}: the schedule is not as its rotation says",
                                       count, offset, by, size));
  return turned;
}

// The whole schedule's totals: rank r sends what rank r mod P does and receives what the
// first period's transfers bring to ranks r, r ± P, ...; every step has N/P times the transfers.
ScheduleTotals whole_totals(const Schedule& one_period, int period) {
  ScheduleTotals part = schedule_totals(one_period);
  const std::size_t ranks = static_cast<std::size_t>(one_period.total_ranks), p = static_cast<std::size_t>(period);
  const std::uint64_t turns = ranks / p;
  ScheduleTotals whole = part;
  whole.transfers *= turns;
  for (std::uint64_t& x : whole.step_transfers) x *= turns;
  for (std::uint64_t& x : whole.step_bytes) x *= turns;
  std::vector<std::uint64_t> received(p, 0);
  for (std::size_t r = 0; r < ranks; ++r) received[r % p] += part.bytes_received[r];
  for (std::size_t r = 0; r < ranks; ++r) {
    whole.bytes_sent[r] = part.bytes_sent[r % p];
    whole.bytes_received[r] = received[r % p];
  }
  return whole;
}

}  // namespace

std::optional<int> symmetric_period(const Topology& t) {
  const int period = rotation_period(t);
  return period > 0 ? std::optional<int>(period) : std::nullopt;
}

Schedule turned_to_first_period(const Schedule& one_period, const RankRotation& rotation, int period) {
  Schedule s = one_period;
  for (Transfer& t : s.transfers) {
    if (t.dst < period) continue;
    const auto ranks = static_cast<std::uint64_t>(t.dst - t.dst % period);  // turned back by this many
    const auto turn = [&](BufferKind b, std::uint64_t offset) {
      return turned_back(offset, t.count, s.buffer_elements(t.dst, b), ranks, rotation.elements[static_cast<std::size_t>(b)]);
    };
    t.dst_offset = turn(t.dst_buffer, t.dst_offset);
    if (t.has_operand()) t.operand_offset = turn(t.operand_buffer, t.operand_offset);
    t.dst %= period;
  }
  return s;
}

SymmetricModel predict_symmetric(const ScheduleGenerator& generate, const RankRotation& rotation, const Topology& t) {
  SymmetricModel out;
  out.period = symmetric_period(t).value_or(0);
  if (out.period == 0) throw std::logic_error("predict_symmetric: the topology does not turn onto itself");
  {
    KeepSendersBelow keep(out.period);
    out.schedule = generate();
  }
  if (out.schedule.total_ranks != t.ranks)
    throw std::logic_error(fmt::format("predict_symmetric: a schedule of {} ranks on a topology of {}",
                                       out.schedule.total_ranks, t.ranks));
  const DependencyGraph g = derive_dependencies(turned_to_first_period(out.schedule, rotation, out.period));
  des::Simulation sim(t, out.schedule.channels, nullptr, true);
  sim.use_link_orbits(link_orbits(t, out.period));
  sim.add(out.schedule, 0, 0, g);
  sim.advance(false);
  out.prediction = std::move(sim).finish();
  out.totals = whole_totals(out.schedule, out.period);
  return out;
}

}  // namespace collsim
