// A schedule that looks the same from every rank, predicted from one period of its ranks.
//
// A ring's rank r+1 does what rank r does, a chunk further along (RankRotation, in
// sim/schedule/algorithm.h), and a switch, or a cluster of equal nodes, looks the same from
// every rank, or every node (rotation_period, topology.h). Turning the ranks by the
// topology's period P then maps the schedule, the topology and so every time the simulation
// computes onto themselves: transfer (step k, rank r + P) begins and ends when (step k,
// rank r) does. So the model predicts only the transfers sent by ranks 0..P-1, each to its
// real receiver on its real route, with two translations that stand for the ranks left out:
//   - dependencies: a receiver at or beyond P is, for the derivation, the rank of the first
//     period in its place (rank d as d mod P), its regions turned back with it; so rank 0's
//     next send waits for what rank P-1 sent "to rank P", which is what rank N-1 sends it;
//   - links: every link's traffic is its orbit's (link_orbits): what rank P-1 sends over
//     node 1's network link in, node 0's receives from node N/P-1 at the same time.
// P·2(N-1) transfers instead of N·2(N-1): a 16 384-rank ring all-reduce on a switch is
// 32 766 transfers. docs/timing-model.md, "Symmetric schedules", says why it is exact;
// tests/test_symmetric_model.cpp holds it to the whole prediction, transfer by transfer.
#pragma once
#include <optional>

#include "sim/model/timing_model.h"

namespace collsim {

struct SymmetricModel {
  int period = 0;         // P: the ranks whose transfers were predicted
  Schedule schedule;      // their transfers (receivers and routes as they are); labels, stages as whole
  ScheduleTotals totals;  // the whole schedule's, by symmetry
  Prediction prediction;  // per transfer of `schedule`; total_ns, busiest links and links used: the whole's
};

// The period by which `rotation`'s schedule on `t` can be predicted: the least multiple of
// the rotation's turn and rotation_period(t), or nullopt where the topology has none or the
// period does not divide the ranks.
std::optional<int> symmetric_period(const Topology& t, const RankRotation& rotation);

// Predicts the schedule `generate` builds (it is run under KeepSendersBelow(P), so its
// ScheduleBuilder keeps ranks 0..P-1's transfers) as above. logic_error where the schedule
// is not what `rotation` says (a region turned across a buffer's end, a route holding two
// links of one orbit).
SymmetricModel predict_symmetric(const ScheduleGenerator& generate, const RankRotation& rotation, const Topology& t);

// The parts of predict_symmetric, for a caller that predicts one period more than once (a
// lesson's phase placed with its ranks' start times, its latency and bandwidth parts):
// one period's transfers (generated under KeepSendersBelow(period)), their dependencies as
// turned_to_first_period sees them, and the whole schedule's totals.
struct OnePeriod {
  int period = 0;
  Schedule schedule;
  DependencyGraph dependencies;
  ScheduleTotals totals;
};
OnePeriod build_one_period(const ScheduleGenerator& generate, const RankRotation& rotation, int period);
// Whether turning `t` by `period` ranks maps it onto itself (its links, late and slow ranks
// included): rotation_period(t) divides the period, which divides the ranks.
bool turns_onto_itself(const Topology& t, int period);
// Predicts one period (`g` from turned_to_first_period) on `t` as predict_symmetric does: the
// times of its transfers; total_ns, busiest links and links used are the whole schedule's.
// logic_error where !turns_onto_itself(t, period).
Prediction predict_one_period(const Schedule& one_period, const DependencyGraph& g, int period, const Topology& t);

// run_model for a symmetric schedule (defined in timing_model.cpp beside run_model and
// run_model_streamed, so that every kind of prediction chooses a protocol alike): under
// protocol auto each candidate is predicted from its period. InputError for a bad
// configuration; logic_error where the topology has no period (check symmetric_period first).
struct SymmetricModelRun {
  ModelRun model;         // its prediction's times are per transfer of `schedule`
  int period = 0;
  Schedule schedule;      // one period's transfers
  ScheduleTotals totals;  // the whole schedule's
};
SymmetricModelRun run_model_symmetric(const ScheduleGenerator& generate, const RankRotation& rotation,
                                      const TopologyConfig& config, int workers, int total_ranks);
// run_model for one period already built (build_one_period's schedule and dependencies): under
// protocol auto each candidate predicted from it.
ModelRun run_model_one_period(const Schedule& one_period, const DependencyGraph& g, int period,
                              const TopologyConfig& config, int workers, int total_ranks);

// The schedule of one period as the dependency derivation sees it: every receiver at or
// beyond the period replaced by the rank of the first period in its place, its regions
// turned back with it (logic_error for a region the rotation would cut in two).
Schedule turned_to_first_period(const Schedule& one_period, const RankRotation& rotation, int period);

}  // namespace collsim
