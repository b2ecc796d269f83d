// Lessons in scenario files (format 2): phases, captions, questions and [training] keys are
// read into Scenario::phases; format 1 becomes one collective phase; every bad lesson is
// refused with file:line:column and the key; and the command line's flags apply to a
// lesson as docs/scenario-format.md says.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/errors.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/suggestion.h"
#include "test_support.h"

using namespace collsim;

namespace {

// The message of the InputError that parsing `text` as "s.toml" throws ("" if none).
std::string lesson_error(const std::string& text) {
  return testing::input_error([&] { parse_scenario(text, "s.toml"); });
}

// The message of the InputError that rendering the lesson's text throws ("" if none): the
// names a text may use depend on the run (the algorithm's stages, the questions), so they
// are checked once the program is prepared and predicted, before anything executes.
std::string text_error(const std::string& text) {
  return testing::input_error([&] {
    const Scenario s = parse_scenario(text, "s.toml");
    ProgramResult p = prepare_program(s, true);
    predict_program(p, s, s.topology);
    check_lesson_text(s, p, lesson_facts(s, p));
  });
}

// The message of the InputError that the flags throw on a parsed scenario ("" if none).
std::string override_error(const Scenario& s, const RunRequest& flags, const GivenFields& given) {
  return testing::input_error([&] { apply_scenario_overrides(s, flags, TopologyConfig{}, given); });
}

GivenFields only(std::string_view flag) {
  return fields_given_by_flags([flag](std::string_view f) { return f == flag; });
}

// Three phases: compute on every rank, a reduce to rank 3 (its first two steps), compute
// on two ranks only.
const char* const kLesson = R"toml(format = 2
title = "Overlap"
caption = "Phase {phase} of {phases}"
ranks = 4

[run]
seed = 9

[[phase]]
name = "backward of layer 4"
compute = 120.0
writes = ["grad.layer4"]
caption = "computing"

[[phase]]
name = "reduce to rank 3"
collective = "reduce"
algorithm = "binomial_tree"
count = "1K"
root = 3
steps = [1, 2]
reads = ["grad.layer4"]
writes = ["grad.layer4", "sum"]
step_caption = "rank {src} sends {bytes} B to rank {dst}"
step_captions = ["first", ""]

[[phase]]
compute = [10.0, 20.0]

[[question]]
text = "How many bytes has rank 1 sent after step 1?"
metric = "bytes_sent"
phase = 2
rank = 1
step = 1
answer = "{value} bytes (rank {rank}, step {step})"

[[question]]
text = "When does the program end?"
metric = "time_us"
phase = 0
)toml";

}  // namespace

TEST_CASE("lesson_parse: format 1 is one collective phase whose request is the scenario's") {
  const Scenario s = parse_scenario(R"toml(format = 1
[run]
seed = 5

[collective]
collective = "all_gather"
algorithm = "bruck"
ranks = 6
count = 12
)toml",
                                    "f1.toml");
  CHECK(s.format == 1);
  CHECK(s.ranks == 6);
  REQUIRE(s.phases.size() == 1);
  const Phase& p = s.phases[0];
  CHECK(p.kind == PhaseKind::collective);
  CHECK(p.name == "all_gather (bruck)");
  CHECK(p.origin == "f1.toml:5:1");
  CHECK(p.request.spec.collective == s.request.spec.collective);
  CHECK(p.request.algorithm == s.request.algorithm);
  CHECK(p.request.spec.ranks == 6);
  CHECK(p.request.spec.count == 12);
  CHECK(p.request.seed == 5);
  CHECK(p.first_step == 0);
  CHECK(s.single_collective());
  CHECK(s.file_phases == 1);
  CHECK_FALSE(s.training);
  CHECK(s.questions.empty());

  const Scenario bare = parse_scenario("format = 1\n", "bare.toml");
  REQUIRE(bare.phases.size() == 1);
  CHECK(bare.phases[0].origin == "bare.toml:1:1");
  CHECK(bare.phases[0].name == "all_reduce (ring)");
  CHECK(bare.phases[0].request.spec.count == default_run_request().spec.count);
}

TEST_CASE("lesson_parse: format 2 with one [collective] and captions is a single collective") {
  const Scenario s = parse_scenario(R"toml(format = 2
caption = "Ring on {ranks} ranks"
ranks = 8

[collective]
algorithm = "ring"
count = 16
caption = "the whole ring"
step_caption = "Step {step}/{steps}: rank {src} sends chunk {chunk} ({bytes} B) to rank {dst}"
step_captions = ["step 1's own", "", "step 3's"]
)toml",
                                    "c.toml");
  CHECK(s.format == 2);
  CHECK(s.caption == "Ring on {ranks} ranks");
  CHECK(s.ranks == 8);
  CHECK(s.request.spec.ranks == 8);
  CHECK(s.request.spec.count == 16);
  REQUIRE(s.phases.size() == 1);
  const Phase& p = s.phases[0];
  CHECK(p.request.spec.ranks == 8);
  CHECK(p.caption == "the whole ring");
  CHECK(p.step_caption.starts_with("Step {step}/{steps}"));
  CHECK(p.step_captions == std::vector<std::string>{"step 1's own", "", "step 3's"});
  CHECK(p.origin == "c.toml:5:1");
  CHECK(s.single_collective());

  // `ranks` inside [collective] works as in format 1 when the top level has none.
  CHECK(parse_scenario("format = 2\n[collective]\nranks = 3\n", "c.toml").ranks == 3);
}

TEST_CASE("lesson_parse: [[phase]]s are read in order, collective and compute") {
  const Scenario s = parse_scenario(kLesson, "l.toml");
  CHECK(s.format == 2);
  CHECK(s.caption == "Phase {phase} of {phases}");
  REQUIRE(s.phases.size() == 3);
  CHECK(s.file_phases == 3);
  CHECK_FALSE(s.single_collective());

  const Phase& backward = s.phases[0];
  CHECK(backward.kind == PhaseKind::compute);
  CHECK(backward.name == "backward of layer 4");
  CHECK(backward.compute_us == std::vector<double>{120, 120, 120, 120});
  CHECK(backward.writes == std::vector<std::string>{"grad.layer4"});
  CHECK(backward.reads.empty());
  CHECK(backward.caption == "computing");
  CHECK(backward.origin == "l.toml:9:1");

  const Phase& reduce = s.phases[1];
  CHECK(reduce.kind == PhaseKind::collective);
  CHECK(reduce.name == "reduce to rank 3");
  CHECK(reduce.request.spec.collective == Collective::reduce);
  CHECK(reduce.request.algorithm == "binomial_tree");
  CHECK(reduce.request.spec.ranks == 4);
  CHECK(reduce.request.spec.count == 1024);
  CHECK(reduce.request.spec.root == 3);
  CHECK(reduce.request.seed == 9);  // [run]'s seed reaches every collective
  CHECK(reduce.first_step == 1);
  CHECK(reduce.last_step == 2);
  CHECK(reduce.reads == std::vector<std::string>{"grad.layer4"});
  CHECK(reduce.writes == std::vector<std::string>{"grad.layer4", "sum"});
  CHECK(reduce.step_captions == std::vector<std::string>{"first", ""});
  CHECK(reduce.origin == "l.toml:15:1");

  const Phase& idle = s.phases[2];
  CHECK(idle.kind == PhaseKind::compute);
  CHECK(idle.name == "compute");
  CHECK(idle.compute_us == std::vector<double>{10, 20, 0, 0});  // missing ranks are idle

  // The single-run front ends get the first collective's request.
  CHECK(s.request.spec.collective == Collective::reduce);
  CHECK(s.request.seed == 9);
}

