// Lessons in the app, tested without OpenGL (app/views/lesson.h): a scenario loads as a
// program with one view per collective phase showing that phase's own steps, the
// narration of every step, the presenter's way through the phases, playing through them,
// the whole lesson's exports, the questions with their answers hidden until revealed, and
// re-runs that keep the lesson.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/views/export.h"
#include "app/views/lesson.h"
#include "app/views/loader.h"
#include "sim/lesson/captions.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

const std::filesystem::path kSource = COLLSIM_SOURCE_DIR;

// A lesson of four phases: compute, the push of a parameter-server all-reduce (its step
// 1), the servers' update, and the pull (its step 2), with captions and questions; the
// third question asks for a step the push does not have.
constexpr const char* kLesson = R"(format = 2
title = "test lesson"
caption = "Lesson of {ranks} ranks."
ranks = 4

[[phase]]
name = "backward"
compute = 50.0
writes = ["grad"]
caption = "The workers compute their gradients."

[[phase]]
name = "push"
collective = "all_reduce"
algorithm = "parameter_server"
servers = 2
count = 8
steps = [1, 1]
reads = ["grad"]
caption = "Phase {phase} of {phases}: the workers push."
step_captions = ["rank {src} pushes {bytes} B to server {dst}"]

[[phase]]
name = "update"
compute = [0.0, 0.0, 0.0, 0.0, 20.0, 20.0]
caption = "The servers update."

[[phase]]
name = "pull"
collective = "all_reduce"
algorithm = "parameter_server"
servers = 2
count = 8
steps = [2, 2]
writes = ["grad"]
step_caption = "step {step}/{steps}: server {src} sends {bytes} B"

[[question]]
text = "How many bytes does worker 0 push?"
metric = "bytes_sent"
phase = 2
answer = "{value} bytes"

[[question]]
text = "When does the step end?"
metric = "time_us"
phase = 0

[[question]]
text = "How many bytes has worker 0 sent after step 3 of the push?"
metric = "bytes_sent"
phase = 2
step = 3
)";

// A ring all-reduce in two phases: its reduce-scatter (steps 1-3), then its all-gather (4-6).
constexpr const char* kHalves = R"(format = 2
title = "two halves"
ranks = 4

[[phase]]
name = "reduce-scatter"
collective = "all_reduce"
algorithm = "ring"
count = 8
steps = [1, 3]

[[phase]]
name = "all-gather"
collective = "all_reduce"
algorithm = "ring"
count = 8
steps = [4, 6]
)";

LoadResult load_file(const std::filesystem::path& file) {
  LoadRequest r;
  r.file = file;
  Progress p;
  return load(r, p);
}

LoadResult load_text(const std::string& name, const std::string& text) {
  const auto file = std::filesystem::temp_directory_path() / name;
  std::ofstream(file) << text;
  return load_file(file);
}

LoadResult rerun(const Lesson& l, const RunRequest& edited) {
  LoadRequest r;
  r.run = edited;
  r.topology = l.scenario.topology;
  r.lesson = std::make_shared<const Scenario>(l.scenario);
  Progress p;
  return load(r, p);
}

// Every cell's (written, ranks held) at time t of the steps clock.
std::vector<std::pair<bool, int>> cells_at(const ViewModel& vm, double t) {
  std::vector<std::pair<bool, int>> out;
  for (std::uint32_t c = 0; c < vm.buffers().cells().size(); ++c) {
    const CellChange& s = vm.cell_state(ClockKind::steps, c, t);
    out.emplace_back(s.written, s.written ? ranks_of(s.contributions).count : 0);
  }
  return out;
}

int cells_holding(const ViewModel& vm, double t, int ranks) {
  int n = 0;
  for (const auto& [written, count] : cells_at(vm, t)) n += written && count == ranks;
  return n;
}

}  // namespace

