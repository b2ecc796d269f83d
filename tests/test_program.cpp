// Lessons run as one program (sim/lesson/program.h): phases that name the same collective share
// one execution, step ranges split a schedule without losing or repeating a transfer,
// phases are placed on compute and communication streams with the region rules of
// lesson.h (checked against predict() of the collective alone, shifted by hand), and the
// exports parse and count what they should. Scenarios are built in code, so these tests do
// not depend on the scenario parser.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "test_support.h"

using namespace collsim;

namespace {

RunRequest request(Collective c, std::string algorithm, int ranks, std::uint64_t count) {
  RunRequest r;
  r.spec.collective = c;
  r.spec.ranks = ranks;
  r.spec.count = count;
  r.algorithm = std::move(algorithm);
  return r;
}

RunRequest all_reduce(std::uint64_t count = 4096) { return request(Collective::all_reduce, "ring", 4, count); }
RunRequest parameter_server(std::uint64_t count = 1000) {
  return request(Collective::all_reduce, "parameter_server", 4, count);
}

Phase collective(std::string name, RunRequest r, std::vector<std::string> reads = {},
                 std::vector<std::string> writes = {}, int first = 0, int last = 0) {
  Phase p;
  p.kind = PhaseKind::collective;
  p.name = std::move(name);
  p.request = std::move(r);
  p.first_step = first;
  p.last_step = last;
  p.reads = std::move(reads);
  p.writes = std::move(writes);
  p.origin = "lesson.toml:7:1";
  return p;
}

Phase compute(std::string name, std::vector<double> us, std::vector<std::string> reads = {},
              std::vector<std::string> writes = {}) {
  Phase p;
  p.kind = PhaseKind::compute;
  p.name = std::move(name);
  p.compute_us = std::move(us);
  p.reads = std::move(reads);
  p.writes = std::move(writes);
  p.origin = "lesson.toml:12:1";
  return p;
}

Scenario lesson(std::vector<Phase> phases) {
  Scenario s;
  s.format = 2;
  s.title = "test lesson";
  s.description = "phases \"quoted\", with a comma";
  s.ranks = 4;
  s.request.spec.ranks = 4;
  s.phases = std::move(phases);
  return s;
}

// The default switch with round figures, so that α, β and γ all matter.
TopologyConfig config() {
  TopologyConfig c;
  c.bandwidth_gbps = 100;
  c.latency_us = 1;
  return c;
}

ProgramResult predicted(const Scenario& s, const TopologyConfig& c = config()) {
  ProgramResult p = prepare_program(s);
  predict_program(p, s, c);
  return p;
}

// The collective of a phase alone on `late` per rank: what the program must reproduce.
Prediction alone(const PhaseRun& pr, const TopologyConfig& c, std::vector<double> late) {
  Topology t = make_topology(c, pr.run->schedule.spec.ranks, pr.run->schedule.total_ranks);
  t.late_ns = std::move(late);
  return predict(pr.schedule, derive_dependencies(pr.schedule), t);
}

void check_shifted(const PhaseRun& pr, const Prediction& want) {
  REQUIRE(pr.begin_ns.size() == want.begin_ns.size());
  for (std::size_t i = 0; i < want.begin_ns.size(); ++i) {
    CHECK(pr.begin_ns[i] == doctest::Approx(want.begin_ns[i]).epsilon(1e-12));
    CHECK(pr.end_ns[i] == doctest::Approx(want.end_ns[i]).epsilon(1e-12));
  }
}

// What prepare_program says about a lesson, or "no error".
std::string prepare_error(const Scenario& s) {
  const std::string error = testing::input_error([&] { prepare_program(s); });
  return error.empty() ? "no error" : error;
}

// The CPU backend, except that it corrupts rank 0's first output element of the run
// whose number is `corrupt` (0-based): a wrong result the program must report, not throw.
class CorruptingBackend : public Backend {
 public:
  explicit CorruptingBackend(int corrupt) : corrupt_(corrupt) {}
  std::string name() const override { return "cpu"; }
  std::string device_name() const override { return "corrupting test backend"; }
  Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& buffers) override {
    Execution e = testing::cpu().execute(s, deps, buffers);
    if (runs_++ == corrupt_) buffers[0].output[0] ^= std::byte{0x40};
    return e;
  }

