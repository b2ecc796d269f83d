// A lesson trace read back (sim/lesson/program.h, parse_lesson_trace): the lesson rebuilt
// from the text it carries, at the ranks, seed and topology it ran with, checked against the
// file and given its measured times. Written again it is the same bytes; a file that the
// text does not rebuild, or of another version, is refused naming the key.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "test_support.h"

using namespace collsim;

namespace {

Scenario lesson_file(const std::string& name) {
  return load_scenario(std::string(COLLSIM_SOURCE_DIR) + "/scenarios/lessons/" + name);
}

// The lesson run as `collsim run LESSON --trace` runs it: prepared, executed on the CPU,
// predicted on the scenario's topology.
ProgramResult run_lesson(const Scenario& s, bool model_only = false) {
  ProgramResult p = prepare_program(s, model_only);
  if (!model_only) execute_program(p, testing::cpu());
  predict_program(p, s, s.topology);
  return p;
}

// Lesson 2 at 6 ranks, seed 5, on InfiniBand links (its star is fixed: topology_fixed): what
// the run gave it must come back.
Scenario lesson2_changed() {
  const Scenario s = lesson_file("02_ring_vs_parameter_server.toml");
  RunRequest run = s.request;
  run.spec.ranks = 6;
  run.seed = 5;
  TopologyConfig infiniband = s.topology;
  infiniband.link = "ib_ndr";
  return rerun_scenario(s, run, infiniband);
}

std::string read_error(const std::string& text) {
  return testing::input_error([&] { parse_lesson_trace(text, "x.lesson.json"); });
}

// The trace with one value changed (`edit` on the parsed file).
template <class Edit>
std::string edited(const std::string& text, Edit&& edit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  edit(j);
  return j.dump(1);
}

void write_file(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("lesson trace: read back and written again, it is the same bytes") {
  for (const Scenario& s : {lesson_file("02_ring_vs_parameter_server.toml"), lesson2_changed(),
                            lesson_file("17_parameter_server_training.toml")}) {
    CAPTURE(s.source);
    CAPTURE(s.ranks);
    const ProgramResult p = run_lesson(s);
    const std::string text = program_to_json(s, p);
    const ImportedLesson back = parse_lesson_trace(text, "x.lesson.json");
    CHECK(program_to_json(back.scenario, back.program) == text);
    CHECK(program_to_chrome(back.scenario, back.program) == program_to_chrome(s, p));
    CHECK(program_to_csv(back.scenario, back.program) == program_to_csv(s, p));
    CHECK(back.note.empty());
    // The lesson's own words come back with it, and the run is the recorded one.
    CHECK(back.scenario.questions.size() == s.questions.size());
    CHECK(back.scenario.description == s.description);
    CHECK(back.scenario.ranks == s.ranks);
    CHECK(back.program.executed);
    CHECK(back.program.verified());
    for (std::size_t k = 0; k < p.phases.size(); ++k) {
      if (!p.phases[k].run) continue;
      const RunResult& here = *back.program.phases[k].run;
      CHECK(here.recorded);
      CHECK(here.request.seed == s.phases[k].request.seed);
      CHECK(here.device == p.phases[k].run->device);
      CHECK(here.execution.total_ns == p.phases[k].run->execution.total_ns);
      for (const std::size_t i : back.program.phases[k].source_transfer)
        CHECK(here.execution.timings[i].end_ns == p.phases[k].run->execution.timings[i].end_ns);
    }
  }
}

TEST_CASE("lesson trace: the ranks, seed and topology the lesson ran with come back") {
  const Scenario s = lesson2_changed();
  const ImportedLesson back = parse_lesson_trace(program_to_json(s, run_lesson(s)), "x.lesson.json");
  CHECK(back.scenario.ranks == 6);
  CHECK(back.scenario.topology.kind == TopologyKind::star);
  CHECK(back.scenario.topology.link == "ib_ndr");
  CHECK(back.program.total_ranks == 7);  // 6 workers and the server
  CHECK(back.program.phases[0].run->request.seed == 5);
}

TEST_CASE("lesson trace: a model-only program reads back as predicted, not executed") {
  const Scenario s = lesson_file("02_ring_vs_parameter_server.toml");
  const ProgramResult p = run_lesson(s, true);
  const std::string text = program_to_json(s, p);
  const ImportedLesson back = parse_lesson_trace(text, "x.lesson.json");
  CHECK_FALSE(back.program.executed);
  CHECK(back.program.total_ns == p.total_ns);
  CHECK(program_to_json(back.scenario, back.program) == text);
}

TEST_CASE("lesson trace: a file its text does not rebuild, or of another version, is refused naming the key") {
  const Scenario s = lesson_file("02_ring_vs_parameter_server.toml");
  const std::string text = program_to_json(s, run_lesson(s));
  CHECK(read_error(edited(text, [](auto& j) { j["version"] = 1; }))
            .starts_with("x.lesson.json: key 'version': a version 1 lesson trace does not carry its lesson's text"));
  CHECK(read_error(edited(text, [](auto& j) { j["version"] = 3; }))
            .find("lesson trace format version 3 is not supported") != std::string::npos);
  CHECK(read_error(edited(text, [](auto& j) { j["format"] = "collsim-trace"; }))
            .starts_with("x.lesson.json: not a lesson trace"));
  CHECK(read_error(edited(text, [](auto& j) { j["lesson"]["seed"] = 99; }))
            .starts_with("x.lesson.json: key 'collectives[0].request': the lesson it carries rebuilds"));
  CHECK(read_error(edited(text, [](auto& j) { j["phases"][1]["transfers"][2]["dst"] = 0; }))
            .starts_with("x.lesson.json: key 'phases[1].transfers[2].dst': the lesson it carries rebuilds 4, but the "
                         "file records 0"));
  CHECK(read_error(edited(text, [](auto& j) { j["phases"].erase(1); }))
            .starts_with("x.lesson.json: key 'phases': has 1 entries, but the lesson it carries rebuilds 2"));
  CHECK(read_error(edited(text, [](auto& j) { j["extra"] = 1; }))
            .starts_with("x.lesson.json: key 'extra': unknown key (lesson trace format version 2)"));
  CHECK(read_error(edited(text, [](auto& j) { j["lesson"]["text"] = "format = 2\n[[phase]\n"; }))
            .starts_with("x.lesson.json: key 'lesson.text': "));
  CHECK(read_error(edited(text, [](auto& j) { j["lesson"]["text"] = ""; }))
            .find("is empty: the lesson was not read from a file") != std::string::npos);
  CHECK(read_error(text.substr(0, text.size() / 2)).starts_with("x.lesson.json:"));
  // Another collsim's predictions are not an error: the note says which differ.
  const ImportedLesson other = parse_lesson_trace(
      edited(text, [](auto& j) { j["phases"][0]["transfers"][0]["predicted_end_ns"] = 1.0; }), "x.lesson.json");
  CHECK(other.note.find("differ first at phase 1, transfer 0") != std::string::npos);
}

TEST_CASE("lesson trace: is_lesson_trace tells it from a run's trace and from text") {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_test_lesson_trace";
  std::filesystem::create_directories(dir);
  const Scenario s = lesson_file("02_ring_vs_parameter_server.toml");
  write_file(dir / "l.json", program_to_json(s, run_lesson(s, true)));
  write_file(dir / "t.json", "{\"format\": \"collsim-trace\"}");
  write_file(dir / "bad.json", "{\"format\": ");
  // A run's trace that mentions lesson traces in its words is still a run's trace.
  write_file(dir / "words.json", "{\"format\": \"collsim-trace\", \"about\": \"not a collsim-lesson file\"}");
  CHECK(is_lesson_trace(dir / "l.json"));
  CHECK_FALSE(is_lesson_trace(dir / "t.json"));
  CHECK_FALSE(is_lesson_trace(dir / "bad.json"));
  CHECK_FALSE(is_lesson_trace(dir / "words.json"));
  CHECK_FALSE(is_lesson_trace(dir / "missing.json"));
  std::filesystem::remove_all(dir);
}
