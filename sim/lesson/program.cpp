// Running a lesson (program.h). The rules of the timing are lesson.h's header comment;
// docs/timing-model.md ("Lessons: phases on compute and communication streams") explains
// them with an example.
//
// Each distinct collective (equal RunRequest) is built, checked, executed and verified
// once; a phase is a range of its steps. The timing model then places the phases one after
// the other, per rank: each rank has a compute stream and a communication stream, and a
// phase starts on a rank when its stream is free and the named regions it reads or writes
// are (read after write, write after write, write after read). A collective phase is one
// predict() of its steps with every rank's ready time as its late start, so the existing
// simulation does the work: a rank that is ready late delays exactly the transfers that
// touch it.
#include "sim/lesson/program.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/check/dependencies.h"
#include "sim/model/symmetric_model.h"
#include "sim/run/bench.h"
#include "sim/core/errors.h"

namespace collsim {
namespace {

// RunRequest has no operator==; every field that changes what runs counts.
bool same_request(const RunRequest& a, const RunRequest& b) {
  const CollectiveSpec &x = a.spec, &y = b.spec;
  const AlgorithmOptions &o = a.options, &q = b.options;
  return x.collective == y.collective && x.ranks == y.ranks && x.count == y.count && x.dtype == y.dtype &&
         x.op == y.op && x.root == y.root && x.in_place == y.in_place && a.algorithm == b.algorithm &&
         o.slices == q.slices && o.servers == q.servers && o.colocated == q.colocated &&
         o.ranks_per_node == q.ranks_per_node && o.schedule_file == q.schedule_file && a.seed == b.seed &&
         a.input_values == b.input_values;
}

// "lesson.toml:12:1: phase 3 ('all-reduce bucket 1')", for errors about one phase.
std::string phase_where(const Phase& phase, std::size_t index) {
  return fmt::format("{}: phase {} ('{}')", phase.origin.empty() ? "lesson" : phase.origin, index + 1, phase.name);
}

// The distinct collectives so far, with the request as the phases asked for it (the run's
// own request has its options resolved: slices 0 became the algorithm's default).
struct DistinctRun {
  RunRequest asked;
  std::shared_ptr<RunResult> run;
};

// The run a phase names: the earlier phase's when one asked for the same collective, or
// for one that resolved to what this phase asks (slices 0 there, the default given here).
// Above kMaxRanks on the model alone, a collective that looks the same from every node
// holds one node's transfers (prepare_one_period_model_run; `topology` decides whether it
// does); any other is built whole.
std::shared_ptr<RunResult> run_for(const Phase& phase, std::size_t index, bool model_only, const PrepareOptions& options,
                                   const TopologyConfig& topology, std::vector<DistinctRun>& runs) {
  for (const DistinctRun& d : runs)
    if (same_request(phase.request, d.asked) || same_request(phase.request, d.run->request)) return d.run;
  try {
    std::optional<RunResult> one_period;
    if (model_only && phase.request.spec.ranks > kMaxRanks)
      one_period = prepare_one_period_model_run(phase.request, topology);
    auto run = std::make_shared<RunResult>(one_period ? std::move(*one_period)
                                           : model_only ? prepare_model_run(phase.request, options)
                                                        : prepare_run(phase.request, options));
    runs.push_back({phase.request, run});
    return run;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", phase_where(phase, index), e.what()));
  }
}

// Steps first..last (1-based, inclusive) of `whole`, renumbered so that `first` becomes
// the phase's step 0 (shown as step 1). Pre-operations belong to the range that starts at
// the first step and post-operations to the one that ends at the last: the backends run
// them around the whole collective, and the timing model does not time them, so what the
// sub-schedule keeps of them only matters to views that show buffers phase by phase.
// Dependencies are derived from the transfers' regions alone, so the sub-schedule's
// derived graph is the whole graph's restricted to the range.
Schedule sub_schedule(const Schedule& whole, int first, int last, std::vector<std::size_t>& source) {
  Schedule s = schedule_header(whole);  // its channels too: a part's transfers keep theirs
  if (first == 1) s.pre_ops = whole.pre_ops;
  if (last == whole.step_count()) s.post_ops = whole.post_ops;
  s.step_labels.assign(whole.step_labels.begin() + (first - 1), whole.step_labels.begin() + last);
  if (!whole.step_stages.empty())
    s.step_stages.assign(whole.step_stages.begin() + (first - 1), whole.step_stages.begin() + last);
  for (std::size_t i = 0; i < whole.transfers.size(); ++i) {
    const Transfer& t = whole.transfers[i];
    if (t.step < first - 1 || t.step > last - 1) continue;
    s.transfers.push_back(t);
    s.transfers.back().step -= first - 1;
    source.push_back(i);
  }
  return s;
}

void set_phase_schedule(PhaseRun& pr, const Phase& phase, std::size_t index) {
  const Schedule& whole = pr.run->schedule;
  const int steps = whole.step_count();
  if (phase.first_step == 0 && phase.last_step == 0) {
    pr.schedule = whole;
    pr.source_transfer.resize(whole.transfers.size());
    std::iota(pr.source_transfer.begin(), pr.source_transfer.end(), std::size_t{0});
    return;
  }
  if (holds_one_period(*pr.run))
    throw InputError(fmt::format("{}: steps [{}, {}]: at {} ranks its collective is predicted from one node's "
                                 "transfers, and a part of it cannot be (run it whole, or at most {} ranks)",
                                 phase_where(phase, index), phase.first_step, phase.last_step,
                                 pr.run->schedule.spec.ranks, kMaxRanks));
  if (phase.first_step < 1 || phase.last_step < phase.first_step || phase.last_step > steps)
    throw InputError(fmt::format("{}: steps [{}, {}] is not a range of the collective's {} step{} (1..{})",
                                 phase_where(phase, index), phase.first_step, phase.last_step, steps,
                                 steps == 1 ? "" : "s", steps));
  pr.schedule = sub_schedule(whole, phase.first_step, phase.last_step, pr.source_transfer);
}

void check_compute(const Phase& phase, std::size_t index, int total_ranks) {
  if (static_cast<int>(phase.compute_us.size()) > total_ranks)
    throw InputError(fmt::format("{}: compute gives {} durations, but the program has {} ranks",
                                 phase_where(phase, index), phase.compute_us.size(), total_ranks));
  for (std::size_t r = 0; r < phase.compute_us.size(); ++r)
    if (!(phase.compute_us[r] >= 0) || phase.compute_us[r] > 1e15)
      throw InputError(fmt::format("{}: rank {}'s compute time must be a number of µs from 0 to 1e15, got {}",
                                   phase_where(phase, index), r, phase.compute_us[r]));
  // A phase nobody takes part in would have no place in time.
  if (std::none_of(phase.compute_us.begin(), phase.compute_us.end(), [](double us) { return us > 0; }))
    throw InputError(fmt::format("{}: no rank computes in it (every duration is 0)", phase_where(phase, index)));
}

// Events name earlier phases (the loader resolves names; a generator gives indices), and
// an allocation is a size in bytes.
void check_waits_and_memory(const Phase& phase, std::size_t index) {
  for (const std::vector<int>* waits : {&phase.wait_for, &phase.host_wait_for})
    for (const int k : *waits)
      if (k < 0 || static_cast<std::size_t>(k) >= index)
        throw InputError(fmt::format("{}: waits for phase {}, which is not an earlier phase", phase_where(phase, index),
                                     k + 1));
  for (const auto& [name, bytes] : phase.allocates)
    if (name.empty() || !(bytes >= 0) || bytes > 1e18)
      throw InputError(fmt::format("{}: allocation '{}' must have a name and a size from 0 to 1e18 bytes, got {}",
                                   phase_where(phase, index), name, bytes));
}

// Phases that run parts of one collective must run its steps in order, each once: a
// range starts at step 1 or right after the previous range of the same collective, and
// the last range reaches its last step. (Whole phases of one request may repeat: equal
// collectives on different data, executed once.)
void check_step_ranges(const Scenario& s, const ProgramResult& p) {
  std::map<const RunResult*, std::pair<int, std::size_t>> next;  // run -> (next step, phase that ran the last range)
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    const Phase& phase = s.phases[k];
    if (!p.phases[k].run || phase.first_step == 0) continue;
    auto [it, fresh] = next.try_emplace(p.phases[k].run.get(), 1, k);
    const int expected = it->second.first;
    if (phase.first_step != 1 && expected == 1)
      throw InputError(fmt::format("{}: steps [{}, {}] must start at step 1: no phase before it runs steps 1..{} of "
                                   "this collective (the phases of one collective run its steps in order, each once)",
                                   phase_where(phase, k), phase.first_step, phase.last_step, phase.first_step - 1));
    if (phase.first_step != 1 && phase.first_step != expected)
      throw InputError(fmt::format(
          "{}: steps [{}, {}] must start at step {}, right after the steps phase {} ran: the phases of one "
          "collective run its steps in order, each once",
          phase_where(phase, k), phase.first_step, phase.last_step, expected, it->second.second + 1));
    if (phase.first_step == 1 && expected != 1)
      throw InputError(fmt::format("{}: starts the collective again at step 1, but phase {} left it at step {}: "
                                   "run steps {}..{} first",
                                   phase_where(phase, k), it->second.second + 1, expected - 1, expected,
                                   p.phases[k].run->schedule.step_count()));
    const bool done = phase.last_step == p.phases[k].run->schedule.step_count();
    it->second = {done ? 1 : phase.last_step + 1, k};
  }
  for (const auto& [run, state] : next)
    if (state.first != 1)
      throw InputError(fmt::format("{}: no later phase runs steps {}..{} of its collective: every step must be run "
                                   "by some phase",
                                   phase_where(s.phases[state.second], state.second), state.first,
                                   run->schedule.step_count()));
}

std::vector<std::shared_ptr<RunResult>> distinct_runs(const ProgramResult& p) {
  std::vector<std::shared_ptr<RunResult>> runs;
  for (const std::size_t k : first_phases_of_runs(p)) runs.push_back(p.phases[k].run);
  return runs;
}

// As run.cpp refuses one run's buffers, for all of the program's runs at once: they are
// allocated one after the other, but the GUI keeps them all (keep_buffers).
void refuse_if_too_large(const std::vector<DistinctRun>& runs) {
  double need = 0;
  for (const DistinctRun& d : runs) need += buffer_bytes(d.run->schedule);
  const std::uint64_t have = available_memory_bytes();
  if (have > 0 && need > 0.8 * static_cast<double>(have))
    throw InputError(fmt::format("the lesson's {} collective{} need {} of buffers together, but only {} of memory "
                                 "is available",
                                 runs.size(), runs.size() == 1 ? "" : "s", format_bytes(need),
                                 format_bytes(static_cast<double>(have))));
}

// ---------------------------------------------------------------------------------------
// The timeline: streams and named regions per rank
// ---------------------------------------------------------------------------------------

struct RegionTimes {
  double last_write_end = 0, last_read_end = 0;
};

// One rank's state as the phases are placed in program order.
struct RankState {
  double start = 0;  // a straggler's streams start late (Topology::late_ns)
  std::map<std::string, double, std::less<>> stream_free;  // when each stream is free
  double default_stream_end = 0;  // the last phase on the legacy default stream ended
  double host = 0;                // the host issues the next phase no earlier
  std::map<std::string, RegionTimes, std::less<>> regions;
};

class Timeline {
 public:
  // A late rank's streams start late: the straggler's delay applies once, at program start.
  Timeline(const Topology& t, const std::vector<PhaseRun>& placed) : ranks_(t.late_ns.size()), placed_(placed) {
    for (std::size_t r = 0; r < ranks_.size(); ++r) ranks_[r].start = ranks_[r].host = t.late_ns[r];
  }

