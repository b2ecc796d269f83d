// Captions and questions of lessons: placeholders are filled from the schedule and the
// run, so a caption or an answer stays right when a student changes the ranks or the
// count; a template with a typo is refused with where it is.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <memory>
#include <numeric>
#include <string>

#include "sim/schedule/algorithm.h"
#include "sim/lesson/captions.h"
#include "sim/core/errors.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/lesson/text.h"
#include "test_support.h"

using namespace collsim;

namespace {

CollectiveSpec ring_spec(int ranks, std::uint64_t count) {
  CollectiveSpec spec;
  spec.collective = Collective::all_reduce;
  spec.ranks = ranks;
  spec.count = count;
  return spec;
}

// One ring all-reduce phase, assembled by hand as prepare_program and predict_program
// would: every rank busy from 0 to `end_ns` (rank r ends at end_ns - 500 r).
ProgramResult one_ring_phase(int ranks, std::uint64_t count, double end_ns = 2500) {
  RunRequest request;
  request.spec = ring_spec(ranks, count);
  ProgramResult p;
  p.total_ranks = ranks;
  PhaseRun phase;
  phase.run = std::make_shared<RunResult>(prepare_model_run(request));
  phase.schedule = phase.run->schedule;
  phase.source_transfer.resize(phase.schedule.transfers.size());
  std::iota(phase.source_transfer.begin(), phase.source_transfer.end(), std::size_t{0});
  phase.begin_ns.assign(phase.schedule.transfers.size(), 0);
  phase.end_ns.assign(phase.schedule.transfers.size(), end_ns);
  for (int r = 0; r < ranks; ++r) {
    phase.rank_begin_ns.push_back(0);
    phase.rank_end_ns.push_back(end_ns - 500 * r);
  }
  p.phases.push_back(std::move(phase));
  p.predicted = true;
  p.total_ns = end_ns + 1000;
  return p;
}

// Steps first..last of a phase's schedule as a phase of their own (steps renumbered from 1).
PhaseRun part_of(const PhaseRun& whole, int first, int last) {
  PhaseRun part = whole;
  part.schedule.transfers.clear();
  part.source_transfer.clear();
  part.schedule.step_labels.assign(whole.schedule.step_labels.begin() + first - 1,
                                   whole.schedule.step_labels.begin() + last);
  for (std::size_t i = 0; i < whole.schedule.transfers.size(); ++i) {
    Transfer t = whole.schedule.transfers[i];
    if (t.step < first - 1 || t.step > last - 1) continue;  // Transfer::step counts from 0
    t.step -= first - 1;
    part.schedule.transfers.push_back(t);
    part.source_transfer.push_back(i);
  }
  part.begin_ns.assign(part.schedule.transfers.size(), 0);
  part.end_ns.assign(part.schedule.transfers.size(), 1000);
  return part;
}

Question ask(Metric metric, int step = 0, int rank = 0, int chunk = 0, int phase = 1) {
  Question q;
  q.text = "a question";
  q.metric = metric;
  q.phase = phase;
  q.rank = rank;
  q.step = step;
  q.chunk = chunk;
  q.origin = "lesson.toml:12:1";
  return q;
}

double value(const Question& q, const ProgramResult& p) { return answer_question(q, p).value; }

std::string error_of(const Question& q, const ProgramResult& p) {
  return testing::input_error([&] { answer_question(q, p); });
}

std::string text_error(const std::string& text) {
  return testing::input_error([&] { parse_text(text, "l.toml:3:16: key 'phase[2].step_caption'"); });
}

// A lesson of `phases` phases that all run `s`, with `text` as phase `phase`'s step caption
// (and its caption, for step 0): what a view shows for step `step` of it.
std::string expand(const std::string& text, const Schedule& s, int step, int phase = 1, int phases = 1) {
  Scenario lesson;
  lesson.ranks = s.spec.ranks;
  lesson.phases.resize(static_cast<std::size_t>(phases));
  Phase& p = lesson.phases[static_cast<std::size_t>(phase - 1)];
  p.step_caption = text;
  p.caption = text;
  LessonFacts f = single_run_facts(lesson, s);
  f.phases.assign(static_cast<std::size_t>(phases), f.phases.at(0));
  const CaptionParts parts = caption_parts(lesson, f, static_cast<std::size_t>(phase - 1), s, step);
  return step == 0 ? parts.phase : parts.step;
}

// The same with stage captions: what step `step` shows.
std::string staged(const std::vector<Phase::StageCaption>& captions, const Schedule& s, int step) {
  Scenario lesson;
  lesson.ranks = s.spec.ranks;
  lesson.phases.resize(1);
  lesson.phases[0].stage_captions = captions;
  return step_caption(lesson, single_run_facts(lesson, s), 0, s, step);
}

}  // namespace