 private:
  int corrupt_, runs_ = 0;
};

}  // namespace

TEST_CASE("program: phases with equal requests share one execution") {
  const Scenario s = lesson({collective("push", parameter_server(), {}, {}, 1, 1),
                             collective("pull", parameter_server(), {}, {}, 2, 2),
                             collective("all-reduce", all_reduce()), collective("again", all_reduce())});
  ProgramResult p = prepare_program(s);
  REQUIRE(p.phases.size() == 4);
  CHECK(p.phases[0].run == p.phases[1].run);
  CHECK(p.phases[2].run == p.phases[3].run);  // ring's slices 0 resolve to its default: still equal
  CHECK(p.phases[0].run != p.phases[2].run);
  CHECK(p.total_ranks == 5);  // 4 workers and the parameter server
  CHECK_FALSE(p.verified());  // not executed yet

  std::vector<std::pair<int, int>> calls;
  execute_program(p, testing::cpu(), [&](int done, int total) { calls.emplace_back(done, total); });
  CHECK(calls == std::vector<std::pair<int, int>>{{1, 2}, {2, 2}});
  CHECK(p.executed);
  CHECK(p.verified());
  for (const PhaseRun& pr : p.phases) {
    CHECK(pr.run->verification.ok);
    CHECK(pr.run->buffers.empty());  // freed once verified
    CHECK(pr.run->execution.timings.size() == pr.run->schedule.transfers.size());
  }
}

TEST_CASE("program: a phase that gives the default slices shares the run of one that left them out") {
  RunRequest explicit_slices = all_reduce();
  explicit_slices.options = resolve_options(explicit_slices.spec, "ring", {});
  REQUIRE(explicit_slices.options.slices > 0);
  const ProgramResult p = prepare_program(lesson({collective("a", all_reduce()), collective("b", explicit_slices)}));
  CHECK(p.phases[0].run == p.phases[1].run);
  RunRequest other = explicit_slices;
  other.options.slices += 1;
  const ProgramResult q = prepare_program(lesson({collective("a", all_reduce()), collective("b", other)}));
  CHECK(q.phases[0].run != q.phases[1].run);
}

TEST_CASE("program: keep_buffers keeps every run's buffers") {
  const Scenario s = lesson({collective("all-reduce", all_reduce())});
  ProgramResult p = prepare_program(s);
  execute_program(p, testing::cpu(), {}, true);
  CHECK(p.verified());
  CHECK(p.phases[0].run->buffers.size() == 4);
}

TEST_CASE("program: a wrong collective is reported and the others still run") {
  const Scenario s = lesson({collective("first", all_reduce()), collective("second", parameter_server())});
  ProgramResult p = prepare_program(s);
  CorruptingBackend backend(0);
  execute_program(p, backend);
  CHECK(p.executed);
  CHECK_FALSE(p.verified());
  CHECK_FALSE(p.phases[0].run->verification.ok);
  CHECK(p.phases[1].run->verification.ok);
  CHECK(p.phases[1].run->execution.timings.size() == p.phases[1].run->schedule.transfers.size());
}