TEST_CASE("gui lesson: a single-collective scenario is a lesson of exactly one phase whose view is the run's trace") {
  for (const char* file : {"scenarios/ring_allreduce_4.toml", "scenarios/lessons/01_ring_allreduce.toml"}) {
    CAPTURE(file);
    const LoadResult r = load_file(kSource / file);
    REQUIRE_MESSAGE(r.lesson, r.error);
    const Lesson& l = *r.lesson;
    CHECK(l.phase_count() == 1);
    CHECK_FALSE(l.multi_phase());
    REQUIRE(l.views.size() == 1);
    CHECK(r.model == l.views[0]);  // the run shown is the phase's
    const RunResult& run = *l.run_of(0).run;
    const Trace whole = make_trace(run, l.scenario.title, l.scenario.description);
    const ViewModel& vm = *r.model;
    CHECK(vm.step_count() == 6);
    CHECK(vm.transfer_count() == whole.schedule.transfers.size());
    CHECK(vm.trace().records == whole.records);  // measured and predicted times as `collsim run` records them
    REQUIRE(vm.trace().predicted);
    CHECK(vm.trace().predicted->time_ns == doctest::Approx(run.model->prediction.total_ns));
    CHECK(r.request.algorithm == "ring");
    CHECK(l.program.verified());
  }
}

TEST_CASE("gui lesson: a single collective's narration is its file's step captions, expanded") {
  const LoadResult r = load_file(kSource / "scenarios/lessons/01_ring_allreduce.toml");
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  const Schedule& s = l.run_of(0).schedule;
  CHECK(narration(l, 0, 0).step.empty());  // before the first step: the phase's caption
  CHECK(narration(l, 0, 0).phase.find("4 ranks") != std::string::npos);  // {ranks} expanded
  for (int k = 1; k <= 6; ++k) {
    CAPTURE(k);
    const Narration n = narration(l, 0, k);
    CHECK(n.step == step_caption(l.scenario, l.facts, 0, s, k));
    CHECK(n.step.find('{') == std::string::npos);
    CHECK(n.step.find(fmt::format("Step {}", k)) != std::string::npos);
  }
  // The step a caption talks about: the one in flight, else the last one done.
  const ViewModel& vm = *r.model;
  CHECK(caption_step(vm.frame(ClockKind::steps, 0), 6) == 0);
  CHECK(caption_step(vm.frame(ClockKind::steps, 2.5), 6) == 3);
  CHECK(caption_step(vm.frame(ClockKind::steps, 3), 6) == 3);
  CHECK(caption_step(vm.frame(ClockKind::steps, 6), 6) == 6);
  // A file without captions narrates nothing: the view's own step label says it all.
  const LoadResult plain = load_file(kSource / "scenarios/ring_allreduce_4.toml");
  REQUIRE(plain.lesson);
  for (int k = 0; k <= 6; ++k) {
    const Narration n = narration(*plain.lesson, 0, k);
    CHECK((n.lesson + n.phase + n.step).empty());
  }
}

TEST_CASE("gui lesson: a phase's view shows its own steps, starting from what the earlier steps left") {
  const LoadResult r = load_text("collsim_gui_lesson.toml", kLesson);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  REQUIRE(l.phase_count() == 4);
  CHECK(l.multi_phase());
  CHECK_FALSE(l.views[0]);  // compute phases have no view
  CHECK_FALSE(l.views[2]);
  REQUIRE(l.views[1]);
  REQUIRE(l.views[3]);
  CHECK(r.model == nullptr);  // the first phase shown is a compute phase
  CHECK(r.request.algorithm == "parameter_server");  // the editor starts from the first collective
  const PhaseRun& push = l.run_of(1);
  const PhaseRun& pull = l.run_of(3);
  CHECK(push.run == pull.run);  // one collective, run once
  for (std::size_t k : {std::size_t{1}, std::size_t{3}}) {
    const ViewModel& vm = *l.views[k];
    const Schedule& s = l.run_of(k).schedule;
    CHECK(vm.step_count() == 1);  // its own step, shown as step 1
    REQUIRE(vm.transfer_count() == s.transfers.size());
    for (std::size_t i = 0; i < s.transfers.size(); ++i) {
      CHECK(vm.schedule().transfers[i].src == s.transfers[i].src);
      CHECK(vm.schedule().transfers[i].dst == s.transfers[i].dst);
      CHECK(vm.schedule().transfers[i].step == 0);
    }
    CHECK(vm.schedule().step_labels == s.step_labels);
    // Its clocks start at the phase's start: predicted, the program's times less its begin.
    REQUIRE(vm.has_clock(ClockKind::predicted));
    const PhaseRun& pr = l.run_of(k);
    CHECK(vm.clock(ClockKind::predicted).start == doctest::Approx(0.0));
    CHECK(vm.clock(ClockKind::predicted).finish == doctest::Approx(pr.end() - pr.begin()));
    CHECK(vm.trace().predicted->time_ns == doctest::Approx(pr.end() - pr.begin()));
  }
  // The cells: each phase's start and end are the whole collective's state before and
  // after its steps, so the pull starts with the servers holding every worker's sum.
  const ViewModel whole(make_trace(*push.run));
  REQUIRE(whole.step_count() == 2);
  CHECK(cells_at(*l.views[1], 0) == cells_at(whole, 0));
  CHECK(cells_at(*l.views[1], 1) == cells_at(whole, 1));
  CHECK(cells_at(*l.views[3], 0) == cells_at(whole, 1));
  CHECK(cells_at(*l.views[3], 1) == cells_at(whole, 2));
  CHECK(cells_holding(*l.views[1], 0, 4) == 0);
  CHECK(cells_holding(*l.views[3], 0, 4) > 0);
  // At the pull's end every cell holds what it will ever hold in the phase.
  const ViewModel& p = *l.views[3];
  for (std::uint32_t c = 0; c < p.buffers().cells().size(); ++c) {
    const CellChange& st = p.cell_state(ClockKind::steps, c, 1);
    if (p.buffers().cells()[c].target > 0) CHECK(ranks_of(st.contributions).count == p.buffers().cells()[c].target);
  }
}