  // The host of rank r issues `phase`: it first waits for what the phase's host waits
  // name (and, for a synchronisation, for everything issued so far). Call once per phase
  // and rank, before ready().
  void issue(std::size_t r, const Phase& phase) {
    RankState& s = ranks_[r];
    for (const int k : phase.host_wait_for) s.host = std::max(s.host, end_on(r, k));
    if (phase.synchronize)
      for (const auto& [name, free] : s.stream_free) s.host = std::max(s.host, free);
  }

  // When rank r may start `phase`: the host has issued it, its stream is free (the
  // default stream: every stream is), the events it waits for have happened, what it
  // reads has been written (read after write), and what it writes is no longer written
  // (write after write) or read (write after read) by an earlier phase.
  double ready(std::size_t r, const Phase& phase) const {
    const RankState& s = ranks_[r];
    const std::string_view stream = phase_stream(phase);
    double t = std::max({s.start, s.host, s.default_stream_end});
    if (stream == kDefaultStream)
      for (const auto& [name, free] : s.stream_free) t = std::max(t, free);
    else if (const auto it = s.stream_free.find(stream); it != s.stream_free.end())
      t = std::max(t, it->second);
    for (const int k : phase.wait_for) t = std::max(t, end_on(r, k));
    for (const std::string& name : phase.reads)
      if (const RegionTimes* g = find(s, name)) t = std::max(t, g->last_write_end);
    for (const std::string& name : phase.writes)
      if (const RegionTimes* g = find(s, name)) t = std::max({t, g->last_write_end, g->last_read_end});
    return t;
  }