TEST_CASE("program: step ranges 1..1 and 2..2 of parameter_server cover every transfer once") {
  const Scenario s = lesson({collective("push", parameter_server(), {}, {}, 1, 1),
                             collective("pull", parameter_server(), {}, {}, 2, 2)});
  const ProgramResult p = prepare_program(s);
  const Schedule& whole = p.phases[0].run->schedule;
  REQUIRE(whole.step_count() == 2);
  std::vector<std::size_t> seen;
  for (int k = 0; k < 2; ++k) {
    const PhaseRun& pr = p.phases[static_cast<std::size_t>(k)];
    CHECK(pr.schedule.step_count() == 1);
    CHECK(pr.schedule.step_labels[0] == whole.step_labels[static_cast<std::size_t>(k)]);
    REQUIRE(pr.source_transfer.size() == pr.schedule.transfers.size());
    for (std::size_t i = 0; i < pr.schedule.transfers.size(); ++i) {
      const Transfer& x = pr.schedule.transfers[i];
      const Transfer& y = whole.transfers[pr.source_transfer[i]];
      CHECK(x.step == 0);
      CHECK(y.step == k);
      CHECK((x.src == y.src && x.dst == y.dst && x.chunk == y.chunk && x.count == y.count));
      seen.push_back(pr.source_transfer[i]);
    }
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::size_t> all(whole.transfers.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  CHECK(seen == all);
  // The server's accumulator is filled before the push: the pre-operations go with step 1.
  CHECK(p.phases[0].schedule.pre_ops.size() == whole.pre_ops.size());
  CHECK_FALSE(whole.pre_ops.empty());
  CHECK(p.phases[1].schedule.pre_ops.empty());
}

TEST_CASE("program: the pull waits for the push on the communication stream") {
  const Scenario s = lesson({collective("push", parameter_server(), {}, {}, 1, 1),
                             collective("pull", parameter_server(), {}, {}, 2, 2)});
  const ProgramResult p = predicted(s);
  const PhaseRun &push = p.phases[0], &pull = p.phases[1];
  check_shifted(push, alone(push, config(), std::vector<double>(5, 0.0)));
  check_shifted(pull, alone(pull, config(), push.rank_end_ns));  // every rank is ready when its push ends
  CHECK(p.total_ns == pull.end());
  // The whole collective alone gives the same times: its steps already follow each other.
  const Prediction& whole = p.phases[0].run->model->prediction;
  CHECK(p.total_ns == doctest::Approx(whole.total_ns).epsilon(1e-12));
}

TEST_CASE("program: communication overlaps the compute it does not depend on") {
  // compute 1 writes g1, compute 2 writes g2, the all-reduce reads g1: it starts when
  // compute 1 ends, on every rank, and runs while compute 2 does.
  const Scenario s = lesson({compute("backward layer 2", {100, 100, 100, 100}, {}, {"g1"}),
                             compute("backward layer 1", {200, 200, 200, 200}, {}, {"g2"}),
                             collective("all-reduce g1", all_reduce(), {"g1"}, {"g1"})});
  const ProgramResult p = predicted(s);
  const PhaseRun& ar = p.phases[2];
  check_shifted(ar, alone(ar, config(), std::vector<double>(4, 100000.0)));
  const double duration = alone(ar, config(), std::vector<double>(4, 0.0)).total_ns;
  REQUIRE(duration > 0);
  REQUIRE(duration < 200000);  // short enough to hide behind compute 2
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(p.phases[0].rank_begin_ns[r] == 0);
    CHECK(p.phases[0].rank_end_ns[r] == 100000);
    CHECK(p.phases[1].rank_begin_ns[r] == 100000);  // the compute stream is serial
    CHECK(p.phases[1].rank_end_ns[r] == 300000);
    CHECK(ar.rank_begin_ns[r] == doctest::Approx(100000).epsilon(1e-12));
    CHECK(p.compute_ns[r] == 300000);
    CHECK(p.communication_ns[r] == doctest::Approx(ar.rank_end_ns[r] - ar.rank_begin_ns[r]));
    CHECK(p.exposed_communication_ns[r] == doctest::Approx(0.0));
  }
  CHECK(ar.begin() == doctest::Approx(100000).epsilon(1e-12));
  CHECK(ar.end() == doctest::Approx(100000 + duration).epsilon(1e-12));
  CHECK(p.total_ns == 300000);
}

TEST_CASE("program: a collective that depends on nothing runs at 0") {
  const Scenario s = lesson({compute("forward", {100, 100, 100, 100}, {}, {"activations"}),
                             collective("all-reduce", all_reduce(), {"other"}, {"other"})});
  const ProgramResult p = predicted(s);
  const PhaseRun& ar = p.phases[1];
  check_shifted(ar, alone(ar, config(), std::vector<double>(4, 0.0)));
  CHECK(ar.begin() == 0);
  for (std::size_t r = 0; r < 4; ++r) CHECK(p.exposed_communication_ns[r] == doctest::Approx(0.0));
}

TEST_CASE("program: a compute phase that writes what an earlier collective reads waits for it") {
  const Scenario s = lesson({collective("all-reduce", all_reduce(), {"grads"}, {}),
                             compute("optimizer step", {50, 50, 50, 50}, {}, {"grads"})});
  const ProgramResult p = predicted(s);
  const PhaseRun &ar = p.phases[0], &step = p.phases[1];
  for (std::size_t r = 0; r < 4; ++r) {
    REQUIRE(ar.rank_end_ns[r] > 0);
    CHECK(step.rank_begin_ns[r] == ar.rank_end_ns[r]);  // write after read; its stream was free at 0
    CHECK(step.rank_end_ns[r] == doctest::Approx(ar.rank_end_ns[r] + 50000).epsilon(1e-12));
  }
}

TEST_CASE("program: exposed communication is all of it when nothing overlaps") {
  const Scenario s = lesson({compute("backward", {100, 100, 100, 100}, {}, {"g"}),
                             collective("all-reduce", all_reduce(), {"g"}, {"g"})});
  const ProgramResult p = predicted(s);
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(p.communication_ns[r] > 0);
    CHECK(p.exposed_communication_ns[r] == doctest::Approx(p.communication_ns[r]).epsilon(1e-12));
  }
  CHECK(p.total_ns == p.phases[1].end());
}

