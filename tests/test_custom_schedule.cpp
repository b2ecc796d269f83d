// Schedules written by hand ("your own algorithm"): a right one runs and verifies like a
// built-in algorithm at any count; a malformed file is refused with file:line:column and
// the key; a wrong one is explained in a student's words, naming the step to look at.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "sim/exec/backend.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "sim/lesson/scenario.h"
#include "sim/trace/trace.h"
#include "test_support.h"

using namespace collsim;
using testing::TempDir;

namespace {

std::filesystem::path source_dir() { return std::filesystem::path(COLLSIM_SOURCE_DIR); }
std::filesystem::path exercises() { return source_dir() / "scenarios" / "exercises"; }

// A correct 2-rank ring all-reduce; tests break one line of it.
const std::string kRing2 = R"(schedule_format = 1
collective = "all_reduce"
ranks = 2
chunks_per_block = 2
pre = ["copy input to output"]

[[step]]
label = "reduce-scatter"
transfers = [
  { src = 0, dst = 1, chunk = 0, action = "reduce" },
  { src = 1, dst = 0, chunk = 1, action = "reduce" },
]

[[step]]
label = "all-gather"
transfers = [
  { src = 1, dst = 0, chunk = 0 },
  { src = 0, dst = 1, chunk = 1 },
]
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The request `collsim run --schedule FILE --count COUNT` makes.
RunRequest request_for(const std::filesystem::path& file, std::uint64_t count) {
  RunRequest r;
  r.algorithm = kCustomAlgorithm;
  r.options.schedule_file = file.string();
  r = adopt_schedule_spec(r);
  r.spec.count = count;
  return r;
}

bool verified(const std::filesystem::path& file, std::uint64_t count, bool in_place = false) {
  RunRequest r = request_for(file, count);
  r.spec.in_place = in_place;
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  return run_collective(r, *cpu).verification.ok;
}

// The student's explanation for schedule text that loads but is wrong ("" if it is right).
std::string wrong(const std::string& text, std::uint64_t count = 8) {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("s.toml", text);
  const RunRequest r = request_for(file, count);
  try {
    build_schedule(r.spec, r.algorithm, r.options);
  } catch (const WrongScheduleError& e) {
    CHECK(std::string(e.what()).find(e.checker_message()) != std::string::npos);  // the precise words come along
    return e.explanation();
  }
  return "";
}

// The InputError for schedule text parsed as "s.toml" ("" if none).
std::string load_error(const std::string& text) {
  return testing::input_error([&] { parse_schedule_file(text, "s.toml"); });
}

}  // namespace

TEST_CASE("a hand-written ring all-reduce runs and verifies at every count, out of place and in place") {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("ring2.toml", kRing2);
  for (std::uint64_t count : {0, 1, 2, 3, 7, 1000}) {
    CAPTURE(count);
    CHECK(verified(file, count));
    CHECK(verified(file, count, true));
  }
}

TEST_CASE("a custom run's JSON trace records its schedule file, and a built-in run's has no such key") {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("ring2.toml", kRing2);
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  const Trace custom = make_trace(run_collective(request_for(file, 4), *cpu));
  const std::string text = trace_to_json(custom);
  CHECK(text.find("\"schedule_file\"") != std::string::npos);
  const Trace back = parse_trace_json(text, "custom.json");
  CHECK(back.request.options.schedule_file == file.string());
  CHECK(trace_to_json(back) == text);

  RunRequest ring;
  ring.spec.ranks = 2;
  ring.spec.count = 4;
  CHECK(trace_to_json(make_trace(run_collective(ring, *cpu))).find("schedule_file") == std::string::npos);
}