TEST_CASE("gui lesson: each phase narrates its caption and its steps' captions") {
  const LoadResult r = load_text("collsim_gui_lesson_captions.toml", kLesson);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  CHECK(narration(l, 0, 0).lesson == "Lesson of 4 ranks.");
  CHECK(narration(l, 0, 0).phase == "The workers compute their gradients.");
  CHECK(narration(l, 1, 0).phase == "Phase 2 of 4: the workers push.");
  CHECK(narration(l, 1, 0).step.empty());
  const Narration push = narration(l, 1, 1);
  CHECK(push.step == step_caption(l.scenario, l.facts, 1, l.run_of(1).schedule, 1));
  CHECK(push.step.find("pushes") != std::string::npos);
  CHECK(push.step.find("rank 0 ") != std::string::npos);  // the focus transfer: rank 0's send
  CHECK(narration(l, 2, 0).phase == "The servers update.");
  const Narration pull = narration(l, 3, 1);
  CHECK(pull.step == step_caption(l.scenario, l.facts, 3, l.run_of(3).schedule, 1));
  CHECK(pull.step.starts_with("step 1/1: server "));
  CHECK(narration(l, 3, 0).phase.empty());
}

TEST_CASE("gui lesson: stepping on at a phase's last step enters the next phase, back at its start, the previous") {
  const LoadResult r = load_text("collsim_gui_lesson_steps.toml", kLesson);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  std::size_t phase = 0;
  Playback p;
  enter_phase(l, phase, p, false);
  CHECK(lesson_step_forward(l, phase, p));  // compute: one stop
  CHECK(phase == 1);
  CHECK(p.t == 0);
  CHECK(lesson_step_forward(l, phase, p));  // within the push: its one step
  CHECK(phase == 1);
  CHECK(p.t == 1);
  CHECK(lesson_step_forward(l, phase, p));  // at its end: the update
  CHECK(phase == 2);
  CHECK(lesson_step_forward(l, phase, p));
  CHECK(phase == 3);
  CHECK(p.t == 0);
  CHECK(lesson_step_back(l, phase, p));  // at the pull's start: back to the update
  CHECK(phase == 2);
  CHECK(lesson_step_back(l, phase, p));  // and to the push, at its end
  CHECK(phase == 1);
  CHECK(p.t == 1);
  CHECK(lesson_step_back(l, phase, p));  // within the push
  CHECK(phase == 1);
  CHECK(p.t == 0);
  // On the predicted clock the same, in the phase's own time.
  p.set_clock(*l.views[1], ClockKind::predicted);
  CHECK(lesson_step_forward(l, phase, p));
  CHECK(phase == 1);
  CHECK(p.t == doctest::Approx(l.views[1]->clock(ClockKind::predicted).finish));
  CHECK(lesson_step_forward(l, phase, p));
  CHECK(lesson_step_forward(l, phase, p));
  CHECK(phase == 3);
  CHECK(p.clock == ClockKind::predicted);  // the clock goes on with the presenter
  CHECK(lesson_step_forward(l, phase, p));
  CHECK_FALSE(lesson_step_forward(l, phase, p));  // the end of the last phase
  CHECK(phase == 3);
  phase = 0;
  enter_phase(l, phase, p, false);
  CHECK_FALSE(lesson_step_back(l, phase, p));  // the start of the first
}