TEST_CASE("lesson_parse: compute figures cover a parameter server's extra ranks") {
  const Scenario s = parse_scenario(R"toml(format = 2
ranks = 3
[[phase]]
collective = "all_reduce"
algorithm = "parameter_server"
servers = 2
[[phase]]
compute = [1.0, 2.0, 3.0, 4.0, 5.0]
[[phase]]
compute = 7
)toml",
                                    "ps.toml");
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[0].name == "all_reduce (parameter_server)");
  CHECK(s.phases[1].compute_us == std::vector<double>{1, 2, 3, 4, 5});  // servers are ranks 3 and 4
  CHECK(s.phases[2].compute_us == std::vector<double>{7, 7, 7, 0, 0});  // a number: the workers only
  // A single phase that runs only some steps is a lesson, not a single collective.
  CHECK_FALSE(parse_scenario("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nsteps = [2, 2]\n", "p.toml")
                  .single_collective());
  CHECK(parse_scenario("format = 2\n[[phase]]\ncollective = \"broadcast\"\n", "p.toml").single_collective());
  CHECK_FALSE(parse_scenario("format = 2\n[[phase]]\ncompute = 1\n", "p.toml").single_collective());
}

TEST_CASE("lesson_parse: questions are read with their defaults") {
  const Scenario s = parse_scenario(kLesson, "l.toml");
  REQUIRE(s.questions.size() == 2);
  const Question& bytes = s.questions[0];
  CHECK(bytes.text == "How many bytes has rank 1 sent after step 1?");
  CHECK(bytes.metric == Metric::bytes_sent);
  CHECK(bytes.phase == 2);
  CHECK(bytes.rank == 1);
  CHECK(bytes.step == 1);
  CHECK(bytes.chunk == 0);
  CHECK(bytes.answer == "{value} bytes (rank {rank}, step {step})");
  CHECK(bytes.origin == "l.toml:30:1");
  const Question& time = s.questions[1];
  CHECK(time.metric == Metric::time_us);
  CHECK(time.phase == 0);
  CHECK(time.rank == 0);
  CHECK(time.answer == "{value}");

  const Scenario d = parse_scenario(R"toml(format = 2
[collective]
collective = "all_gather"
[[question]]
text = "Whose data does rank 2's chunk 1 hold after step 2?"
metric = "contributions"
rank = 2
step = 2
chunk = 1
)toml",
                                    "q.toml");
  REQUIRE(d.questions.size() == 1);
  CHECK(d.questions[0].metric == Metric::contributions);
  CHECK(d.questions[0].phase == 1);
  CHECK(d.questions[0].chunk == 1);
}

TEST_CASE("lesson_parse: a bad phase is refused with file:line:column and its key") {
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\ncompute = 5.0\n") ==
        "s.toml:4:11: key 'phase[1].compute': a phase is either a collective (`collective = ...`) or compute "
        "(`compute = ...`), not both");
  CHECK(
      lesson_error("format = 2\n[[phase]]\ncompute = 1\n[[phase]]\nname = \"x\"\n") ==
      "s.toml:4:1: key 'phase[2]': needs `collective = \"...\"` (a collective phase) or `compute = ...` (µs of compute "
      "per rank)");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\ncount2 = 3\n")
            .starts_with(
                "s.toml:4:1: key 'phase[1].count2': unknown key (a collective [[phase]] knows: name, group, collective"));
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = 1\ncount = 3\n")
            .starts_with(
                "s.toml:4:1: key 'phase[1].count': unknown key (a compute [[phase]] knows: name, group, compute, reads"));
  // A group's phases come one after the other; its name is not empty.
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = 1\ngroup = \"\"\n") ==
        "s.toml:4:9: key 'phase[1].group': a group needs a name, such as \"v1\" (leave `group` out for none)");
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = 1\ngroup = \"v1\"\n[[phase]]\ncompute = 1\ngroup = \"v2\"\n"
                     "[[phase]]\ncompute = 1\ngroup = \"v1\"\n") ==
        "s.toml:10:9: key 'phase[3].group': group \"v1\" was used before, by phases that this one does not follow: a "
        "group's phases come one after the other");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\ncount = \"1Q\"\n")
            .starts_with("s.toml:4:9: key 'phase[1].count': '1Q' is not a count"));
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nsteps = [3, 1]\n") ==
        "s.toml:4:9: key 'phase[1].steps': [3, 1] is no range of steps: the first step comes after the last");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nsteps = [0, 1]\n") ==
        "s.toml:4:10: key 'phase[1].steps[0]': must be between 1 and 2147483647, got 0");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nsteps = [1]\n")
            .starts_with("s.toml:4:9: key 'phase[1].steps': expected [first, last]"));
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = -1.5\n") ==
        "s.toml:3:11: key 'phase[1].compute': must be >= 0, got -1.5");
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = [1.0, -2.0]\n") ==
        "s.toml:3:17: key 'phase[1].compute[1]': must be >= 0, got -2");
  CHECK(lesson_error("format = 2\n[[phase]]\ncompute = \"fast\"\n")
            .starts_with("s.toml:3:11: key 'phase[1].compute': expected a number (µs on every rank) or an array"));
  CHECK(lesson_error("format = 2\nranks = 2\n[[phase]]\ncompute = [1.0, 2.0, 3.0]\n") ==
        "s.toml:4:11: key 'phase[1].compute': has 3 entries, but the program has 2 ranks (0..1)");
  CHECK(lesson_error("format = 2\nranks = 2\n[[phase]]\ncollective = \"reduce\"\nroot = 2\n") ==
        "s.toml:5:8: key 'phase[1].root': must be between 0 and 1, got 2");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nranks = 8\n") ==
        "s.toml:4:9: key 'phase[1].ranks': a phase runs on the lesson's ranks: give `ranks` once, at the top of the "
        "file");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nreads = [\"\"]\n") ==
        "s.toml:4:10: key 'phase[1].reads[0]': a region needs a name, such as \"grad.layer4\"");
  CHECK(lesson_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nstep_captions = [\"a\", 3]\n") ==
        "s.toml:4:23: key 'phase[1].step_captions[1]': expected a string, got an integer");
  CHECK(text_error("format = 2\n[[phase]]\ncollective = \"all_reduce\"\nstep_caption = \"{source}\"\n")
            .starts_with("s.toml:4:16: key 'phase[1].step_caption': placeholder '{source}': unknown name 'source'"));
  CHECK(text_error("format = 2\ncaption = \"{phase} of {phasen}\"\n[collective]\n")
            .starts_with("s.toml:2:11: key 'caption': placeholder '{phasen}': unknown name 'phasen'"));
  CHECK(lesson_error("format = 2\ncaption = \"{phase of\"\n[collective]\n")
            .starts_with("s.toml:2:11: key 'caption': unclosed '{'"));
  CHECK(lesson_error("format = 2\nphase = 3\n").starts_with("s.toml:2:9: key 'phase': expected [[phase]] tables"));
}

