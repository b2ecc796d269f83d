// ScriptError (app/desktop/script_error.h), the desktop app's error for a bad script line,
// without a window: its fields, what() before and after the runner locates it, how the
// runner takes in what else a command lets out, and the numbers a line reads. The app's
// own bad lines, through collsim-gui --script, are tests/gui/run_gui_tests.cmake's `errors`.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "app/desktop/script_error.h"
#include "sim/core/errors.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

// What the standard library says when f throws ("stoi" in libstdc++).
template <class F>
std::string standard_message(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

}  // namespace

TEST_CASE("gui script error: a command's error names the command and the word at fault, then the runner adds file and line") {
  const ScriptError bad("phase", "99", "phase: 99 is not a phase of the lesson (1..5)");
  CHECK(bad.file.empty());
  CHECK(bad.line == 0);
  CHECK(bad.command == "phase");
  CHECK(bad.argument == "99");
  CHECK(bad.reason == "phase: 99 is not a phase of the lesson (1..5)");
  CHECK(std::string(bad.what()) == bad.reason);

  const ScriptError at = bad.located("tests/gui/walk.txt", 7);
  CHECK(at.file == "tests/gui/walk.txt");
  CHECK(at.line == 7);
  CHECK(at.command == "phase");
  CHECK(at.argument == "99");
  CHECK(at.reason == bad.reason);
  // The sentence collsim-gui prints after "collsim-gui: ".
  CHECK(std::string(at.what()) == "tests/gui/walk.txt:7: phase: 99 is not a phase of the lesson (1..5)");
}

TEST_CASE("gui script error: an InputError, so collsim-gui exits 2 for it as for any bad input") {
  try {
    throw ScriptError("key", "f13", "unknown key 'f13' (space left right home end pageup pagedown escape a f5)").located("s.txt", 3);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "s.txt:3: unknown key 'f13' (space left right home end pageup pagedown escape a f5)");
    const auto* s = dynamic_cast<const ScriptError*>(&e);
    REQUIRE(s != nullptr);
    CHECK(s->command == "key");
    CHECK(s->argument == "f13");
  }
}

TEST_CASE("gui script error: from() keeps a ScriptError's fields and takes anything else's message as the reason") {
  const ScriptError own("toggle", "sparkles", "unknown toggle 'sparkles'");
  const ScriptError kept = ScriptError::from(own, "ignored").located("a.txt", 2);
  CHECK(kept.command == "toggle");
  CHECK(kept.argument == "sparkles");
  CHECK(std::string(kept.what()) == "a.txt:2: unknown toggle 'sparkles'");

  // sim/'s error from an edited run: its message, unchanged, is the reason.
  const InputError from_sim("--ranks 0: a collective needs at least 1 rank");
  const ScriptError wrapped = ScriptError::from(from_sim, "run").located("b.txt", 12);
  CHECK(wrapped.file == "b.txt");
  CHECK(wrapped.line == 12);
  CHECK(wrapped.command == "run");
  CHECK(wrapped.argument.empty());
  CHECK(wrapped.reason == "--ranks 0: a collective needs at least 1 rank");
  CHECK(std::string(wrapped.what()) == "b.txt:12: --ranks 0: a collective needs at least 1 rank");
}

TEST_CASE("gui script error: a number that is none names the command and the word, with the standard library's message") {
  CHECK(script_int("play", "30") == 30);
  CHECK(script_int("play", "3x") == 3);  // as std::stoi reads it
  CHECK(script_double("seek-time", "2.5") == doctest::Approx(2.5));
  try {
    script_int("play", "lots");
    FAIL("script_int read 'lots'");
  } catch (const ScriptError& e) {
    CHECK(e.command == "play");
    CHECK(e.argument == "lots");
    CHECK(e.reason == standard_message([] { (void)std::stoi("lots"); }));
  }
  try {
    script_double("seek-step", "");
    FAIL("script_double read ''");
  } catch (const ScriptError& e) {
    CHECK(e.command == "seek-step");
    CHECK(e.argument.empty());
    CHECK(e.reason == standard_message([] { (void)std::stod(""); }));
  }
}