TEST_CASE("every caption placeholder is filled from a 4-rank ring all-reduce's step") {
  const Schedule s = build_schedule(ring_spec(4, 8), "ring", {});
  // Step 2 of the ring: rank 0 sends chunk (0 - 1) mod 4 = 3, 2 floats, to rank 1.
  CHECK(expand("{src}>{dst} c{chunk} {bytes}B", s, 2, 3, 5) == "0>1 c3 8B");
  CHECK(expand("step {step}/{steps}, {step_bytes} B in all", s, 2, 3, 5) == "step 2/6, 32 B in all");
  CHECK(expand("phase {phase}/{phases} on {ranks} ranks", s, 2, 3, 5) == "phase 3/5 on 4 ranks");
  CHECK(expand("{label}", s, 2) == s.step_labels[1]);
  CHECK(expand("{{src}} is {src}", s, 2) == "{src} is 0");
  CHECK(expand("{stage}, {stage_step} of {stage_steps}", s, 5) == "all-gather, 2 of 3");
  CHECK(expand("{bytes_h} of {block_bytes:h}", s, 2) == "8 B of 32 B");
  // Before the first step nothing moves: no focus transfer.
  CHECK(expand("{steps} steps", s, 0) == "6 steps");
  CHECK(expand("{src}->{dst} {bytes}", s, 0) == "-->- 0");
  CHECK_THROWS_AS(caption_context(s, 7, 1, 1), InputError);
}

TEST_CASE("the focus transfer is rank 0's send, else the first send, else the first transfer") {
  Schedule s;
  s.spec = ring_spec(4, 4);
  s.total_ranks = 4;
  s.step_labels = {"one", "two", "three"};
  auto transfer = [](int step, int src, int dst, int chunk) {
    Transfer t;
    t.step = step;
    t.src = src;
    t.dst = dst;
    t.chunk = chunk;
    t.count = 1;
    return t;
  };
  // Transfer::step counts from 0: these are steps 1, 2 and 3.
  s.transfers = {transfer(0, 1, 1, 5), transfer(0, 2, 3, 7), transfer(0, 0, 0, 8), transfer(0, 0, 1, 9),
                 transfer(1, 1, 1, 5), transfer(1, 2, 3, 7), transfer(1, 3, 0, 6),
                 transfer(2, 1, 1, 5)};
  const std::string focus = "{src}->{dst} chunk {chunk}, {step_bytes} B in the step";
  CHECK(expand(focus, s, 1) == "0->1 chunk 9, 8 B in the step");
  CHECK(expand(focus, s, 2) == "2->3 chunk 7, 8 B in the step");
  CHECK(expand(focus, s, 3) == "1->1 chunk 5, 0 B in the step");
}