TEST_CASE("program: a late rank starts late once, a slow rank computes slowly") {
  TopologyConfig c = config();
  c.stragglers.push_back({1, 50.0, 1.0, "test"});
  c.stragglers.push_back({2, 0.0, 2.0, "test"});
  const Scenario s = lesson({compute("backward", {10, 10, 10, 10}, {}, {"g"}),
                             collective("all-reduce", all_reduce(), {"g"}, {"g"})});
  const ProgramResult p = predicted(s, c);
  const PhaseRun &backward = p.phases[0], &ar = p.phases[1];
  CHECK(backward.rank_begin_ns == std::vector<double>{0, 50000, 0, 0});
  CHECK(backward.rank_end_ns == std::vector<double>{10000, 60000, 20000, 10000});
  // The all-reduce starts on each rank when its compute ends: rank 1's delay is not added again.
  check_shifted(ar, alone(ar, c, backward.rank_end_ns));
  CHECK(ar.rank_begin_ns[1] >= 60000);
  CHECK(ar.rank_begin_ns[1] < 110000);
}

TEST_CASE("program: a compute-only lesson has the scenario's ranks") {
  const Scenario s = lesson({compute("forward", {5, 0, 7})});
  const ProgramResult p = predicted(s);
  CHECK(p.total_ranks == 4);
  CHECK(p.phases[0].rank_begin_ns == std::vector<double>{0, -1, 0, -1});
  CHECK(p.phases[0].rank_end_ns == std::vector<double>{5000, -1, 7000, -1});
  CHECK(p.total_ns == 7000);
}

TEST_CASE("program: bad step ranges, compute arrays and requests name the phase") {
  const std::string steps = prepare_error(lesson({collective("pull", parameter_server(), {}, {}, 2, 3)}));
  CHECK(steps.find("lesson.toml:7:1") == 0);
  CHECK(steps.find("'pull'") != std::string::npos);
  CHECK(steps.find("steps [2, 3]") != std::string::npos);
  CHECK(prepare_error(lesson({collective("x", parameter_server(), {}, {}, 0, 1)})).find("steps [0, 1]") != std::string::npos);
  CHECK(prepare_error(lesson({collective("x", parameter_server(), {}, {}, 2, 1)})).find("steps [2, 1]") != std::string::npos);

  const std::string wide = prepare_error(lesson({collective("ar", all_reduce()), compute("fwd", {1, 1, 1, 1, 1})}));
  CHECK(wide.find("lesson.toml:12:1: phase 2 ('fwd')") == 0);
  CHECK(wide.find("5 durations") != std::string::npos);
  CHECK(prepare_error(lesson({compute("fwd", {1, -1})})).find("rank 1's compute time") != std::string::npos);

  const std::string bad = prepare_error(lesson({collective("ar", request(Collective::all_reduce, "no_such", 4, 8))}));
  CHECK(bad.find("lesson.toml:7:1: phase 1 ('ar'): ") == 0);
  CHECK(bad.find("no_such") != std::string::npos);
}