TEST_CASE("lesson_parse: a bad question is refused with file:line:column and its key") {
  const std::string head =
      "format = 2\n[[phase]]\ncollective = \"all_reduce\"\n[[phase]]\ncompute = 1.0\n[[question]]\n";
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"bytes\"\n") ==
        "s.toml:8:10: key 'question[1].metric': unknown metric 'bytes' (use bytes_sent bytes_received transfers steps "
        "time_us duration_us busbw_gbps contributions peak_memory_bytes latency_us bandwidth_us idle_fraction value "
        "exact_value holders)");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nphase = 3\n") ==
        "s.toml:9:9: key 'question[1].phase': must be between 0 and 2, got 3");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nphase = 0\n") ==
        "s.toml:9:9: key 'question[1].phase': phase = 0 is the whole program, which has only metric = \"time_us\" or \"duration_us\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"bytes_sent\"\nphase = 2\n") ==
        "s.toml:8:10: key 'question[1].metric': phase 2 ('compute') is a compute phase: it has only metric = "
        "\"time_us\" or \"duration_us\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"bytes_sent\"\nrank = 4\n") ==
        "s.toml:9:8: key 'question[1].rank': must be between 0 and 3, got 4");
  // Keys the metric does not use are refused, not ignored.
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nrank = 1\n") ==
        "s.toml:9:8: key 'question[1].rank': is used only with metric = \"bytes_sent\", \"bytes_received\", "
        "\"contributions\", \"peak_memory_bytes\", \"idle_fraction\", \"value\" or \"exact_value\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"time_us\"\nstep = 2\n") ==
        "s.toml:9:8: key 'question[1].step': is used only with metric = \"bytes_sent\", \"bytes_received\", "
        "\"transfers\", \"contributions\", \"holders\" or \"value\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nchunk = 1\n") ==
        "s.toml:9:9: key 'question[1].chunk': is used only with metric = \"contributions\"");
  CHECK(text_error(head + "text = \"?\"\nmetric = \"steps\"\nanswer = \"{value} in {rnaks}\"\n")
            .find("placeholder '{rnaks}': unknown name 'rnaks'") != std::string::npos);
  CHECK(text_error(head + "text = \"?\"\nmetric = \"steps\"\nanswer = \"{value} of {ranks} ranks\"\n").empty());
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nanswer = \"{value\"\n")
            .starts_with("s.toml:9:10: key 'question[1].answer': unclosed '{'"));
  CHECK(lesson_error(head + "metric = \"steps\"\n") ==
        "s.toml:6:1: key 'question[1]': needs a `text`: the question the student reads");
  CHECK(lesson_error(head +
                     "text = \"?\"\nmetric = \"steps\"\n[[question]]\ntext = \"?\"\nmetric = \"transfers\"\nstep = -1\n") ==
        "s.toml:12:8: key 'question[2].step': must be between 0 and 2147483647, got -1");
}

TEST_CASE("lesson_parse: a lesson's shape and format are checked") {
  CHECK(lesson_error("format = 3\n") ==
        "s.toml:1:10: key 'format': scenario format 3 is not supported (this build reads formats 1 to 2)");
  CHECK(lesson_error("format = 2\n[collective]\ncount = 8\n[[phase]]\ncompute = 1\n") ==
        "s.toml:4:1: key 'phase': does not go with [collective]: a lesson is one [collective], or [[phase]]s and "
        "[training] (make the collective a [[phase]])");
  CHECK(lesson_error("format = 2\n[collective]\ncount = 8\n[training]\npattern = \"ddp\"\n")
            .starts_with("s.toml:4:1: key 'training': does not go with [collective]"));
  CHECK(lesson_error("format = 2\ntitle = \"nothing\"\n") ==
        "s.toml:1:10: key 'format': a format 2 scenario needs a [collective], [[phase]]s or [training]: what it runs");
  CHECK(lesson_error("format = 2\nranks = 4\n[collective]\nranks = 8\n") ==
        "s.toml:4:9: key 'collective.ranks': ranks is given at the top level too (s.toml:2:9): give it once");
  CHECK(lesson_error("format = 2\nranks = 0\n[[phase]]\ncompute = 1\n") ==
        "s.toml:2:9: key 'ranks': must be between 1 and 1024, got 0");
  CHECK(lesson_error("format = 2\ncaption = \"x\"\n[collective]\nlabel = \"y\"\n")
            .starts_with("s.toml:4:1: key 'collective.label': unknown key (scenario format 2 knows: collective"));
  // What format 2 added, in a format 1 file: said so, not "unknown key".
  CHECK(lesson_error("format = 1\ncaption = \"x\"\n") ==
        "s.toml:2:11: key 'caption': is new in scenario format 2: start the file with `format = 2` to use it");
  CHECK(lesson_error("format = 1\nranks = 4\n").starts_with("s.toml:2:9: key 'ranks': is new in scenario format 2"));
  CHECK(lesson_error("format = 1\n[[phase]]\ncompute = 1\n")
            .starts_with("s.toml:2:1: key 'phase': is new in scenario format 2"));
  CHECK(lesson_error("format = 1\n[collective]\nstep_caption = \"x\"\n")
            .starts_with("s.toml:3:16: key 'collective.step_caption': is new in scenario format 2"));
}

