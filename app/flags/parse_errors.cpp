#include "app/flags/parse_errors.h"

#include <cerrno>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/core/nearest_name.h"

namespace collsim::flags {

namespace {

bool is_whole_number(const std::string& text, bool sign_allowed) {
  std::size_t i = sign_allowed && !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return false;
  return true;
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

// What a number flag takes, in words ("" for other flags).
std::string kind_of_value(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  if (type == "INT") return "a whole number";
  if (type == "UINT") return "a whole number, 0 or more";
  if (type == "FLOAT") return "a number";
  return "";
}

// The check of a number as typed: CLI11 would otherwise say "Could not convert".
CLI::Validator number_check(const std::string& type) {
  return CLI::Validator(
      [type](std::string& text) -> std::string {
        const bool ok = type == "INT"    ? is_whole_number(text, true)
                        : type == "UINT" ? is_whole_number(text, false)
                                         : is_number(text);
        if (ok) return {};
        if (text.size() > 1 && text[0] == '-' && !is_number(text)) return fmt::format("needs a value before {}", text);
        const char* what = type == "INT" ? "a whole number" : type == "UINT" ? "a whole number, 0 or more" : "a number";
        return fmt::format("{}, got '{}'", what, text);
      },
      "");
}

void prepare(CLI::App& app) {
  app.allow_extras();
  for (CLI::Option* opt : app.get_options([](const CLI::Option*) { return true; })) {
    const std::string type = opt->get_type_name();
    if (opt->get_type_size_max() > 0 && (type == "INT" || type == "UINT" || type == "FLOAT")) opt->check(number_check(type));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) prepare(*sub);
}

// The command the words typed name (`collsim run ...` -> run's App) and its words' path.
const CLI::App* typed_command(const CLI::App& app, const std::vector<std::string>& args, std::string& path) {
  const CLI::App* cmd = &app;
  path = app.get_name();
  for (const std::string& word : args) {
    if (word.empty() || word[0] == '-') continue;
    const auto subs = cmd->get_subcommands([&](const CLI::App* s) { return s->get_name() == word; });
    if (subs.empty()) continue;
    cmd = subs.front();
    path += " " + word;
  }
  return cmd;
}

std::string option_word(const CLI::Option& opt) {
  if (!opt.get_lnames().empty()) return "--" + opt.get_lnames().front();
  if (!opt.get_snames().empty()) return "-" + opt.get_snames().front();
  return opt.get_name();  // a positional: its name
}

const CLI::Option* option_named(const CLI::App& cmd, std::string_view word) {
  if (word.size() < 2 || word[0] != '-') return nullptr;
  const std::string name(word.substr(0, word.find('=')));
  for (const CLI::Option* opt : cmd.get_options())
    if (!opt->get_positional() && opt->check_name(name)) return opt;
  return nullptr;
}

std::string required_missing(const CLI::App& cmd, const std::string& path, const std::vector<std::string>& args) {
  for (const CLI::Option* opt : cmd.get_options()) {
    if (!opt->get_required() || opt->count() > 0) continue;
    if (opt->get_positional())
      return fmt::format("{}: which {}? give one: {} (see {} --help)", path, opt->get_name(), opt->get_description(), path);
    std::string message = fmt::format("{}: {} is missing: {}", path, option_word(*opt), opt->get_description());
    // `-o page.html` for `--out page.html`: say what -o is.
    for (const std::string& word : args)
      if (word.size() == 2 && word[0] == '-' && !opt->get_lnames().empty() && opt->get_lnames().front()[0] == word[1])
        if (const CLI::Option* other = option_named(cmd, word); other && other != opt)
          message += fmt::format(" (did you mean {}? {} is {})", option_word(*opt), word, option_word(*other));
    return message;
  }
  return fmt::format("{}: a required value is missing (see {} --help)", path, path);
}

std::string value_missing(const CLI::App& cmd, const std::string& path, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const CLI::Option* opt = option_named(cmd, args[i]);
    if (!opt || opt->get_type_size_max() == 0) continue;
    if (args[i].ends_with('='))  // --trace=
      return fmt::format("{}: {} needs a value after the '='", path, args[i].substr(0, args[i].size() - 1));
    if (args[i].find('=') != std::string::npos) continue;
    const bool next_is_flag = i + 1 < args.size() && args[i + 1].size() > 1 && args[i + 1][0] == '-' &&
                              !is_number(args[i + 1]);
    if (i + 1 == args.size() || next_is_flag) {
      const std::string kind = kind_of_value(*opt);
      return fmt::format("{}: {} needs a value: {}", path, args[i], kind.empty() ? opt->get_description() : kind);
    }
  }
  return fmt::format("{}: a flag is missing its value (see {} --help)", path, path);
}

std::string with_suggestion(std::string message, std::string_view typed, const std::vector<std::string>& choices) {
  return message + did_you_mean(typed, choices);
}

}  // namespace

void prepare_for_people(CLI::App& app) { prepare(app); }

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  std::string path;
  const CLI::App& cmd = *typed_command(app, args, path);
  if (dynamic_cast<const CLI::ValidationError*>(&e)) return fmt::format("{}: {}", path, e.what());  // our checks' words
  if (dynamic_cast<const CLI::RequiredError*>(&e)) return required_missing(cmd, path, args);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) return value_missing(cmd, path, args);
  if (dynamic_cast<const CLI::ExcludesError*>(&e))  // two flags that say the same thing differently
    for (const CLI::Option* opt : cmd.get_options())
      for (const CLI::Option* other : opt->get_excludes())
        if (opt->count() > 0 && other->count() > 0)
          return fmt::format("{}: give {} or {}, not both", path, option_word(*opt), option_word(*other));
  if (dynamic_cast<const CLI::ConversionError*>(&e))  // numbers are checked as typed: the first number flag typed
    for (const std::string& word : args)
      if (const CLI::Option* opt = option_named(cmd, word); opt && opt->get_type_size_max() > 0)
        if (const std::string kind = kind_of_value(*opt); !kind.empty())
          return fmt::format("{}: {} takes {}", path, word.substr(0, word.find('=')), kind);
  return fmt::format("{}: the command line could not be read (see {} --help)", path, path);
}