TEST_CASE("program: the phases of one collective run its steps in order, each once") {
  const RunRequest ring = all_reduce(64);  // 6 steps on 4 ranks
  auto part = [&](const char* name, int first, int last) { return collective(name, ring, {}, {}, first, last); };
  CHECK(prepare_error(lesson({part("rs", 1, 3), part("ag", 4, 6)})) == "no error");
  CHECK(prepare_error(lesson({part("a", 1, 2), part("b", 3, 4), part("c", 5, 6), part("again", 1, 6)})) == "no error");
  // Whole phases of one request may repeat: equal collectives on different data.
  CHECK(prepare_error(lesson({collective("bucket 1", ring), collective("bucket 2", ring)})) == "no error");

  const std::string reversed = prepare_error(lesson({part("ag", 4, 6), part("rs", 1, 3)}));
  CHECK(reversed == "lesson.toml:7:1: phase 1 ('ag'): steps [4, 6] must start at step 1: no phase before it runs steps "
                    "1..3 of this collective (the phases of one collective run its steps in order, each once)");
  const std::string overlap = prepare_error(lesson({part("a", 1, 4), part("b", 3, 6)}));
  CHECK(overlap.find("phase 2 ('b'): steps [3, 6] must start at step 5, right after the steps phase 1 ran") !=
        std::string::npos);
  const std::string restart = prepare_error(lesson({part("a", 1, 4), part("b", 1, 6)}));
  CHECK(restart.find("phase 2 ('b'): starts the collective again at step 1, but phase 1 left it at step 4") !=
        std::string::npos);
  const std::string partial = prepare_error(lesson({part("rs", 1, 3)}));
  CHECK(partial.find("phase 1 ('rs'): no later phase runs steps 4..6 of its collective") != std::string::npos);
}

TEST_CASE("program: a compute phase in which no rank computes is refused") {
  CHECK(prepare_error(lesson({compute("idle", {0, 0, 0, 0})})) ==
        "lesson.toml:12:1: phase 1 ('idle'): no rank computes in it (every duration is 0)");
  CHECK(prepare_error(lesson({compute("one rank", {0, 0, 5, 0})})) == "no error");
}

TEST_CASE("program: a model-only program predicts but refuses to execute") {
  const Scenario s = lesson({collective("all-reduce", all_reduce())});
  ProgramResult p = prepare_program(s, true);
  CHECK(p.phases[0].run->model_only);
  CHECK_THROWS_AS(execute_program(p, testing::cpu()), std::logic_error);
  predict_program(p, s, config());
  CHECK(p.total_ns == doctest::Approx(p.phases[0].run->model->prediction.total_ns));
}

TEST_CASE("program: exports parse, count what they should and are deterministic") {
  const Scenario s = lesson({compute("backward, layer 2", {100, 100, 0, 100}, {}, {"g1"}),
                             collective("push", parameter_server(), {"g1"}, {"g1"}, 1, 1),
                             collective("pull", parameter_server(), {"g1"}, {"g1"}, 2, 2),
                             compute("update", {0, 0, 0, 0, 30}, {"g1"}, {})});
  ProgramResult p = prepare_program(s);
  execute_program(p, testing::cpu());
  predict_program(p, s, config());
  std::size_t transfers = 0, slices = 0;
  for (const PhaseRun& pr : p.phases) {
    transfers += pr.schedule.transfers.size();
    for (std::size_t r = 0; r < pr.rank_begin_ns.size(); ++r) slices += pr.rank_begin_ns[r] >= 0 ? 1 : 0;
  }
  REQUIRE(transfers == p.phases[1].run->schedule.transfers.size());
  const std::size_t compute_slices = 3 + 1;

  SUBCASE("chrome") {
    const std::string text = program_to_chrome(s, p);
    const nlohmann::json j = nlohmann::json::parse(text);
    std::size_t metadata = 0, complete = 0, instants = 0, on_transfer_track = 0;
    for (const nlohmann::json& e : j["traceEvents"]) {
      const std::string ph = e["ph"];
      metadata += ph == "M" ? 1 : 0;
      complete += ph == "X" ? 1 : 0;
      instants += ph == "i" ? 1 : 0;
      on_transfer_track += ph == "X" && e["tid"] == 3 ? 1 : 0;
    }
    CHECK(metadata == 5 * 5);  // 5 ranks: name, sort index, three tracks
    CHECK(instants == 4);
    CHECK(complete == slices + transfers);
    CHECK(on_transfer_track == transfers);
    CHECK(text == program_to_chrome(s, p));
  }
  SUBCASE("csv") {
    const std::string text = program_to_csv(s, p);
    CHECK(std::count(text.begin(), text.end(), '\n') == static_cast<std::ptrdiff_t>(1 + transfers + compute_slices));
    CHECK(text.find("compute,1,\"backward, layer 2\",,,0,0,,compute,,0,100,,\n") != std::string::npos);
    CHECK(text.find("compute,4,update,,,4,4,") != std::string::npos);
  }
  SUBCASE("lesson json") {
    const std::string text = program_to_json(s, p);
    CHECK(text == program_to_json(s, p));
    const nlohmann::json j = nlohmann::json::parse(text);
    CHECK(j["format"] == "collsim-lesson");
    CHECK(j["version"] == 2);
    CHECK(j["lesson"]["text"] == "");  // built in code: nothing to rebuild it from
    CHECK(j["lesson"]["ranks"] == 4);
    CHECK(j["title"] == s.title);
    CHECK(j["total_ranks"] == 5);
    CHECK(j["verified"] == true);
    CHECK(j["predicted"]["total_ns"].get<double>() == p.total_ns);
    CHECK(j["collectives"].size() == 1);
    REQUIRE(j["phases"].size() == 4);
    CHECK(j["phases"][0]["kind"] == "compute");
    CHECK(j["phases"][0]["compute_us"] == std::vector<double>{100, 100, 0, 100, 0});
    CHECK(j["phases"][2]["steps"] == std::vector<int>{2, 2});
    CHECK(j["phases"][2]["collective"] == 0);
    CHECK(j["phases"][2]["request"]["algorithm"] == "parameter_server");
    std::size_t listed = 0;
    for (const nlohmann::json& ph : j["phases"])
      if (ph.contains("transfers"))
        for (const nlohmann::json& t : ph["transfers"]) {
          ++listed;
          CHECK(t.contains("predicted_begin_ns"));
          CHECK(t.contains("measured_end_ns"));
          CHECK(t["step"] == 1);
        }
    CHECK(listed == transfers);
    CHECK(j["phases"][1]["ranks"].size() == 5);
    CHECK(j["ranks"].size() == 5);
  }
}