  // Rank r ran `phase` until `end`.
  void finish(std::size_t r, const Phase& phase, double end) {
    RankState& s = ranks_[r];
    const std::string_view stream = phase_stream(phase);
    double& free = s.stream_free[std::string(stream)];
    free = std::max(free, end);
    if (stream == kDefaultStream) s.default_stream_end = std::max(s.default_stream_end, end);
    for (const std::string& name : phase.reads) {
      double& t = s.regions[name].last_read_end;
      t = std::max(t, end);
    }
    for (const std::string& name : phase.writes) {
      double& t = s.regions[name].last_write_end;
      t = std::max(t, end);
    }
  }

 private:
  static const RegionTimes* find(const RankState& s, std::string_view name) {
    const auto it = s.regions.find(name);
    return it == s.regions.end() ? nullptr : &it->second;
  }
  // When earlier phase k ended on rank r; 0 (no wait) where r took no part in it.
  double end_on(std::size_t r, int k) const {
    const PhaseRun& pr = placed_[static_cast<std::size_t>(k)];
    return r < pr.rank_end_ns.size() ? std::max(0.0, pr.rank_end_ns[r]) : 0.0;
  }
  std::vector<RankState> ranks_;
  const std::vector<PhaseRun>& placed_;  // the program's phases; those before the current one are placed
};

double compute_us_of(const Phase& phase, std::size_t r) {
  return r < phase.compute_us.size() ? phase.compute_us[r] : 0.0;
}

// A compute phase: every rank with a duration computes from its ready time; a slow rank
// (straggler `slow`) takes that many times longer, as it does for its reductions.
void place_compute(PhaseRun& pr, const Phase& phase, const Topology& t, Timeline& timeline) {
  for (std::size_t r = 0; r < pr.rank_begin_ns.size(); ++r) {
    const double us = compute_us_of(phase, r);
    if (us <= 0) continue;
    timeline.issue(r, phase);
    const double begin = timeline.ready(r, phase);
    pr.rank_begin_ns[r] = begin;
    pr.rank_end_ns[r] = begin + us * 1000.0 * t.slow[r];
    timeline.finish(r, phase, pr.rank_end_ns[r]);
  }
}

// A phase whose run holds one period of its transfers (holds_one_period): predicted from
// them where the ranks' ready times repeat with the period, as they do after phases
// predicted so.
Prediction predict_one_period_phase(const PhaseRun& pr, const Phase& phase, const Topology& t) {
  const RunResult& run = *pr.run;
  if (!turns_onto_itself(t, run.symmetric_period))
    throw InputError(fmt::format(
        "{}: at {} ranks this collective is predicted from the transfers of ranks 0-{} (one node), which needs the "
        "nodes to start it alike; here its ranks are ready at times that do not repeat from node to node (an earlier "
        "phase ended unevenly): put it before the phases predicted whole (trees), or run at most {} ranks",
        phase_where(phase, static_cast<std::size_t>(pr.phase)), run.schedule.spec.ranks, run.symmetric_period - 1,
        kMaxRanks));
  return predict_one_period(pr.schedule, run.dependencies, run.symmetric_period, t);
}

// Each rank's part in the phase, from its first transfer's begin to its last transfer's end
// (sent or received). Of a run that holds one period, rank r takes the part of rank r mod P:
// the period's transfer (src, dst) stands for every turn of itself, (src + kP, dst + kP),
// so its receiver's class is dst mod P.
void set_rank_spans(PhaseRun& pr) {
  const int period = holds_one_period(*pr.run) ? pr.run->symmetric_period : 0;
  for (std::size_t i = 0; i < pr.schedule.transfers.size(); ++i) {
    const Transfer& x = pr.schedule.transfers[i];
    for (const int rank : {x.src, x.dst}) {
      const auto r = static_cast<std::size_t>(period > 0 ? rank % period : rank);
      const bool first = pr.rank_begin_ns[r] < 0;
      pr.rank_begin_ns[r] = first ? pr.begin_ns[i] : std::min(pr.rank_begin_ns[r], pr.begin_ns[i]);
      pr.rank_end_ns[r] = first ? pr.end_ns[i] : std::max(pr.rank_end_ns[r], pr.end_ns[i]);
    }
  }
  if (period == 0) return;
  const auto p = static_cast<std::size_t>(period);
  for (std::size_t r = p; r < static_cast<std::size_t>(pr.schedule.total_ranks); ++r) {
    pr.rank_begin_ns[r] = pr.rank_begin_ns[r % p];
    pr.rank_end_ns[r] = pr.rank_end_ns[r % p];
  }
}

// A collective phase: the timing model on its steps, on its collective's topology (the
// program's, under the protocol that collective's prediction used), every rank starting
// when it is ready. A rank takes part from its first transfer's begin to its last transfer's end
// (sent or received); a rank without transfers takes no part.
void place_collective(PhaseRun& pr, const Phase& phase, const Topology& run_topology, Timeline& timeline) {
  Topology t = run_topology;
  for (std::size_t r = 0; r < t.late_ns.size(); ++r) {
    timeline.issue(r, phase);
    t.late_ns[r] = timeline.ready(r, phase);
  }
  const RunResult& run = *pr.run;
  const bool whole = pr.source_transfer.size() == run.schedule.transfers.size();
  if (whole && run.model && t.late_ns == run_topology.late_ns) {  // the whole collective's own prediction
    pr.begin_ns = run.model->prediction.begin_ns;
    pr.end_ns = run.model->prediction.end_ns;
  } else {
    const Prediction pred = holds_one_period(run) ? predict_one_period_phase(pr, phase, t)
                                                  : predict(pr.schedule, whole ? run.dependencies : derive_dependencies(pr.schedule), t);
    pr.begin_ns = pred.begin_ns;
    pr.end_ns = pred.end_ns;
  }
  set_rank_spans(pr);
  for (std::size_t r = 0; r < pr.rank_end_ns.size(); ++r)
    if (pr.rank_begin_ns[r] >= 0) timeline.finish(r, phase, pr.rank_end_ns[r]);
}

// ---------------------------------------------------------------------------------------
// Per-rank totals
// ---------------------------------------------------------------------------------------

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, disjoint, covering the same time.
Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [b, e] : v)
    if (!out.empty() && b <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(b, e);
  return out;
}