std::string unexpected_arguments(const CLI::App& app) {
  const CLI::App* cmd = &app;
  std::string path = app.get_name();
  while (!cmd->get_subcommands().empty()) {
    cmd = cmd->get_subcommands().front();
    path += " " + cmd->get_name();
  }
  std::vector<std::string> extra = cmd->remaining(false);
  if (extra.empty() && cmd != &app) extra = app.remaining(false);
  if (extra.empty()) return {};
  const std::string& first = extra.front();
  if (first.size() > 1 && first[0] == '-' && !is_number(first)) {
    const std::string name = first.substr(0, first.find('='));
    std::vector<std::string> flags;
    for (const CLI::Option* opt : cmd->get_options())
      for (const std::string& l : opt->get_lnames()) flags.push_back("--" + l);
    return with_suggestion(fmt::format("{}: unknown flag {}", path, name), name, flags) +
           fmt::format(" (see {} --help)", path);
  }
  const bool has_commands = !app.get_subcommands([](const CLI::App*) { return true; }).empty();
  if (cmd == &app && has_commands) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return with_suggestion(fmt::format("{}: unknown command '{}' (the commands: {})", path, first, list), first, names);
  }
  std::string takes;
  for (const CLI::Option* opt : cmd->get_options([](const CLI::Option* o) { return o->get_positional(); }))
    takes += (takes.empty() ? "" : ", ") + opt->get_name();
  return takes.empty() ? fmt::format("{}: unexpected '{}': it takes no file or word, only flags (see {} --help)", path, first, path)
                       : fmt::format("{}: unexpected '{}': it takes one {} at most (see {} --help)", path, first, takes, path);
}

}  // namespace collsim::flags
