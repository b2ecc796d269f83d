// The scenario loader (toml++). Strict on purpose: a teacher's typo ("rank = 8") must be an
// error with a position, not a silently ignored key that runs the default instead.
#include "sim/scenario.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "sim/algorithm.h"
#include "sim/errors.h"

namespace collsim {
namespace {

std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

// One key of the file with its value and where it is, so every error can say
// "file:line:column: key 'collective.ranks': ...".
class Entry {
 public:
  Entry(const std::string& file, std::string path, const toml::node& value)
      : file_(file), path_(std::move(path)), value_(value) {}

  [[noreturn]] void fail(std::string_view problem) const {
    const toml::source_position at = value_.source().begin;
    throw InputError(fmt::format("{}:{}:{}: key '{}': {}", file_, at.line, at.column, path_, problem));
  }

  std::string string() const {
    if (!value_.is_string()) wrong_type("a string");
    return std::string(value_.as_string()->get());
  }
  bool boolean() const {
    if (!value_.is_boolean()) wrong_type("true or false");
    return value_.as_boolean()->get();
  }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const {
    if (!value_.is_integer()) wrong_type("an integer");
    const std::int64_t v = value_.as_integer()->get();
    if (v < lo || v > hi) fail(fmt::format("must be between {} and {}, got {}", lo, hi, v));
    return v;
  }
  int int32(int lo, int hi) const { return static_cast<int>(integer(lo, hi)); }
  // An element count: a non-negative integer, or a string with a K, M or G suffix.
  std::uint64_t count() const {
    if (value_.is_integer()) return static_cast<std::uint64_t>(integer(0, std::numeric_limits<std::int64_t>::max()));
    if (!value_.is_string()) wrong_type("an integer or a string such as \"1M\"");
    const std::string text = string();
    const auto n = parse_count(text);
    if (!n) fail(fmt::format("'{}' is not a count (a non-negative integer, optionally with K, M or G)", text));
    return *n;
  }
  const toml::node& node() const { return value_; }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void wrong_type(std::string_view expected) const {
    fail(fmt::format("expected {}, got {}", expected, type_name(value_)));
  }
  const std::string& file_;
  std::string path_;
  const toml::node& value_;
};

// The keys of one table, checked against the ones this format version defines.
class Table {
 public:
  Table(const std::string& file, std::string prefix, const toml::table& t) : file_(file), prefix_(std::move(prefix)), t_(t) {}

  void only_keys(std::initializer_list<std::string_view> allowed) const {
    for (auto&& [key, value] : t_) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      std::string names;
      for (std::string_view a : allowed) names.append(names.empty() ? "" : ", ").append(a);
      const toml::source_position at = key.source().begin;
      throw InputError(fmt::format("{}:{}:{}: key '{}': unknown key (scenario format {} knows: {})", file_, at.line,
                                   at.column, path(key.str()), kScenarioFormatVersion, names));
    }
  }
  std::optional<Entry> find(std::string_view key) const {
    const toml::node* n = t_.get(key);
    if (!n) return std::nullopt;
    return Entry(file_, path(key), *n);
  }
  // A sub-table such as [collective]; nullopt when absent.
  std::optional<Table> table(std::string_view key) const {
    const std::optional<Entry> e = find(key);
    if (!e) return std::nullopt;
    if (!e->node().is_table()) e->fail(fmt::format("expected a table ([{}]), got {}", key, type_name(e->node())));
    return Table(file_, path(key), *e->node().as_table());
  }

 private:
  std::string path(std::string_view key) const { return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key); }
  const std::string& file_;
  std::string prefix_;
  const toml::table& t_;
};

template <class E, std::size_t N>
E enum_value(const Entry& e, const E (&values)[N], std::string_view what) {
  const std::string s = e.string();
  for (E v : values)
    if (to_string(v) == s) return v;
  std::string names;
  for (E v : values) names.append(names.empty() ? "" : " ").append(to_string(v));
  e.fail(fmt::format("unknown {} '{}' (use {})", what, s, names));
}

// [collective]: the same fields as the command-line flags.
void read_collective(const Table& t, RunRequest& r) {
  t.only_keys({"collective", "algorithm", "ranks", "count", "dtype", "op", "root", "in_place", "slices", "servers",
               "colocated", "ranks_per_node"});
  if (auto e = t.find("collective")) r.spec.collective = enum_value(*e, kAllCollectives, "collective");
  if (auto e = t.find("ranks")) r.spec.ranks = e->int32(1, kMaxRanks);
  if (auto e = t.find("count")) r.spec.count = e->count();
  if (auto e = t.find("dtype")) r.spec.dtype = enum_value(*e, kAllDataTypes, "data type");
  if (auto e = t.find("op")) r.spec.op = enum_value(*e, kAllReduceOps, "reduce op");
  if (auto e = t.find("slices")) r.options.slices = e->int32(0, 1024);  // 0: the algorithm's default
  if (auto e = t.find("colocated")) r.options.colocated = e->boolean();
  if (auto e = t.find("ranks_per_node")) r.options.ranks_per_node = e->int32(0, kMaxRanks);
  // Checks that involve two keys, made against the file's own values (the command line
  // may still override either; build_schedule checks the final request).
  if (auto e = t.find("algorithm")) {
    r.algorithm = e->string();
    if (!find_algorithm(r.spec.collective, r.algorithm))
      e->fail(fmt::format("no algorithm '{}' for {} (see `collsim list`)", r.algorithm, to_string(r.spec.collective)));
  }
  if (auto e = t.find("root")) r.spec.root = e->int32(0, r.spec.ranks - 1);
  if (auto e = t.find("servers")) r.options.servers = e->int32(1, r.spec.ranks);
  if (auto e = t.find("in_place")) {
    r.spec.in_place = e->boolean();
    if (r.spec.in_place && !collective_supports_in_place(r.spec.collective))
      e->fail(fmt::format("{} has no in-place form", to_string(r.spec.collective)));
  }
}

