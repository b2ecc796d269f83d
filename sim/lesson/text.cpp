// Lesson text templates (text.h): a template is literal text and {placeholders}; a
// placeholder is an expression, parsed into a small tree, and an optional format.
#include "sim/lesson/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/types.h"

namespace collsim {
namespace {

// --- expressions -------------------------------------------------------------------------

struct Node {
  enum class Kind { number, words, name, unary_minus, binary, choice, call } kind = Kind::number;
  double number = 0;
  std::string text;  // words, a name, an operator ("+", "<=") or a function's name
  std::vector<Node> kids;
};

constexpr std::string_view kFunctions[] = {"min", "max", "round", "floor", "ceil", "log2", "abs"};

// A recursive-descent parser over one placeholder's expression:
//   choice := compare ['?' choice ':' choice]
//   compare := sum [('<' | '<=' | '>' | '>=' | '==' | '!=') sum]
//   sum := product (('+' | '-') product)*      product := unary (('*' | '/') unary)*
//   unary := '-' unary | atom                   atom := number | 'words' | name | name '(' args ')' | '(' choice ')'
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Node expression() { return choice(); }
  std::size_t position() {
    skip_space();
    return i_;
  }

 private:
  [[noreturn]] void fail(const std::string& why) { throw InputError(fmt::format("{} at character {}", why, i_ + 1)); }
  void skip_space() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(std::string_view token) {
    skip_space();
    if (s_.substr(i_, token.size()) != token) return false;
    i_ += token.size();
    return true;
  }

  Node choice() {
    Node condition = compare();
    if (!eat("?")) return condition;
    Node yes = choice();
    if (!eat(":")) fail("expected ':' after the '?' choice's first value");
    Node no = choice();
    return {Node::Kind::choice, 0, {}, {std::move(condition), std::move(yes), std::move(no)}};
  }
  Node compare() {
    Node left = sum();
    for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">"})
      if (eat(op)) return {Node::Kind::binary, 0, std::string(op), {std::move(left), sum()}};
    return left;
  }
  Node sum() {
    Node left = product();
    for (;;) {
      std::string op = eat("+") ? "+" : eat("-") ? "-" : "";
      if (op.empty()) return left;
      left = {Node::Kind::binary, 0, op, {std::move(left), product()}};
    }
  }
  Node product() {
    Node left = unary();
    for (;;) {
      std::string op = eat("*") ? "*" : eat("/") ? "/" : "";
      if (op.empty()) return left;
      left = {Node::Kind::binary, 0, op, {std::move(left), unary()}};
    }
  }
  Node unary() {
    if (eat("-")) return {Node::Kind::unary_minus, 0, {}, {unary()}};
    return atom();
  }
  Node atom() {
    skip_space();
    if (i_ >= s_.size()) fail("expected a value");
    const char c = s_[i_];
    if (eat("(")) {
      Node inner = choice();
      if (!eat(")")) fail("expected ')'");
      return inner;
    }
    if (c == '\'') {
      const std::size_t end = s_.find('\'', i_ + 1);
      if (end == std::string_view::npos) fail("unclosed quote");
      Node n{Node::Kind::words, 0, std::string(s_.substr(i_ + 1, end - i_ - 1)), {}};
      i_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      // A name may start with a digit when it has a letter ("1f1b_isend.first"); else a number.
      std::size_t j = i_;
      bool letter = false;
      while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_' || s_[j] == '.')) {
        letter = letter || std::isalpha(static_cast<unsigned char>(s_[j])) || s_[j] == '_';
        ++j;
      }
      return letter ? name_or_call() : number();
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name_or_call();
    fail(fmt::format("unexpected '{}'", c));
  }
  Node number() {
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    const std::string digits(s_.substr(start, i_ - start));
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != digits.size()) fail(fmt::format("'{}' is not a number", digits));
    return {Node::Kind::number, v, {}, {}};
  }
  Node name_or_call() {
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.')) ++i_;
    std::string name(s_.substr(start, i_ - start));
    if (name.back() == '.') fail(fmt::format("the name '{}' ends with a dot", name));
    if (!eat("(")) return {Node::Kind::name, 0, std::move(name), {}};
    if (std::find(std::begin(kFunctions), std::end(kFunctions), name) == std::end(kFunctions))
      fail(fmt::format("unknown function '{}' (functions: min max round floor ceil log2 abs)", name));
    Node call{Node::Kind::call, 0, std::move(name), {}};
    do call.kids.push_back(choice());
    while (eat(","));
    if (!eat(")")) fail("expected ')' after the function's arguments");
    const std::size_t want = call.text == "min" || call.text == "max" ? 2 : 1;
    if (call.kids.size() != want) fail(fmt::format("{}() takes {} argument{}", call.text, want, want == 1 ? "" : "s"));
    return call;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

void collect_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::name) out.push_back(n.text);
  for (const Node& k : n.kids) collect_names(k, out);
}

