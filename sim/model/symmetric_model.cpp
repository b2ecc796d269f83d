// predict_symmetric (symmetric_model.h): one period of a symmetric schedule, predicted.
#include "sim/model/symmetric_model.h"

#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/model/simulation.h"
#include "sim/schedule/schedule_builder.h"

namespace collsim {
namespace {

// A region at `offset` of a buffer of `size` elements, turned back by `turns` turns that move
// its contents `per_turn` elements around blocks of `within` elements (0: the whole buffer).
// A region of whole blocks stays.
std::uint64_t turned_back(std::uint64_t offset, std::uint64_t count, std::uint64_t size, std::uint64_t turns,
                          std::uint64_t per_turn, std::uint64_t within) {
  const std::uint64_t block = within > 0 ? within : size;
  if (block == 0) return offset;
  const std::uint64_t start = offset - offset % block, in_block = offset % block;
  if (in_block == 0 && count % block == 0) return offset;
  const std::uint64_t by = (turns % block) * (per_turn % block) % block;
  const std::uint64_t turned = (in_block + block - by) % block;
  if (turned + count > block)
    throw std::logic_error(fmt::format("turning a region of {} elements at {} back by {} crosses the end of its "
                                       "block of {}: the schedule is not as its rotation says",
                                       count, offset, by, block));
  return start + turned;
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

std::optional<int> symmetric_period(const Topology& t, const RankRotation& rotation) {
  const int topology = rotation_period(t);
  if (topology == 0 || rotation.ranks < 1) return std::nullopt;
  const int period = std::lcm(topology, rotation.ranks);
  return t.ranks % period == 0 ? std::optional<int>(period) : std::nullopt;
}

Schedule turned_to_first_period(const Schedule& one_period, const RankRotation& rotation, int period) {
  Schedule s = one_period;
  for (Transfer& t : s.transfers) {
    if (t.dst < period) continue;
    const auto turns = static_cast<std::uint64_t>((t.dst - t.dst % period) / rotation.ranks);  // turned back by these
    const auto turn = [&](BufferKind b, std::uint64_t offset) {
      const auto k = static_cast<std::size_t>(b);
      return turned_back(offset, t.count, s.buffer_elements(t.dst, b), turns, rotation.elements[k], rotation.within[k]);
    };
    t.dst_offset = turn(t.dst_buffer, t.dst_offset);
    if (t.has_operand()) t.operand_offset = turn(t.operand_buffer, t.operand_offset);
    t.dst %= period;
  }
  return s;
}

OnePeriod build_one_period(const ScheduleGenerator& generate, const RankRotation& rotation, int period) {
  OnePeriod out;
  out.period = period;
  {
    KeepSendersBelow keep(period);
    out.schedule = generate();
  }
  out.dependencies = derive_dependencies(turned_to_first_period(out.schedule, rotation, period));
  out.totals = whole_totals(out.schedule, period);
  return out;
}

bool turns_onto_itself(const Topology& t, int period) {
  const int q = rotation_period(t);
  return q > 0 && period % q == 0 && t.ranks % period == 0;
}

Prediction predict_one_period(const Schedule& one_period, const DependencyGraph& g, int period, const Topology& t) {
  if (!turns_onto_itself(t, period))
    throw std::logic_error(fmt::format("predict_one_period: the topology does not turn onto itself by {} ranks", period));
  if (one_period.total_ranks != t.ranks)
    throw std::logic_error(fmt::format("predict_one_period: a schedule of {} ranks on a topology of {}",
                                       one_period.total_ranks, t.ranks));
  des::Simulation sim(t, one_period.channels, nullptr, true);
  sim.use_link_orbits(link_orbits(t, period));
  sim.add(one_period, 0, 0, g);
  sim.advance(false);
  return std::move(sim).finish();
}

SymmetricModel predict_symmetric(const ScheduleGenerator& generate, const RankRotation& rotation, const Topology& t) {
  const int period = symmetric_period(t, rotation).value_or(0);
  if (period == 0) throw std::logic_error("predict_symmetric: the topology does not turn onto itself by the rotation");
  OnePeriod one = build_one_period(generate, rotation, period);
  SymmetricModel out;
  out.period = period;
  out.prediction = predict_one_period(one.schedule, one.dependencies, period, t);
  out.schedule = std::move(one.schedule);
  out.totals = std::move(one.totals);
  return out;
}

}  // namespace collsim