TEST_CASE("expressions, formats and choices of words in lesson text") {
  const Schedule s = build_schedule(ring_spec(4, 1 << 20), "ring", {});
  CHECK(expand("{ranks-1} steps, {2*(ranks-1)/ranks:.2f} times", s, 0) == "3 steps, 1.50 times");
  CHECK(expand("{block_bytes:h} = {block_bytes_h}", s, 0) == "4 MiB = 4 MiB");
  CHECK(expand("{ranks > 8 ? 'many' : 'few'} ranks", s, 0) == "few ranks");
  CHECK(expand("{algorithm == 'ring' ? 'a ring' : 'other'}", s, 0) == "a ring");
  CHECK(expand("{min(ranks, 2)} {max(ranks, 2)} {log2(ranks)} {1/3} {0.25:.0%} {2.6:d}", s, 0) == "2 4 2 0.333 25 % 3");
  CHECK(expand("steps {reduce_scatter.range}, then {all_gather.range} ({all_gather.steps})", s, 0) ==
        "steps 1-3, then 4-6 (3)");
  // Mistakes name the text and the placeholder.
  CHECK(testing::input_error([&] { expand("{ranks / (ranks - 4)}", s, 0); }).find("division by zero") != std::string::npos);
  const std::string unknown = testing::input_error([&] { expand("{rnaks}", s, 0); });
  CHECK(unknown.find("placeholder '{rnaks}': unknown name 'rnaks' (this text knows: ranks") != std::string::npos);
  CHECK(testing::input_error([&] { expand("{algorithm * 2}", s, 0); }).find("'ring' is words, not a number") !=
        std::string::npos);
  // '+' joins words, and a number as it prints without a format (a choice's words can hold figures).
  CHECK(expand("{'on ' + algorithm + ', ' + ranks + ' ranks'}", s, 0) == "on ring, 4 ranks");
  CHECK(expand("{ranks > 3 ? 'only ' + (ranks - 1) + ' send' : 'all send'}", s, 0) == "only 3 send");
  // A choice evaluates one side, but a misspelt name on the other fails now, not only under
  // the flags that would take that side.
  CHECK(testing::input_error([&] { expand("{ranks > 3 ? 'many' : 'only ' + rnaks}", s, 0); })
            .find("unknown name 'rnaks'") != std::string::npos);
  CHECK(testing::input_error([&] { expand("{ranks < 3 ? stpes : steps}", s, 0); }).find("unknown name 'stpes'") !=
        std::string::npos);
  CHECK(expand("{ranks > 3 ? steps : 0}", s, 0) == "6");
}

TEST_CASE("a template that does not parse is refused with where it is") {
  CHECK(text_error("rank {src} sends {bytes} B ({{literal}})").empty());
  CHECK(text_error("{2*(ranks-1)/ranks:.2f} {a < b ? 'x' : 'y'}").empty());
  CHECK(text_error("rank {src sends").find("l.toml:3:16: key 'phase[2].step_caption': unclosed '{'") == 0);
  CHECK(text_error("rank {src {dst}").find("unclosed '{'") != std::string::npos);
  CHECK(text_error("rank src} sends").find("unmatched '}'") != std::string::npos);
  CHECK(text_error("{}").find("placeholder '{}': expected a value") != std::string::npos);
  CHECK(text_error("{ranks:.2x}").find("unknown format ':.2x'") != std::string::npos);
  CHECK(text_error("{(ranks}").find("expected ')'") != std::string::npos);
  CHECK(text_error("{a ? 'x'}").find("expected ':'") != std::string::npos);
  CHECK(text_error("{sqrt(ranks)}").find("unknown function 'sqrt'") != std::string::npos);
  CHECK(text_error("{'open}").find("unclosed quote") != std::string::npos);
}

TEST_CASE("stage captions land on the algorithm's stages at every rank count") {
  const std::vector<Phase::StageCaption> captions = {
      {"every", "any {step}", ""},
      {"reduce_scatter", "rs {stage_step}/{stage_steps}", ""},
      {"reduce_scatter.last", "rs done at {step}", ""},
      {"all_gather.first", "ag starts at {step}", ""},
      {"last", "the end", ""},
  };
  for (int n : {3, 4, 8}) {
    CAPTURE(n);
    const Schedule s = build_schedule(ring_spec(n, 64), "ring", {});
    CHECK(staged(captions, s, 1) == fmt::format("rs 1/{}", n - 1));
    CHECK(staged(captions, s, n - 1) == fmt::format("rs done at {}", n - 1));
    CHECK(staged(captions, s, n) == fmt::format("ag starts at {}", n));
    CHECK(staged(captions, s, 2 * n - 2) == "the end");
    if (n > 3) CHECK(staged(captions, s, n + 1) == fmt::format("any {}", n + 1));
  }
  // A stage the algorithm does not have selects nothing; a malformed selector is refused.
  const Schedule tree = build_schedule(ring_spec(4, 64), "binomial_tree", {});
  CHECK(staged({{"reduce_scatter", "x", ""}}, tree, 1) == tree.step_labels[0]);
  CHECK(staged({{"reduce", "up {stage_step}", ""}, {"broadcast.last", "done", ""}}, tree, 1) == "up 1");
  CHECK(staged({{"reduce", "up", ""}, {"broadcast.last", "done", ""}}, tree, tree.step_count()) == "done");
  CHECK_THROWS_WITH_AS(check_stage_selector("Reduce-Scatter", "l.toml:4:1: key 'collective.stage_captions[0].at'"),
                       doctest::Contains("l.toml:4:1: key 'collective.stage_captions[0].at': 'Reduce-Scatter' selects no steps"),
                       InputError);
}