double length(const Intervals& v) {
  double n = 0;
  for (const auto& [b, e] : v) n += e - b;
  return n;
}

// Time covered by both (each sorted and disjoint).
double overlap(const Intervals& a, const Intervals& b) {
  double n = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    n += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    (a[i].second < b[j].second ? i : j) += 1;
  }
  return n;
}

void sum_up(ProgramResult& p) {
  const auto n = static_cast<std::size_t>(p.total_ranks);
  p.total_ns = 0;
  p.compute_ns.assign(n, 0);
  p.communication_ns.assign(n, 0);
  p.exposed_communication_ns.assign(n, 0);
  std::vector<Intervals> compute(n), communication(n);
  for (const PhaseRun& pr : p.phases)
    for (std::size_t r = 0; r < n; ++r) {
      if (pr.rank_begin_ns[r] < 0) continue;
      (pr.run ? communication : compute)[r].emplace_back(pr.rank_begin_ns[r], pr.rank_end_ns[r]);
      p.total_ns = std::max(p.total_ns, pr.rank_end_ns[r]);
    }
  for (std::size_t r = 0; r < n; ++r) {
    const Intervals busy = merged(compute[r]), talking = merged(communication[r]);
    p.compute_ns[r] = length(busy);
    p.communication_ns[r] = length(talking);
    p.exposed_communication_ns[r] = p.communication_ns[r] - overlap(talking, busy);
  }
}

