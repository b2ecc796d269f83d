// Scenario files: a good file gives the request it describes; every kind of bad file is
// refused with file:line:column and the key, so a teacher can fix it without guessing.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "test_support.h"

using namespace collsim;

namespace {

// The message of the InputError that parsing `text` as "s.toml" throws ("" if none).
std::string scenario_error(const std::string& text) {
  return testing::input_error([&] { parse_scenario(text, "s.toml"); });
}

const char* const kGood = R"(format = 1
title = "Two servers"
description = """
Line one.
Line two."""

[collective]
collective = "all_reduce"
algorithm = "parameter_server"
ranks = 6
count = "2K"
dtype = "bf16"
op = "avg"
servers = 2
colocated = true

[run]
backend = "cpu"
seed = 42
)";

std::filesystem::path source_dir() { return std::filesystem::path(COLLSIM_SOURCE_DIR); }

}  // namespace

TEST_CASE("a scenario file gives the request, title, description and backend it describes") {
  const Scenario s = parse_scenario(kGood, "good.toml");
  CHECK(s.source == "good.toml");
  CHECK(s.title == "Two servers");
  CHECK(s.description == "Line one.\nLine two.");
  CHECK(s.request.spec.collective == Collective::all_reduce);
  CHECK(s.request.algorithm == "parameter_server");
  CHECK(s.request.spec.ranks == 6);
  CHECK(s.request.spec.count == 2048);
  CHECK(s.request.spec.dtype == DataType::bf16);
  CHECK(s.request.spec.op == ReduceOp::avg);
  CHECK(s.request.options.servers == 2);
  CHECK(s.request.options.colocated);
  CHECK(s.backend == "cpu");
  CHECK(s.request.seed == 42);
}

TEST_CASE("keys a scenario leaves out take the command line's defaults") {
  const Scenario s = parse_scenario("format = 1\n", "min.toml");
  const RunRequest d = default_run_request();
  CHECK(s.title.empty());
  CHECK(s.request.spec.count == 1024 * 1024);
  CHECK(s.request.spec.count == d.spec.count);
  CHECK(s.request.spec.ranks == d.spec.ranks);
  CHECK(s.request.algorithm == "ring");
  CHECK(s.backend == "auto");
  CHECK(parse_scenario("format = 1\n[collective]\ncount = 12\n", "c.toml").request.spec.count == 12);
}

TEST_CASE("the shipped scenarios load and describe what they run") {
  for (const char* name : {"ring_allreduce_4.toml", "parameter_server_4.toml"}) {
    CAPTURE(name);
    const Scenario s = load_scenario(source_dir() / "scenarios" / name);
    CHECK_FALSE(s.title.empty());
    CHECK(s.description.size() > 200);  // a paragraph a student can read
    CHECK(s.request.spec.ranks == 4);
  }
  CHECK(load_scenario(source_dir() / "scenarios/ring_allreduce_4.toml").request.algorithm == "ring");
}

TEST_CASE("malformed TOML is refused with file:line:column") {
  const std::string msg = scenario_error("format = 1\n[collective]\nranks = = 4\n");
  CHECK(msg.starts_with("s.toml:3:"));
  CHECK(msg.find("not valid TOML") != std::string::npos);
}

TEST_CASE("an unknown key is refused with its position and name") {
  const std::string msg = scenario_error("format = 1\n[collective]\nalgorithm = \"ring\"\n  rank = 8\n");
  CHECK(msg.starts_with("s.toml:4:3: key 'collective.rank': unknown key"));
  CHECK(scenario_error("format = 1\ntitel = \"x\"\n").starts_with("s.toml:2:1: key 'titel': unknown key"));
  CHECK(scenario_error("format = 1\n[runs]\n").starts_with("s.toml:2:2: key 'runs': unknown key"));
}

TEST_CASE("a wrong type is refused with the value's position and the key") {
  CHECK(scenario_error("format = 1\n[collective]\nranks = \"four\"\n") ==
        "s.toml:3:9: key 'collective.ranks': expected an integer, got a string");
  CHECK(scenario_error("format = 1\n[collective]\ncolocated = 1\n")
            .starts_with("s.toml:3:13: key 'collective.colocated': expected true or false"));
  CHECK(scenario_error("format = 1\ncollective = 3\n").starts_with("s.toml:2:14: key 'collective': expected a table"));
  CHECK(scenario_error("format = 1\n[collective]\ncount = 1.5\n")
            .starts_with("s.toml:3:9: key 'collective.count': expected an integer or a string"));
}