TEST_CASE("lesson_parse: [training] keys are checked with their position") {
  const std::string head = "format = 2\n[training]\n";
  CHECK(lesson_error(head + "pattern = \"zero3\"\nmodel = [10]\n") ==
        "s.toml:3:11: key 'training.pattern': unknown training pattern 'zero3' (use ddp, fsdp, parameter_server or pipeline)");
  CHECK(lesson_error(head + "model = \"resnet50\"\n") ==
        "s.toml:3:9: key 'training.model': unknown model 'resnet50' (use \"resnet34\", or an array of parameter counts "
        "per layer)");
  CHECK(lesson_error(head + "model = [1000, 0]\n") ==
        "s.toml:3:16: key 'training.model[1]': must be between 1 and 9223372036854775807, got 0");
  CHECK(lesson_error(head + "model = []\n")
            .starts_with("s.toml:3:9: key 'training.model': a model needs at least one layer"));
  CHECK(lesson_error(head + "model = 3\n").starts_with("s.toml:3:9: key 'training.model': expected a model's name"));
  CHECK(lesson_error(head + "pattern = \"ddp\"\n").starts_with("s.toml:2:1: key 'training.model' is missing"));
  CHECK(lesson_error(head + "model = [10]\nbucket_mb = 0\n") ==
        "s.toml:4:13: key 'training.bucket_mb': must be > 0, got 0");
  CHECK(lesson_error(head + "model = [10]\nforward_us = -1\n") ==
        "s.toml:4:14: key 'training.forward_us': must be >= 0, got -1");
  CHECK(lesson_error(head + "pattern = \"fsdp\"\nmodel = [10]\nbucket_mb = 5\n") ==
        "s.toml:5:13: key 'training.bucket_mb': is used only by the ddp pattern");
  CHECK(lesson_error(head + "model = [10]\nservers = 2\n") ==
        "s.toml:4:11: key 'training.servers': is used only by the parameter_server pattern, or by ddp with algorithm = "
        "\"parameter_server\"");
  CHECK(parse_scenario(head + "model = [10]\nalgorithm = \"parameter_server\"\nservers = 2\n", "s.toml")
            .training->servers == 2);
  CHECK(lesson_error(head + "pattern = \"parameter_server\"\nmodel = [10]\nalgorithm = \"ring\"\n") ==
        "s.toml:5:13: key 'training.algorithm': is used only by the ddp and fsdp patterns");
  CHECK(lesson_error(head + "pattern = \"parameter_server\"\nmodel = [10]\nservers = 5\n") ==
        "s.toml:5:11: key 'training.servers': must be between 1 and 4, got 5");
  CHECK(lesson_error(head + "pattern = \"fsdp\"\nmodel = [10]\nalgorithm = \"binomial_tree\"\n") ==
        "s.toml:5:13: key 'training.algorithm': no algorithm 'binomial_tree' for all_gather or reduce_scatter (see "
        "`collsim list`)");
  CHECK(parse_scenario(head + "pattern = \"fsdp\"\nmodel = [10]\nalgorithm = \"recursive_halving\"\nforward_us = 1\nbackward_us = 2\n",
                       "s.toml")
            .training->algorithm == "recursive_halving");
  CHECK(lesson_error(head + "model = [10]\ndtype = \"f8\"\n")
            .starts_with("s.toml:4:9: key 'training.dtype': unknown data type"));
  CHECK(lesson_error(head + "model = [10]\nlayers = 3\n").starts_with("s.toml:4:1: key 'training.layers': unknown key"));
}

TEST_CASE("lesson_parse: flags on a lesson: --ranks and --seed apply, collective flags are refused") {
  const Scenario s = parse_scenario(kLesson, "l.toml");
  RunRequest flags = default_run_request();
  flags.spec.ranks = 6;
  flags.seed = 77;
  const Scenario r = apply_scenario_overrides(
      s, flags, TopologyConfig{}, fields_given_by_flags([](std::string_view f) { return f == "--ranks" || f == "--seed"; }));
  CHECK(r.ranks == 6);
  REQUIRE(r.phases.size() == 3);
  CHECK(r.phases[0].compute_us == std::vector<double>(6, 120.0));  // a number: every worker rank
  CHECK(r.phases[1].request.spec.ranks == 6);
  CHECK(r.phases[1].request.seed == 77);
  CHECK(r.phases[1].first_step == 1);
  CHECK(r.phases[2].compute_us == std::vector<double>{10, 20, 0, 0, 0, 0});
  CHECK(r.request.spec.ranks == 6);
  CHECK(r.request.seed == 77);
  CHECK(r.questions.size() == 2);

  // Topology flags apply; flags the user did not give change nothing.
  TopologyConfig topology;
  topology.latency_us = 42;
  const Scenario t = apply_scenario_overrides(s, flags, topology, only("--latency"));
  CHECK(t.topology.latency_us == 42);
  CHECK(t.ranks == 4);
  CHECK(t.phases[1].request.seed == 9);

  CHECK(override_error(s, flags, only("--count")) ==
        "--count changes one collective; l.toml has 3 phases: edit the phase's `count` in the file");
  CHECK(override_error(s, flags, only("--ranks-per-node")) ==
        "--ranks-per-node changes one collective; l.toml has 3 phases: edit the phase's `ranks_per_node` in the file");
  CHECK(override_error(s, flags, only("--schedule")).starts_with("--schedule changes one collective"));
}

TEST_CASE("lesson_parse: --ranks on a lesson re-checks what the file fixed per rank, naming the flag") {
  const Scenario s = parse_scenario(kLesson, "l.toml");
  RunRequest flags = default_run_request();
  flags.spec.ranks = 3;
  CHECK(override_error(s, flags, only("--ranks")) ==
        "--ranks 3: phase[2] 'reduce to rank 3' has root = 3 (the ranks are 0..2)");

  const Scenario wide = parse_scenario("format = 2\n[[phase]]\ncompute = [0.0, 1.0, 0.0, 5.0]\n", "w.toml");
  flags.spec.ranks = 2;
  CHECK(override_error(wide, flags, only("--ranks")) ==
        "--ranks 2: phase[1] 'compute' computes on rank 3 (compute[3] = 5 µs), which the program does not have (ranks "
        "0..1)");
  const Scenario idle_tail = parse_scenario("format = 2\n[[phase]]\ncompute = [1.0, 2.0, 0.0, 0.0]\n", "w.toml");
  CHECK(apply_scenario_overrides(idle_tail, flags, TopologyConfig{}, only("--ranks")).phases[0].compute_us ==
        std::vector<double>{1, 2});

  const Scenario asks = parse_scenario(
      "format = 2\n[[phase]]\ncollective = \"all_reduce\"\ncount = 8\n[[phase]]\ncompute = 2\n[[question]]\ntext = "
      "\"?\"\nmetric = \"bytes_sent\"\nrank = 3\n",
      "q.toml");
  // A question about rank 3 at 2 ranks no longer refuses the run: its answer says it does not
  // apply (answer_question, test_captions.cpp).
  CHECK(apply_scenario_overrides(asks, flags, TopologyConfig{}, only("--ranks")).ranks == 2);

  const Scenario servers = parse_scenario(
      "format = 2\n[[phase]]\ncollective = \"all_reduce\"\nalgorithm = \"parameter_server\"\nservers = 3\n[[phase]]\n"
      "compute = 1\n",
      "ps.toml");
  CHECK(override_error(servers, flags, only("--ranks")) ==
        "--ranks 2: phase[1] 'all_reduce (parameter_server)' has servers = 3 (at most the ranks)");
  flags.spec.ranks = 5;
  const Scenario more = apply_scenario_overrides(servers, flags, TopologyConfig{}, only("--ranks"));
  CHECK(more.phases[0].request.spec.ranks == 5);
  CHECK(more.phases[1].compute_us == std::vector<double>{1, 1, 1, 1, 1, 0, 0, 0});  // 5 workers and 3 servers
}