// The memory line of every rank: each phase's allocations from its begin on the rank,
// its frees at its end; at equal times frees come first (a free and the allocation it makes
// room for may meet). A free of nothing held, or an allocation of a name already held, is
// the lesson's mistake.
void sum_memory(ProgramResult& p, const Scenario& s) {
  const auto n = static_cast<std::size_t>(p.total_ranks);
  p.memory.assign(n, {});
  p.peak_memory_bytes.assign(n, 0);
  p.peak_memory_ns.assign(n, 0);
  struct Change {
    double time_ns;
    int order;  // 0: a free, 1: an allocation
    std::size_t phase;
    const std::string* name;
    double bytes;
  };
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<Change> changes;
    for (std::size_t k = 0; k < p.phases.size(); ++k) {
      const PhaseRun& pr = p.phases[k];
      if (pr.rank_begin_ns[r] < 0) continue;
      for (const auto& [name, bytes] : s.phases[k].allocates) changes.push_back({pr.rank_begin_ns[r], 1, k, &name, bytes});
      for (const std::string& name : s.phases[k].frees) changes.push_back({pr.rank_end_ns[r], 0, k, &name, 0});
    }
    if (changes.empty()) continue;
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
      return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
    });
    std::map<std::string, double, std::less<>> held;
    double bytes = 0;
    for (const Change& c : changes) {
      const Phase& phase = s.phases[c.phase];
      if (c.order == 1) {
        if (!held.emplace(*c.name, c.bytes).second)
          throw InputError(fmt::format("{}: allocates '{}' on rank {} while it still holds it (free it first)",
                                       phase_where(phase, c.phase), *c.name, r));
        bytes += c.bytes;
      } else {
        const auto it = held.find(*c.name);
        if (it == held.end())
          throw InputError(fmt::format("{}: frees '{}' on rank {}, which holds no allocation of that name then",
                                       phase_where(phase, c.phase), *c.name, r));
        bytes -= it->second;
        held.erase(it);
      }
      if (!p.memory[r].empty() && p.memory[r].back().time_ns == c.time_ns)
        p.memory[r].back().bytes = bytes;
      else
        p.memory[r].push_back({c.time_ns, bytes});
      if (bytes > p.peak_memory_bytes[r]) {
        p.peak_memory_bytes[r] = bytes;
        p.peak_memory_ns[r] = c.time_ns;
      }
    }
  }
}