// --- streams, events, host waits and memory (lesson.h) --------------------------------

namespace {

Phase on(Phase p, std::string stream) {
  p.stream = std::move(stream);
  return p;
}

const std::vector<double> k100us(4, 100.0);

}  // namespace

TEST_CASE("program: a collective on the compute stream waits for the compute before it, and delays the one after") {
  // backward 2, all-reduce (no regions), backward 1: on one stream they run in order.
  const Scenario s = lesson({compute("backward 2", k100us), on(collective("all-reduce", all_reduce()), "compute"),
                             compute("backward 1", k100us)});
  const ProgramResult p = predicted(s);
  const PhaseRun& ar = p.phases[1];
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(ar.rank_begin_ns[r] == doctest::Approx(100000).epsilon(1e-12));
    CHECK(p.phases[2].rank_begin_ns[r] == doctest::Approx(ar.rank_end_ns[r]).epsilon(1e-12));
  }
}

TEST_CASE("program: the legacy default stream serialises with every other stream of its rank") {
  // compute on "compute", an all-reduce on "default" that reads nothing: it still waits for
  // the backward issued before it, and the backward issued after it waits for it.
  const Scenario s = lesson({compute("backward 2", k100us), on(collective("all-reduce", all_reduce()), kDefaultStream),
                             compute("backward 1", k100us), collective("later all-reduce", all_reduce(8192))});
  const ProgramResult p = predicted(s);
  const PhaseRun& ar = p.phases[1];
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(ar.rank_begin_ns[r] == doctest::Approx(100000).epsilon(1e-12));
    CHECK(p.phases[2].rank_begin_ns[r] >= ar.rank_end_ns[r]);
    CHECK(p.phases[3].rank_begin_ns[r] >= ar.rank_end_ns[r]);  // the comm stream waits for it too
  }
  CHECK(p.total_ns == doctest::Approx(ar.end() + 100000).epsilon(1e-9));
}

TEST_CASE("program: an all-reduce on its own stream with an event wait overlaps the next compute") {
  Phase ar = collective("all-reduce", all_reduce());
  ar.wait_for = {0};  // the event recorded after backward 2 (ProcessGroupNCCL's syncStream)
  const Scenario s = lesson({compute("backward 2", k100us), ar, compute("backward 1", k100us)});
  const ProgramResult p = predicted(s);
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(p.phases[1].rank_begin_ns[r] == doctest::Approx(100000).epsilon(1e-12));  // after the event, not at 0
    CHECK(p.phases[2].rank_begin_ns[r] == 100000);                                 // not after the all-reduce
    CHECK(p.exposed_communication_ns[r] == doctest::Approx(0.0));
  }
}

