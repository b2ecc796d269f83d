// Internal to collsim's JSON readers (trace_json.cpp, the lesson trace's import): a JSON
// value that knows its path and file, so that every error names both, and the readers of
// the objects the single-run trace and the lesson trace share (docs/trace-format.md).
// Include only from .cpp files that already pay for nlohmann-json: it is slow to compile.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/exec/backend.h"
#include "sim/model/topology.h"
#include "sim/run/run.h"
#include "sim/trace/trace.h"

namespace collsim::json_reading {

using json = nlohmann::json;

// The single-run trace's format, as unknown keys name it.
inline constexpr std::string_view kTraceFormat = "trace format version 1";

// A JSON value with its path ("schedule.transfers[3].src") and file, so that every error
// names both: "trace.json: key 'schedule.transfers[3].src': expected an integer, got string".
class Field {
 public:
  // `format` names the file's format in the message about an unknown key ("trace format version 1").
  Field(const json& j, std::string path, const std::string& file, std::string_view format = kTraceFormat)
      : j_(j), path_(std::move(path)), file_(file), format_(format) {}

  [[noreturn]] void fail(std::string_view problem) const {
    throw InputError(fmt::format("{}: key '{}': {}", file_, path_, problem));
  }

  bool has(std::string_view key) const { return j_.is_object() && j_.contains(key); }
  Field operator[](std::string_view key) const {
    expect(j_.is_object(), "an object");
    const auto it = j_.find(key);
    const std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    if (it == j_.end()) throw InputError(fmt::format("{}: key '{}' is missing", file_, path));
    return Field(*it, path, file_, format_);
  }
  std::size_t size() const {
    expect(j_.is_array(), "an array");
    return j_.size();
  }
  Field at(std::size_t i) const { return Field(j_[i], fmt::format("{}[{}]", path_, i), file_, format_); }
  bool is_null() const { return j_.is_null(); }
  bool is_string() const { return j_.is_string(); }
  bool is_number() const { return j_.is_number(); }
  const json& value() const { return j_; }
  const std::string& file() const { return file_; }
  // "trace.json: key 'predicted.topology_config.overrides[0]'": an origin for make_topology's messages.
  std::string where() const { return fmt::format("{}: key '{}'", file_, path_); }

  // Rejects keys this version does not define: a typo or a newer writer, either way the
  // round trip would silently lose them.
  void only_keys(std::initializer_list<std::string_view> allowed) const {
    expect(j_.is_object(), "an object");
    for (const auto& item : j_.items())
      if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end())
        throw InputError(fmt::format("{}: key '{}{}{}': unknown key ({})", file_, path_, path_.empty() ? "" : ".",
                                     item.key(), format_));
  }

  std::string str() const {
    expect(j_.is_string(), "a string");
    return j_.get<std::string>();
  }
  bool boolean() const {
    expect(j_.is_boolean(), "true or false");
    return j_.get<bool>();
  }
  std::int64_t integer(std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const {
    expect(j_.is_number_integer(), "an integer");
    if (j_.is_number_unsigned() && j_.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) out_of_range(lo, hi);
    const std::int64_t v = j_.get<std::int64_t>();
    if (v < lo || v > hi) out_of_range(lo, hi);
    return v;
  }
  int int32(int lo, int hi) const { return static_cast<int>(integer(lo, hi)); }
  std::uint64_t unsigned_integer() const {
    expect(j_.is_number_integer(), "a non-negative integer");
    if (!j_.is_number_unsigned()) fail(fmt::format("must not be negative, got {}", j_.dump()));
    return j_.get<std::uint64_t>();
  }
  // A number, or one of the strings the exporter writes for non-finite doubles.
  double number() const {
    if (j_.is_string()) {
      const std::string s = j_.get<std::string>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    expect(j_.is_number(), "a number");
    return j_.get<double>();
  }
  std::optional<double> number_or_na() const {
    if (j_.is_string() && j_.get<std::string>() == "n/a") return std::nullopt;
    return number();
  }

  // Parses an enum by the names to_string gives its values.
  template <class E, std::size_t N>
  E name_of(const E (&values)[N], std::string_view what) const {
    const std::string s = str();
    for (E v : values)
      if (to_string(v) == s) return v;
    std::string names;
    for (E v : values) names.append(names.empty() ? "" : ", ").append(to_string(v));
    fail(fmt::format("unknown {} '{}' (expected one of {})", what, s, names));
  }

 private:
  void expect(bool ok, std::string_view what) const {
    if (ok) return;
    std::string got = j_.dump(-1, ' ', false, json::error_handler_t::replace);
    if (got.size() > 40) got = got.substr(0, 37) + "...";
    fail(fmt::format("expected {}, got {} {}", what, j_.type_name(), got));
  }
  [[noreturn]] void out_of_range(std::int64_t lo, std::int64_t hi) const {
    fail(fmt::format("{} is out of range [{}, {}]", j_.dump(), lo, hi));
  }

  const json& j_;
  std::string path_;
  const std::string& file_;
  std::string_view format_;
};

// An array read element by element.
template <class T, class Read>
std::vector<T> read_array(const Field& f, Read&& read) {
  std::vector<T> v;
  v.reserve(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) v.push_back(read(f.at(i)));
  return v;
}

// Parses a whole file's text: malformed JSON is an InputError naming the file, line and
// column; a top level that is not an object names the file and `what` ("a collsim trace").
json parse_document(std::string_view text, const std::string& source_name, std::string_view what);

// The `request` object (json_layout::request_json), checked as `collsim run` checks its flags.
RunRequest read_request(const Field& f);
// A run's `verification` object.
Verification read_verification(const Field& f);
// A topology configuration in the words of a scenario's [topology] (json_layout::topology_config_json).
TopologyConfig read_topology_config(const Field& f);

}  // namespace collsim::json_reading
