// ScriptError: a bad line of an app script (collsim-gui --script FILE, script.h). Apart
// from script.h, which includes it, so that it is plain C++ (no ImGui, GLFW or OpenGL)
// and tests/gui/test_script_error.cpp can check it without a window.
#pragma once
#include <exception>
#include <string>
#include <utility>

#include "sim/core/errors.h"

namespace collsim::gui {

// The script's mistake, not the app's: an InputError, so it exits with status 2 as every
// bad input does. A command throws it with what it knows (its word, the word at fault,
// the reason); run_script adds the file and the line (located) and prints
// "collsim-gui: FILE:LINE: REASON" from the fields. what() is the reason until then, and
// "FILE:LINE: REASON" once located: the sentence the app prints after "collsim-gui: ".
struct ScriptError : InputError {
  ScriptError(std::string command, std::string argument, std::string reason)
      : ScriptError({}, 0, std::move(command), std::move(argument), std::move(reason)) {}

  // The same error, in FILE at LINE (1-based).
  ScriptError located(std::string in_file, int at_line) const {
    return ScriptError(std::move(in_file), at_line, command, argument, reason);
  }

  // Whatever a command let out as a ScriptError: a ScriptError as it is, anything else
  // (sim/'s InputError from an edited run, std::stoi's std::invalid_argument) with its
  // message, unchanged, as the reason and no argument named.
  static ScriptError from(const std::exception& e, std::string command) {
    if (const auto* s = dynamic_cast<const ScriptError*>(&e)) return *s;
    return ScriptError(std::move(command), {}, e.what());
  }

  std::string file;      // the script, as given to --script; "" until located
  int line = 0;          // 1-based; 0 until located
  std::string command;   // the line's first word: "expect", "run", "phase", "key", "export", or one unknown
  std::string argument;  // the word at fault ("99", "ranks=x", "f13"); "" when none is (a
                         // missing argument, nothing open, an unknown command)
  std::string reason;    // what is wrong, as the app prints it: "phase: 99 is not a phase of the lesson (1..5)"

 private:
  ScriptError(std::string in_file, int at_line, std::string command_word, std::string argument_word,
              std::string why)
      : InputError(in_file.empty() ? why : in_file + ":" + std::to_string(at_line) + ": " + why),
        file(std::move(in_file)),
        line(at_line),
        command(std::move(command_word)),
        argument(std::move(argument_word)),
        reason(std::move(why)) {}
};

// A number in a script line, as std::stoi and std::stod read it ("3x" is 3); a word that
// is none: a ScriptError naming the command and the word, with std::stoi's or std::stod's
// message as the reason (as the app has always printed it).
inline int script_int(const std::string& command, const std::string& word) {
  try {
    return std::stoi(word);
  } catch (const std::exception& e) {
    throw ScriptError(command, word, e.what());
  }
}
inline double script_double(const std::string& command, const std::string& word) {
  try {
    return std::stod(word);
  } catch (const std::exception& e) {
    throw ScriptError(command, word, e.what());
  }
}

}  // namespace collsim::gui