// The program's ranks that are workers (the rest are parameter servers): the largest
// collective's workers, as run_model resolves one collective's topology.

}  // namespace

double PhaseRun::begin() const {
  double b = -1;
  for (const double t : rank_begin_ns)
    if (t >= 0) b = b < 0 ? t : std::min(b, t);
  return std::max(b, 0.0);
}

double PhaseRun::end() const {
  double e = 0;
  for (const double t : rank_end_ns) e = std::max(e, t);
  return e;
}

bool ProgramResult::verified() const {
  if (!executed) return false;
  for (const PhaseRun& pr : phases)
    if (pr.run && !pr.run->verification.ok) return false;
  return true;
}

RunTimeEstimate estimate_cpu_program(const ProgramResult& p) {
  double bytes = 0;
  for (const std::size_t k : first_phases_of_runs(p)) bytes += data_moved(p.phases[k].schedule).total();
  return estimate_cpu_bytes(bytes);
}

namespace {

StreamLane lane_of(std::string_view stream) {
  if (stream == kComputeStream)
    return {std::string(stream), "compute", "the compute stream: the forward and backward kernels, one after another"};
  if (stream == kCommStream)
    return {std::string(stream), "comm",
            "the communication stream: a collective's own stream (ProcessGroupNCCL's), beside the compute one"};
  if (stream == kDefaultStream)
    return {std::string(stream), "default",
            "CUDA's legacy default stream: work on it waits for everything issued before it on the rank's other "
            "streams, and they wait for it"};
  return {std::string(stream), std::string(stream), fmt::format("the stream '{}'", stream)};
}

}  // namespace

StreamLanes stream_lanes(const Scenario& s) {
  StreamLanes out;
  out.lanes = {lane_of(kComputeStream), lane_of(kCommStream)};
  for (const Phase& phase : s.phases) {
    const std::string_view stream = phase_stream(phase);
    const auto it = std::find_if(out.lanes.begin(), out.lanes.end(), [&](const StreamLane& l) { return l.stream == stream; });
    out.lane_of_phase.push_back(static_cast<std::size_t>(it - out.lanes.begin()));
    if (it == out.lanes.end()) out.lanes.push_back(lane_of(stream));
  }
  return out;
}

std::vector<std::size_t> first_phases_of_runs(const ProgramResult& p) {
  std::vector<std::size_t> firsts;
  std::vector<const RunResult*> seen;
  for (std::size_t k = 0; k < p.phases.size(); ++k) {
    const RunResult* run = p.phases[k].run.get();
    if (!run || std::find(seen.begin(), seen.end(), run) != seen.end()) continue;
    seen.push_back(run);
    firsts.push_back(k);
  }
  return firsts;
}