TEST_CASE("lesson_parse: every flag applies to a single-collective scenario, and its phase follows") {
  const Scenario s =
      parse_scenario("format = 2\nranks = 4\n[[phase]]\ncollective = \"broadcast\"\nroot = 3\n", "b.toml");
  REQUIRE(s.single_collective());
  RunRequest flags = default_run_request();
  flags.spec.ranks = 8;
  flags.spec.count = 64;
  flags.algorithm = "chain";
  const Scenario r = apply_scenario_overrides(s, flags, TopologyConfig{}, fields_given_by_flags([](std::string_view f) {
    return f == "--ranks" || f == "--count" || f == "--algorithm";
  }));
  CHECK(r.ranks == 8);
  CHECK(r.request.spec.ranks == 8);
  CHECK(r.request.spec.count == 64);
  CHECK(r.request.spec.root == 3);
  CHECK(r.phases[0].request.spec.count == 64);
  CHECK(r.phases[0].request.algorithm == "chain");
  CHECK(r.phases[0].name == "broadcast (chain)");  // a default name follows the algorithm

  const Scenario named =
      parse_scenario("format = 2\n[[phase]]\nname = \"spread the weights\"\ncollective = \"broadcast\"\n", "n.toml");
  CHECK(apply_scenario_overrides(named, flags, TopologyConfig{}, only("--algorithm")).phases[0].name ==
        "spread the weights");
  // The old entry points still work on the request.
  CHECK(apply_flag_overrides(s.request, flags, only("--count")).spec.count == 64);
}

TEST_CASE("lesson_parse: [training] is read into its spec, and --ranks generates its phases again") {
  const Scenario ddp = parse_scenario(R"toml(format = 2
[training]
pattern = "ddp"
model = [1000, 2000, 3000]
dtype = "bf16"
algorithm = "recursive_doubling"
bucket_mb = 2.5
first_bucket_mb = 0.5
iterations = ["constructor", "later"]
broadcast_buffers = false
broadcast_bucket_mb = 100
forward_us = 30
backward_us = 60.0
)toml",
                                      "d.toml");
  REQUIRE(ddp.training);
  const TrainingSpec& d = *ddp.training;
  CHECK(d.pattern == TrainingPattern::ddp);
  CHECK(d.model.name == "custom");
  CHECK(d.model.layer_names == std::vector<std::string>{"layer1", "layer2", "layer3"});
  CHECK(d.model.parameters == std::vector<std::uint64_t>{1000, 2000, 3000});
  CHECK(d.dtype == DataType::bf16);
  CHECK(d.algorithm == "recursive_doubling");
  CHECK(d.bucket_mb == 2.5);
  CHECK(d.first_bucket_mb == 0.5);
  CHECK(d.parts == std::vector<DdpPart>{DdpPart::constructor, DdpPart::later});
  CHECK_FALSE(d.broadcast_buffers);
  CHECK(d.broadcast_bucket_mb == 100);
  CHECK_FALSE(d.split_by_flops);  // a custom model has no multiply-adds
  CHECK(d.forward_us == 30);
  CHECK(d.backward_us == 60);
  CHECK(d.origin == "d.toml:2:1");
  CHECK(ddp.file_phases == 0);
  CHECK_FALSE(ddp.phases.empty());
  CHECK_FALSE(ddp.single_collective());

  const Scenario s = parse_scenario(
      "format = 2\n[run]\nseed = 3\n[[phase]]\ncompute = 5\n[training]\npattern = \"fsdp\"\nmodel = [1000, 2000]\n"
      "forward_us = 10\nbackward_us = 20\n",
      "t.toml");
  REQUIRE(s.training);
  CHECK(s.file_phases == 1);
  CHECK(s.phases[0].compute_us == std::vector<double>{5, 5, 5, 5});
  for (const Phase& p : s.phases)
    if (p.kind == PhaseKind::collective) CHECK(p.request.seed == 3);  // [run]'s seed reaches generated phases too
  RunRequest flags = default_run_request();
  flags.spec.ranks = 8;
  const Scenario r = apply_scenario_overrides(s, flags, TopologyConfig{}, only("--ranks"));
  CHECK(r.phases.size() == s.phases.size());  // the file's phase, then the pattern's again
  CHECK(r.phases[0].compute_us == std::vector<double>(8, 5.0));
  for (const Phase& p : r.phases) {
    if (p.kind == PhaseKind::collective) {
      CHECK(p.request.spec.ranks == 8);
      CHECK(p.request.seed == 3);
    } else {
      CHECK(p.compute_us.size() == 8);
    }
  }
  // A pattern that cannot run on the new ranks says which flag asked for them.
  flags.spec.ranks = 1;
  CHECK(override_error(s, flags, only("--ranks")).starts_with("--ranks 1: t.toml:6:1: key 'training."));
}

TEST_CASE("lesson_parse: --ranks keeps the phases of a Scenario built in code") {
  Scenario s;  // no file: file_phases stays 0 and there is no [training]
  s.source = "built";
  Phase compute;
  compute.kind = PhaseKind::compute;
  compute.name = "compute";
  compute.compute_us = {1, 2, 3, 4};
  Phase reduce;
  reduce.name = "all_reduce (ring)";
  s.phases = {compute, reduce};
  RunRequest flags = default_run_request();
  flags.spec.ranks = 8;
  const Scenario r = apply_scenario_overrides(s, flags, TopologyConfig{}, only("--ranks"));
  REQUIRE(r.phases.size() == 2);
  CHECK(r.phases[0].compute_us == std::vector<double>{1, 2, 3, 4, 0, 0, 0, 0});
  CHECK(r.phases[1].request.spec.ranks == 8);
  CHECK(r.request.spec.ranks == 8);
}

TEST_CASE("lesson_parse: streams, event waits, host waits and memory are read, bad ones are refused") {
  const std::string head = "format = 2\nranks = 2\n[[phase]]\nname = \"backward\"\ncompute = 10.0\n";
  const Scenario s = parse_scenario(head + R"toml(allocates = { "act" = "4MiB", "ws" = 512 }
[[phase]]
name = "all-reduce"
collective = "all_reduce"
count = "1K"
stream = "nccl"
wait_for = ["backward"]
host_wait_for = ["backward"]
frees = ["act", "ws"]
[[phase]]
compute = 1.0
stream = "default"
synchronize = true
)toml",
                                    "s.toml");
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[0].allocates == std::vector<std::pair<std::string, double>>{{"act", 4194304.0}, {"ws", 512.0}});
  CHECK(s.phases[1].stream == "nccl");
  CHECK(s.phases[1].wait_for == std::vector<int>{0});
  CHECK(s.phases[1].host_wait_for == std::vector<int>{0});
  CHECK(s.phases[1].frees == std::vector<std::string>{"act", "ws"});
  CHECK(phase_stream(s.phases[0]) == kComputeStream);
  CHECK(phase_stream(s.phases[2]) == kDefaultStream);
  CHECK(s.phases[2].synchronize);

  CHECK(lesson_error(head + "[[phase]]\ncompute = 1.0\nwait_for = [\"later\"]\n")
            .find("key 'phase[2].wait_for': no earlier phase is named 'later'") != std::string::npos);
  CHECK(lesson_error(head + "[[phase]]\nname = \"backward\"\ncompute = 1.0\n[[phase]]\ncompute = 1.0\nwait_for = [\"backward\"]\n")
            .find("phases 1 and 2 are both named 'backward'") != std::string::npos);
  CHECK(lesson_error(head + "stream = \"\"\n").find("key 'phase[1].stream': a stream needs a name") != std::string::npos);
  CHECK(lesson_error(head + "allocates = { \"act\" = \"lots\" }\n").find("key 'phase[1].allocates.act'") !=
        std::string::npos);
  CHECK(lesson_error(head + "allocates = [\"act\"]\n").find("key 'phase[1].allocates'") != std::string::npos);
  CHECK(lesson_error(head + "synchronize = 1\n").find("key 'phase[1].synchronize'") != std::string::npos);
}

