// Tests of the pipeline training pattern (sim/lesson/pipeline.cpp): the GPipe and 1F1B
// issue orders per stage, their time and bubble against the closed forms of Huang et al.
// 2019 and Narayanan et al. 2021 (with near-free communication), the activation memory per
// stage (m for GPipe, at most p - s for 1F1B), how isend and blocking send are issued, and
// the errors for impossible figures. Expected values are computed here from the formulas,
// not from the generator.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/lesson/lesson.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "test_support.h"

namespace collsim {
namespace {

constexpr double kActivation = 1000;  // bytes a stage keeps per microbatch

TrainingSpec pipeline(PipelineSchedule schedule, int microbatches, double f = 50, double b = 100,
                      PipelineP2p p2p = PipelineP2p::isend) {
  TrainingSpec s;
  s.pattern = TrainingPattern::pipeline;
  s.schedules = {schedule};
  s.p2p = {p2p};
  s.microbatches = microbatches;
  s.forward_us = f;
  s.backward_us = b;
  s.activation_count = 1024;
  s.activation_bytes = kActivation;
  s.origin = "lesson.toml:12:1";
  return s;
}

Scenario lesson_of(const TrainingSpec& spec, int ranks) {
  Scenario s;
  s.format = 2;
  s.ranks = ranks;
  s.phases = training_phases(spec, ranks);
  return s;
}

// Communication that costs next to nothing: the closed forms assume it is free.
TopologyConfig free_links() {
  TopologyConfig t;
  t.bandwidth_gbps = 1e9;
  t.latency_us = 0;
  t.copy_rate_gbps = 1e9;
  return t;
}

ProgramResult predicted(const Scenario& s, const TopologyConfig& t) {
  ProgramResult p = prepare_program(s, /*model_only=*/true);
  predict_program(p, s, t);
  return p;
}

// Stage s's compute phases in issue (file) order: "F3" for the forward of microbatch 3.
std::vector<std::string> issued(const std::vector<Phase>& phases, int stage) {
  std::vector<std::string> ops;
  for (const Phase& p : phases) {
    if (p.kind != PhaseKind::compute || p.compute_us[static_cast<std::size_t>(stage)] == 0) continue;
    const bool forward = p.name.find("forward") != std::string::npos;
    // std::string(...) += ...: GCC 12 warns (-Wrestrict, a false positive) on "F" + string.
    ops.push_back(std::string(forward ? "F" : "B") += p.name.substr(p.name.rfind(' ') + 1));
  }
  return ops;
}

std::vector<std::string> ops(char kind, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back(std::string(1, kind) += std::to_string(i));
  return out;
}

}  // namespace

TEST_CASE("pipeline: GPipe issues every forward, then every backward, on each stage") {
  const std::vector<Phase> phases = training_phases(pipeline(PipelineSchedule::gpipe, 5), 4);
  std::vector<std::string> expected = ops('F', 1, 5);
  for (const std::string& b : ops('B', 1, 5)) expected.push_back(b);
  for (int s = 0; s < 4; ++s) CHECK(issued(phases, s) == expected);
}

TEST_CASE("pipeline: 1F1B runs p-s-1 warm-up forwards on stage s, then one forward one backward, then the rest") {
  const int p = 4, m = 6;
  const std::vector<Phase> phases = training_phases(pipeline(PipelineSchedule::ofob, m), p);
  for (int s = 0; s < p; ++s) {
    CAPTURE(s);
    const int warmup = p - s - 1;
    std::vector<std::string> expected = ops('F', 1, warmup);
    for (int k = 1; k <= m - warmup; ++k) {
      expected.push_back(std::string("F") += std::to_string(warmup + k));
      expected.push_back(std::string("B") += std::to_string(k));
    }
    for (const std::string& b : ops('B', m - warmup + 1, m)) expected.push_back(b);
    CHECK(issued(phases, s) == expected);
  }
  // Fewer microbatches than warm-up slots: stage 0 runs them all forward first.
  CHECK(issued(training_phases(pipeline(PipelineSchedule::ofob, 2), 4), 0) ==
        std::vector<std::string>{"F1", "F2", "B1", "B2"});
}

TEST_CASE("pipeline: with free communication both schedules take (m+p-1)(f+b), idle (p-1)/(m+p-1)") {
  for (const PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::ofob})
    for (const int p : {1, 2, 4})
      for (const int m : {1, 4, 8})
        for (const auto& fb : {std::pair{50.0, 100.0}, std::pair{30.0, 30.0}}) {
          const double f = fb.first, b = fb.second;  // not bound: CAPTURE takes them (clang 14)
          CAPTURE(to_string(schedule));
          CAPTURE(p);
          CAPTURE(m);
          CAPTURE(f);
          const Scenario s = lesson_of(pipeline(schedule, m, f, b), p);
          const ProgramResult r = predicted(s, free_links());
          const double closed = (m + p - 1) * (f + b) * 1000;  // ns
          CHECK(r.total_ns == doctest::Approx(closed).epsilon(1e-4));
          for (int stage = 0; stage < p; ++stage) {
            const double idle = 1 - r.compute_ns[static_cast<std::size_t>(stage)] / r.total_ns;
            CHECK(idle == doctest::Approx(static_cast<double>(p - 1) / (m + p - 1)).epsilon(1e-4));
          }
        }
}

