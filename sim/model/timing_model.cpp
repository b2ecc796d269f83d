// The timing model's entry points (timing_model.h): the cost of a message, a whole
// prediction, protocol auto, the latency/bandwidth split and the bytes on each link. The
// simulation itself is in simulation.h; the streamed prediction in streamed_model.cpp.
#include "sim/model/timing_model.h"

#include <algorithm>
#include <limits>

#include "sim/model/simulation.h"
#include "sim/model/symmetric_model.h"

namespace collsim {

CostParams cost_params(const Topology& t) {
  return {t.link_latency_us * 1000.0, 1.0 / (t.link_gbps * t.bandwidth_share), 1.0 / t.reduce_rate_gbps,
          1.0 / t.copy_rate_gbps, t.base_latency_ns};
}

TransferTime message_time(const Topology& t, const std::vector<Hop>& route, int dst, double copied_bytes,
                          double reduced_bytes, int channels) {
  const double slow = t.slow[static_cast<std::size_t>(dst)];
  const double gamma = 1.0 / t.reduce_rate_gbps, delta = 1.0 / t.copy_rate_gbps;  // GB/s = bytes per ns
  // local: memory only, at the rank's whole rates (local work is no channel's)
  if (route.empty()) return {0, copied_bytes * delta * slow + reduced_bytes * gamma * slow};
  // A channel has its share of every link and of the receiver's reduce rate (one of the
  // GPU's thread blocks among `channels`). Times 1 is exact, so one channel predicts as
  // before channels existed.
  const double compute = reduced_bytes * gamma * slow * channels;
  double bytes = 0, latency = 0;
  for (const Hop& h : route) {
    bytes += (copied_bytes + reduced_bytes) * h.beta_ns_per_byte * channels;
    latency += h.alpha_ns;
  }
  // Hockney: the links are held for the latency too; as delay, for the bytes only.
  const double links = t.latency_rule == LatencyRule::delay ? bytes : latency + bytes;
  return {links, latency + bytes + compute};
}

Prediction predict(const Schedule& s, const DependencyGraph& g, const Topology& t) {
  des::Simulation sim(t, s.channels, nullptr, true);
  sim.add(s, 0, 0, g);
  sim.advance(false);
  return std::move(sim).finish();
}


Topology cost_part_topology(const Topology& t, CostPart part) {
  Topology only = t;
  if (part == CostPart::latency) {  // infinitely fast links, reductions and copies: 1/rate = 0
    std::fill(only.ns_per_byte.begin(), only.ns_per_byte.end(), 0.0);
    only.reduce_rate_gbps = only.copy_rate_gbps = std::numeric_limits<double>::infinity();
  } else {  // links without latency, and no protocol base latency
    std::fill(only.latency_ns.begin(), only.latency_ns.end(), 0.0);
    only.base_latency_ns = 0;
  }
  return only;
}

double cost_part_ns(const Schedule& s, const DependencyGraph& g, const Topology& t, CostPart part) {
  return predict(s, g, cost_part_topology(t, part)).total_ns;
}

CostSplit split_latency_bandwidth(const Schedule& s, const DependencyGraph& g, const Topology& t) {
  return {cost_part_ns(s, g, t, CostPart::latency), cost_part_ns(s, g, t, CostPart::bandwidth)};
}

namespace {

// run_model's choice of protocol, for a predict(topology) of either kind: under auto, every
// candidate the topology allows, predicted in full; the smallest time wins, the earlier
// candidate on a tie (NCCL's tuner: topoGetAlgoInfo in src/enqueue.cc keeps the first
// minimum of its cost table).
template <class Predict>
ModelRun choose_protocol(const TopologyConfig& config, int workers, int total_ranks, Predict&& predict_on) {
  ModelRun m{make_topology(config, workers, total_ranks), {}, config, {}};
  if (config.protocol != Protocol::automatic) {
    m.prediction = predict_on(m.topology);
    return m;
  }
  const LinkClass rank_links = m.topology.link_class;
  bool first = true;
  for (Protocol p : kCandidateProtocols) {
    if (!auto_considers(p, rank_links)) continue;
    Topology t = make_topology(with_protocol(config, p), workers, total_ranks);
    Prediction pred = predict_on(t);
    m.candidates.push_back({p, pred.total_ns});
    if (first || pred.total_ns < m.prediction.total_ns) {
      m.topology = std::move(t);
      m.prediction = std::move(pred);
    }
    first = false;
  }
  return m;
}

}  // namespace

ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config) {
  return run_model(s, g, config, s.spec.ranks, s.total_ranks);
}

ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config, int workers,
                   int total_ranks) {
  return choose_protocol(config, workers, total_ranks, [&](const Topology& t) { return predict(s, g, t); });
}

StreamedModelRun run_model_streamed(const ScheduleGenerator& generate, const TopologyConfig& config, int workers,
                                    int total_ranks, const StreamOptions& options) {
  StreamedModelRun out;
  out.model = choose_protocol(config, workers, total_ranks, [&](const Topology& t) {
    StreamedModel m = predict_streamed(generate, t, options);
    out.schedule = std::move(m.schedule);
    out.totals = std::move(m.totals);
    out.peak_window_transfers = std::max(out.peak_window_transfers, m.peak_window_transfers);
    return std::move(m.prediction);
  });
  return out;
}

SymmetricModelRun run_model_symmetric(const ScheduleGenerator& generate, const RankRotation& rotation,
                                      const TopologyConfig& config, int workers, int total_ranks) {
  SymmetricModelRun out;
  out.model = choose_protocol(config, workers, total_ranks, [&](const Topology& t) {
    SymmetricModel m = predict_symmetric(generate, rotation, t);
    out.period = m.period;
    out.schedule = std::move(m.schedule);
    out.totals = std::move(m.totals);
    return std::move(m.prediction);
  });
  return out;
}

ModelRun run_model_one_period(const Schedule& one_period, const DependencyGraph& g, int period,
                              const TopologyConfig& config, int workers, int total_ranks) {
  return choose_protocol(config, workers, total_ranks,
                         [&](const Topology& t) { return predict_one_period(one_period, g, period, t); });
}

std::vector<double> link_bytes(const Schedule& s, const Topology& t) {
  std::vector<double> bytes(t.link_count(), 0.0);
  std::vector<Hop> hops;
  for (const Transfer& tr : s.transfers) {
    route(t, tr.src, tr.dst, hops);
    for (const Hop& h : hops)
      for (int k = 0; k < h.count; ++k) bytes[h.links[static_cast<std::size_t>(k)]] += static_cast<double>(s.bytes(tr));
  }
  return bytes;
}

}  // namespace collsim