// [run]: how to run it.
void read_run(const Table& t, Scenario& s) {
  t.only_keys({"backend", "seed"});
  if (auto e = t.find("backend")) {
    s.backend = e->string();
    if (s.backend != "auto" && s.backend != "cpu" && s.backend != "cuda")
      e->fail(fmt::format("unknown backend '{}' (use auto, cpu or cuda)", s.backend));
  }
  if (auto e = t.find("seed")) s.request.seed = static_cast<std::uint64_t>(e->integer(0, std::numeric_limits<std::int64_t>::max()));
}

void read_format(const Table& top, const std::string& file) {
  const std::optional<Entry> format = top.find("format");
  if (!format)
    throw InputError(fmt::format("{}:1:1: key 'format' is missing: a scenario file starts with `format = {}`", file,
                                 kScenarioFormatVersion));
  if (format->integer(0, std::numeric_limits<std::int64_t>::max()) != kScenarioFormatVersion)
    format->fail(fmt::format("scenario format {} is not supported (this build reads format {})",
                             format->node().as_integer()->get(), kScenarioFormatVersion));
}

// Each flag the scenario file also sets, with how the flag's value replaces the file's.
struct Override {
  std::string_view flag;
  void (*apply)(RunRequest& to, const RunRequest& from);
};

constexpr Override kOverrides[] = {
    {"--collective", [](RunRequest& t, const RunRequest& f) { t.spec.collective = f.spec.collective; }},
    {"--algorithm", [](RunRequest& t, const RunRequest& f) { t.algorithm = f.algorithm; }},
    {"--ranks", [](RunRequest& t, const RunRequest& f) { t.spec.ranks = f.spec.ranks; }},
    {"--count", [](RunRequest& t, const RunRequest& f) { t.spec.count = f.spec.count; }},
    {"--dtype", [](RunRequest& t, const RunRequest& f) { t.spec.dtype = f.spec.dtype; }},
    {"--op", [](RunRequest& t, const RunRequest& f) { t.spec.op = f.spec.op; }},
    {"--root", [](RunRequest& t, const RunRequest& f) { t.spec.root = f.spec.root; }},
    {"--in-place", [](RunRequest& t, const RunRequest& f) { t.spec.in_place = f.spec.in_place; }},
    {"--slices", [](RunRequest& t, const RunRequest& f) { t.options.slices = f.options.slices; }},
    {"--servers", [](RunRequest& t, const RunRequest& f) { t.options.servers = f.options.servers; }},
    {"--colocated", [](RunRequest& t, const RunRequest& f) { t.options.colocated = f.options.colocated; }},
    {"--ranks-per-node", [](RunRequest& t, const RunRequest& f) { t.options.ranks_per_node = f.options.ranks_per_node; }},
    {"--seed", [](RunRequest& t, const RunRequest& f) { t.seed = f.seed; }},
};

}  // namespace

RunRequest apply_flag_overrides(const RunRequest& from_file, const RunRequest& from_flags, const FlagGiven& given) {
  RunRequest r = from_file;
  for (const Override& o : kOverrides)
    if (given(o.flag)) o.apply(r, from_flags);
  return r;
}

RunRequest default_run_request() {
  RunRequest r;
  r.spec.count = 1 << 20;
  return r;
}

Scenario parse_scenario(std::string_view text, const std::string& source_name) {
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const toml::source_position at = e.source().begin;
    throw InputError(fmt::format("{}:{}:{}: not valid TOML: {}", source_name, at.line, at.column, e.description()));
  }
  const Table top(source_name, "", doc);
  top.only_keys({"format", "title", "description", "collective", "run"});
  read_format(top, source_name);
  Scenario s;
  s.source = source_name;
  s.request = default_run_request();
  if (auto e = top.find("title")) s.title = e->string();
  if (auto e = top.find("description")) s.description = e->string();
  if (auto t = top.table("collective")) read_collective(*t, s.request);
  if (auto t = top.table("run")) read_run(*t, s);
  return s;
}

Scenario load_scenario(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot read the scenario file: it is a folder", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the scenario file: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: error while reading the scenario file", path.string()));
  return parse_scenario(text.str(), path.string());
}

}  // namespace collsim
