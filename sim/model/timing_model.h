// The timing model: a discrete-event α-β-γ simulation of a Schedule on a Topology. It
// predicts when every transfer would begin and end; docs/timing-model.md explains it
// with a worked example.
//
// The rules, all in simulation.h (the one simulation behind predict and predict_streamed):
//   - A transfer becomes ready when every transfer it depends on (the derived graph of
//     dependencies.h: read after write, write after read, write after write) has ended,
//     and not before a late rank at either end has started, plus the protocol's base
//     latency (topology.h: none under protocol none), which every rank so pays once, at
//     its start. There is no barrier between steps: steps are the teaching view only.
//   - It then needs every link of its route (topology.h). Contention is serialisation:
//     a link carries one transfer at a time, in the order the transfers became ready
//     (ties: schedule order). A transfer starts once every link of its route has finished
//     the transfers that became ready before it, and holds them all until its last byte
//     has arrived.
//   - Time on the links: α + bytes·β per hop (one hop for a switched path, one per
//     neighbour along a ring). A reduce then adds bytes·γ at the receiver, after the links
//     are released. A local transfer (src == dst) uses no link: bytes·δ for a copy
//     (δ = 1 / the copy rate), bytes·γ for a reduce. A slow rank multiplies its γ and δ.
//   - Channels (Schedule::channels, MSCCL's nchannels): every link is split into that many
//     lanes, each with 1/channels of its bandwidth (β·channels) and the whole α; a
//     transfer holds its own channel's lane of every link of its route. Transfers on
//     different channels share a link side by side; on one channel they queue as above.
//     A channel also has 1/channels of the receiver's reduce rate (γ·channels): one of
//     its thread blocks among `channels`. Local work is no channel's: the rank's whole
//     rates, one batch per step whatever the transfers' channels.
//     This is NCCL's own accounting: its topology search gives each channel a share of
//     every link it crosses (src/graph/search.cc), and its tuner adds the channels'
//     bandwidths (src/graph/tuning.cc). A channel left idle is bandwidth lost.
//   - Local pre- and post-operations (filling accumulators, the ring's input-to-output
//     copy, avg's division) are not timed: they are how collsim lays out buffers, and
//     real libraries fold them into the first and last transfers.
// Times are doubles in ns; the simulation is sequential and deterministic: the same
// schedule and topology give bit-identical predictions.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "sim/check/dependencies.h"
#include "sim/schedule/algorithm.h"
#include "sim/schedule/schedule.h"
#include "sim/model/topology.h"