TEST_CASE("the exercises' solutions verify, and the exercises as shipped are wrong with a useful explanation") {
  for (const char* name : {"ring_allreduce", "allgather"}) {
    CAPTURE(name);
    for (std::uint64_t count : {1, 5, 8, 64})
      CHECK(verified(exercises() / "solutions" / (std::string(name) + ".schedule.toml"), count));
    const RunRequest r = request_for(exercises() / (std::string(name) + ".schedule.toml"), 8);
    CHECK_THROWS_AS(build_schedule(r.spec, r.algorithm, r.options), WrongScheduleError);
  }
  const RunRequest ring = request_for(exercises() / "ring_allreduce.schedule.toml", 8);
  try {
    build_schedule(ring.spec, ring.algorithm, ring.options);
  } catch (const WrongScheduleError& e) {
    // The broken step is step 2: it repeats step 1's chunks.
    CHECK(e.explanation().find(
              "ring_allreduce.schedule.toml:30:3: step 2 (reduce-scatter 2/3): rank 0 sends chunk 0 to rank "
              "1 to reduce it, but rank 1 already holds rank 0's contribution there (since step 1, from rank "
              "0): reducing would count it twice") != std::string::npos);
  }
}

TEST_CASE("the exercise scenarios load their schedules relative to themselves and take their spec from them") {
  const Scenario s = load_scenario(exercises() / "allgather.toml");
  CHECK(s.request.algorithm == kCustomAlgorithm);
  CHECK(s.request.spec.collective == Collective::all_gather);
  CHECK(s.request.spec.ranks == 4);
  CHECK(s.request.spec.count == 4);
  CHECK(std::filesystem::equivalent(s.request.options.schedule_file, exercises() / "allgather.schedule.toml"));
}

TEST_CASE("a wrong hand-written schedule is explained in words, naming the step and the file position") {
  SUBCASE("a reduce where a copy belongs counts a contribution twice") {
    const std::string w = wrong(
        replaced(kRing2, "{ src = 1, dst = 0, chunk = 0 }", R"({ src = 1, dst = 0, chunk = 0, action = "reduce" })"));
    CHECK(w.find(
              "s.toml:17:3: step 2 (all-gather): rank 1 sends chunk 0 to rank 0 to reduce it, but rank 0 already holds "
              "rank 0's contribution there") != std::string::npos);
    CHECK(w.find("use action = \"copy\"") != std::string::npos);
  }
  SUBCASE("sending from an output that nothing wrote yet") {
    const std::string w = wrong(replaced(kRing2, "pre = [\"copy input to output\"]", ""));
    CHECK(
        w.find(
            "step 1 (reduce-scatter): rank 0 sends chunk 0 to rank 1 to reduce it, but nothing has been written there "
            "yet (copy the input to the output first") != std::string::npos);
  }
  SUBCASE("a copy where a reduce belongs loses a contribution") {
    const std::string w = wrong(
        replaced(kRing2, R"({ src = 0, dst = 1, chunk = 0, action = "reduce" })", "{ src = 0, dst = 1, chunk = 0 }"));
    CHECK(w.find("s.toml:10:3: step 1 (reduce-scatter): rank 0 sends chunk 0 to rank 1, which overwrites rank 1's own "
                 "contribution there instead of adding to it (use action = \"reduce\"), so at the end rank 0's chunk 0 "
                 "lacks "
                 "it") != std::string::npos);
  }
  SUBCASE("forwarding in the same step as receiving") {
    const std::string one_step = replaced(kRing2, "]\n\n[[step]]\nlabel = \"all-gather\"\ntransfers = [\n", "");
    const std::string w = wrong(one_step);
    CHECK(w.find("in the same step") != std::string::npos);
    CHECK(w.find("The transfers of one step happen at the same time") != std::string::npos);
  }
  SUBCASE("two writes to one chunk in one step, not both reduces") {
    const std::string w = wrong(R"(schedule_format = 1
collective = "all_gather"
ranks = 3
pre = ["copy input to output"]
[[step]]
transfers = [ { src = 0, dst = 2, chunk = 0 }, { src = 1, dst = 2, src_chunk = 1, dst_chunk = 0 } ]
)");
    CHECK(w.find(
              "s.toml:6:48: step 1: rank 1 sends chunk 1 to rank 2 into its chunk 0, but in the same step rank 0 sends "
              "chunk 0 to rank 2 also writes there") != std::string::npos);
  }
  SUBCASE("writing into an input") {
    const std::string w = wrong(replaced(kRing2, "{ src = 0, dst = 1, chunk = 1 }",
                                         R"({ src = 0, dst = 1, chunk = 1, dst_buffer = "input" })"));
    CHECK(w.find("inputs are read-only") != std::string::npos);
  }
  SUBCASE("a block that never arrives") {
    const std::string w = wrong(R"(schedule_format = 1
collective = "all_gather"
ranks = 2
pre = ["copy input to output"]
[[step]]
transfers = [ { src = 0, dst = 1, chunk = 0 } ]
)");
    CHECK(
        w.find("s.toml: at the end rank 0's chunk 1 is still empty: it should hold rank 1's data, but no transfer ever "
               "wrote it") != std::string::npos);
  }
  SUBCASE("reducing into a scratch buffer that holds nothing") {
    const std::string w =
        wrong(replaced(replaced(kRing2, "chunks_per_block = 2", "chunks_per_block = 2\nscratch_blocks = 1"),
                       R"({ src = 0, dst = 1, chunk = 0, action = "reduce" })",
                       R"({ src = 0, dst = 1, chunk = 0, action = "reduce", dst_buffer = "scratch" })"));
    CHECK(w.find("holds nothing yet: a reduce adds to what is there") != std::string::npos);
  }
  SUBCASE("forwarding partial data that is never completed") {
    const std::string w = wrong(R"(schedule_format = 1
collective = "all_reduce"
ranks = 3
scratch_blocks = 1
pre = ["copy input to output"]
[[step]]
transfers = [ { src = 0, dst = 1, chunk = 0, action = "reduce" } ]
[[step]]
transfers = [ { src = 1, dst = 2, chunk = 0, dst_buffer = "scratch" } ]
[[step]]
transfers = [ { src = 2, dst = 0, chunk = 0, src_buffer = "scratch" }, { src = 2, dst = 1, chunk = 0, src_buffer = "scratch" } ]
[[step]]
transfers = [ { src = 2, dst = 2, chunk = 0, src_buffer = "scratch" } ]
)");
    CHECK(w.find("s.toml:9:15: step 2: rank 1 sends chunk 0 to rank 2 into chunk 0 of its scratch before rank 1 has "
                 "received rank 2's contribution, so at the end rank 0's chunk 0 lacks it") != std::string::npos);
  }
}