TEST_CASE("program: a host synchronisation waits for every stream, and so does all the host issues after it") {
  Phase sync = compute("loss.item()", std::vector<double>(4, 1.0));
  sync.synchronize = true;
  const Scenario s = lesson({collective("all-reduce", all_reduce()), sync, compute("next forward", k100us)});
  const ProgramResult p = predicted(s);
  const PhaseRun& ar = p.phases[0];
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(p.phases[1].rank_begin_ns[r] == doctest::Approx(ar.rank_end_ns[r]).epsilon(1e-12));
    CHECK(p.phases[2].rank_begin_ns[r] == doctest::Approx(ar.rank_end_ns[r] + 1000).epsilon(1e-12));
  }
}

TEST_CASE("program: a host wait for one phase delays the phases issued after it, on every stream") {
  Phase gather = collective("all-gather", all_reduce(8192));
  gather.host_wait_for = {0};
  const Scenario s = lesson({compute("forward 0", k100us), gather, collective("other", all_reduce())});
  const ProgramResult p = predicted(s);
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(p.phases[1].rank_begin_ns[r] == doctest::Approx(100000).epsilon(1e-12));
    CHECK(p.phases[2].rank_begin_ns[r] >= 100000);
  }
}

TEST_CASE("program: the memory line adds allocations at a phase's begin, removes frees at its end") {
  Phase a = compute("forward", k100us);
  a.allocates = {{"activations", 1000.0}, {"workspace", 500.0}};
  a.frees = {"workspace"};
  Phase b = compute("backward", k100us);
  b.allocates = {{"grad", 300.0}};
  b.frees = {"activations"};
  const Scenario s = lesson({a, b});
  const ProgramResult p = predicted(s);
  for (std::size_t r = 0; r < 4; ++r) {
    // 1500 from 0; at 100 µs the workspace goes and the gradient comes: 1300; at 200 µs 300.
    REQUIRE(p.memory[r].size() == 3);
    CHECK(p.memory[r][0].time_ns == 0);
    CHECK(p.memory[r][0].bytes == 1500);
    CHECK(p.memory[r][1].time_ns == 100000);
    CHECK(p.memory[r][1].bytes == 1300);
    CHECK(p.memory[r][2].bytes == 300);
    CHECK(p.peak_memory_bytes[r] == 1500);
    CHECK(p.peak_memory_ns[r] == 0);
  }
}

TEST_CASE("program: bad waits and frees name the phase") {
  Phase wait = compute("wait", k100us);
  wait.wait_for = {1};  // itself: not an earlier phase
  CHECK(prepare_error(lesson({compute("first", k100us), wait})).find("phase 2 ('wait'): waits for phase 2") !=
        std::string::npos);
  Phase free = compute("free", k100us);
  free.frees = {"nothing"};
  const Scenario s = lesson({free});
  ProgramResult p = prepare_program(s);
  const std::string error = testing::input_error([&] { predict_program(p, s, config()); });
  CHECK(error.find("phase 1 ('free'): frees 'nothing' on rank 0") != std::string::npos);
  Phase twice = compute("twice", k100us);
  twice.allocates = {{"x", 1.0}};
  const Scenario again = lesson({twice, twice});
  ProgramResult q = prepare_program(again);
  CHECK(testing::input_error([&] { predict_program(q, again, config()); }).find("allocates 'x' on rank 0 while it still holds it") !=
        std::string::npos);
}