namespace collsim {

// CostParams (the α-β-γ-δ of the closed forms) is in sim/schedule/algorithm.h.
// The rank links' figures (a switch port) under the topology's protocol (its per-hop
// latency, its share of the bandwidth, its base latency), the rates and no stragglers:
// what the closed forms assume everywhere.
CostParams cost_params(const Topology& t);

// The one time function of the model, for a message (one or more transfers of one step
// from one rank to another, with `copied_bytes` copied and `reduced_bytes` reduced):
//   on the links:  sum over the hops of (α + bytes·β)             (0 for a local message)
//   then:          reduced_bytes·γ at the receiver                (a reduce)
//   local:         copied_bytes·δ + reduced_bytes·γ, no links    (δ = 1 / copy rate)
// γ and δ are multiplied by the receiver's slow-down factor. An empty route means local.
// With `channels` > 1 a message over links has one channel's share: β and γ times channels.
struct TransferTime {
  double links_ns = 0;  // from its start until its links are free again
  double total_ns = 0;  // from its start until it ends
};
TransferTime message_time(const Topology& t, const std::vector<Hop>& route, int dst, double copied_bytes,
                          double reduced_bytes, int channels = 1);

struct LinkLoad {
  std::uint32_t link = 0;
  double busy_ns = 0;  // time the link carried transfers
};

struct Prediction {
  std::vector<double> begin_ns, end_ns;  // per transfer, in schedule order
  double total_ns = 0;                   // the last end; 0 without transfers
  std::vector<LinkLoad> busiest;         // the most loaded links, busiest first (ties: the one whose own
                                         // bytes take longest at its speed, then the lower number)
  std::size_t links_used = 0;            // links that carried anything
};

inline constexpr std::size_t kBusiestLinks = 3;

Prediction predict(const Schedule& s, const DependencyGraph& g, const Topology& t);

// --- streamed: a schedule predicted while its algorithm generates it ----------------------
// predict() holds the whole schedule, its dependency graph and every time at once: 110
// bytes a transfer, 3.5 GB for a 4096-rank ring. predict_streamed takes the steps as the
// algorithm's ScheduleBuilder hands them on (StreamSteps), derives the dependencies of each
// batch of steps over the transfers not yet ended, simulates until the next batch is
// needed, and forgets what has ended: memory grows with the ranks and the steps in flight,
// not with the transfers. The same simulation runs either way, so the times are the same
// to the bit (tests/test_streamed_model.cpp checks every algorithm that streams).

// Transfers [first, last) of the schedule (one message) were predicted to run from begin_ns
// to end_ns: a streamed prediction keeps no per-transfer times, it hands them on.
using TransferTimesObserver = std::function<void(std::uint64_t first, std::uint64_t last, double begin_ns, double end_ns)>;

struct StreamOptions {
  // Steps are added to the simulation in batches of at least this many transfers: each
  // batch's dependencies are derived again over the transfers still in flight, so a batch
  // of many steps costs little more than the steps themselves. 1: every step on its own.
  // 2^18 measured fastest at 4 096 and 16 384 ranks (docs/performance.md): larger batches
  // fault their arrays in again every time and leave the cache; smaller ones derive the
  // steps still in flight again too often.
  std::size_t batch_transfers = std::size_t{1} << 18;
  // How far the steps generated must reach beyond the furthest step a transfer has started
  // from: the algorithm's window (stream_window_steps in sim/schedule/algorithm.h), so that
  // every transfer is known before anything it depends on has ended.
  int window_steps = 1;
  TransferTimesObserver observe;  // may be empty
  // Called after each batch with the transfers predicted so far (a long run's progress).
  std::function<void(std::uint64_t transfers)> progress;
};

// Runs the algorithm's build, which streams its steps (StreamSteps is open around it), and
// returns the schedule without its transfers.
using ScheduleGenerator = std::function<Schedule()>;

struct StreamedModel {
  Schedule schedule;      // its labels, stages, scratch and local operations; no transfers
  ScheduleTotals totals;  // counted as the steps went by
  Prediction prediction;  // begin_ns and end_ns empty: StreamOptions::observe had them
  std::size_t peak_window_transfers = 0;  // the most transfers a batch's window held (the simulation's)
  // Batches whose dependencies were derived again over more steps, because transfers from
  // further back were still in flight when they were added (ranks that drifted apart).
  std::size_t batches_derived_again = 0;
};

// The algorithm's schedule cannot be predicted step by step: a transfer would have become
// ready before the steps before it were done generating it (it depends on nothing still in
// flight). Such an algorithm is predicted whole (predict()).
struct NotStreamable : std::logic_error {
  using std::logic_error::logic_error;
};

StreamedModel predict_streamed(const ScheduleGenerator& generate, const Topology& t, const StreamOptions& options = {});

// A prediction split into its latency part and its bandwidth part, so a student can see
// which dominates (docs/timing-model.md, "Latency and bandwidth"): the same schedule on the
// same topology, predicted twice by the same rules —
//   latency_ns:   with every link's bytes·β and every rank's bytes·γ and bytes·δ at 0, so
//                 only the α of the messages on the critical path counts (and the
//                 protocol's base latency);
//   bandwidth_ns: with every link's α and the base latency at 0, so only bytes·β, bytes·γ
//                 and bytes·δ count
//                 (moving the bytes, and reducing and copying them).
// Stragglers' late starts stay in both (they are neither). The two parts need not add up to
// the full prediction: with both costs present the critical path and the order in which
// messages queue for a link change, so the total may be more or less than their sum (it is
// at least the larger of the two).
struct CostSplit {
  double latency_ns = 0;
  double bandwidth_ns = 0;
};
CostSplit split_latency_bandwidth(const Schedule& s, const DependencyGraph& g, const Topology& t);
// One of the two parts alone (one prediction, not two): what a lesson's question asks.
enum class CostPart { latency, bandwidth };
double cost_part_ns(const Schedule& s, const DependencyGraph& g, const Topology& t, CostPart part);
// The topology cost_part_ns predicts on: `t` with only that part's costs left.
Topology cost_part_topology(const Topology& t, CostPart part);

// The bytes each directed link of `t` carries over the whole schedule, along the
// topology's routes (route()): what the views label links with.
std::vector<double> link_bytes(const Schedule& s, const Topology& t);

// What protocol `auto` predicted for one candidate.
struct ProtocolTime {
  Protocol protocol = Protocol::none;
  double total_ns = 0;
  friend bool operator==(const ProtocolTime&, const ProtocolTime&) = default;
};

// A prediction with the topology it was made on (under the protocol used: auto's choice,
// topology.protocol), and that topology's configuration as given (what a trace records,
// so that a replay can run again on the same topology).
struct ModelRun {
  Topology topology;
  Prediction prediction;
  TopologyConfig config;
  // With protocol auto: every candidate's time, in kCandidateProtocols' order (LL128 only
  // where auto_considers it); empty otherwise.
  std::vector<ProtocolTime> candidates;
};
// Resolves the configuration for the schedule's ranks and predicts (InputError for a bad
// configuration, naming the flag, key or file position). With protocol auto it predicts
// under each candidate and keeps the fastest, as NCCL's tuner picks the protocol with the
// least estimated time (docs/timing-model.md, "Protocols").
ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config);
// The same on a topology resolved for `workers` and `total_ranks` (a lesson program's,
// which may have more ranks than this collective).
ModelRun run_model(const Schedule& s, const DependencyGraph& g, const TopologyConfig& config, int workers,
                   int total_ranks);

// run_model for a schedule streamed as it is generated (predict_streamed): under protocol
// auto, each candidate streams it again.
struct StreamedModelRun {
  ModelRun model;         // its prediction's begin_ns and end_ns are empty
  Schedule schedule;      // without transfers (StreamedModel)
  ScheduleTotals totals;
  std::size_t peak_window_transfers = 0;
};
StreamedModelRun run_model_streamed(const ScheduleGenerator& generate, const TopologyConfig& config, int workers,
                                    int total_ranks, const StreamOptions& options = {});

}  // namespace collsim