TEST_CASE("a malformed schedule file is refused with file:line:column and the key") {
  CHECK(load_error("collective = \"all_reduce\"\nranks = 2\n").find("s.toml:1:1: key 'schedule_format' is missing") ==
        0);
  CHECK(load_error("schedule_format = 2\n")
            .find("s.toml:1:19: key 'schedule_format': schedule format 2 is not supported") == 0);
  CHECK(load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\nrank = 3\n")
            .find("s.toml:4:1: key 'rank': unknown key (schedule format 1 knows:") == 0);
  CHECK(load_error("schedule_format = 1\ncollective = \"barrier\"\nranks = 2\n")
            .find("s.toml:2:14: key 'collective': barrier cannot be written by hand") == 0);
  CHECK(load_error("schedule_format = 1\nranks = 2\n").find("needs `collective`") != std::string::npos);
  CHECK(load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, "
                   "dst = 2, chunk = 0 } ]\n")
            .find("s.toml:5:32: key 'step[0].transfers[0].dst': must be between 0 and 1, got 2") == 0);
  CHECK(
      load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, dst "
                 "= 1, chunk = 1 } ]\n")
          .find(
              "s.toml:5:43: key 'step[0].transfers[0].chunk': rank 0's output has chunks 0..0 (1 block of 1 chunk), so "
              "there is no chunk 1") == 0);
  CHECK(load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, "
                   "dst = 1 } ]\n")
            .find("s.toml:5:15: key 'step[0].transfers[0]': needs `chunk`") == 0);
  CHECK(load_error(
            "schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, dst = 1, "
            "elements = [0, 2] } ]\n")
            .find("element ranges fit one count only") != std::string::npos);
  CHECK(load_error(
            "schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, dst = 1, "
            "chunk = 0, action = \"add\" } ]\n")
            .find("key 'step[0].transfers[0].action': unknown action 'add' (use copy reduce reduce_copy)") != std::string::npos);
  CHECK(load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\npre = [\"copy everything\"]\n")
            .find("s.toml:4:8: key 'pre[0]': unknown pre-operation 'copy everything'") == 0);
  CHECK(load_error("schedule_format = 1\ncollective = \"all_reduce\"\nranks = = 2\n")
            .find("s.toml:3:9: not valid TOML") == 0);
}

