// Tests of the classroom lessons in scenarios/lessons/. Every lesson is loaded, executed on
// the CPU backend and verified, predicted on its own topology; every caption of every step
// expands and every question answers. Then each lesson is held to what its description
// tells the student (the tree beats the ring at 4 KiB, the straggler costs time, ...), so
// that a change in the library that makes a lesson wrong fails here.
//
// A new lesson needs a LESSON_TEST below: "every lesson in scenarios/lessons/ has a test"
// lists the folder.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

#include "sim/core/text_file.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "test_support.h"

namespace collsim {
namespace {

namespace fs = std::filesystem;

fs::path lessons_dir() { return fs::path(COLLSIM_SOURCE_DIR) / "scenarios" / "lessons"; }

// The lesson files that have a LESSON_TEST (filled before main runs).
std::set<std::string>& tested_lessons() {
  static std::set<std::string> files;
  return files;
}
bool register_lesson(const char* file) { return tested_lessons().insert(file).second; }

#define LESSON_TEST_NAME2(a, b) a##b
#define LESSON_TEST_NAME(a, b) LESSON_TEST_NAME2(a, b)
// A TEST_CASE for one lesson file, recorded for the coverage test.
#define LESSON_TEST(file)                                                                     \
  [[maybe_unused]] const bool LESSON_TEST_NAME(lesson_registered_, __LINE__) = register_lesson(file); \
  TEST_CASE("lesson " file)

struct Lesson {
  Scenario scenario;
  ProgramResult program;
};

bool no_placeholder_left(std::string_view text) { return text.find('{') == std::string_view::npos; }

// Every caption a viewer shows: the lesson's and each phase's before its first step, and
// each step's of each collective phase.
void check_captions(const Scenario& s, const ProgramResult& p) {
  const int phases = static_cast<int>(s.phases.size());
  for (int k = 0; k < phases; ++k) {
    const Phase& phase = s.phases[static_cast<std::size_t>(k)];
    const PhaseRun& run = p.phases[static_cast<std::size_t>(k)];
    CAPTURE(phase.name);
    CaptionContext before;
    if (run.run) {
      before = caption_context(run.schedule, 0, k + 1, phases);
    } else {
      before.phase = k + 1;
      before.phases = phases;
      before.ranks = s.ranks;
    }
    CHECK(no_placeholder_left(expand_caption(s.caption, before)));
    CHECK(no_placeholder_left(expand_caption(phase.caption, before)));
    if (!run.run) continue;
    for (int step = 1; step <= run.schedule.step_count(); ++step) {
      CAPTURE(step);
      std::string text;
      REQUIRE_NOTHROW(text = step_caption(phase, run.schedule, step, k + 1, phases));
      CHECK(!text.empty());
      CHECK(no_placeholder_left(text));
    }
  }
}

void check_questions(const Scenario& s, const ProgramResult& p) {
  CHECK(!s.questions.empty());
  for (const Question& q : s.questions) {
    CAPTURE(q.text);
    Answer a;
    REQUIRE_NOTHROW(a = answer_question(q, p));
    CHECK(std::isfinite(a.value));
    CHECK(!a.text.empty());
    CHECK(no_placeholder_left(a.text));
  }
}

// Loads, executes, verifies and predicts a lesson, and checks its captions and questions.
Lesson run_lesson(const char* file) {
  Lesson l{load_scenario(lessons_dir() / file), {}};
  const Scenario& s = l.scenario;
  CHECK(s.format == 2);
  CHECK(!s.title.empty());
  CHECK(s.description.find("Try") != std::string::npos);  // something for the student to try
  l.program = prepare_program(s);
  execute_program(l.program, testing::cpu());
  predict_program(l.program, s, s.topology);
  CHECK(l.program.verified());
  check_captions(s, l.program);
  check_questions(s, l.program);
  return l;
}

// The timing model only, for variants of a lesson (another rank count, no straggler).
ProgramResult predict_only(const Scenario& s) {
  ProgramResult p = prepare_program(s, /*model_only=*/true);
  predict_program(p, s, s.topology);
  return p;
}

// The lesson as `collsim run LESSON FLAGS` runs it: `flags` and `topology` hold the values
// of the flags named in `given`, as the command line would set them.
Scenario with_flags(const Scenario& s, const RunRequest& flags, const TopologyConfig& topology,
                    const std::set<std::string_view>& given) {
  return apply_scenario_overrides(s, flags, topology, [&](std::string_view f) { return given.count(f) == 1; });
}
Scenario with_ranks(const Scenario& s, int n) {
  RunRequest flags;
  flags.spec.ranks = n;
  return with_flags(s, flags, {}, {"--ranks"});
}
Scenario with_link(const Scenario& s, const std::string& preset) {
  TopologyConfig t;
  t.link = preset;
  return with_flags(s, {}, t, {"--link"});
}
// The lesson with one line of its file changed, as a description's "set X in [training]" asks.
Scenario with_line(const char* file, const std::string& line, const std::string& replacement) {
  std::string toml = read_text_file(lessons_dir() / file, "lesson");
  const std::size_t at = toml.find(line);
  REQUIRE(at != std::string::npos);
  toml.replace(at, line.size(), replacement);
  return parse_scenario(toml, file);
}
double total_us(const ProgramResult& p) { return p.total_ns / 1000; }
double total_ms(const ProgramResult& p) { return p.total_ns / 1e6; }
// The end of the last compute phase (the backward, where the optimizer is not a phase).
double compute_end_us(const Scenario& s, const ProgramResult& p) {
  double end = 0;
  for (std::size_t k = 0; k < s.phases.size(); ++k)
    if (s.phases[k].kind == PhaseKind::compute) end = std::max(end, p.phases[k].end() / 1000);
  return end;
}
// A figure the text quotes, to its rounding: "about 0.57 ms" is within(0.57, 0.005) in ms.
// (Approx's epsilon is relative to the larger side, near enough to the figure's.)
doctest::Approx within(double figure, double tolerance) {
  return doctest::Approx(figure).epsilon(tolerance / std::abs(figure));
}

const PhaseRun& phase_run(const ProgramResult& p, int phase) { return p.phases.at(static_cast<std::size_t>(phase - 1)); }
double end_us(const ProgramResult& p, int phase) { return phase_run(p, phase).end() / 1000; }
// A phase's own time: from its first rank's begin to its last rank's end.
double duration_us(const ProgramResult& p, int phase) {
  return (phase_run(p, phase).end() - phase_run(p, phase).begin()) / 1000;
}
double answer(const Lesson& l, std::size_t question) {
  return answer_question(l.scenario.questions.at(question), l.program).value;
}
std::string step_text(const Lesson& l, int phase, int step) {
  const auto k = static_cast<std::size_t>(phase - 1);
  return step_caption(l.scenario.phases[k], l.program.phases[k].schedule, step, phase,
                      static_cast<int>(l.scenario.phases.size()));
}
bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

TEST_CASE("every lesson in scenarios/lessons/ has a test") {
  std::set<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(lessons_dir()))
    if (e.path().extension() == ".toml") files.insert(e.path().filename().string());
  CHECK(files.size() >= 17);
  for (const std::string& f : files) {
    CAPTURE(f);
    CHECK_MESSAGE(tested_lessons().count(f) == 1, "add a LESSON_TEST for it in tests/test_lessons.cpp");
  }
  for (const std::string& f : tested_lessons()) {
    CAPTURE(f);
    CHECK_MESSAGE(files.count(f) == 1, "a LESSON_TEST names a file that scenarios/lessons/ does not have");
  }
}

LESSON_TEST("01_ring_allreduce.toml") {
  const Lesson l = run_lesson("01_ring_allreduce.toml");
  REQUIRE(l.scenario.single_collective());
  CHECK(phase_run(l.program, 1).schedule.step_count() == 6);
  CHECK(answer(l, 0) == 24);  // 3 chunks of 2 floats after the reduce-scatter
  CHECK(answer(l, 1) == 4);   // rank 0's chunk 1 is complete after step 3
  CHECK(answer(l, 2) == 48);  // 1.5 times the 32-byte buffer
  // The step captions follow the schedule: in step 1 rank 0 sends its own chunk 0.
  CHECK(contains(step_text(l, 1, 1), "rank 0 sends its own chunk 0 (8 B) to rank 1"));
  CHECK(contains(step_text(l, 1, 6), "32 B moved"));
  // "Try: --count 1M to see the time of a real 4 MiB gradient (about 20 µs on NVLink)"
  RunRequest count;
  count.spec.count = 1 << 20;
  CHECK(total_us(predict_only(with_flags(l.scenario, count, {}, {"--count"}))) == within(20, 0.5));
}

LESSON_TEST("02_ring_vs_parameter_server.toml") {
  const Lesson l = run_lesson("02_ring_vs_parameter_server.toml");
  CHECK(l.program.total_ranks == 5);  // 4 workers and the server
  // The parameter server is slower than the ring, and more so with more workers.
  const double ratio4 = duration_us(l.program, 2) / duration_us(l.program, 1);
  CHECK(ratio4 > 3);
  const ProgramResult sixteen = predict_only(with_ranks(l.scenario, 16));
  CHECK(sixteen.total_ranks == 17);
  const double ratio16 = duration_us(sixteen, 2) / duration_us(sixteen, 1);
  CHECK(ratio16 > 2 * ratio4);
  CHECK(answer(l, 2) == 1.5 * 4 * 1024 * 1024);  // the ring: 2(N-1)/N of 4 MiB
  // "the ring takes about 0.57 ms, the parameter server about 2.8 ms, almost five times as
  // long (phase 2 starts when phase 1 ends, at 0.57 ms, and ends near 3.3 ms)"
  CHECK(duration_us(l.program, 1) / 1000 == within(0.57, 0.005));
  CHECK(duration_us(l.program, 2) / 1000 == within(2.8, 0.05));
  CHECK(ratio4 > 4.5);
  CHECK(ratio4 < 5);
  CHECK(phase_run(l.program, 2).begin() / 1e6 == within(0.57, 0.005));
  CHECK(end_us(l.program, 2) / 1000 == within(3.3, 0.05));
  // "Try: --ranks 16. The ring still takes under 1 ms; the server needs 11 ms, 12 times as long."
  CHECK(duration_us(sixteen, 1) < 1000);
  CHECK(duration_us(sixteen, 2) / 1000 == within(11, 0.5));
  CHECK(ratio16 == within(12, 0.5));
}

LESSON_TEST("03_sharded_parameter_server.toml") {
  const Lesson l = run_lesson("03_sharded_parameter_server.toml");
  CHECK(l.program.total_ranks == 8);  // 4 workers and, in phase 1, 4 servers
  // Four servers take well under half the time of one.
  CHECK(duration_us(l.program, 1) * 2 < duration_us(l.program, 2));
  CHECK(answer(l, 2) == 4 * 1024 * 1024);  // a worker pushes its whole gradient either way
  // "the sharded all-reduce ends at about 1.04 ms. The single server starts at 0.75 ms ...
  // and ends at 3.53 ms, 2.78 ms later"
  CHECK(end_us(l.program, 1) / 1000 == within(1.04, 0.005));
  CHECK(phase_run(l.program, 2).begin() / 1e6 == within(0.75, 0.005));
  CHECK(end_us(l.program, 2) / 1000 == within(3.53, 0.005));
  CHECK(duration_us(l.program, 2) / 1000 == within(2.78, 0.005));
}

LESSON_TEST("04_tree_vs_ring_crossover.toml") {
  const Lesson l = run_lesson("04_tree_vs_ring_crossover.toml");
  // Phases: tree small, ring small, tree large, ring large.
  CHECK(duration_us(l.program, 1) < duration_us(l.program, 2));  // 4 KiB: the tree's fewer steps win
  CHECK(duration_us(l.program, 4) < duration_us(l.program, 3));  // 4 MiB: the ring's fewer bytes win
  CHECK(answer(l, 2) == 3.0 * 4 * 1024 * 1024);                 // the tree's root sends lg 8 whole buffers
  // "the tree (phase 1, 3.7 µs) beats the ring (phase 2, 8.4 µs) ... the ring (phase 4,
  // 28 µs) beats the tree (phase 3, 71 µs)"
  CHECK(duration_us(l.program, 1) == within(3.7, 0.05));
  CHECK(duration_us(l.program, 2) == within(8.4, 0.05));
  CHECK(duration_us(l.program, 3) == within(71, 0.5));
  CHECK(duration_us(l.program, 4) == within(28, 0.5));
}

LESSON_TEST("05_broadcast.toml") {
  const Lesson l = run_lesson("05_broadcast.toml");
  CHECK(phase_run(l.program, 1).schedule.step_count() == 3);
  CHECK(answer(l, 0) == 3 * 32);  // the root sends its 32 B once per step
  CHECK(answer(l, 1) == 32);      // every other rank receives it once
  CHECK(answer(l, 2) == 3);       // 1 + 2 transfers after step 2: the holders double
  // "ceil(lg N) steps: 1.8 µs here"
  CHECK(total_us(l.program) == within(1.8, 0.05));
  // "Try: --count 1M (29.8 µs ...), then --count 1M --algorithm chain (24.7 µs ...) and
  // --count 1M --algorithm scatter_allgather (22.3 µs ...). At 8 numbers, chain is the
  // slowest (8.4 µs)"
  RunRequest flags;
  flags.spec.count = 1 << 20;
  CHECK(total_us(predict_only(with_flags(l.scenario, flags, {}, {"--count"}))) == within(29.8, 0.05));
  flags.algorithm = "chain";
  CHECK(total_us(predict_only(with_flags(l.scenario, flags, {}, {"--count", "--algorithm"}))) == within(24.7, 0.05));
  CHECK(total_us(predict_only(with_flags(l.scenario, flags, {}, {"--algorithm"}))) == within(8.4, 0.05));
  flags.algorithm = "scatter_allgather";
  CHECK(total_us(predict_only(with_flags(l.scenario, flags, {}, {"--count", "--algorithm"}))) == within(22.3, 0.05));
}

LESSON_TEST("06_all_gather.toml") {
  const Lesson l = run_lesson("06_all_gather.toml");
  CHECK(answer(l, 0) == 7);
  CHECK(answer(l, 1) == 3);
  Question ring_bytes = l.scenario.questions.at(2);
  ring_bytes.phase = 1;
  CHECK(answer_question(ring_bytes, l.program).value == answer(l, 2));  // the same bytes
  CHECK(answer(l, 2) == 7 * 32);
  CHECK(duration_us(l.program, 2) < duration_us(l.program, 1));  // fewer steps, fewer latencies
  // "(1.8 µs against the ring's 4.2 µs on this switch)"
  CHECK(duration_us(l.program, 1) == within(4.2, 0.05));
  CHECK(duration_us(l.program, 2) == within(1.8, 0.05));
  // "Try: --topology ring ... it takes 12.6 µs, three times the ring's 4.2 µs."
  TopologyConfig ring;
  ring.kind = TopologyKind::ring;
  const ProgramResult on_ring = predict_only(with_flags(l.scenario, {}, ring, {"--topology"}));
  CHECK(duration_us(on_ring, 1) == within(4.2, 0.05));
  CHECK(duration_us(on_ring, 2) == within(12.6, 0.05));
}

LESSON_TEST("07_reduce_scatter.toml") {
  const Lesson l = run_lesson("07_reduce_scatter.toml");
  CHECK(answer(l, 0) == 3 * 32);
  CHECK(answer(l, 1) == answer(l, 0));
  CHECK(answer(l, 2) == 4);
  CHECK(duration_us(l.program, 2) < duration_us(l.program, 1));
  // "1.2 µs against the ring's 1.8 µs"
  CHECK(duration_us(l.program, 1) == within(1.8, 0.05));
  CHECK(duration_us(l.program, 2) == within(1.2, 0.05));
}

LESSON_TEST("08_scatter_gather.toml") {
  const Lesson l = run_lesson("08_scatter_gather.toml");
  CHECK(answer(l, 0) == 7 * 32);
  CHECK(answer(l, 1) == 7 * 32);
  // Each rank works after its part of the scatter and gathers after its work.
  const PhaseRun &scatter = phase_run(l.program, 1), &work = phase_run(l.program, 2), &gather = phase_run(l.program, 3);
  for (int r = 0; r < 8; ++r) {
    CAPTURE(r);
    const auto i = static_cast<std::size_t>(r);
    CHECK(work.rank_begin_ns[i] >= scatter.rank_end_ns[i]);
    CHECK(gather.rank_begin_ns[i] >= work.rank_end_ns[i]);
  }
  // "the root sends 7 blocks (224 B)" and compute starts "here all at 1.8 µs"
  CHECK(answer(l, 0) == 224);
  for (const double begin : work.rank_begin_ns) CHECK(begin / 1000 == within(1.8, 0.05));
}

LESSON_TEST("09_all_to_all_moe.toml") {
  const Lesson l = run_lesson("09_all_to_all_moe.toml");
  CHECK(answer(l, 0) == 3 * 64 * 1024 * 2);  // 3 of 4 blocks of 64K bf16
  // Dispatch and combine are one all-to-all, executed once.
  CHECK(phase_run(l.program, 2).run == phase_run(l.program, 4).run);
  // The experts wait for the dispatch, the combine for the experts: all on the critical path.
  CHECK(phase_run(l.program, 3).begin() >= phase_run(l.program, 2).end());
  CHECK(l.program.total_ns == doctest::Approx(45'000 + 2 * duration_us(l.program, 2) * 1000));
  // "Here, on NVLink, the layer takes 50.3 µs, of which 45 µs are compute."
  CHECK(total_us(l.program) == within(50.3, 0.05));
  // "Try: --ranks 8 (... 57.5 µs), or --link pcie4 (76 µs: the two all-to-alls now take
  // 31 µs), or --link eth100 (168 µs ...)"
  CHECK(total_us(predict_only(with_ranks(l.scenario, 8))) == within(57.5, 0.05));
  const ProgramResult pcie = predict_only(with_link(l.scenario, "pcie4"));
  CHECK(total_us(pcie) == within(76, 0.5));
  CHECK(duration_us(pcie, 2) + duration_us(pcie, 4) == within(31, 0.5));
  CHECK(total_us(predict_only(with_link(l.scenario, "eth100"))) == within(168, 0.5));
}

LESSON_TEST("10_barrier.toml") {
  const Lesson l = run_lesson("10_barrier.toml");
  // Nobody leaves the barrier before the slowest rank (30 µs) has arrived.
  const PhaseRun& barrier = phase_run(l.program, 2);
  for (const double end : barrier.rank_end_ns) CHECK(end > 30'000);
  CHECK(answer(l, 0) > 30);
  CHECK(answer(l, 1) == 6);
  CHECK(answer(l, 2) == 0);
  // The tree barrier has twice the dissemination's steps: twice its latency.
  CHECK(duration_us(l.program, 4) == doctest::Approx(2 * (end_us(l.program, 2) - 30)));
  // "the first barrier ends at 31.8 µs on every rank ... it ends 10 µs + 6 x 0.6 µs after
  // the first one"
  for (const double end : barrier.rank_end_ns) CHECK(end / 1000 == within(31.8, 0.05));
  CHECK(end_us(l.program, 4) - end_us(l.program, 2) == within(13.6, 0.05));
}

LESSON_TEST("11_send_recv_pipeline.toml") {
  const Lesson l = run_lesson("11_send_recv_pipeline.toml");
  const ProgramResult& p = l.program;
  // Phases 1-56 are the isend step, 57-112 the blocking one (the file's questions say so).
  REQUIRE(p.phases.size() == 112);
  CHECK(l.scenario.phases[0].name.rfind("gpipe, isend: ", 0) == 0);
  CHECK(l.scenario.phases[56].name.rfind("gpipe, send: ", 0) == 0);
  // Every stage computes 4 forwards and 4 backwards in each step.
  for (int r = 0; r < 4; ++r) CHECK(p.compute_ns[static_cast<std::size_t>(r)] == doctest::Approx(2 * 4 * 150'000));
  // Activations go one stage on, gradients one stage back.
  for (std::size_t k = 0; k < p.phases.size(); ++k)
    if (p.phases[k].run)
      for (const Transfer& t : p.phases[k].schedule.transfers)
        CHECK(t.dst == (contains(l.scenario.phases[k].name, "activations") ? t.src + 1 : t.src - 1));
  // "with isend the step takes 1081.6 µs, 1050 + 6 x 5.3 ... (stage 0 is idle 44.5% of it).
  // With blocking sends it takes 1155.2 µs"
  CHECK(answer(l, 0) == within(1081.6, 0.05));
  CHECK(answer(l, 0) == within(1050 + 6 * 5.3, 0.5));
  CHECK(answer(l, 1) == within(1155.2, 0.05));
  CHECK(answer(l, 2) == within(0.445, 0.0005));
  CHECK(answer(l, 3) == 2 * 1024 * 1024);
  for (const PhaseRun& pr : p.phases)
    if (pr.run) CHECK((pr.end() - pr.begin()) / 1000 == within(5.3, 0.05));
  // "Try: --link pcie4. A message takes 68 µs ... 1508.2 µs; ... blocking sends ... 2401.5 µs"
  const Scenario pcie_s = with_link(l.scenario, "pcie4");
  const ProgramResult pcie = predict_only(pcie_s);
  for (const PhaseRun& pr : pcie.phases)
    if (pr.run) CHECK((pr.end() - pr.begin()) / 1000 == within(68, 0.5));
  CHECK(answer_question(pcie_s.questions[0], pcie).value == within(1508.2, 0.05));
  CHECK(answer_question(pcie_s.questions[1], pcie).value == within(2401.5, 0.05));
}

LESSON_TEST("12_ddp_resnet34.toml") {
  const Lesson l = run_lesson("12_ddp_resnet34.toml");
  const Scenario& s = l.scenario;
  REQUIRE(!s.phases.empty());
  CHECK(s.phases[0].request.spec.collective == Collective::broadcast);
  std::uint64_t reduced = 0;
  int broadcasts = 0;
  for (const Phase& phase : s.phases) {
    if (phase.kind != PhaseKind::collective) continue;
    if (phase.request.spec.collective == Collective::broadcast) ++broadcasts;
    if (phase.request.spec.collective == Collective::all_reduce) reduced += phase.request.spec.count;
  }
  CHECK(broadcasts == 1);
  CHECK(reduced == 21'797'672);  // every parameter's gradient, in buckets
  // Buckets overlap the backward: less communication is exposed than there is.
  CHECK(l.program.exposed_communication_ns[0] < l.program.communication_ns[0]);
  // "(... 5.5 ms here)", "the backward ends at 35.5 ms. The step ends at 36.6 ms"
  CHECK(duration_us(l.program, 1) / 1000 == within(5.5, 0.05));
  CHECK(compute_end_us(s, l.program) / 1000 == within(35.5, 0.05));
  CHECK(total_ms(l.program) == within(36.6, 0.05));
  // "Try: --link nvlink4 (...: the step ends at 30.5 ms), --ranks 8 (... 47.8 ms), or set
  // bucket_mb = 100.0 in [training]: ... (39.7 ms)"
  CHECK(total_ms(predict_only(with_link(s, "nvlink4"))) == within(30.5, 0.05));
  CHECK(total_ms(predict_only(with_ranks(s, 8))) == within(47.8, 0.05));
  const Scenario big = with_line("12_ddp_resnet34.toml", "bucket_mb = 25.0", "bucket_mb = 100.0");
  CHECK(total_ms(predict_only(big)) == within(39.7, 0.05));
}

LESSON_TEST("13_fsdp_resnet34.toml") {
  const Lesson l = run_lesson("13_fsdp_resnet34.toml");
  int gathers = 0, scatters = 0;
  std::uint64_t sharded = 0;
  for (const Phase& phase : l.scenario.phases) {
    if (phase.kind != PhaseKind::collective) continue;
    if (phase.request.spec.collective == Collective::all_gather) ++gathers;
    if (phase.request.spec.collective == Collective::reduce_scatter) {
      ++scatters;
      sharded += phase.request.spec.count * 4;  // each of the 4 ranks keeps one shard
    }
  }
  CHECK(gathers == 2 * scatters);  // gathered for the forward and again for the backward
  CHECK(sharded >= 21'797'672);    // every parameter has an owner (shards are padded)
  CHECK(sharded < 21'797'672 + 4 * static_cast<std::uint64_t>(scatters));
  // The forward's all-gathers hide behind the forward's 10 ms of compute.
  CHECK(answer(l, 0) < 10'000 * 1.01);
  CHECK(answer(l, 2) == 3 * 590'080 * 4);
  // "the forward ends at 10.0 ms", "the step ends at 34.4 ms, 4.4 ms after its 30 ms of compute"
  CHECK(answer(l, 0) / 1000 == within(10.0, 0.05));
  CHECK(total_ms(l.program) == within(34.4, 0.05));
  // "Try: --link nvlink4 (the step ends at 30.5 ms ...), or --ranks 8: ... 35.4 ms."
  CHECK(total_ms(predict_only(with_link(l.scenario, "nvlink4"))) == within(30.5, 0.05));
  CHECK(total_ms(predict_only(with_ranks(l.scenario, 8))) == within(35.4, 0.05));
}

LESSON_TEST("14_straggler.toml") {
  const Lesson l = run_lesson("14_straggler.toml");
  REQUIRE(!l.scenario.topology.stragglers.empty());
  Scenario healthy = l.scenario;
  healthy.topology.stragglers.clear();
  const ProgramResult without = predict_only(healthy);
  // Rank 2 finishes its backward 100 µs after the others: everyone waits for it.
  CHECK(answer(l, 0) == doctest::Approx(300));
  CHECK(l.program.total_ns > without.total_ns + 90'000);
  // "The step ends at about 321 µs instead of 220 µs: ... costs everyone 46%."
  CHECK(total_us(l.program) == within(321, 0.5));
  CHECK(total_us(without) == within(220, 0.5));
  CHECK(l.program.total_ns / without.total_ns == within(1.46, 0.005));
  // "a ring (1M floats, 4 MiB, on NVLink: 20.4 µs on its own)"
  CHECK(total_us(without) - 200 == within(20.4, 0.05));
  // "--ranks 16: 339 µs"
  CHECK(total_us(predict_only(with_ranks(l.scenario, 16))) == within(339, 0.5));
}

LESSON_TEST("15_two_nodes_slow_link.toml") {
  const Lesson l = run_lesson("15_two_nodes_slow_link.toml");
  CHECK(l.program.total_ranks == 16);
  CHECK(l.scenario.phases[0].request.algorithm == "hierarchical");
  CHECK(l.scenario.phases[1].request.algorithm == "ring");
  CHECK(duration_us(l.program, 1) * 1.5 < duration_us(l.program, 2));
  // "the hierarchical all-reduce ends at 524 µs. The flat ring starts on the first GPUs at
  // 515 µs and ends at 1444 µs: it takes 929 µs, 1.8 times as long."
  CHECK(end_us(l.program, 1) == within(524, 0.5));
  CHECK(phase_run(l.program, 2).begin() / 1000 == within(515, 0.5));
  CHECK(end_us(l.program, 2) == within(1444, 0.5));
  CHECK(duration_us(l.program, 2) == within(929, 0.5));
  CHECK(duration_us(l.program, 2) / duration_us(l.program, 1) == within(1.8, 0.05));
  // "Try: --uplink ib_ndr (...: 155 µs against the ring's 241 µs ...), --nic gpu (...
  // 90 µs, while the flat ring still ... 929 µs)"
  TopologyConfig ib;
  ib.uplink = "ib_ndr";
  const ProgramResult fast = predict_only(with_flags(l.scenario, {}, ib, {"--uplink"}));
  CHECK(duration_us(fast, 1) == within(155, 0.5));
  CHECK(duration_us(fast, 2) == within(241, 0.5));
  TopologyConfig nic;
  nic.nic_per_gpu = true;
  const ProgramResult per_gpu = predict_only(with_flags(l.scenario, {}, nic, {"--nic"}));
  CHECK(duration_us(per_gpu, 1) == within(90, 0.5));
  CHECK(duration_us(per_gpu, 2) == within(929, 0.5));
}

LESSON_TEST("16_overlap.toml") {
  const Lesson l = run_lesson("16_overlap.toml");
  const ProgramResult& p = l.program;
  double sum_of_phases = 0;
  for (int k = 1; k <= static_cast<int>(p.phases.size()); ++k) sum_of_phases += duration_us(p, k);
  for (int r = 0; r < 4; ++r) {
    const auto i = static_cast<std::size_t>(r);
    CHECK(p.exposed_communication_ns[i] < 0.5 * p.communication_ns[i]);  // three of four buckets hidden
    CHECK(p.exposed_communication_ns[i] > 0);                            // the last one is not
  }
  CHECK(p.total_ns / 1000 < sum_of_phases - 50);
  CHECK(answer(l, 2) == doctest::Approx(answer(l, 1) + 10));  // the optimizer waits for the last bucket
  // "the backward ends at 120 µs ... the optimizer starts at 140.4 µs, and the step ends at
  // 150.4 µs", "(ring, 1M floats, 4 MiB: 20.4 µs on NVLink)"
  CHECK(answer(l, 1) == within(140.4, 0.05));
  CHECK(total_us(p) == within(150.4, 0.05));
  for (int k = 1; k <= static_cast<int>(p.phases.size()); ++k)
    if (phase_run(p, k).run) CHECK(duration_us(p, k) == within(20.4, 0.05));
  // "Try: --link pcie4. Each all-reduce now takes 209 µs ... (the step ends at 874 µs)"
  const ProgramResult pcie = predict_only(with_link(l.scenario, "pcie4"));
  for (int k = 1; k <= static_cast<int>(pcie.phases.size()); ++k)
    if (phase_run(pcie, k).run) CHECK(duration_us(pcie, k) == within(209, 0.5));
  CHECK(total_us(pcie) == within(874, 0.5));
}

LESSON_TEST("17_parameter_server_training.toml") {
  const Lesson l = run_lesson("17_parameter_server_training.toml");
  const ProgramResult& p = l.program;
  CHECK(p.total_ranks == 6);  // 4 workers and 2 servers
  // Push and pull are the two steps of one all-reduce, executed once.
  const PhaseRun &push = phase_run(p, 3), &update = phase_run(p, 4), &pull = phase_run(p, 5);
  CHECK(push.run == pull.run);
  // A server updates its shard once it is summed, and sends it back after the update.
  for (std::size_t server = 4; server < 6; ++server) {
    CHECK(update.rank_begin_ns[server] >= push.rank_end_ns[server]);
    CHECK(pull.rank_begin_ns[server] >= update.rank_end_ns[server]);
  }
  CHECK(answer(l, 1) == 269'322 * 4);
  // "the push ends at 567 µs and the step at 800 µs"
  CHECK(end_us(p, 3) == within(567, 0.5));
  CHECK(total_us(p) == within(800, 0.5));
  // "Try: set servers = 1 in [training] (1093 µs ...) or servers = 4 (668 µs); --ranks 8
  // (... 1226 µs); --topology switch (NVLink: 338 µs ...)"
  const char* file = "17_parameter_server_training.toml";
  CHECK(total_us(predict_only(with_line(file, "servers = 2", "servers = 1"))) == within(1093, 0.5));
  CHECK(total_us(predict_only(with_line(file, "servers = 2", "servers = 4"))) == within(668, 0.5));
  CHECK(total_us(predict_only(with_ranks(l.scenario, 8))) == within(1226, 0.5));
  TopologyConfig nvswitch;
  nvswitch.kind = TopologyKind::switch_fabric;
  CHECK(total_us(predict_only(with_flags(l.scenario, {}, nvswitch, {"--topology"}))) == within(338, 0.5));
}

LESSON_TEST("18_streams.toml") {
  const Lesson l = run_lesson("18_streams.toml");
  const Scenario& s = l.scenario;
  const ProgramResult& p = l.program;
  // The four variants: phases 1-6, 7-12, 13-18, 19-27; each starts after the one before.
  REQUIRE(p.phases.size() == 27);
  const int first[] = {1, 7, 13, 19}, last[] = {6, 12, 18, 27};
  for (int v = 1; v < 4; ++v) CHECK(phase_run(p, first[v]).begin() == doctest::Approx(phase_run(p, last[v - 1]).end()));
  const auto all_reduce_then_backward = [&](int all_reduce) {  // the next backward starts after it ends?
    return phase_run(p, all_reduce + 1).begin() >= phase_run(p, all_reduce).end() - 1e-6;
  };
  // 1. On the compute stream: each backward waits for the all-reduce before it.
  CHECK(s.phases[1].stream == "compute");
  CHECK(all_reduce_then_backward(2));
  CHECK(all_reduce_then_backward(4));
  // 2. On the legacy default stream: the same, though compute has a stream of its own.
  CHECK(s.phases[7].stream == kDefaultStream);
  CHECK(all_reduce_then_backward(8));
  CHECK(all_reduce_then_backward(10));
  // 3. Own stream and an event: the next backward starts when the one before ends, while
  // the all-reduce runs.
  CHECK(s.phases[13].wait_for == std::vector<int>{12});
  CHECK(phase_run(p, 15).begin() == doctest::Approx(phase_run(p, 13).end()));
  CHECK(phase_run(p, 14).begin() == doctest::Approx(phase_run(p, 13).end()));
  CHECK(phase_run(p, 15).begin() < phase_run(p, 14).end());
  // 4. A host synchronisation after each all-reduce: no overlap again.
  CHECK(s.phases[21].synchronize);
  CHECK(phase_run(p, 22).begin() >= phase_run(p, 21).end() - 1e-6);
  CHECK(phase_run(p, 21).begin() >= phase_run(p, 20).end() - 1e-6);
  // "Nothing overlaps: 151.2 µs", "151.2 µs", "110.4 µs", "157.2 µs"
  CHECK(answer(l, 0) == within(151.2, 0.05));
  CHECK(answer(l, 1) == within(151.2, 0.05));
  CHECK(answer(l, 2) == within(110.4, 0.05));
  CHECK(answer(l, 3) == within(157.2, 0.05));
  CHECK(answer(l, 2) < answer(l, 0) - 40);
  for (int k = 1; k <= 27; ++k)
    if (phase_run(p, k).run) CHECK(duration_us(p, k) == within(20.4, 0.05));
  // "Try: --link pcie4. Each all-reduce takes about 209 µs ...: variant 3 (655.6 µs) ...
  // variants 1 and 2 take 715.6 µs and variant 4 721.6 µs"
  const Scenario pcie_s = with_link(s, "pcie4");
  const ProgramResult pcie = predict_only(pcie_s);
  for (int k = 1; k <= 27; ++k)
    if (phase_run(pcie, k).run) CHECK(duration_us(pcie, k) == within(209, 0.5));
  CHECK(answer_question(pcie_s.questions[0], pcie).value == within(715.6, 0.05));
  CHECK(answer_question(pcie_s.questions[1], pcie).value == within(715.6, 0.05));
  CHECK(answer_question(pcie_s.questions[2], pcie).value == within(655.6, 0.05));
  CHECK(answer_question(pcie_s.questions[3], pcie).value == within(721.6, 0.05));
}

LESSON_TEST("19_pipeline_1f1b.toml") {
  const Lesson l = run_lesson("19_pipeline_1f1b.toml");
  const ProgramResult& p = l.program;
  REQUIRE(p.phases.size() == 224);
  CHECK(l.scenario.phases[0].name.rfind("gpipe, isend: ", 0) == 0);
  CHECK(l.scenario.phases[112].name.rfind("1f1b, isend: ", 0) == 0);
  // "GPipe takes 1681.6 µs, 1650 plus 6 hops of 5.3 µs; 1F1B takes 1744.7 µs"
  CHECK(answer(l, 0) == within(1681.6, 0.05));
  CHECK(answer(l, 1) == within(1744.7, 0.05));
  // Stage 0's bubble: at least the closed form 3/11.
  CHECK(answer(l, 2) >= 3.0 / 11);
  CHECK(answer(l, 3) >= 3.0 / 11);
  // Memory: 8 microbatches of 64 MiB with GPipe, p - s with 1F1B.
  const double mib64 = 64.0 * 1024 * 1024;
  CHECK(answer(l, 4) == 8 * mib64);
  CHECK(answer(l, 5) == 4 * mib64);
  CHECK(answer(l, 6) == 1 * mib64);
  // "Try: --bandwidth 1e9 --latency 0 (... both take 1650.0 µs and stage 0 is idle 0.273
  // of each), or --link pcie4 (messages of 68 µs: GPipe 2178.5 µs, 1F1B 2866.4 µs; the
  // memory stays as it was)"
  TopologyConfig free;
  free.bandwidth_gbps = 1e9;
  free.latency_us = 0;
  const Scenario fast_s = with_flags(l.scenario, {}, free, {"--bandwidth", "--latency"});
  const ProgramResult fast = predict_only(fast_s);
  for (int q = 0; q < 2; ++q) CHECK(answer_question(fast_s.questions[static_cast<std::size_t>(q)], fast).value == within(1650.0, 0.05));
  for (int q = 2; q < 4; ++q) CHECK(answer_question(fast_s.questions[static_cast<std::size_t>(q)], fast).value == within(0.273, 0.0005));
  const Scenario pcie_s = with_link(l.scenario, "pcie4");
  const ProgramResult pcie = predict_only(pcie_s);
  CHECK(answer_question(pcie_s.questions[0], pcie).value == within(2178.5, 0.05));
  CHECK(answer_question(pcie_s.questions[1], pcie).value == within(2866.4, 0.05));
  for (int q = 4; q < 7; ++q)
    CHECK(answer_question(pcie_s.questions[static_cast<std::size_t>(q)], pcie).value == answer(l, static_cast<std::size_t>(q)));
}

}  // namespace collsim