TEST_CASE("lesson_parse: peak_memory_bytes is a question about one rank, over the program or a span of phases") {
  const std::string head = "format = 2\nranks = 2\n[[phase]]\ncompute = 10.0\nallocates = { \"a\" = 8 }\n[[question]]\ntext = \"peak?\"\nmetric = \"peak_memory_bytes\"\n";
  const Scenario s = parse_scenario(head + "rank = 1\n", "s.toml");
  REQUIRE(s.questions.size() == 1);
  CHECK(s.questions[0].phase == 0);
  CHECK(s.questions[0].rank == 1);
  const Scenario span = parse_scenario(head + "phases = [1, 1]\n", "s.toml");
  CHECK(span.questions[0].phase == 1);
  CHECK(span.questions[0].last_phase == 1);
  CHECK(lesson_error(head + "phase = 1\n").find("key 'question[1].phase'") != std::string::npos);
  CHECK(lesson_error(head + "step = 1\n").find("key 'question[1].step'") != std::string::npos);
}

TEST_CASE("lesson_parse: [training]'s compute, fsdp comparison and ddp keys, and their mistakes") {
  const std::string fsdp = "format = 2\n[training]\npattern = \"fsdp\"\nmodel = \"resnet34\"\n";
  const Scenario s = parse_scenario(fsdp + R"toml(image_size = 112
device_tflops = 50
batch = 16
compare = [{ name = "none", backward_prefetch = "none", limit_all_gathers = false }, { name = "defaults" }]
)toml",
                                    "f.toml");
  REQUIRE(s.training);
  const TrainingSpec& t = *s.training;
  CHECK(t.model.image_size == 112);
  CHECK(t.device_tflops == 50);
  CHECK(t.batch == 16);
  REQUIRE(t.fsdp.size() == 2);
  CHECK(t.fsdp[0].name == "none");
  CHECK(t.fsdp[0].backward_prefetch == BackwardPrefetch::none);
  CHECK_FALSE(t.fsdp[0].limit_all_gathers);
  CHECK(t.fsdp[1].backward_prefetch == BackwardPrefetch::backward_pre);  // PyTorch's defaults
  CHECK(t.fsdp[1].limit_all_gathers);
  CHECK_FALSE(t.fsdp[1].forward_prefetch);
  CHECK(s.phases.front().name == "none: all-gather conv1 (forward)");

  CHECK(lesson_error(fsdp + "device_tflops = 50\n").find("key 'training.device_tflops': needs `batch`") != std::string::npos);
  CHECK(lesson_error(fsdp + "batch = 5\n").find("key 'training.batch': is used only with device_tflops") != std::string::npos);
  CHECK(lesson_error(fsdp + "device_tflops = 5\nbatch = 5\nforward_us = 3\n").find("key 'training.forward_us': does not go with device_tflops") != std::string::npos);
  CHECK(lesson_error(fsdp + "backward_prefetch = \"early\"\n").find("unknown backward_prefetch 'early' (use backward_pre, backward_post, none)") != std::string::npos);
  CHECK(lesson_error(fsdp + "compare = [{ backward_prefetch = \"none\" }]\n").find("needs a `name`") != std::string::npos);
  CHECK(lesson_error(fsdp + "compare = [{ name = \"a\", bucket_mb = 3 }]\n").find("key 'training.compare[0].bucket_mb': unknown key") != std::string::npos);
  CHECK(lesson_error(fsdp + "limit_all_gathers = false\ncompare = [{ name = \"a\" }]\n").find("give the options in each entry of `compare`") != std::string::npos);
  CHECK(lesson_error(fsdp + "iterations = [\"first\"]\n").find("key 'training.iterations': is used only by the ddp pattern") != std::string::npos);
  CHECK(lesson_error(fsdp + "split = \"layers\"\n").find("unknown split 'layers'") != std::string::npos);
  const std::string ddp = "format = 2\n[training]\npattern = \"ddp\"\nmodel = [10, 20]\n";
  CHECK(lesson_error(ddp + "image_size = 64\n").find("key 'training.image_size': is used only with model = \"resnet34\"") != std::string::npos);
  CHECK(lesson_error(ddp + "split = \"flops\"\n").find("key 'training.split': the model has no multiply-adds") != std::string::npos);
  CHECK(lesson_error(ddp + "iterations = [\"later\", \"first\"]\n").find("key 'training.iterations[1]': the parts come in the order") != std::string::npos);
  CHECK(lesson_error(ddp + "iterations = [\"warmup\"]\n").find("unknown part 'warmup' (use constructor, first, later)") != std::string::npos);
  CHECK(lesson_error(ddp + "backward_prefetch = \"none\"\n").find("is used only by the fsdp pattern") != std::string::npos);
}

TEST_CASE("lesson_parse: a question about a span of phases") {
  const std::string head = "format = 2\nranks = 2\n[[phase]]\ncompute = 10.0\n[[phase]]\ncompute = 5.0\n[[question]]\ntext = \"?\"\n";
  const Scenario s = parse_scenario(head + "metric = \"duration_us\"\nphases = [1, 2]\n", "s.toml");
  CHECK(s.questions[0].phase == 1);
  CHECK(s.questions[0].last_phase == 2);
  CHECK(lesson_error(head + "metric = \"steps\"\nphases = [1, 2]\n").find("key 'question[1].phases': is used only with") != std::string::npos);
  CHECK(lesson_error(head + "metric = \"time_us\"\nphases = [2, 1]\n").find("the first phase comes after the last") != std::string::npos);
  CHECK(lesson_error(head + "metric = \"time_us\"\nphases = [1, 3]\n").find("key 'question[1].phases[1]': must be between 1 and 2") != std::string::npos);
  CHECK(lesson_error(head + "metric = \"time_us\"\nphase = 1\nphases = [1, 2]\n").find("not both") != std::string::npos);
  const Scenario idle = parse_scenario(head + "metric = \"idle_fraction\"\nrank = 1\nphases = [1, 2]\n", "s.toml");
  CHECK(idle.questions[0].metric == Metric::idle_fraction);
  CHECK(idle.questions[0].last_phase == 2);
  CHECK(idle.questions[0].rank == 1);
  CHECK(parse_scenario(head + "metric = \"idle_fraction\"\n", "s.toml").questions[0].phase == 0);  // the whole program
  CHECK(lesson_error(head + "metric = \"idle_fraction\"\nphase = 1\n").find("leave `phase` out") != std::string::npos);
  CHECK(lesson_error(head + "metric = \"duration_us\"\nlast_phase = 2\n").find("key 'question[1].last_phase': unknown key") != std::string::npos);
}

