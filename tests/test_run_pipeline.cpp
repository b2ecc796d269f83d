// The run pipeline (sim/pipeline/pipeline.h): one fixed order -- build and check, the
// front end's look at what was built, predict, the front end's word and its backend,
// execute and verify, the trace -- for one collective and for a lesson, model-only or
// executed; bad input refused before the front end's word; the value history recorded
// with the buffer history and checked against the run's own outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/pipeline/pipeline.h"
#include "test_support.h"

using namespace collsim;

namespace {

RunRequest ring(int ranks = 4, std::uint64_t count = 8) {
  RunRequest r;
  r.spec = {Collective::all_reduce, ranks, count, DataType::f32, ReduceOp::sum, 0, false};
  r.algorithm = "ring";
  return r;
}

// Hooks that write down the order they were called in, and what each saw.
struct Recorder {
  std::vector<std::string> calls;
  bool predicted_before_backend = false;
  bool executed_before_backend = false;
  PipelineHooks hooks(bool give_backend = true) {
    PipelineHooks h;
    h.built = [this](const Schedule& s) { calls.push_back("built " + s.algorithm); };
    h.backend = [this, give_backend](const PipelineResult& so_far) -> std::unique_ptr<Backend> {
      calls.push_back("backend");
      if (so_far.run) predicted_before_backend = so_far.run->model.has_value();
      if (so_far.program) predicted_before_backend = so_far.program->predicted;
      executed_before_backend = so_far.executed();
      return give_backend ? make_cpu_backend() : nullptr;
    };
    h.program_progress = [this](int done, int total) {
      calls.push_back("ran " + std::to_string(done) + "/" + std::to_string(total));
    };
    return h;
  }
};

}  // namespace

TEST_CASE("run_pipeline: one collective runs built, predicted, then the front end's word, then executed") {
  Recorder rec;
  const PipelineResult r =
      run_pipeline({.run = ring(), .topology = TopologyConfig{}, .record_history = true, .title = "T", .description = "D"},
                   rec.hooks());
  CHECK(rec.calls == std::vector<std::string>{"built ring", "backend"});
  CHECK(rec.predicted_before_backend);
  CHECK_FALSE(rec.executed_before_backend);
  REQUIRE(r.run);
  CHECK(r.executed());
  CHECK(r.verified());
  CHECK(r.run->backend == "cpu");
  REQUIRE(r.trace);
  CHECK(r.trace->scenario_title == "T");
  CHECK(r.trace->scenario_description == "D");
  CHECK_FALSE(r.trace->model_only);
  CHECK(r.trace->predicted.has_value());
  CHECK(r.trace->history != nullptr);
  // 4 ranks of 8 elements: small enough for the values view, recorded with the history.
  REQUIRE(r.trace->values != nullptr);
  CHECK(r.trace->values == r.run->values);
  CHECK(r.trace->values->transfer_count() == r.run->schedule.transfers.size());
}

TEST_CASE("run_pipeline: model only still asks the front end, and refuses a backend") {
  Recorder rec;
  const PipelineResult r = run_pipeline({.run = ring(), .model_only = true}, rec.hooks(false));
  CHECK(rec.calls == std::vector<std::string>{"built ring", "backend"});
  CHECK_FALSE(r.executed());
  CHECK_FALSE(r.verified());
  REQUIRE(r.trace);
  CHECK(r.trace->model_only);
  CHECK(r.trace->backend == "none");
  Recorder wrong;
  CHECK_THROWS_AS(run_pipeline({.run = ring(), .model_only = true}, wrong.hooks(true)), std::logic_error);
}

TEST_CASE("run_pipeline: without a backend nothing executes, and no trace when none is wanted") {
  const PipelineResult r = run_pipeline({.run = ring(), .want_trace = false});
  CHECK_FALSE(r.executed());
  CHECK_FALSE(r.trace.has_value());
  CHECK(r.run->model.has_value());
  CHECK(r.run->values == nullptr);  // only recorded with the history
}

TEST_CASE("run_pipeline: a bad request or topology is refused before the front end's word") {
  Recorder rec;
  RunRequest bad = ring();
  bad.spec.ranks = 0;
  CHECK_FALSE(testing::input_error([&] { run_pipeline({.run = bad}, rec.hooks()); }).empty());
  TopologyConfig topology;
  topology.link = "no_such_link";
  CHECK_FALSE(testing::input_error([&] { run_pipeline({.run = ring(), .topology = topology}, rec.hooks()); }).empty());
  CHECK(std::find(rec.calls.begin(), rec.calls.end(), "backend") == rec.calls.end());
}

TEST_CASE("run_pipeline: a lesson runs every distinct collective once, in the same order") {
  Scenario s;
  s.format = 2;
  s.title = "two collectives";
  s.ranks = 4;
  s.request = ring();
  for (const char* algorithm : {"ring", "parameter_server", "ring"}) {
    Phase p;
    p.kind = PhaseKind::collective;
    p.name = algorithm;
    p.request = ring();
    p.request.algorithm = algorithm;
    p.origin = "lesson.toml:1:1";
    s.phases.push_back(p);
  }
  Recorder rec;
  const PipelineResult r =
      run_pipeline({.scenario = &s, .program = true, .topology = TopologyConfig{}, .record_history = true}, rec.hooks());
  CHECK(rec.calls ==
        std::vector<std::string>{"built ring", "built parameter_server", "backend", "ran 1/2", "ran 2/2"});
  CHECK(rec.predicted_before_backend);
  REQUIRE(r.program);
  CHECK(r.executed());
  CHECK(r.verified());
  CHECK(r.program->phases[0].run == r.program->phases[2].run);  // equal requests share one run
  CHECK(r.program->phases[0].run->values != nullptr);
  CHECK_FALSE(r.trace.has_value());
}

TEST_CASE("run_pipeline: the value history must be the run's numbers") {
  const PipelineResult r = run_pipeline({.run = ring(), .record_history = true},
                                        {.built = {}, .backend = [](const PipelineResult&) { return make_cpu_backend(); }});
  REQUIRE(r.run->values != nullptr);
  CHECK(r.run->values->differs_from_run(r.run->schedule, r.run->buffers).empty());
  std::vector<RankBuffers> changed = r.run->buffers;
  changed[2].output[5] ^= std::byte{0x01};  // element 1 of rank 2's output, one bit
  CHECK(r.run->values->differs_from_run(r.run->schedule, changed).starts_with("rank 2 output element 1:"));
}

TEST_CASE("run_pipeline: values are recorded only for buffers the values view shows") {
  CHECK(records_values(build_schedule(ring(4, kMaxValueElements).spec, "ring", {})));
  CHECK_FALSE(records_values(build_schedule(ring(4, kMaxValueElements + 1).spec, "ring", {})));
  RunRequest barrier = ring();
  barrier.spec.collective = Collective::barrier;
  CHECK_FALSE(records_values(build_schedule(barrier.spec, "dissemination", {})));
}