// Above kMaxRanks a model-only lesson predicts each phase whose collective looks the same from
// every node from one node's transfers, placed with its ranks' ready times (the previous
// phase's ends, which repeat from node to node as long as such phases come first). Every
// rank's part, each collective alone and its latency and bandwidth parts must equal what the
// whole schedule predicts on the same topology with the same ready times. PAT and the
// hierarchical all-reduce keep the whole schedules small at 2048 ranks; a tree after them
// is predicted whole, from ready times that no longer repeat.
TEST_CASE("a lesson above 1024 ranks: the phases predicted from one node equal the whole schedules") {
  const int n = 2048;
  TopologyConfig c;
  c.kind = TopologyKind::two_level;
  c.group_size = 8;
  c.protocol = Protocol::ll;
  RunRequest hierarchical = request(Collective::all_reduce, "hierarchical", n, 64 * n);
  hierarchical.options.ranks_per_node = 8;
  Scenario s = lesson({collective("pat all-gather", request(Collective::all_gather, "pat", n, 16)),
                       collective("hierarchical", hierarchical),
                       collective("pat reduce-scatter", request(Collective::reduce_scatter, "pat", n, 16)),
                       collective("tree", request(Collective::all_reduce, "double_binary_tree", n, 4096))});
  s.ranks = n;
  s.request.spec.ranks = n;
  s.model_only = true;
  s.topology = c;
  ProgramResult p = prepare_program(s);
  predict_program(p, s, c);
  const Topology plain = make_topology(c, n, n);
  std::vector<double> ready(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    CAPTURE(k);
    const PhaseRun& pr = p.phases[k];
    CHECK(holds_one_period(*pr.run) == (k < 3));
    const RunResult whole = prepare_model_run(s.phases[k].request);
    REQUIRE(!holds_one_period(whole));
    Topology t = plain;
    t.late_ns = ready;
    const Prediction placed = predict(whole.schedule, whole.dependencies, t);
    std::vector<double> begin(ready.size(), -1), end(ready.size(), -1);
    for (std::size_t i = 0; i < whole.schedule.transfers.size(); ++i)
      for (const int rank : {whole.schedule.transfers[i].src, whole.schedule.transfers[i].dst}) {
        const auto r = static_cast<std::size_t>(rank);
        begin[r] = begin[r] < 0 ? placed.begin_ns[i] : std::min(begin[r], placed.begin_ns[i]);
        end[r] = std::max(end[r], placed.end_ns[i]);
      }
    for (std::size_t r = 0; r < ready.size(); ++r) {
      CHECK(pr.rank_begin_ns[r] == doctest::Approx(begin[r]).epsilon(1e-12));
      CHECK(pr.rank_end_ns[r] == doctest::Approx(end[r]).epsilon(1e-12));
    }
    ready = end;
    // Alone, and its two parts (a lesson's latency_us and bandwidth_us questions).
    CHECK(pr.run->model->prediction.total_ns ==
          doctest::Approx(predict(whole.schedule, whole.dependencies, plain).total_ns).epsilon(1e-12));
    for (const Metric m : {Metric::latency_us, Metric::bandwidth_us}) {
      Question q;
      q.metric = m;
      q.phase = static_cast<int>(k) + 1;
      const CostPart part = m == Metric::latency_us ? CostPart::latency : CostPart::bandwidth;
      CHECK(answer_question(q, p, nullptr).value * 1000 ==
            doctest::Approx(cost_part_ns(whole.schedule, whole.dependencies, plain, part)).epsilon(1e-9));
    }
  }
  // Per transfer, step and rank the phases predicted from one node answer nothing: refused, by name.
  Question sent;
  sent.metric = Metric::bytes_sent;
  sent.phase = 1;
  sent.origin = "lesson.toml:30:1";
  sent.text = "bytes?";
  CHECK_THROWS_WITH_AS(answer_question(sent, p, nullptr), doctest::Contains("predicted from the transfers of one node"),
                       InputError);
  // Nor do the views and exports show them.
  CHECK_THROWS_WITH_AS(program_to_json(s, p), doctest::Contains("run it with --ranks 1024 or fewer"), InputError);
  CHECK_THROWS_WITH_AS(prepare_program(s, true, {.record_history = true}), doctest::Contains("the views show every transfer"),
                       InputError);
  // Predicted on a topology that does not look the same from every node (a straggler): refused.
  TopologyConfig late = c;
  late.stragglers = {Straggler{.rank = 3, .late_us = 5}};
  ProgramResult again = prepare_program(s);
  CHECK_THROWS_WITH_AS(predict_program(again, s, late), doctest::Contains("which this topology does not allow"),
                       InputError);
  // A symmetric phase after the tree: its ranks are ready at times that differ from node to node.
  s.phases.push_back(collective("pat after the tree", request(Collective::all_gather, "pat", n, 32)));
  ProgramResult after = prepare_program(s);
  CHECK_THROWS_WITH_AS(predict_program(after, s, c), doctest::Contains("put it before the phases predicted whole"),
                       InputError);
}