TEST_CASE("lesson_parse: [training] pattern = \"pipeline\" reads its keys and refuses bad ones at their key") {
  const std::string head = "format = 2\nranks = 4\n[training]\npattern = \"pipeline\"\nforward_us = 50.0\nbackward_us = 100.0\n";
  const Scenario s = parse_scenario(head + "schedule = [\"gpipe\", \"1f1b\"]\np2p = \"send\"\nmicrobatches = 3\n"
                                           "activation_count = \"1K\"\nactivation_bytes = \"2M\"\nstages = 4\n",
                                    "s.toml");
  REQUIRE(s.training);
  CHECK(s.training->pattern == TrainingPattern::pipeline);
  CHECK(s.training->schedules == std::vector{PipelineSchedule::gpipe, PipelineSchedule::ofob});
  CHECK(s.training->p2p == std::vector{PipelineP2p::send});
  CHECK(s.training->microbatches == 3);
  CHECK(s.training->activation_count == 1024);
  CHECK(s.training->activation_bytes == 2.0 * 1024 * 1024);
  CHECK(s.phases.size() == 2 * (2 * 4 * 3 + 2 * 3 * 3));  // two variants: 2pm computes, 2(p-1)m messages
  CHECK(lesson_error(head + "microbatches = 0\n").find("s.toml:7:16: key 'training.microbatches'") != std::string::npos);
  CHECK(lesson_error(head + "stages = 3\n").find("key 'training.stages': the pipeline has a stage per rank") !=
        std::string::npos);
  CHECK(lesson_error(head + "schedule = \"interleaved\"\n").find("key 'training.schedule': unknown schedule 'interleaved'") !=
        std::string::npos);
  CHECK(lesson_error(head + "p2p = []\n").find("key 'training.p2p': names no p2p") != std::string::npos);
  CHECK(lesson_error(head + "model = \"resnet34\"\n").find("key 'training.model': is not used by the pipeline") !=
        std::string::npos);
  CHECK(lesson_error("format = 2\n[training]\npattern = \"pipeline\"\nforward_us = 5.0\n")
            .find("key 'training.backward_us' is missing") != std::string::npos);
  CHECK(lesson_error("format = 2\n[training]\npattern = \"ddp\"\nmodel = [10]\nmicrobatches = 2\n")
            .find("key 'training.microbatches': is used only by the pipeline pattern") != std::string::npos);
}

TEST_CASE("lesson_parse: given inputs are read per collective and checked against its type at their key") {
  const std::string head = "format = 2\n[[phase]]\ncollective = \"all_reduce\"\n";
  const Scenario s = parse_scenario(head + "dtype = \"i32\"\ninputs = [1000000000, -3]\n", "s.toml");
  CHECK(s.phases[0].request.input_values == std::vector<double>{1e9, -3});
  CHECK(parse_scenario(head, "s.toml").phases[0].request.input_values.empty());  // seeded
  CHECK(parse_scenario(head + "inputs = [0.5, 2048]\n", "s.toml").phases[0].request.input_values ==
        std::vector<double>{0.5, 2048});
  CHECK(lesson_error(head + "dtype = \"i32\"\ninputs = [3000000000]\n") ==
        "s.toml:5:10: key 'phase[1].inputs': value 1 (3000000000) is no i32 number: i32 holds whole numbers from "
        "-2147483648 to 2147483647");
  CHECK(lesson_error(head + "dtype = \"i64\"\ninputs = [1, 2.5]\n") ==
        "s.toml:5:10: key 'phase[1].inputs': value 2 (2.5) is no i64 number: i64 holds whole numbers from "
        "-9223372036854775808 to 9223372036854775807");
  CHECK(lesson_error(head + "inputs = []\n") ==
        "s.toml:4:10: key 'phase[1].inputs': needs at least one value (rank 0's); leave the key out for the seeded "
        "inputs");
  CHECK(lesson_error(head + "inputs = [1, \"two\"]\n") == "s.toml:4:14: key 'phase[1].inputs[1]': expected a number");
  CHECK(lesson_error(head + "inputs = 1\n") == "s.toml:4:10: key 'phase[1].inputs': expected an array, got an integer");
  // --inputs changes one collective: refused on a lesson of several phases, like --op.
  RunRequest flags;
  flags.input_values = {1};
  const Scenario two = parse_scenario(head + "[[phase]]\ncollective = \"all_reduce\"\n", "s.toml");
  CHECK(override_error(two, flags, only("--inputs")).starts_with("--inputs changes one collective"));
}

TEST_CASE("lesson_parse: value and exact_value ask about one element of one rank's output") {
  const std::string head = "format = 2\n[[phase]]\ncollective = \"all_reduce\"\n[[phase]]\ncompute = 1.0\n[[question]]\n";
  const Scenario s = parse_scenario(head + "text = \"?\"\nmetric = \"value\"\nrank = 2\nelement = 5\nstep = 1\n", "s.toml");
  CHECK(s.questions[0].metric == Metric::value);
  CHECK(s.questions[0].rank == 2);
  CHECK(s.questions[0].element == 5);
  CHECK(s.questions[0].step == 1);
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"exact_value\"\nstep = 1\n") ==
        "s.toml:9:8: key 'question[1].step': is used only with metric = \"bytes_sent\", \"bytes_received\", "
        "\"transfers\", \"contributions\", \"holders\" or \"value\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"steps\"\nelement = 1\n") ==
        "s.toml:9:11: key 'question[1].element': is used only with metric = \"value\" or \"exact_value\"");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"value\"\nelement = -1\n") ==
        "s.toml:9:11: key 'question[1].element': must be between 0 and 9223372036854775807, got -1");
  CHECK(lesson_error(head + "text = \"?\"\nmetric = \"value\"\nphase = 2\n") ==
        "s.toml:8:10: key 'question[1].metric': phase 2 ('compute') is a compute phase: it has only metric = "
        "\"time_us\" or \"duration_us\"");
}