TEST_CASE("gui lesson: playing goes on from a phase's end into the next phase's start, the last phase's end stops") {
  const LoadResult r = load_text("collsim_gui_lesson_halves.toml", kHalves);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  REQUIRE(l.phase_count() == 2);
  REQUIRE(l.views[0]);
  REQUIRE(l.views[1]);
  REQUIRE(l.views[0]->step_count() == 3);
  std::size_t phase = 0;
  Playback p;
  enter_phase(l, phase, p, false);
  lesson_toggle_play(l, phase, p);
  CHECK(p.playing);
  lesson_tick(l, phase, p, 2.5);  // 1 step per second at speed 1
  CHECK(phase == 0);
  CHECK(p.t == doctest::Approx(2.5));
  lesson_tick(l, phase, p, 0.6);  // past the end: it rests there, the phase complete
  CHECK(phase == 0);
  CHECK(p.t == doctest::Approx(3));
  CHECK(p.playing);
  lesson_tick(l, phase, p, 0.3);
  CHECK(phase == 0);
  lesson_tick(l, phase, p, 0.2);  // rested more than kPhaseEndRest: the next phase, at its start
  CHECK(phase == 1);
  CHECK(p.t == 0);
  CHECK(l.views[1]->frame(p.clock, p.t).steps_done == 0);
  CHECK(p.playing);
  CHECK(p.rested == 0);
  lesson_tick(l, phase, p, 1.5);
  CHECK(p.t == doctest::Approx(1.5));
  lesson_tick(l, phase, p, 10);  // the last phase's end: stops, no rest
  CHECK(phase == 1);
  CHECK(p.t == doctest::Approx(3));
  CHECK_FALSE(p.playing);
  lesson_tick(l, phase, p, 10);  // stopped: nothing moves
  CHECK(phase == 1);
  lesson_toggle_play(l, phase, p);  // at the lesson's end: again from its first phase
  CHECK(phase == 0);
  CHECK(p.t == 0);
  CHECK(p.playing);
  // A big tick makes one move at most: to the phase's end and through the rest, then the
  // next phase's start is drawn before it plays on.
  lesson_tick(l, phase, p, 100);
  CHECK(phase == 1);
  CHECK(p.t == 0);
  // Loop: from the last phase's end, after the rest, the first phase.
  p.loop = true;
  lesson_tick(l, phase, p, 3.2);
  CHECK(phase == 1);
  CHECK(p.t == doctest::Approx(3));
  CHECK(p.playing);
  lesson_tick(l, phase, p, 0.4);
  CHECK(phase == 0);
  CHECK(p.t == 0);
  CHECK(p.playing);
  // Speed scales the playing and the rest alike; pausing stops both.
  p.speed = 2;
  lesson_tick(l, phase, p, 1.0);
  CHECK(p.t == doctest::Approx(2));
  lesson_tick(l, phase, p, 0.6);  // 1.2 s at speed 1: 1 step to the end, then 0.2 of rest
  lesson_toggle_play(l, phase, p);
  CHECK_FALSE(p.playing);
  lesson_tick(l, phase, p, 10);
  CHECK(phase == 0);
  lesson_toggle_play(l, phase, p);  // not the lesson's end: plays on from where it was
  CHECK(phase == 0);
  lesson_tick(l, phase, p, 0.1);  // 0.2 more: 0.4 of rest, still less than kPhaseEndRest
  CHECK(phase == 0);
  lesson_tick(l, phase, p, 0.1);  // 0.6
  CHECK(phase == 1);
}