TEST_CASE("a step's caption is its own entry, else its stage caption, else the step_caption, else the label") {
  const Schedule s = build_schedule(ring_spec(4, 8), "ring", {});
  Scenario lesson;
  lesson.ranks = 4;
  lesson.phases.resize(1);
  Phase& phase = lesson.phases[0];
  const LessonFacts f = single_run_facts(lesson, s);
  CHECK(step_caption(lesson, f, 0, s, 1) == s.step_labels[0]);
  phase.step_caption = "Step {step}: rank {src} sends chunk {chunk} to rank {dst}";
  phase.step_captions = {"first: {bytes} B", ""};
  phase.stage_captions = {{"all_gather.last", "last copy", ""}};
  CHECK(step_caption(lesson, f, 0, s, 1) == "first: 8 B");
  CHECK(step_caption(lesson, f, 0, s, 2) == "Step 2: rank 0 sends chunk 3 to rank 1");  // "" falls back
  CHECK(step_caption(lesson, f, 0, s, 3) == "Step 3: rank 0 sends chunk 2 to rank 1");  // past the list
  CHECK(step_caption(lesson, f, 0, s, 6) == "last copy");
  CHECK(step_caption(lesson, f, 0, s, 0).empty());
}

TEST_CASE("a view shows the lesson's caption before the phase's, or before the step's") {
  const Schedule s = build_schedule(ring_spec(4, 8), "ring", {});
  Scenario lesson;
  lesson.ranks = 4;
  lesson.caption = "Phase {phase}/{phases} on {ranks} ranks.";
  lesson.phases.resize(2);
  lesson.phases[1].caption = "The ring.";
  lesson.phases[1].step_caption = "Rank {src} sends {bytes} B.";
  LessonFacts f = single_run_facts(lesson, s);
  f.phases.push_back(f.phases[0]);
  CHECK(shown_caption(lesson, f, 1, s, 0) == "Phase 2/2 on 4 ranks. The ring.");
  CHECK(shown_caption(lesson, f, 1, s, 1) == "Phase 2/2 on 4 ranks. Rank 0 sends 8 B.");
  lesson.caption.clear();
  CHECK(shown_caption(lesson, f, 1, s, 2) == "Rank 0 sends 8 B.");
  CHECK(shown_caption(lesson, f, 0, s, 3) == s.step_labels[2]);  // no captions at all: the step label
  CHECK(shown_caption(lesson, f, 0, s, 0).empty());
}

