#include "sim/core/toml_guard.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {
namespace {

// The length of the UTF-8 sequence at text[i], or 0 when it is not one (a stray continuation
// byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0, min = 0;
  if ((b & 0xE0) == 0xC0) {
    n = 2, cp = b & 0x1F, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3, cp = b & 0x0F, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4, cp = b & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// The code point of the valid UTF-8 sequence at text[i] (utf8_length > 0).
std::uint32_t code_point(std::string_view text, std::size_t i, std::size_t length) {
  static constexpr std::uint8_t kLead[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  std::uint32_t cp = static_cast<std::uint8_t>(text[i]) & kLead[length];
  for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<std::uint8_t>(text[i + k]) & 0x3F);
  return cp;
}

// Whether toml++ 3.3 can ask whether this code point is whitespace: its
// is_non_ascii_horizontal_whitespace reaches an "unreachable" point for the code points of
// its table's blocks 0 and 63 (U+00A1..U+0499, U+FB46..U+FEFE) other than those it names.
bool whitespace_check_defined(std::uint32_t cp) {
  if (cp < 0xA0 || cp > 0xFEFF) return true;
  const std::uint64_t block = (cp - 0xA0) / 0x3FA;
  if ((1ull << block) & 0x7FFFFFFFFFFFF75Eull) return true;
  return cp == 0xA0 || cp == 0x3000 || cp == 0xFEFF || block == 5 || block == 7;
}

// toml++'s whitespace outside ASCII.
bool is_non_ascii_whitespace(std::uint32_t cp) {
  return cp == 0xA0 || cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F ||
         cp == 0x205F || cp == 0x2060 || cp == 0x3000 || cp == 0xFEFF || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_non_ascii(char c) { return static_cast<std::uint8_t>(c) >= 0x80; }
// toml++'s is_value_terminator for ASCII: whitespace (vertical too), ']', '}', ',', '#'.
bool is_value_terminator(char c) {
  return c == ' ' || c == '\t' || (c >= '\n' && c <= '\r') || c == ']' || c == '}' || c == ',' || c == '#';
}

// Reads the text as TOML's grammar lays it out (keys, table headers, values, strings,
// comments) just far enough to know where each character stands, and stops at the first
// thing toml++ 3.3 must not see. Where the text leaves the grammar (a syntax error, which
// toml++ will report), what follows cannot be placed: it is only searched for the two
// faults (check_rest).
class Scanner {
 public:
  Scanner(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  void run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a byte-order mark
    try {
      while (!done()) root_line();
    } catch (const SyntaxError&) {
      syntax_line_ = line_, syntax_column_ = column_;
      check_rest();
    }
  }

 private:
  struct SyntaxError {};  // the grammar is broken here: toml++ reports it

  bool done() const { return i_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0'; }
  bool starts_with(std::string_view s) const { return text_.substr(i_, s.size()) == s; }

  [[noreturn]] void fail(std::string_view problem) const { fail(problem, line_, column_); }
  [[noreturn]] void fail(std::string_view problem, int line, int column) const {
    throw InputError(fmt::format("{}:{}:{}: not valid TOML: {}", source_, line, column, problem));
  }
  void require_utf8() const {
    if (utf8_length(text_, i_) == 0)
      fail(fmt::format("byte 0x{:02X} is not UTF-8 (save the file as UTF-8)", static_cast<std::uint8_t>(peek())));
  }
  [[noreturn]] void non_ascii() const {
    require_utf8();
    fail("a non-ASCII character outside a string or a comment (TOML allows them only there)");
  }
  // The grammar is broken here; a non-ASCII character is the reason when it is one.
  [[noreturn]] void syntax_error() const {
    if (is_non_ascii(peek())) non_ascii();
    throw SyntaxError{};
  }
  [[noreturn]] void bad_header(char c) const {
    if (is_non_ascii(c)) non_ascii();
    fail(c > ' ' && c <= '~' ? fmt::format("a table header must start with a key, got '{}'", c)
                             : std::string("a table header must start with a key"));
  }
  // One character forward (a whole UTF-8 sequence), counting lines, and columns in characters.
  void advance() {
    if (peek() == '\n') {
      ++i_, ++line_, column_ = 1;
      return;
    }
    if (is_non_ascii(peek())) {
      require_utf8();
      i_ += utf8_length(text_, i_);
    } else {
      ++i_;
    }
    ++column_;
  }
  void skip_blanks() {
    while (is_blank(peek())) advance();
  }
  // What toml++ skips after a header's '[': not '\r', which it leaves to the key's assertion.
  void skip_spaces_and_tabs() {
    while (peek() == ' ' || peek() == '\t') advance();
  }
  void skip_comment() {
    while (!done() && peek() != '\n') advance();
  }
  // Blanks, comments and line breaks (between the values of an array).
  void skip_space() {
    for (;;) {
      skip_blanks();
      if (peek() == '#') {
        skip_comment();
      } else if (peek() == '\n') {
        advance();
      } else {
        return;
      }
    }
  }
  // After a key-value pair or a header: nothing but a comment up to the line's end.
  void end_of_line() {
    skip_blanks();
    if (peek() == '#') skip_comment();
    if (done()) return;
    if (peek() != '\n') syntax_error();
    advance();
  }

  void root_line() {
    skip_blanks();
    if (peek() == '\n') {
      advance();
    } else if (peek() == '#') {
      skip_comment();
    } else if (peek() == '[') {
      table_header();
      end_of_line();
    } else if (!done()) {
      key_value();
      end_of_line();
    }
  }

  // "[key]" or "[[key]]". toml++ 3.3 asserts that the key starts with a key character or a
  // quote (after blanks), and handles only ']' (a blank key) and the end of the file
  // otherwise: a line break there fails its assertion too.
  void table_header() {
    advance();
    const bool array = peek() == '[';
    if (array) advance();
    skip_spaces_and_tabs();
    const char c = peek();
    if (c == ']' || done()) syntax_error();  // toml++ reports these: a blank key, the end of the file
    if (!is_bare_key_char(c) && c != '"' && c != '\'') bad_header(c);
    key();
    for (int k = 0; k < (array ? 2 : 1); ++k) {
      if (peek() != ']') syntax_error();
      advance();
    }
  }

  // A dotted key: parts (bare or quoted) joined by dots, blanks around them; stops before
  // what follows it ('=', ']').
  void key() {
    for (;;) {
      skip_blanks();
      const char c = peek();
      if (c == '"' || c == '\'') {
        if (starts_with(std::string(3, c))) syntax_error();  // no multi-line keys
        string(c);
      } else if (is_bare_key_char(c)) {
        while (is_bare_key_char(peek())) advance();
      } else {
        syntax_error();
      }
      skip_blanks();
      if (peek() != '.') return;
      advance();
    }
  }

  void key_value() {
    key();
    if (peek() != '=') syntax_error();
    advance();
    skip_blanks();
    value();
  }

  void value() {
    const char c = peek();
    if (c == '"' || c == '\'') {
      string(c);
    } else if (c == '[') {
      array();
    } else if (c == '{') {
      inline_table();
    } else {
      bare_value();
    }
  }

  // A number, boolean, date or time: toml++ reads it up to a value terminator (a blank, a
  // line break, ',', ']', '}', '#'), asking of every character whether it is one: the
  // question its 3.3 cannot answer for most non-ASCII characters. A date and a time may be
  // joined by one space.
  void bare_value() {
    const std::size_t begin = i_;
    const int begin_line = line_, begin_column = column_;
    bare_token();
    const std::string_view token = text_.substr(begin, i_ - begin);
    if (token.empty()) syntax_error();
    const bool date = token.size() >= 10 && token[4] == '-' && token[7] == '-';
    // toml++ 3.3 asserts that a digit follows a date-time's 'T'.
    if (date && token.size() > 10 && (token[10] == 'T' || token[10] == 't') &&
        (token.size() == 11 || !is_digit(token[11])))
      fail("a date-time needs the time after its 'T' (YYYY-MM-DDTHH:MM:SS)", begin_line, begin_column);
    // A date (as toml++ sees it: without the '_' it skips), a space and a digit: a date-time.
    std::string seen(token);
    seen.erase(std::remove(seen.begin(), seen.end(), '_'), seen.end());
    const bool whole_date = seen.size() == 10 && seen[4] == '-' && seen[7] == '-';
    if (whole_date && peek() == ' ' && is_digit(peek(1))) {
      // toml++ 3.3 reads the time's first digit, then asserts that no value terminator follows.
      if (i_ + 2 < text_.size() && is_value_terminator(peek(2)))
        fail("a date and a time joined by a space need the whole time (YYYY-MM-DD HH:MM:SS)", begin_line,
             begin_column);
      advance();
      bare_token();
    }
  }
  void bare_token() {
    for (char c = peek(); !(done() || is_blank(c) || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#');
         c = peek()) {
      if (is_non_ascii(c)) non_ascii();
      advance();
    }
  }

  // toml++ 3.3 asserts that a value does not start with a value terminator; in an array it
  // does not check for '}' first ("[}", "[1, }").
  void array() {
    advance();
    for (;;) {
      skip_space();
      if (peek() == ']') break;
      if (peek() == '}') fail("expected a value or ']' in the array, got '}'");
      value();
      skip_space();
      if (peek() == ',') {
        advance();
      } else if (peek() != ']') {
        syntax_error();
      }
    }
    advance();
  }

  void inline_table() {
    advance();
    skip_blanks();
    if (peek() == '}') return advance();
    for (;;) {
      key_value();
      skip_blanks();
      if (peek() == '}') return advance();
      if (peek() != ',') syntax_error();
      advance();
    }
  }

  // A basic ("...", """...""") or literal ('...', '''...''') string, its delimiters included.
  void string(char quote) {
    const std::string triple(3, quote);
    const bool multi_line = starts_with(triple);
    const bool escapes = quote == '"';
    for (std::size_t k = 0; k < (multi_line ? 3 : 1); ++k) advance();
    for (;;) {
      const char c = peek();
      if (done() || (c == '\n' && !multi_line)) syntax_error();  // unterminated
      if (escapes && c == '\\') {
        advance();
        if (multi_line) {
          after_backslash();
        } else if (!done()) {
          advance();
        }
      } else if (c == quote && !multi_line) {
        return advance();
      } else if (c == quote && starts_with(triple)) {
        // The closing delimiter, and up to two more quotes that belong to the string: the
        // whole run of quotes ends it.
        while (peek() == quote) advance();
        return;
      } else {
        advance();
      }
    }
  }

  // In a multi-line basic string, toml++ 3.3 asks of the character after a backslash, and
  // after a line-ending backslash of every character up to the next that is not
  // whitespace, whether it is whitespace, and cannot answer for some non-ASCII ones: "\é",
  // and (valid TOML, refused all the same) a line that a line-ending backslash joins
  // starting with é. Consumes the escaped character or the whitespace.
  void after_backslash() {
    bool first = true;
    while (!done()) {
      const char c = peek();
      if (is_non_ascii(c)) {
        require_utf8();
        const std::size_t length = utf8_length(text_, i_);
        const std::uint32_t cp = code_point(text_, i_, length);
        if (!whitespace_check_defined(cp))
          fail("toml++ 3.3 cannot read this non-ASCII character after a backslash (or at the start of a line "
               "that a backslash joins) in a multi-line string: put an ASCII character before it");
        if (!is_non_ascii_whitespace(cp)) {
          if (first) advance();  // an (invalid) escape: toml++ reports it
          return;
        }
      } else if (!(c == ' ' || c == '\t' || (c >= '\n' && c <= '\r'))) {
        if (first) advance();  // an ordinary escape: \n, \", \\, \u...
        return;
      }
      advance();
      first = false;
    }
  }

  // After a syntax error toml++ stops, but exactly where is its business: what follows
  // cannot be placed, so any non-ASCII character in it and any line that would be a bad
  // table header is refused (the file is refused either way: it has a syntax error).
  void check_rest() {
    bool line_start = true;
    char last = '\0';  // the last character that is not blank, a line break or in a comment
    while (!done()) {
      const char c = peek();
      if (is_non_ascii(c)) require_utf8(), unplaced();
      if (c == '}' && (last == '[' || last == ',')) unplaced();
      if (c == '#') {
        skip_comment();
        continue;
      }
      if (!is_blank(c) && c != '\n') last = c;
      if (line_start && c == '[') {
        advance();
        if (peek() == '[') advance();
        skip_spaces_and_tabs();
        const char k = peek();
        if (!done() && k != ']' && !is_bare_key_char(k) && k != '"' && k != '\'') unplaced();
        line_start = false;
        continue;
      }
      line_start = c == '\n' || (line_start && is_blank(c));
      advance();
    }
  }

  // Refuses the file at its syntax error, for what follows it.
  [[noreturn]] void unplaced() const {
    throw InputError(fmt::format("{}:{}:{}: not valid TOML here (and what follows has a non-ASCII character outside "
                                 "a string, a table header without a key, or a '}}' where an array needs a value)",
                                 source_, syntax_line_, syntax_column_));
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t i_ = 0;
  int line_ = 1, column_ = 1;
  int syntax_line_ = 0, syntax_column_ = 0;  // where the grammar broke
};

}  // namespace

void check_toml_text(std::string_view text, const std::string& source) { Scanner(text, source).run(); }

}  // namespace collsim