TEST_CASE("pipeline: real links make the step longer than the closed form, blocking sends longer still") {
  const int p = 4, m = 4;
  const double closed = (m + p - 1) * 150.0 * 1000;
  const TopologyConfig nvlink;  // the default: a switch of NVLink 4 ports
  for (const PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::ofob}) {
    const double isend = predicted(lesson_of(pipeline(schedule, m), p), nvlink).total_ns;
    const double send =
        predicted(lesson_of(pipeline(schedule, m, 50, 100, PipelineP2p::send), p), nvlink).total_ns;
    CHECK(isend > closed);
    CHECK(send > isend);
  }
}

TEST_CASE("pipeline: GPipe holds m microbatches' activations on every stage, 1F1B at most p - s") {
  const int p = 4;
  for (const int m : {2, 4, 8}) {
    CAPTURE(m);
    const ProgramResult gpipe = predicted(lesson_of(pipeline(PipelineSchedule::gpipe, m), p), {});
    const ProgramResult ofob = predicted(lesson_of(pipeline(PipelineSchedule::ofob, m), p), {});
    for (int s = 0; s < p; ++s) {
      CAPTURE(s);
      const auto r = static_cast<std::size_t>(s);
      CHECK(gpipe.peak_memory_bytes[r] == m * kActivation);
      CHECK(ofob.peak_memory_bytes[r] == std::min(p - s, m) * kActivation);
      CHECK(gpipe.memory[r].back().bytes == 0);  // every backward freed its microbatch
      CHECK(ofob.memory[r].back().bytes == 0);
    }
  }
}

TEST_CASE("pipeline: activations go to stage s+1, gradients to stage s-1, isend on the pair's stream, send on compute") {
  const int p = 3, m = 2;
  const std::vector<Phase> isend = training_phases(pipeline(PipelineSchedule::gpipe, m), p);
  int activations = 0, gradients = 0;
  for (std::size_t k = 0; k < isend.size(); ++k) {
    const Phase& ph = isend[k];
    if (ph.kind != PhaseKind::collective) continue;
    CAPTURE(ph.name);
    const int from = ph.request.spec.root, to = send_recv_receiver(ph.request.spec, ph.request.algorithm);
    const bool forward = ph.name.find("activations") != std::string::npos;
    CHECK(to == (forward ? from + 1 : from - 1));
    (forward ? activations : gradients) += 1;
    CHECK(ph.stream == fmt::format("p2p {}:{}", std::min(from, to), std::max(from, to)));
    // The event is on the compute that produced the data: the phase just before, on the sender.
    REQUIRE(ph.wait_for.size() == 1);
    const Phase& producer = isend[static_cast<std::size_t>(ph.wait_for[0])];
    CHECK(static_cast<std::size_t>(ph.wait_for[0]) < k);
    CHECK(producer.compute_us[static_cast<std::size_t>(from)] > 0);
    CHECK(producer.name.find(forward ? "forward" : "backward") != std::string::npos);
  }
  CHECK(activations == (p - 1) * m);
  CHECK(gradients == (p - 1) * m);
  for (const Phase& ph : training_phases(pipeline(PipelineSchedule::gpipe, m, 50, 100, PipelineP2p::send), p))
    if (ph.kind == PhaseKind::collective) {
      CHECK(ph.stream == kComputeStream);
      CHECK(ph.wait_for.empty());
    }
  // The executed messages verify: each receiver holds what its sender sent.
  const Scenario s = lesson_of(pipeline(PipelineSchedule::ofob, m), p);
  ProgramResult r = prepare_program(s);
  execute_program(r, testing::cpu());
  CHECK(r.verified());
}

TEST_CASE("pipeline: several schedules and p2p give one variant each, each after a host synchronisation") {
  TrainingSpec spec = pipeline(PipelineSchedule::gpipe, 2);
  spec.schedules = {PipelineSchedule::gpipe, PipelineSchedule::ofob};
  spec.p2p = {PipelineP2p::isend, PipelineP2p::send};
  const std::vector<Phase> phases = training_phases(spec, 2);
  const std::size_t per_variant = 2 * 2 * 2 + 2 * 1 * 2;
  REQUIRE(phases.size() == 4 * per_variant);
  for (std::size_t k = 0; k < phases.size(); ++k) CHECK(phases[k].synchronize == (k > 0 && k % per_variant == 0));
  CHECK(phases[0].name.rfind("gpipe, isend: ", 0) == 0);
  CHECK(phases[3 * per_variant].name.rfind("1f1b, send: ", 0) == 0);
}

TEST_CASE("pipeline: impossible figures are errors naming the [training] key") {
  const auto error = [](TrainingSpec s, int ranks) { return testing::input_error([&] { training_phases(s, ranks); }); };
  TrainingSpec s = pipeline(PipelineSchedule::gpipe, 0);
  CHECK(error(s, 4).find("lesson.toml:12:1: key 'training.microbatches': must be between 1 and 1024, got 0") !=
        std::string::npos);
  s = pipeline(PipelineSchedule::gpipe, 4);
  s.stages = 3;
  CHECK(error(s, 4).find("key 'training.stages': the pipeline has 3 stages, one per rank, but the lesson has ranks = 4") !=
        std::string::npos);
  s = pipeline(PipelineSchedule::gpipe, 4, 0);
  CHECK(error(s, 4).find("key 'training.forward_us': must be > 0") != std::string::npos);
  s = pipeline(PipelineSchedule::gpipe, 4);
  s.schedules.clear();
  CHECK(error(s, 4).find("key 'training.schedule'") != std::string::npos);
  s = pipeline(PipelineSchedule::gpipe, 1024);
  CHECK(error(s, 64).find("key 'training.microbatches'") != std::string::npos);  // too many phases
}

}  // namespace collsim