TEST_CASE("impossible values are refused with the value's position and the key") {
  CHECK(scenario_error("format = 1\n[collective]\nranks = -4\n") ==
        "s.toml:3:9: key 'collective.ranks': must be between 1 and 1024, got -4");
  CHECK(scenario_error("format = 1\n[collective]\ncount = \"12Q\"\n")
            .starts_with("s.toml:3:9: key 'collective.count': '12Q' is not a count"));
  CHECK(scenario_error("format = 1\n[collective]\ndtype = \"f8\"\n")
            .starts_with("s.toml:3:9: key 'collective.dtype': unknown data type 'f8'"));
  CHECK(scenario_error("format = 1\n[collective]\nalgorithm = \"rong\"\n")
            .starts_with("s.toml:3:13: key 'collective.algorithm': no algorithm 'rong' for all_reduce"));
  CHECK(scenario_error("format = 1\n[collective]\nranks = 2\nroot = 2\n")
            .starts_with("s.toml:4:8: key 'collective.root': must be between 0 and 1"));
  CHECK(scenario_error("format = 1\n[collective]\nranks = 2\nservers = 3\n")
            .starts_with("s.toml:4:11: key 'collective.servers'"));
  CHECK(scenario_error("format = 1\n[run]\nbackend = \"gpu\"\n")
            .starts_with("s.toml:3:11: key 'run.backend': unknown backend 'gpu'"));
  CHECK(scenario_error("format = 1\n[run]\nseed = -1\n").starts_with("s.toml:3:8: key 'run.seed': must be between 0"));
}

TEST_CASE("a missing or unsupported format version is refused") {
  CHECK(scenario_error("title = \"x\"\n").starts_with("s.toml:1:1: key 'format' is missing"));
  CHECK(scenario_error("format = 3\n").starts_with("s.toml:1:10: key 'format': scenario format 3 is not supported"));
  CHECK(scenario_error("format = 0\n").starts_with("s.toml:1:10: key 'format': scenario format 0 is not supported"));
}

TEST_CASE("an unreadable scenario file is refused naming the file") {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_test_scenario";
  std::filesystem::create_directories(dir);
  for (const std::filesystem::path& p : {dir / "missing.toml", dir}) {
    CAPTURE(p);
    try {
      load_scenario(p);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).starts_with(p.string() + ": cannot read the scenario file"));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("flags the user gave override the file, flags left at their defaults do not") {
  const Scenario s = parse_scenario(kGood, "good.toml");
  RunRequest flags = default_run_request();  // what the flags say, defaults included
  flags.spec.ranks = 3;
  flags.spec.dtype = DataType::f64;  // a value the user did not give: must not win
  flags.options.colocated = false;
  flags.seed = 7;
  const auto given = [](std::string_view f) { return f == "--ranks" || f == "--colocated" || f == "--seed"; };
  const RunRequest r = apply_flag_overrides(s.request, flags, fields_given_by_flags(given));
  CHECK(r.spec.ranks == 3);
  CHECK_FALSE(r.options.colocated);
  CHECK(r.seed == 7);
  CHECK(r.spec.dtype == DataType::bf16);
  CHECK(r.algorithm == "parameter_server");
  CHECK(r.options.servers == 2);
  const RunRequest none = apply_flag_overrides(s.request, flags, GivenFields{});
  CHECK(none.spec.ranks == 6);
  CHECK(none.seed == 42);
}

TEST_CASE("a scenario and its phases may name the clock the views open on, one of the three") {
  const Scenario one = parse_scenario("format = 1\nclock = \"predicted\"\n[collective]\nranks = 4\n", "s.toml");
  CHECK(one.clock == "predicted");
  const Scenario lesson = parse_scenario(
      "format = 2\nranks = 4\n[[phase]]\ncollective = \"all_reduce\"\nclock = \"measured\"\n[[phase]]\ncollective = \"all_reduce\"\n",
      "s.toml");
  REQUIRE(lesson.phases.size() == 2);
  CHECK(lesson.clock.empty());
  CHECK(lesson.phases[0].clock == "measured");
  CHECK(lesson.phases[1].clock.empty());
  const std::string msg = scenario_error("format = 1\nclock = \"wall\"\n[collective]\nranks = 4\n");
  CHECK(msg.starts_with("s.toml:2:9: key 'clock': unknown clock 'wall'"));
  CHECK(scenario_error("format = 2\nranks = 4\n[[phase]]\ncollective = \"all_reduce\"\nclock = 3\n").starts_with("s.toml:5:9: key 'phase[1].clock': expected a string"));
}