TEST_CASE("gui lesson: playing dwells on a compute phase for one step's time, on the clock chosen") {
  const LoadResult r = load_text("collsim_gui_lesson_play.toml", kLesson);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;  // compute, push (1 step), update (compute), pull (1 step)
  std::size_t phase = 0;
  Playback p;
  enter_phase(l, phase, p, false);
  lesson_toggle_play(l, phase, p);  // a compute phase plays too
  CHECK(p.playing);
  lesson_tick(l, phase, p, 0.9);
  CHECK(phase == 0);
  lesson_tick(l, phase, p, 0.2);  // kComputeDwell: 1 s at speed 1
  CHECK(phase == 1);
  CHECK(p.t == 0);
  CHECK(p.playing);
  // On the predicted clock the phase plays in its own time, one step per second.
  p.set_clock(*l.views[1], ClockKind::predicted);
  const double finish = l.views[1]->clock(ClockKind::predicted).finish;
  REQUIRE(finish > 0);
  lesson_tick(l, phase, p, 0.5);
  CHECK(p.t == doctest::Approx(finish / 2));
  lesson_tick(l, phase, p, 1.2);  // to the end, and the rest
  CHECK(phase == 2);
  CHECK(p.playing);
  lesson_tick(l, phase, p, 1.1);
  CHECK(phase == 3);
  CHECK(p.clock == ClockKind::predicted);  // the clock goes on with the play
  CHECK(p.t == doctest::Approx(0));
  lesson_tick(l, phase, p, 10);
  CHECK(phase == 3);
  CHECK_FALSE(p.playing);
  // Stepping stops playing, as in a single run.
  lesson_toggle_play(l, phase, p);
  CHECK(phase == 0);
  lesson_step_forward(l, phase, p);
  CHECK_FALSE(p.playing);
  // A lesson that ends with a compute phase stops once it has been shown for its dwell.
  const LoadResult ends = load_text("collsim_gui_lesson_ends_computing.toml", std::string(kHalves) + R"(
[[phase]]
name = "optimizer"
compute = 10.0
)");
  REQUIRE_MESSAGE(ends.lesson, ends.error);
  const Lesson& e = *ends.lesson;
  REQUIRE(e.phase_count() == 3);
  phase = 2;
  enter_phase(e, phase, p, false);
  lesson_toggle_play(e, phase, p);
  lesson_tick(e, phase, p, 0.9);
  CHECK(p.playing);
  lesson_tick(e, phase, p, 0.2);
  CHECK(phase == 2);
  CHECK_FALSE(p.playing);
  lesson_toggle_play(e, phase, p);  // the lesson's end: again from its first phase
  CHECK(phase == 0);
  CHECK(p.playing);
}

