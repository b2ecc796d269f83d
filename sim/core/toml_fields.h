// Reading TOML keys strictly, with the position of every value: the helpers of the
// scenario loader (scenario.cpp) and the hand-written schedule loader (custom_schedule.cpp).
// Every problem is an InputError that starts "FILE:LINE:COLUMN: key 'PATH':", so a typo
// points at its spot.
//
// sim-internal: includes toml++, which only sim/'s .cpp files may see (sim/CMakeLists.txt).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "sim/core/errors.h"
#include "sim/core/toml_guard.h"
#include "sim/core/types.h"

namespace collsim::toml_fields {

inline std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// One value of the file with its key path and position.
class Entry {
 public:
  Entry(const std::string& file, std::string path, const toml::node& value)
      : file_(&file), path_(std::move(path)), value_(&value) {}

  int line() const { return static_cast<int>(value_->source().begin.line); }
  int column() const { return static_cast<int>(value_->source().begin.column); }
  // "file:line:column: key 'path'".
  std::string where() const { return fmt::format("{}:{}:{}: key '{}'", *file_, line(), column(), path_); }
  [[noreturn]] void fail(std::string_view problem) const { throw InputError(fmt::format("{}: {}", where(), problem)); }

  std::string string() const {
    if (!value_->is_string()) wrong_type("a string");
    return std::string(value_->as_string()->get());
  }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const {
    if (!value_->is_integer()) wrong_type("an integer");
    const std::int64_t v = value_->as_integer()->get();
    if (v < lo || v > hi) fail(fmt::format("must be between {} and {}, got {}", lo, hi, v));
    return v;
  }
  int int32(int lo, int hi) const { return static_cast<int>(integer(lo, hi)); }
  bool boolean() const {
    if (!value_->is_boolean()) wrong_type("true or false");
    return value_->as_boolean()->get();
  }
  // An element count: a non-negative integer, or a string with a K, M or G suffix.
  std::uint64_t count() const {
    if (value_->is_integer()) return static_cast<std::uint64_t>(integer(0, std::numeric_limits<std::int64_t>::max()));
    if (!value_->is_string()) wrong_type("an integer or a string such as \"1M\"");
    const std::string text = string();
    const auto n = parse_count(text);
    if (!n) fail(fmt::format("'{}' is not a count (a non-negative integer, optionally with K, M or G)", text));
    return *n;
  }
  // GB/s or µs: an integer or a floating-point number, finite and >= 0 (> 0 if `positive`).
  double number(bool positive) const {
    double v = 0;
    if (value_->is_integer())
      v = static_cast<double>(value_->as_integer()->get());
    else if (value_->is_floating_point())
      v = value_->as_floating_point()->get();
    else
      wrong_type("a number");
    if (!std::isfinite(v) || v < 0 || (positive && v == 0))
      fail(fmt::format("must be {}, got {}", positive ? "> 0" : ">= 0", v));
    return v;
  }
  const toml::array& array() const {
    if (!value_->is_array()) wrong_type("an array");
    return *value_->as_array();
  }
  // Item i of an array value, named "path[i]".
  Entry item(std::size_t i) const { return Entry(*file_, fmt::format("{}[{}]", path_, i), *array().get(i)); }
  const toml::node& node() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  [[noreturn]] void wrong_type(std::string_view expected) const {
    fail(fmt::format("expected {}, got {}", expected, type_name(*value_)));
  }

 private:
  const std::string* file_;
  std::string path_;
  const toml::node* value_;
};

// The keys of one table, checked against the ones the format defines.
class Table {
 public:
  // `format` names the format in "unknown key" messages: "schedule format 1".
  Table(const std::string& file, std::string prefix, const toml::table& t, std::string format)
      : file_(&file), prefix_(std::move(prefix)), t_(&t), format_(std::move(format)) {}
  // The table an entry holds (fails unless it is one).
  static Table of(const Entry& e, std::string format) {
    if (!e.node().is_table()) e.wrong_type("a table ({ ... })");
    return Table(e.file(), e.path(), *e.node().as_table(), std::move(format));
  }

  void only_keys(std::initializer_list<std::string_view> allowed) const {
    for (auto&& [key, value] : *t_) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      std::string names;
      for (std::string_view a : allowed) names.append(names.empty() ? "" : ", ").append(a);
      const toml::source_position at = key.source().begin;
      throw InputError(fmt::format("{}:{}:{}: key '{}': unknown key ({} knows: {})", *file_, at.line, at.column,
                                   path(key.str()), format_, names));
    }
  }
  std::optional<Entry> find(std::string_view key) const {
    const toml::node* n = t_->get(key);
    if (!n) return std::nullopt;
    return Entry(*file_, path(key), *n);
  }
  // A sub-table such as [collective]; nullopt when absent.
  std::optional<Table> table(std::string_view key) const {
    const std::optional<Entry> e = find(key);
    if (!e) return std::nullopt;
    if (!e->node().is_table()) e->fail(fmt::format("expected a table ([{}]), got {}", key, type_name(e->node())));
    return Table(*file_, path(key), *e->node().as_table(), format_);
  }
  // An array of tables (`overrides = [{ link = "rank3", ... }, ...]`): f(entry, table) for each.
  template <class F>
  void each_table(std::string_view key, F&& f) const {
    const std::optional<Entry> e = find(key);
    if (!e) return;
    if (!e->node().is_array()) e->fail(fmt::format("expected an array of tables, got {}", type_name(e->node())));
    for (std::size_t i = 0; i < e->array().size(); ++i) {
      const Entry item = e->item(i);
      if (!item.node().is_table()) item.fail(fmt::format("expected a table ({{ ... }}), got {}", type_name(item.node())));
      f(item, Table(*file_, item.path(), *item.node().as_table(), format_));
    }
  }
  // "file:line:column" of the table itself.
  int line() const { return static_cast<int>(t_->source().begin.line); }
  int column() const { return static_cast<int>(t_->source().begin.column); }

 private:
  std::string path(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
  }
  const std::string* file_;
  std::string prefix_;
  const toml::table* t_;
  std::string format_;
};

// A string that must be one of `values` (enums with to_string).
template <class E, std::size_t N>
E enum_value(const Entry& e, const E (&values)[N], std::string_view what) {
  const std::string s = e.string();
  for (E v : values)
    if (to_string(v) == s) return v;
  std::string names;
  for (E v : values) names.append(names.empty() ? "" : " ").append(to_string(v));
  e.fail(fmt::format("unknown {} '{}' (use {})", what, s, names));
}

// Parses TOML text; malformed text is an InputError "FILE:LINE:COLUMN: not valid TOML: ...".
// The one way sim/ parses TOML: the text passes check_toml_text first (toml_guard.h says why).
inline toml::table parse_toml(std::string_view text, const std::string& source) {
  check_toml_text(text, source);
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position at = e.source().begin;
    throw InputError(fmt::format("{}:{}:{}: not valid TOML: {}", source, at.line, at.column, e.description()));
  }
}

}  // namespace collsim::toml_fields