// Evaluates with the scope; only the chosen side of a choice is evaluated, but every name on
// the other side must exist too, so that a misspelt name fails in the run that checks the
// text and not only under the flags that would take that side.
class Evaluator {
 public:
  Evaluator(const TextScope& scope, std::string_view known) : scope_(scope), known_(known) {}

  TextValue value(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::number: return TextValue::of(n.number);
      case Node::Kind::words: return TextValue::of(n.text);
      case Node::Kind::name: return lookup(n.text);
      case Node::Kind::unary_minus: return TextValue::of(-number(n.kids[0]));
      case Node::Kind::choice: {
        const bool yes = number(n.kids[0]) != 0;
        require_names(n.kids[yes ? 2 : 1]);
        return value(n.kids[yes ? 1 : 2]);
      }
      case Node::Kind::call: return TextValue::of(call(n));
      case Node::Kind::binary: return n.text == "+" ? sum(n) : TextValue::of(binary(n));
    }
    return {};
  }

 private:
  void require_names(const Node& n) const {
    if (n.kind == Node::Kind::name) lookup(n.text);
    for (const Node& k : n.kids) require_names(k);
  }
  TextValue lookup(const std::string& name) const {
    if (std::optional<TextValue> v = scope_(name)) return *v;
    // NAME_h: NAME as a size in bytes.
    if (name.size() > 2 && name.ends_with("_h"))
      if (std::optional<TextValue> v = scope_(std::string_view(name).substr(0, name.size() - 2)); v && v->is_number)
        return TextValue::of(format_bytes(v->number));
    throw InputError(known_.empty() ? fmt::format("unknown name '{}'", name)
                                    : fmt::format("unknown name '{}' (this text knows: {})", name, known_));
  }
  // '+' adds numbers and joins words: 'only ' + senders + ' ranks send' (a number as it prints
  // without a format), so that a choice's words can hold the run's figures.
  TextValue sum(const Node& n) const {
    const TextValue a = value(n.kids[0]), b = value(n.kids[1]);
    if (a.is_number && b.is_number) return TextValue::of(a.number + b.number);
    const auto words = [](const TextValue& v) {
      return v.is_number ? (v.shown.empty() ? format_number(v.number) : v.shown) : v.words;
    };
    return TextValue::of(words(a) + words(b));
  }
  double number(const Node& n) const {
    const TextValue v = value(n);
    if (!v.is_number) throw InputError(fmt::format("'{}' is words, not a number", v.words));
    return v.number;
  }
  double call(const Node& n) const {
    const double a = number(n.kids[0]);
    if (n.text == "min") return std::min(a, number(n.kids[1]));
    if (n.text == "max") return std::max(a, number(n.kids[1]));
    if (n.text == "round") return std::round(a);
    if (n.text == "floor") return std::floor(a);
    if (n.text == "ceil") return std::ceil(a);
    if (n.text == "abs") return std::fabs(a);
    if (!(a > 0)) throw InputError(fmt::format("log2 of {}", format_number(a)));
    return std::log2(a);
  }
  double binary(const Node& n) const {
    const std::string& op = n.text;
    if (op == "==" || op == "!=") {  // words compare as words
      const TextValue a = value(n.kids[0]), b = value(n.kids[1]);
      const bool equal = a.is_number == b.is_number && (a.is_number ? a.number == b.number : a.words == b.words);
      return (op == "==") == equal ? 1 : 0;
    }
    const double a = number(n.kids[0]), b = number(n.kids[1]);
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (op == "/") {
      if (b == 0) throw InputError("division by zero");
      return a / b;
    }
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    return a >= b;
  }

  const TextScope& scope_;
  std::string_view known_;
};

// --- formats -----------------------------------------------------------------------------

struct Format {
  enum class Kind { plain, fixed, bytes, percent, integer } kind = Kind::plain;
  int decimals = 0;
};

Format parse_format(std::string_view f) {
  if (f.empty()) return {};
  if (f == "h") return {Format::Kind::bytes, 0};
  if (f == "d") return {Format::Kind::integer, 0};
  if (f == "%") return {Format::Kind::percent, 0};
  if (f.size() >= 3 && f[0] == '.' && (f.back() == 'f' || f.back() == '%')) {
    const std::string_view digits = f.substr(1, f.size() - 2);
    if (!digits.empty() && digits.size() <= 1 && std::isdigit(static_cast<unsigned char>(digits[0])))
      return {f.back() == 'f' ? Format::Kind::fixed : Format::Kind::percent, digits[0] - '0'};
  }
  throw InputError(fmt::format("unknown format ':{}' (formats: .Nf, h, .N%, d)", f));
}