int program_workers(const ProgramResult& p) {
  int workers = 0;
  for (const PhaseRun& pr : p.phases)
    if (pr.run) workers = std::max(workers, pr.run->schedule.spec.ranks);
  return workers > 0 ? workers : p.total_ranks;
}

namespace {

// A question about contributions reads the buffer history (captions.h): recorded by the
// runs' own checks rather than by a check of its own.
PrepareOptions options_for(const Scenario& s, PrepareOptions options) {
  for (const Question& q : s.questions) options.record_history |= q.metric == Metric::contributions;
  return options;
}

}  // namespace

void check_lesson_viewable(const Scenario& s, std::string_view what) {
  if (s.ranks > kMaxRanks)
    throw InputError(fmt::format("--ranks {}: {} of every phase, up to {} ranks; at {} ranks the lesson's phases are "
                                 "predicted from one node's transfers: run it with --ranks {} or fewer",
                                 s.ranks, what, kMaxRanks, s.ranks, kMaxRanks));
}

ProgramResult prepare_program(const Scenario& s, bool asked_model_only, const PrepareOptions& asked) {
  const bool model_only = asked_model_only || s.model_only;  // [run] model_only: whoever asks
  if (asked.record_history) check_lesson_viewable(s);  // the views ask for the histories
  ProgramResult p;
  const PrepareOptions options = options_for(s, asked);
  std::vector<DistinctRun> runs;
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const Phase& phase = s.phases[k];
    PhaseRun& pr = p.phases.emplace_back();
    pr.phase = static_cast<int>(k);
    if (phase.kind != PhaseKind::collective) continue;
    pr.run = run_for(phase, k, model_only, options, s.topology, runs);
    set_phase_schedule(pr, phase, k);
    p.total_ranks = std::max(p.total_ranks, pr.run->schedule.total_ranks);
  }
  if (runs.empty()) p.total_ranks = s.ranks;  // compute only: the lesson's ranks
  check_step_ranges(s, p);
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    if (s.phases[k].kind == PhaseKind::compute) check_compute(s.phases[k], k, p.total_ranks);
    check_waits_and_memory(s.phases[k], k);
  }
  if (!model_only) refuse_if_too_large(runs);
  return p;
}

void execute_program(ProgramResult& p, Backend& backend, const ProgramProgress& progress, bool keep_buffers,
                     int only_rank) {
  const std::vector<std::shared_ptr<RunResult>> runs = distinct_runs(p);
  for (const std::shared_ptr<RunResult>& run : runs)
    if (run->model_only) throw std::logic_error("execute_program: the program was prepared for the model only");
  int done = 0;
  for (const std::shared_ptr<RunResult>& run : runs) {
    execute_run(*run, backend, only_rank);  // verifies; a wrong result is reported by verified(), not thrown
    if (!keep_buffers) {
      run->buffers = {};
      run->inputs_before = {};
    }
    if (progress) progress(++done, static_cast<int>(runs.size()));
  }
  p.executed = true;
}

void predict_program(ProgramResult& p, const Scenario& s, const TopologyConfig& config) {
  if (p.phases.size() != s.phases.size())
    throw std::logic_error("predict_program: the program was prepared from another scenario");
  p.topology_config = config;
  p.topology = make_topology(config, program_workers(p), p.total_ranks);
  // Each collective alone, from time 0, on the program's topology (for a lesson of one
  // collective, exactly run_model's): the single-run summaries read run->model. Under
  // protocol auto each collective gets its own protocol there, as NCCL chooses per call,
  // and its phases are placed under that protocol.
  for (const std::shared_ptr<RunResult>& run : distinct_runs(p))
    run->model = model_of_run(*run, config, program_workers(p), p.total_ranks);
  Timeline timeline(p.topology, p.phases);
  const auto n = static_cast<std::size_t>(p.total_ranks);
  for (PhaseRun& pr : p.phases) {
    const Phase& phase = s.phases[static_cast<std::size_t>(pr.phase)];
    pr.begin_ns.clear();
    pr.end_ns.clear();
    pr.rank_begin_ns.assign(n, -1);
    pr.rank_end_ns.assign(n, -1);
    if (pr.run)
      place_collective(pr, phase, pr.run->model->topology, timeline);
    else
      place_compute(pr, phase, p.topology, timeline);
  }
  sum_up(p);
  sum_memory(p, s);
  p.predicted = true;
}

}  // namespace collsim