TEST_CASE("element ranges and explicit pre-operations describe a schedule at one fixed count") {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("elements.toml", R"(schedule_format = 1
collective = "all_reduce"
ranks = 2
count = 4
scratch_blocks = 1
pre = [
  { action = "copy", src_buffer = "input", dst_buffer = "output" },
  { action = "fill", rank = 1, dst_buffer = "scratch" },
]
[[step]]
transfers = [
  { src = 0, dst = 1, elements = [0, 4], dst_buffer = "scratch", action = "reduce" },
  { src = 1, dst = 1, elements = [0, 4], dst_buffer = "scratch", action = "reduce" },
]
[[step]]
transfers = [
  { src = 1, dst = 0, src_buffer = "scratch", elements = [0, 4] },
  { src = 1, dst = 1, src_buffer = "scratch", elements = [0, 4] },
]
)");
  CHECK(verified(file, 4));
  // The file fixes the count: another one is refused, naming the file's key.
  RunRequest r = request_for(file, 8);
  try {
    build_schedule(r.spec, r.algorithm, r.options);
    FAIL("a count other than the file's was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(
              "elements.toml:4:9: key 'count': the schedule is written for count = 4, but the run asks "
              "for 8") != std::string::npos);
  }
}

TEST_CASE("the run's spec comes from the schedule file unless a flag or the scenario gives it, and must then agree") {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("ring2.toml", kRing2);
  RunRequest r;
  r.algorithm = kCustomAlgorithm;
  r.options.schedule_file = file.string();
  r.spec.ranks = 8;
  CHECK(adopt_schedule_spec(r).spec.ranks == 2);
  const RunRequest kept = adopt_schedule_spec(r, GivenFields{RequestField::ranks});
  CHECK(kept.spec.ranks == 8);
  CHECK_THROWS_WITH_AS(build_schedule(kept.spec, kept.algorithm, kept.options),
                       doctest::Contains("key 'ranks': the schedule is written for ranks = 2, but the run asks for 8"),
                       InputError);
  // A scenario whose [collective] disagrees with its schedule: the scenario's key is named.
  dir.write("lesson.toml", "format = 1\n[collective]\nalgorithm = \"custom\"\nschedule = \"ring2.toml\"\nranks = 3\n");
  CHECK_THROWS_WITH_AS(load_scenario(std::filesystem::path(file).parent_path() / "lesson.toml"),
                       doctest::Contains("lesson.toml:5:9: key 'collective.ranks': the schedule"), InputError);
  dir.write("noschedule.toml", "format = 1\n[collective]\nalgorithm = \"custom\"\n");
  CHECK_THROWS_WITH_AS(
      load_scenario(std::filesystem::path(file).parent_path() / "noschedule.toml"),
      doctest::Contains("noschedule.toml:3:13: key 'collective.algorithm': algorithm = \"custom\" needs "
                        "`schedule = \"FILE\"`"),
      InputError);
}

TEST_CASE("--schedule on the command line selects the custom algorithm over a scenario's") {
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("ring2.toml", kRing2);
  const Scenario s = parse_scenario("format = 1\n[collective]\nalgorithm = \"ring\"\nranks = 4\n", "lesson.toml");
  RunRequest flags;
  flags.options.schedule_file = file.string();
  const RunRequest r = apply_flag_overrides(s.request, flags, GivenFields{RequestField::schedule});
  CHECK(r.algorithm == kCustomAlgorithm);
  CHECK(r.spec.ranks == 2);  // the schedule's, since no --ranks was given
  CHECK_THROWS_WITH_AS(build_schedule(RunRequest{}.spec, "ring", flags.options),
                       doctest::Contains("a schedule file is run with --algorithm custom"), InputError);
}