TEST_CASE("gui lesson: the whole lesson exports as program_to_json, _chrome and _csv, beside the phase's exports") {
  const LoadResult r = load_file(kSource / "scenarios/lessons/17_parameter_server_training.toml");
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  REQUIRE(l.multi_phase());
  const std::string json = lesson_export_text(LessonExportKind::json, l.scenario, l.program);
  CHECK(json == program_to_json(l.scenario, l.program));
  CHECK(json.find("\"collsim-lesson\"") != std::string::npos);
  CHECK(lesson_export_text(LessonExportKind::chrome, l.scenario, l.program) == program_to_chrome(l.scenario, l.program));
  CHECK(lesson_export_text(LessonExportKind::csv, l.scenario, l.program) == program_to_csv(l.scenario, l.program));
  CHECK(lesson_export_path("out/x", LessonExportKind::json) == std::filesystem::path("out/x.lesson.json"));
  CHECK(lesson_export_path("out/x", LessonExportKind::chrome) == std::filesystem::path("out/x.lesson.chrome.json"));
  CHECK(lesson_export_path("out/x", LessonExportKind::csv) == std::filesystem::path("out/x.lesson.csv"));
  for (ExportKind k : {ExportKind::json, ExportKind::chrome, ExportKind::csv})  // never over the shown phase's
    for (LessonExportKind w : {LessonExportKind::json, LessonExportKind::chrome, LessonExportKind::csv})
      CHECK(export_path("out/x", k) != lesson_export_path("out/x", w));
  // Written whole: the file is the text.
  const auto dir = std::filesystem::temp_directory_path() / "collsim_gui_lesson_export";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = lesson_export_path(dir / "lesson17", LessonExportKind::json);
  CHECK(write_export(file, json).empty());
  CHECK(read_text_file(file, "exported trace") == json);
  // Into a folder that is not there: the error names the path, and nothing is written.
  const std::filesystem::path missing = dir / "no_such_folder" / "x.lesson.json";
  const std::string problem = write_export(missing, json);
  CHECK(problem.find("no_such_folder") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(missing));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gui lesson: answers are answer_question's, hidden until revealed, one the run cannot answer says why") {
  const LoadResult r = load_text("collsim_gui_lesson_answers.toml", kLesson);
  REQUIRE_MESSAGE(r.lesson, r.error);
  const Lesson& l = *r.lesson;
  REQUIRE(l.answers.size() == 3);
  CHECK(l.answers[0] == answer_question(l.scenario.questions[0], l.program).text);
  CHECK(l.answers[0].ends_with(" bytes"));
  CHECK(l.answers[1] == answer_question(l.scenario.questions[1], l.program).text);
  CHECK(l.answerable[0]);
  CHECK_FALSE(l.answerable[2]);  // the push has one step, not three: the question does not apply
  CHECK_FALSE(answer_question(l.scenario.questions[2], l.program).applies);
  CHECK(l.answers[2].find("does not apply to this run: step 3 does not exist") != std::string::npos);

  Reveals reveals;
  reveals.reset(3);
  CHECK(reveals.count() == 0);
  CHECK(reveals.next() == 0);
  CHECK(reveals.shown == std::vector<bool>{true, false, false});
  reveals.toggle(2);
  CHECK(reveals.next() == 1);
  CHECK(reveals.count() == 3);
  CHECK(reveals.next() == -1);  // every one was shown: A hides them all
  CHECK(reveals.count() == 0);
  reveals.toggle(1);
  reveals.toggle(1);
  CHECK(reveals.count() == 0);
}

TEST_CASE("gui lesson: a re-run keeps the lesson, and its answers follow the new run") {
  const LoadResult r = load_file(kSource / "scenarios/lessons/01_ring_allreduce.toml");
  REQUIRE_MESSAGE(r.lesson, r.error);
  RunRequest edited = r.request;
  edited.spec.ranks = 8;
  const LoadResult again = rerun(*r.lesson, edited);
  REQUIRE_MESSAGE(again.lesson, again.error);
  const Lesson& l = *again.lesson;
  CHECK(again.source == r.lesson->scenario.source);
  CHECK(again.model->schedule().spec.ranks == 8);
  CHECK(l.scenario.questions.size() == 3);
  for (std::size_t k = 0; k < l.answers.size(); ++k)
    CHECK(l.answers[k] == answer_question(l.scenario.questions[k], l.program, &l.facts).text);
  CHECK(l.answers[2] != r.lesson->answers[2]);  // rank 0 sends other bytes on 8 ranks
  CHECK_FALSE(narration(l, 0, 1).step.empty());  // the same collective and algorithm: the captions stay
  // Another algorithm: the file's captions described the ring, so they go.
  edited.algorithm = "direct";
  const LoadResult direct = rerun(*r.lesson, edited);
  REQUIRE_MESSAGE(direct.lesson, direct.error);
  CHECK(direct.model->schedule().algorithm == "direct");
  CHECK(narration(*direct.lesson, 0, 1).step.empty());
  CHECK(narration(*direct.lesson, 0, 0).phase.empty());
  // A lesson of several phases takes the ranks: [training] generates its phases again.
  const LoadResult ps = load_file(kSource / "scenarios/lessons/17_parameter_server_training.toml");
  REQUIRE_MESSAGE(ps.lesson, ps.error);
  RunRequest more = ps.request;
  more.spec.ranks = 8;
  const LoadResult ps8 = rerun(*ps.lesson, more);
  REQUIRE_MESSAGE(ps8.lesson, ps8.error);
  CHECK(ps8.lesson->scenario.ranks == 8);
  CHECK(ps8.lesson->program.total_ranks == 10);  // and its 2 servers
  for (std::size_t k = 0; k < ps8.lesson->answers.size(); ++k)
    CHECK(ps8.lesson->answers[k] == answer_question(ps8.lesson->scenario.questions[k], ps8.lesson->program, &ps8.lesson->facts).text);
}