TEST_CASE("answers are computed from the run, for every metric") {
  const ProgramResult p = one_ring_phase(4, 65536);  // 64 Ki floats: a 64 KiB chunk per rank
  CHECK(value(ask(Metric::bytes_sent, 3), p) == 3 * 65536);
  CHECK(value(ask(Metric::bytes_sent), p) == 393216);
  CHECK(value(ask(Metric::bytes_received, 1, 2), p) == 65536);
  CHECK(value(ask(Metric::transfers, 3), p) == 12);
  CHECK(value(ask(Metric::transfers), p) == 24);
  CHECK(value(ask(Metric::steps), p) == 6);
  CHECK(value(ask(Metric::time_us), p) == doctest::Approx(2.5));
  CHECK(value(ask(Metric::time_us, 0, 0, 0, 0), p) == doctest::Approx(3.5));  // the whole program
  CHECK(value(ask(Metric::duration_us, 0, 0, 0, 0), p) == doctest::Approx(3.5));  // it starts at 0
  {
    // A phase that starts late: time_us says when it ends, duration_us how long it took.
    ProgramResult later = p;
    for (double& b : later.phases[0].rank_begin_ns) b = 1000;
    CHECK(value(ask(Metric::time_us), later) == doctest::Approx(2.5));
    CHECK(value(ask(Metric::duration_us), later) == doctest::Approx(1.5));
  }
  // 256 KiB in 2.5 µs: algbw 104.9 GB/s, busbw 2(N-1)/N times that.
  CHECK(value(ask(Metric::busbw_gbps), p) == doctest::Approx(262144.0 / 2500 * 1.5));

  // Chunk 0 starts on rank 0 and is reduced into rank 1, 2, 3 in turn; rank 0's own
  // output copy of it is written only by the all-gather's first step (step 4).
  CHECK(value(ask(Metric::contributions, 1, 1, 0), p) == 2);
  CHECK(value(ask(Metric::contributions, 2, 2, 0), p) == 3);
  CHECK(value(ask(Metric::contributions, 3, 3, 0), p) == 4);
  // Nothing yet: rank 3 writes its output chunk 0 (its input plus what arrives) in step 3.
  CHECK(value(ask(Metric::contributions, 1, 3, 0), p) == 0);
  CHECK(value(ask(Metric::contributions, 3, 0, 0), p) == 0);
  CHECK(value(ask(Metric::contributions, 4, 0, 0), p) == 4);
  CHECK(value(ask(Metric::contributions, 0, 2, 1), p) == 4);
}

TEST_CASE("an answer's text fills its template and formats the value") {
  const ProgramResult p = one_ring_phase(4, 65536);
  Question q = ask(Metric::bytes_sent, 0, 1);
  q.answer = "{value} bytes leave rank {rank} by step {step} of phase {phase} ({{exact}})";
  CHECK(answer_question(q, p).text == "393216 bytes leave rank 1 by step 6 of phase 1 ({exact})");
  CHECK(answer_question(ask(Metric::time_us), p).text == "2.5");
  CHECK(answer_question(ask(Metric::busbw_gbps), p).text == "157");
  CHECK(answer_question(ask(Metric::time_us), one_ring_phase(4, 8, 12345.6)).text == "12.3");
}

TEST_CASE("answers stay right when a student changes the number of ranks") {
  // The ring sends 2(N-1)/N of the buffer: more bytes and more steps on 8 ranks.
  const ProgramResult eight = one_ring_phase(8, 65536);
  CHECK(value(ask(Metric::bytes_sent), eight) == 14 * 32768);
  CHECK(value(ask(Metric::steps), eight) == 14);
  CHECK(value(ask(Metric::contributions, 7, 7, 0), eight) == 8);
}

TEST_CASE("contributions count from the whole collective when a phase runs only some of its steps") {
  ProgramResult p = one_ring_phase(4, 8);
  p.phases.push_back(part_of(p.phases[0], 4, 6));  // phase 2: the all-gather half
  CHECK(value(ask(Metric::steps, 0, 0, 0, 2), p) == 3);
  CHECK(value(ask(Metric::contributions, 1, 0, 0, 2), p) == 4);  // its step 1 is the ring's step 4
  CHECK(value(ask(Metric::bytes_sent, 0, 0, 0, 2), p) == 3 * 8);
  // Bus bandwidth is a figure of a whole collective: a part of one has none.
  CHECK(error_of(ask(Metric::busbw_gbps, 0, 0, 0, 2), p).find("phase 2 runs only some steps of its collective") !=
        std::string::npos);
  CHECK(value(ask(Metric::busbw_gbps, 0, 0, 0, 1), p) > 0);
}

// Under a student's flags (two ranks have no step 2) such a question does not apply: the answer
// says so instead of refusing the run (issue 34); validate requires every answer of the file as written.
std::string not_applying(const Question& q, const ProgramResult& p) {
  const Answer a = answer_question(q, p);
  CHECK(!a.applies);
  CHECK(std::isnan(a.value));
  return a.text;
}