TEST_CASE("prepare_run checks once, built-in or hand-written, and records the buffer history only when asked") {
  RunRequest ring;
  ring.spec = {Collective::all_reduce, 4, 8, DataType::f32, ReduceOp::sum, 0};
  const RunRequest custom = request_for(exercises() / "solutions" / "ring_allreduce.schedule.toml", 8);
  for (const RunRequest& r : {ring, custom}) {
    CAPTURE(r.algorithm);
    std::uint64_t before = checker_runs();
    const RunResult plain = prepare_run(r);
    CHECK(checker_runs() - before == 1);
    CHECK_FALSE(plain.history);  // the CLI's plain run does not pay for it
    before = checker_runs();
    const RunResult viewed = prepare_run(r, {.record_history = true});
    CHECK(checker_runs() - before == 1);  // the same one check records it
    REQUIRE(viewed.history);
    CHECK(viewed.history->transfer_count() == viewed.schedule.transfers.size());
    CHECK(viewed.dependencies.edge_count() == plain.dependencies.edge_count());
  }
}

TEST_CASE("a schedule file read twice is parsed once, and read again once it changes") {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("collsim-cache-" + std::to_string(::getpid()) + ".schedule.toml");
  const std::string two = "schedule_format = 1\ncollective = \"all_gather\"\nranks = 2\n"
                          "pre = [\"copy input to output\"]\n[[step]]\n"
                          "transfers = [{ src = 0, dst = 1, chunk = 0 }, { src = 1, dst = 0, chunk = 1 }]\n";
  std::ofstream(path) << two;
  CHECK(load_schedule_file(path).steps.size() == 1);
  CHECK(load_schedule_file(path).steps.size() == 1);
  // The same file rewritten (another size): the next load sees the new steps, not the cached ones.
  std::ofstream(path) << two << "[[step]]\ntransfers = [{ src = 0, dst = 1, chunk = 0 }]\n";
  CHECK(load_schedule_file(path).steps.size() == 2);
  std::filesystem::remove(path);
  CHECK_THROWS_AS(load_schedule_file(path), InputError);  // gone: not served from the cache
}

TEST_CASE("is_schedule_text looks for a top-level schedule_format key without parsing") {
  CHECK(is_schedule_text("schedule_format = 1\n"));
  CHECK(is_schedule_text("# a comment\n  schedule_format=1\n[[step]]\n"));
  CHECK(is_schedule_text("title = \"\"\"\n[not a table]\n\"\"\"\nschedule_format = 1\n"));  // inside a string
  CHECK_FALSE(is_schedule_text("format = 1\n[collective]\nschedule_format = 1\n"));     // not top level
  CHECK_FALSE(is_schedule_text("format = 1\nschedule = \"s.toml\"\n"));
  CHECK_FALSE(is_schedule_text("schedule_formats = 1\n"));
  CHECK_FALSE(is_schedule_text(""));
}