TEST_CASE("gui lesson: a lesson of several phases compares the chosen phase's collective with another algorithm") {
  LoadRequest r;
  r.file = kSource / "scenarios/lessons/02_ring_vs_parameter_server.toml";
  r.compare = "recursive_doubling";
  r.phase = 1;  // the parameter server's all-reduce: its spec, run with recursive doubling
  Progress p;
  const LoadResult out = load(r, p);
  REQUIRE_MESSAGE(out.lesson, out.error);
  REQUIRE(out.compare);
  CHECK(out.compared_phase == 1);
  CHECK(out.compare->schedule().algorithm == "recursive_doubling");
  CHECK(out.compare->schedule().spec.count == out.lesson->views[1]->schedule().spec.count);
  CHECK(out.compare->schedule().spec.ranks == 4);
  CHECK(out.compare->trace().verification.ok);
  // A compute phase has no collective to compare; a phase that is not there is named.
  r.file = kSource / "scenarios/lessons/17_parameter_server_training.toml";
  r.phase = 0;
  r.compare = "ring";
  LoadResult bad = load(r, p);
  CHECK_FALSE(bad.lesson);
  CHECK(bad.error.find("compare with ring: phase 1 (forward) is a compute phase") != std::string::npos);
  r.phase = 9;
  bad = load(r, p);
  CHECK(bad.error.find("there is no phase 10 (phases 1..5)") != std::string::npos);
}

TEST_CASE("gui lesson: every lesson in scenarios/lessons loads, with a view of each collective phase's steps") {
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "scenarios/lessons")) {
    if (entry.path().extension() != ".toml") continue;
    CAPTURE(entry.path().filename().string());
    const LoadResult r = load_file(entry.path());
    REQUIRE_MESSAGE(r.lesson, r.error);
    const Lesson& l = *r.lesson;
    // Executed and verified, or predicted only where the file says [run] model_only.
    CHECK(l.program.verified() != l.scenario.model_only);
    CHECK(l.program.executed != l.scenario.model_only);
    for (std::size_t k = 0; k < l.phase_count(); ++k) {
      const PhaseRun& pr = l.run_of(k);
      CHECK(static_cast<bool>(l.views[k]) == static_cast<bool>(pr.run));
      if (l.views[k]) CHECK(l.views[k]->step_count() == pr.schedule.step_count());
    }
    CHECK(l.answers.size() == l.scenario.questions.size());
    for (bool ok : l.answerable) CHECK(ok);
    // The program timeline's lanes: one per stream, every phase on one of them.
    REQUIRE(l.lanes.lane_of_phase.size() == l.phase_count());
    for (const std::size_t lane : l.lanes.lane_of_phase) CHECK(lane < l.lanes.lanes.size());
  }
}

TEST_CASE("gui lesson: a lesson is drawn in its algorithms' shapes unless its [topology] says arrange = topology") {
  // Lesson 2 predicts on a star (every rank on its own Ethernet link): its ring is a ring.
  const LoadResult star = load_file(kSource / "scenarios/lessons/02_ring_vs_parameter_server.toml");
  REQUIRE_MESSAGE(star.lesson, star.error);
  REQUIRE(star.lesson->scenario.topology.kind == TopologyKind::star);
  int rings = 0;
  for (const auto& view : star.lesson->views) {
    if (!view) continue;
    CHECK_FALSE(view->arranged_by_topology());
    CHECK(view->layout().kind == layout_for_algorithm(view->schedule(), view->trace().request.options).kind);
    rings += view->layout().kind == LayoutKind::ring;
  }
  CHECK(rings > 0);
  // Lesson 15 is about the slow link between two nodes: it draws them.
  const LoadResult wires = load_file(kSource / "scenarios/lessons/15_two_nodes_slow_link.toml");
  REQUIRE_MESSAGE(wires.lesson, wires.error);
  REQUIRE(wires.lesson->scenario.topology.arrange == Arrangement::topology);
  int views = 0;
  for (const auto& view : wires.lesson->views) {
    if (!view) continue;
    ++views;
    CHECK(view->arranged_by_topology());
    CHECK(view->layout().kind == LayoutKind::two_level);
  }
  CHECK(views > 0);
}