std::string formatted(const TextValue& v, const Format& f) {
  if (!v.is_number) {
    if (f.kind != Format::Kind::plain) throw InputError(fmt::format("'{}' is words, and a format needs a number", v.words));
    return v.words;
  }
  switch (f.kind) {
    case Format::Kind::plain: return v.shown.empty() ? format_number(v.number) : v.shown;
    case Format::Kind::fixed: return fmt::format("{:.{}f}", v.number, f.decimals);
    case Format::Kind::bytes: return format_bytes(v.number);
    case Format::Kind::percent: return fmt::format("{:.{}f} %", 100 * v.number, f.decimals);
    case Format::Kind::integer: return fmt::format("{}", static_cast<std::int64_t>(std::llround(v.number)));
  }
  return {};
}

// One placeholder: its expression tree and its format.
struct Compiled {
  Node expression;
  Format format;
  std::vector<std::string> names;
};

Compiled compile(std::string_view source) {
  Parser p(source);
  Compiled c{p.expression(), {}, {}};
  std::size_t at = p.position();
  if (at < source.size()) {
    if (source[at] != ':') throw InputError(fmt::format("unexpected '{}' at character {}", source[at], at + 1));
    c.format = parse_format(source.substr(at + 1));
  }
  collect_names(c.expression, c.names);
  return c;
}

// Splits a template into literal parts and placeholder sources. Throws InputError (without
// a position prefix) for an unclosed '{' or a lone '}'.
void split(std::string_view text, std::vector<std::string>& literals, std::vector<std::string>& sources) {
  literals.assign(1, {});
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t brace = text.find_first_of("{}", i);
    if (brace == std::string_view::npos) {
      literals.back() += text.substr(i);
      return;
    }
    literals.back() += text.substr(i, brace - i);
    const char c = text[brace];
    if (brace + 1 < text.size() && text[brace + 1] == c) {  // "{{" or "}}": a literal brace
      literals.back() += c;
      i = brace + 2;
      continue;
    }
    if (c == '}')
      throw InputError(fmt::format("unmatched '}}' at character {} of the text (write '}}}}' for a brace)", brace + 1));
    const std::size_t close = text.find_first_of("{}", brace + 1);
    if (close == std::string_view::npos || text[close] != '}')
      throw InputError(fmt::format("unclosed '{{' at character {} of the text (write '{{{{' for a brace)", brace + 1));
    sources.emplace_back(text.substr(brace + 1, close - brace - 1));
    literals.emplace_back();
    i = close + 1;
  }
}

}  // namespace

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(v));
  if (!std::isfinite(v) || v == 0) return fmt::format("{}", v);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fmt::format("{:.{}f}", v, std::max(0, 2 - magnitude));
}

namespace {

// A template split and every placeholder compiled, once; errors name `where`.
struct CompiledText {
  std::vector<std::string> literals, sources;
  std::vector<Compiled> placeholders;
};

CompiledText compile_text(std::string_view text, const std::string& where) {
  CompiledText out;
  try {
    split(text, out.literals, out.sources);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
  for (const std::string& source : out.sources) {
    try {
      out.placeholders.push_back(compile(source));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: placeholder '{{{}}}': {}", where, source, e.what()));
    }
  }
  return out;
}

}  // namespace

ParsedText parse_text(std::string_view text, const std::string& where) {
  CompiledText c = compile_text(text, where);
  ParsedText out{std::move(c.literals), {}};
  for (std::size_t k = 0; k < c.sources.size(); ++k)
    out.placeholders.push_back({std::move(c.sources[k]), std::move(c.placeholders[k].names)});
  return out;
}

std::string render_text(std::string_view text, const TextScope& scope, const std::string& where, std::string_view known) {
  const CompiledText c = compile_text(text, where);
  const Evaluator evaluator(scope, known);
  std::string out = c.literals[0];
  for (std::size_t k = 0; k < c.placeholders.size(); ++k) {
    try {
      out += formatted(evaluator.value(c.placeholders[k].expression), c.placeholders[k].format);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: placeholder '{{{}}}': {}", where, c.sources[k], e.what()));
    }
    out += c.literals[k + 1];
  }
  return out;
}

}  // namespace collsim
