// Lesson text templates: "{placeholder}"s that are small expressions over named facts of
// a run, so that a lesson says true things at every rank count (docs/scenario-format.md,
// "Text computed from the run"). This file knows the syntax and the arithmetic; which
// names exist and what they stand for is captions.cpp's business (LessonFacts).
//
//   {ranks}                      a name
//   {ranks-1}  {2*(ranks-1)/ranks:.2f}   arithmetic: + - * / ( ), min max round floor ceil log2 abs
//   {buffer_bytes:h}  {bytes_h}  a size in bytes as a person writes it ("4 MiB"); NAME_h is NAME:h
//   {q1 < q2 ? 'faster' : 'slower'}      comparisons (< <= > >= == !=) and a choice of words
//   {empty > 0 ? 'only ' + senders + ' send' : 'all send'}   '+' joins words (and a number as it prints)
//   {p2.steps}  {reduce_scatter.range}   dotted names: a phase's, a stage's facts
//   {{ and }}                    literal braces
//
// Formats after a colon: .Nf (N decimals), h (bytes), .N% (a fraction as a percentage),
// d (rounded to an integer). Without one, an integer prints as its digits and any other
// number to 3 significant digits ("0.0123", "12.3", "1230").
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// A value a name or an expression stands for: a number, or words ("ring", "1-3").
struct TextValue {
  bool is_number = true;
  double number = 0;
  std::string words;
  std::string shown;  // how a number prints without a format, when not by the rule below ("12.0")
  static TextValue of(double v) { return {true, v, {}, {}}; }
  static TextValue of(std::string w) { return {false, 0, std::move(w), {}}; }
};

// The value of a name, or nullopt when the scope does not know it.
using TextScope = std::function<std::optional<TextValue>(std::string_view name)>;

// One placeholder of a template, as written between its braces.
struct TextPlaceholder {
  std::string source;              // "2*(ranks-1)/ranks:.2f"
  std::vector<std::string> names;  // the names it reads, in order ("ranks", "ranks")
};

// The template's literal text (braces unescaped) and its placeholders, in order: literal
// part k comes before placeholder k, and the last literal part after the last one.
struct ParsedText {
  std::vector<std::string> literals;
  std::vector<TextPlaceholder> placeholders;
};

// Parses a template. Throws InputError "WHERE: ..." for an unclosed '{', a lone '}', an
// expression that does not parse or a format that does not exist, naming the placeholder.
ParsedText parse_text(std::string_view text, const std::string& where);

// Fills a template: every placeholder evaluated in `scope` and formatted. Throws
// InputError "WHERE: ..." for a malformed template, an unknown name (with `known`, the
// names the scope offers, for the message), words used as a number, or a division by zero.
std::string render_text(std::string_view text, const TextScope& scope, const std::string& where,
                        std::string_view known = {});

// How a number prints without a format (the rule above); answers and tables use it too.
std::string format_number(double v);

}  // namespace collsim