TEST_CASE("a hand-written schedule may spread its transfers over channels, which the timing model shares links by") {
  // The ring's two steps on two channels: each chunk on its own channel.
  std::string text = replaced(kRing2, "pre = [", "channels = 2\npre = [");
  text = replaced(text, "{ src = 0, dst = 1, chunk = 0, action = \"reduce\" }",
                  "{ src = 0, dst = 1, chunk = 0, action = \"reduce\", channel = 0 }");
  text = replaced(text, "{ src = 1, dst = 0, chunk = 1, action = \"reduce\" }",
                  "{ src = 1, dst = 0, chunk = 1, action = \"reduce\", channel = 1 }");
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("ring2_channels.toml", text);
  CHECK(verified(file, 1000));
  const RunRequest r = request_for(file, 1000);
  const Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  CHECK(s.channels == 2);
  REQUIRE(s.transfers.size() == 4);
  CHECK(s.transfers[0].channel == 0);
  CHECK(s.transfers[1].channel == 1);
  CHECK(s.transfers[2].channel == 0);  // not given: channel 0
  // Bad channels: named by key and position.
  CHECK(load_error(replaced(kRing2, "pre = [", "channels = 33\npre = ["))
            .find("s.toml:5:12: key 'channels': must be between 1 and 32, got 33") == 0);
  CHECK(load_error(replaced(text, "channel = 1 }", "channel = 2 }"))
            .find("key 'step[0].transfers[1].channel': must be between 0 and 1, got 2") != std::string::npos);
  CHECK(load_error(replaced(kRing2, "chunk = 0, action = \"reduce\" }", "chunk = 0, action = \"reduce\", channel = 1 }"))
            .find("key 'step[0].transfers[0].channel': the file has one channel (0); give `channels = N` at the top") !=
        std::string::npos);
}

TEST_CASE("a hand-written ring with reduce_copy needs no pre-copy, and its operand keys are checked") {
  // The 2-rank ring: each rank sends its own input chunk; the receiver adds its input of it
  // into its output (operand_buffer defaults to "input", at the destination's place).
  const std::string ring = R"(schedule_format = 1
collective = "all_reduce"
ranks = 2
chunks_per_block = 2
[[step]]
transfers = [ { src = 0, dst = 1, chunk = 0, src_buffer = "input", action = "reduce_copy" },
              { src = 1, dst = 0, chunk = 1, src_buffer = "input", action = "reduce_copy", operand_buffer = "input", operand_chunk = 1 } ]
[[step]]
transfers = [ { src = 1, dst = 0, chunk = 0 }, { src = 0, dst = 1, chunk = 1 } ]
)";
  const TempDir dir("custom");
  const std::filesystem::path file = dir.write("rc.toml", ring);
  for (std::uint64_t count : {2, 7, 1000}) {
    CAPTURE(count);
    CHECK(verified(file, count));
    CHECK(verified(file, count, true));  // in place: the operand is the destination, a reduce
  }
  const RunRequest r = request_for(file, 8);
  const Schedule s = build_schedule(r.spec, r.algorithm, r.options);
  CHECK(s.pre_ops.empty());
  CHECK(s.transfers[0].action == Action::reduce_copy);
  CHECK(s.transfers[0].operand() == Region{1, BufferKind::input, 0, 4});

  const std::string head = "schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ ";
  CHECK(load_error(head + "{ src = 0, dst = 1, chunk = 0, action = \"reduce_copy\", operand_rank = 0 } ]\n")
            .find("s.toml:5:85: key 'step[0].transfers[0].operand_rank': the operand is the receiver's own data: it "
                  "must be on rank 1 (dst)") == 0);
  CHECK(load_error(head + "{ src = 0, dst = 1, chunk = 0, operand_buffer = \"input\" } ]\n")
            .find("key 'step[0].transfers[0].operand_buffer': only a reduce_copy has an operand (this transfer's action "
                  "is copy)") != std::string::npos);
  CHECK(load_error(head + "{ src = 0, dst = 1, chunk = 0, action = \"reduce_copy\", operand_chunk = 3 } ]\n")
            .find("there is no chunk 3") != std::string::npos);
  CHECK(load_error(head + "{ src = 0, dst = 1, chunk = 0, action = \"reduce_copy\", operand_buffer = \"inbox\" } ]\n")
            .find("operand_buffer") != std::string::npos);
  // An operand over part of its destination is the checker's to refuse, in the student's words.
  const std::string partial = std::string("schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\ncount = 4\n") +
                              "pre = [\"copy input to output\"]\n[[step]]\ntransfers = [ { src = 0, dst = 1, "
                              "elements = [0, 2], action = \"reduce_copy\", operand_buffer = \"output\", operand_elements = [1, 3] } ]\n";
  CHECK(wrong(partial, 4).find("overlaps its destination in part") != std::string::npos);
}