TEST_CASE("a question about a phase, rank, step or chunk the run does not have does not apply, naming it") {
  ProgramResult p = one_ring_phase(4, 8);
  PhaseRun compute;
  compute.phase = 1;
  compute.rank_begin_ns = {0, 0, 0, 0};
  compute.rank_end_ns = {100, 100, 100, 100};
  p.phases.push_back(compute);

  CHECK(not_applying(ask(Metric::steps, 0, 0, 0, 3), p) ==
        "does not apply to this run: phase 3 does not exist: the lesson has phases 1..2");
  CHECK(not_applying(ask(Metric::steps, 0, 0, 0, 0), p).find("phase 0 does not exist") != std::string::npos);
  CHECK(error_of(ask(Metric::bytes_sent, 0, 0, 0, 2), p).find("phase 2 is a compute phase") != std::string::npos);
  CHECK(not_applying(ask(Metric::bytes_sent, 0, 4), p).find("rank 4 does not exist: phase 1 has ranks 0..3") !=
        std::string::npos);
  CHECK(not_applying(ask(Metric::transfers, 7), p).find("step 7 does not exist: phase 1 has steps 1..6") !=
        std::string::npos);
  CHECK(not_applying(ask(Metric::holders, 7), p).find("step 7 does not exist") != std::string::npos);
  CHECK(not_applying(ask(Metric::contributions, 0, 0, 9), p).find("chunk 9 does not exist: the collective has chunks 0..3") !=
        std::string::npos);
  CHECK(value(ask(Metric::time_us, 0, 0, 0, 2), p) == doctest::Approx(0.1));  // a compute phase has a time

  p.predicted = false;
  CHECK(error_of(ask(Metric::time_us), p).find("has not been predicted") != std::string::npos);
}

TEST_CASE("value: an element's number after each step, in the run's type, exact_value: the exact result") {
  // i32 inputs 1, 10, 100, 1000: a partial sum's digits say which ranks it holds, so after
  // every step the number must agree with the contribution count the checker recorded.
  RunRequest request;
  request.spec = ring_spec(4, 8);
  request.spec.dtype = DataType::i32;
  request.input_values = {1, 10, 100, 1000};
  ProgramResult p = one_ring_phase(4, 8);
  p.phases[0].run = std::make_shared<RunResult>(prepare_model_run(request));
  const auto digits = [](double v) {
    int ones = 0;
    for (auto x = static_cast<long long>(v); x > 0; x /= 10) ones += static_cast<int>(x % 10);
    return ones;
  };
  for (int rank = 0; rank < 4; ++rank)
    for (int step = 1; step <= 6; ++step) {
      CAPTURE(rank);
      CAPTURE(step);
      Question v = ask(Metric::value, step, rank, 0);
      v.element = 1;  // in chunk 0 (chunks of 2 elements)
      CHECK(digits(value(v, p)) == value(ask(Metric::contributions, step, rank, 0), p));
    }
  Question end = ask(Metric::value, 0, 3);
  end.element = 7;
  CHECK(value(end, p) == 1111);
  Question exact = ask(Metric::exact_value, 0, 3);
  exact.element = 7;
  CHECK(value(exact, p) == 1111);
  CHECK(answer_question(exact, p).text == "1111");
  // Where the type cannot hold the sum, the two differ: i32 wraps round, f16 rounds.
  request.input_values = {2e9, 1e9};
  p.phases[0].run = std::make_shared<RunResult>(prepare_model_run(request));
  CHECK(value(end, p) == static_cast<std::int32_t>(static_cast<std::uint32_t>(5000000000LL)));
  CHECK(value(exact, p) == 5e9);
  CHECK(answer_question(exact, p).text == "5000000000");
  // Every digit, not 3 significant ones: 0.5 + 3 x 0.0625 = 0.6875, exact in f32.
  request.spec.dtype = DataType::f32;
  request.input_values = {0.5, 0.0625};
  p.phases[0].run = std::make_shared<RunResult>(prepare_model_run(request));
  CHECK(answer_question(end, p).text == "0.6875");
  CHECK(answer_question(exact, p).text == "0.6875");
  // An element the output does not have is refused, naming it.
  Question far = ask(Metric::value, 0, 0);
  far.element = 8;
  CHECK(error_of(far, p).find("element 8 does not exist: rank 0's output has elements 0..7") != std::string::npos);
}