TEST_CASE("gui lesson: the step a caption talks about counts queued transfers as in the step") {
  Frame f;
  f.steps_done = 2;
  CHECK(caption_step(f, 30) == 2);  // at rest after step 2
  f.queued = {7};                   // step 3's transfers wait at their senders (the model serialises them)
  CHECK(caption_step(f, 30) == 3);
  f.queued.clear();
  f.in_flight = {InFlight{5, 0.5f}};
  CHECK(caption_step(f, 30) == 3);
  f.steps_done = 30;
  CHECK(caption_step(f, 30) == 30);  // never beyond the last step
}

namespace {

// The clauses of a text: its pieces between sentence and clause marks (". ", ": ", "; ",
// ", ", " — ", brackets), those of at least 20 characters (shorter ones, "step 3/6", may
// well be said twice).
std::vector<std::string> clauses(const std::string& text) {
  std::vector<std::string> out;
  std::string piece;
  auto flush = [&] {
    const std::size_t a = piece.find_first_not_of(' '), b = piece.find_last_not_of(" .");
    if (a != std::string::npos && b != std::string::npos && b + 1 - a >= 20) out.push_back(piece.substr(a, b + 1 - a));
    piece.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool mark = c == '(' || c == ')' || ((c == '.' || c == ':' || c == ';' || c == ',') &&
                                               (i + 1 == text.size() || text[i + 1] == ' '));
    if (mark || text.compare(i, 5, " \u2014 ") == 0) {
      flush();
      if (!mark) i += 4;
    } else {
      piece += c;
    }
  }
  flush();
  return out;
}

}  // namespace

TEST_CASE("gui lesson: DDP's and FSDP's narration says each sentence once, beside the step's caption line") {
  // The caption line (the view's "In step 3/6: reduce-scatter 3/3: every rank sends ...")
  // and the narration under it (the lesson's, the phase's and the step's own caption, which
  // the generated phases give): no clause in two of them, nor twice in one.
  for (const char* file : {"scenarios/lessons/12_ddp_resnet34.toml", "scenarios/lessons/13_fsdp_resnet34.toml"}) {
    CAPTURE(file);
    const LoadResult r = load_file(kSource / file);
    REQUIRE_MESSAGE(r.lesson, r.error);
    const Lesson& l = *r.lesson;
    int checked = 0;
    for (std::size_t k = 0; k < l.phase_count(); ++k) {
      if (!l.views[k]) continue;
      const ViewModel& vm = *l.views[k];
      for (int step = 1; step <= vm.step_count(); ++step) {
        CAPTURE(k + 1);
        CAPTURE(step);
        const Narration n = narration(l, k, step);
        REQUIRE_FALSE(n.step.empty());  // the generated phases caption every step
        const std::string line = vm.frame(ClockKind::steps, step - 0.5).caption;
        CHECK(line.find(fmt::format("step {}/{}", step, vm.step_count())) != std::string::npos);
        std::vector<std::string> said;
        for (const std::string* text : {&line, &n.lesson, &n.phase, &n.step})
          for (const std::string& c : clauses(*text)) {
            CAPTURE(c);
            CHECK(std::find(said.begin(), said.end(), c) == said.end());
            said.push_back(c);
          }
        ++checked;
      }
    }
    CHECK(checked > 40);  // every step of every collective phase (DDP: 54)
  }
  // The clauses are found: the caption line of a ring's step and the DDP step caption as
  // it was (which said the line again after the bucket's number) share one.
  const std::string line = "In step 1/6: reduce-scatter 1/3: every rank sends one chunk to its right neighbour";
  const std::vector<std::string> a = clauses(line), b = clauses("bucket 2, step 1/6: reduce-scatter 1/3: every rank "
                                                                "sends one chunk to its right neighbour (rank 0 sends "
                                                                "7080960 B to rank 1)");
  REQUIRE(a.size() == 1);
  CHECK(std::find(b.begin(), b.end(), a.front()) != b.end());
}