namespace collsim {
namespace {

// A lesson of one ring all-reduce on 4 ranks, with `rest` after it (its [[try]]s).
std::string ring_lesson(const std::string& description, const std::string& rest) {
  return "format = 2\ndescription = \"" + description +
         "\"\n[collective]\ncollective = \"all_reduce\"\nalgorithm = \"ring\"\nranks = 4\ncount = 8\n" + rest;
}

LessonFacts predicted_facts(const Scenario& s) {
  ProgramResult p = prepare_program(s, /*model_only=*/true);
  predict_program(p, s, s.topology);
  return lesson_facts(s, p);
}

}  // namespace

TEST_CASE("lesson_parse: [[try]] reads flags and edits, and writes them as a student types them") {
  const Scenario s = parse_scenario(
      ring_lesson("Ring.", "[[try]]\nranks = 8\nnotice = \"{steps} steps, {was.steps} before\"\n"
                           "[[try]]\ncollective = { count = \"1M\", algorithm = \"direct\" }\n"
                           "[[try]]\ntopology = { link = \"pcie4\", protocol = \"simple\", stragglers = [{ rank = 2, late = 5.0 }] }\n"),
      "t.toml");
  REQUIRE(s.suggestions.size() == 3);
  CHECK(s.suggestions[0].change == "--ranks 8");
  CHECK(s.suggestions[0].origin == "t.toml:8:1: key 'try[1]'");
  CHECK(s.suggestions[1].change == "--algorithm direct --count 1M");
  CHECK(s.suggestions[2].change == "--link pcie4 --protocol simple --late 2=5");
  const LessonFacts f = predicted_facts(s);
  REQUIRE(f.suggestions.size() == 3);
  CHECK(f.suggestions[0].notice == "14 steps, 6 before");  // rendered from the 8-rank run, was. from this one
  CHECK(f.suggestions[1].not_here.empty());
  CHECK(apply_suggestion(s, 2).topology.link == "pcie4");
  CHECK(apply_suggestion(s, 1).request.spec.count == (1u << 20));
  const std::string d = lesson_description(s, f);
  CHECK(d == "Ring.\n\nTry:\n- --ranks 8: 14 steps, 6 before\n- --algorithm direct --count 1M\n"
             "- --link pcie4 --protocol simple --late 2=5");

  // On top of the student's flags: from --ranks 16, --link pcie4 is the 16-rank run on PCIe.
  RunRequest flags;
  flags.spec.ranks = 16;
  const Scenario at16 = apply_scenario_overrides(s, flags, TopologyConfig{}, GivenFields{RequestField::ranks});
  CHECK(apply_suggestion(at16, 2).ranks == 16);
  CHECK(apply_suggestion(at16, 2).topology.link == "pcie4");
  CHECK(apply_suggestion(at16, 0).ranks == 8);  // the suggestion's own --ranks wins
}

TEST_CASE("lesson_parse: [[try]] edits a lesson's [training] and [[phase]]s") {
  const std::string lesson =
      "format = 2\nranks = 4\n[[phase]]\ncollective = \"all_reduce\"\ncount = 64\n[[phase]]\ncompute = 1.0\n"
      "[[phase]]\ncollective = \"all_reduce\"\ncount = 64\n"
      "[[try]]\nphase = { 1 = { algorithm = \"direct\" }, 3 = { algorithm = \"direct\" } }\nnotice = \"{p1.algorithm}\"\n";
  const Scenario s = parse_scenario(lesson, "e.toml");
  REQUIRE(s.suggestions.size() == 1);
  CHECK(s.suggestions[0].change == "set algorithm = \"direct\" in phases 1 and 3");
  const Scenario edited = apply_suggestion(s, 0);
  CHECK(edited.phases[0].request.algorithm == "direct");
  CHECK(edited.phases[2].request.algorithm == "direct");
  CHECK(predicted_facts(s).suggestions[0].notice == "direct");
  // A lesson of several phases refuses a flag of one collective, naming the suggestion.
  const Scenario bad = parse_scenario(lesson + "[[try]]\ncollective = { count = 8 }\n", "e.toml");
  const LessonFacts f = predicted_facts(bad);
  CHECK(f.suggestions[1].not_here.find("--count changes one collective") == 0);
  CHECK(testing::input_error([&] { apply_suggestion(bad, 1); }).find("e.toml:14:1: key 'try[2]' (--count 8): --count") == 0);
}

TEST_CASE("lesson_parse: a bad [[try]] is refused with its file, line and key") {
  const std::string ok = ring_lesson("Ring.", "");
  CHECK(lesson_error(ok + "[[try]]\nrank = 8\n").find("t.toml") == std::string::npos);  // (named below)
  CHECK(lesson_error(ok + "[[try]]\nrank = 8\n") ==
        "s.toml:9:1: key 'try[1].rank': unknown key (a suggestion ([[try]]) knows: ranks, seed, collective, topology, "
        "training, phase, notice)");
  CHECK(lesson_error(ok + "[[try]]\nnotice = \"x\"\n") ==
        "s.toml:8:1: key 'try[1]': changes nothing: give flags (ranks, collective, topology, seed) or edits (training, phase)");
  CHECK(lesson_error(ok + "[[try]]\ntopology = { link = \"pcie9\" }\n").find("s.toml:9:21: key 'try[1].topology.link': unknown link preset 'pcie9'") == 0);
  CHECK(lesson_error(ok + "[[try]]\ntopology = { backend = \"cpu\" }\n").find("key 'try[1].topology.backend': is not a flag a suggestion can set") != std::string::npos);
  CHECK(lesson_error(ok + "[[try]]\nranks = 0\n").find("key 'try[1].ranks': must be between 1 and") != std::string::npos);
  CHECK(lesson_error(ok + "[[try]]\ntraining = { servers = 1 }\n").find("key 'try[1].training': the lesson has no [training] to edit") != std::string::npos);
  CHECK(lesson_error(ok + "[[try]]\nranks = 8\nnotice = \"{steps\"\n").find("s.toml:10:10: key 'try[1].notice'") == 0);
  CHECK(lesson_error("format = 1\n[[try]]\nranks = 8\n").find("is new in scenario format 2") != std::string::npos);
  const std::string phases = "format = 2\n[[phase]]\ncollective = \"all_reduce\"\ncount = 8\n";
  CHECK(lesson_error(phases + "[[try]]\nphase = { 3 = { count = 4 } }\n").find("key 'try[1].phase.3': names no phase of the file (its [[phase]]s are 1..1)") != std::string::npos);
  CHECK(lesson_error(phases + "[[try]]\nphase = { 1 = { count = \"x\" } }\n").find("s.toml:5:1: key 'try[1]': set count = \"x\" in phase 1: the file with this change does not read:") == 0);
}

TEST_CASE("lesson_parse: validate's warning names a literal that the lesson's own suggestion changes") {
  const Scenario s = parse_scenario(ring_lesson("The ring takes 6 steps.", "[[try]]\nranks = 8\n"), "w.toml");
  const LessonFacts f = predicted_facts(s);
  const LessonFacts under = predicted_facts(apply_suggestion(s, 0));
  const std::vector<std::string> w = lesson_text_warnings(s, f, under, "try[1] (--ranks 8)");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "w.toml:2:15: key 'description': '6' is steps here, which the lesson's own suggestion try[1] (--ranks 8) "
                "changes: write {steps}");
  // Written as a placeholder, nothing to warn about.
  const Scenario fixed = parse_scenario(ring_lesson("The ring takes {steps} steps.", "[[try]]\nranks = 8\n"), "w.toml");
  CHECK(lesson_text_warnings(fixed, predicted_facts(fixed), predicted_facts(apply_suggestion(fixed, 0)), "try[1]").empty());
}

TEST_CASE("lesson_parse: a title is a template over the run's request") {
  const std::string ps = "format = 1\ntitle = \"PS: {ranks} workers, {servers} server{servers == 1 ? '' : 's'}\"\n"
                         "[collective]\nalgorithm = \"parameter_server\"\nranks = 4\n";
  const Scenario s = parse_scenario(ps, "p.toml");
  CHECK(s.title == "PS: 4 workers, 1 server");
  RunRequest flags;
  flags.options.servers = 3;
  CHECK(apply_scenario_overrides(s, flags, TopologyConfig{}, GivenFields{RequestField::servers}).title == "PS: 4 workers, 3 servers");
  CHECK(lesson_error("format = 1\ntitle = \"{workers}\"\n").find("s.toml:2:9: key 'title': placeholder '{workers}': unknown name 'workers'") == 0);
}

}  // namespace collsim
