// Command-line mistakes in a person's words, for `collsim` and `collsim-gui` alike: every
// message names the command, the flag or word, what was expected and the nearest valid
// choice ("collsim run: --ranks: a whole number, got '4.5'", "unknown command 'rnu'; did you
// mean run?", "--out is missing (the page to write); -o is --op"). CLI11's own phrases never
// reach the user: numbers are checked as typed before CLI11 converts them (checked_numbers),
// unexpected words are collected rather than thrown (allow_extras, unexpected_arguments),
// and the other parse errors are told from the command's own options, not from CLI11's text.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace collsim::flags {

// On `app` and every subcommand: each option whose value is a number gets a check that names
// the flag, the kind of number and what was typed; unexpected words are kept for
// unexpected_arguments instead of failing the parse. Call once, after every option exists.
void prepare_for_people(CLI::App& app);

// The message for a failed parse (not for --help or --version), from the command typed in
// `args` (argv without the program name) and its options.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args);

// After a parse: the message for words no command or flag took (an unknown command or flag,
// a file too many); empty when there were none.
std::string unexpected_arguments(const CLI::App& app);

}  // namespace collsim::flags
