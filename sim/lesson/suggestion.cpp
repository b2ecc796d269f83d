// [[try]]: a lesson's suggestions read from its file, and run. A suggestion's flags are read with
// the readers of [collective] and [topology] (so a value is checked as the file's own is), and
// are then applied as the command line applies flags (apply_scenario_overrides); its edits of
// [training] and [[phase]]s change a copy of the file's TOML, which is read again at once so that
// a bad edit is an error now, naming the suggestion.
#include "sim/lesson/suggestion.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "sim/core/errors.h"
#include "sim/core/toml_fields.h"
#include "sim/lesson/text.h"

namespace collsim {
namespace {

using toml_fields::Entry;
using toml_fields::Table;

// The keys of a suggestion's `collective = {...}` and `topology = {...}`, with the field each sets.
constexpr std::pair<std::string_view, RequestField> kCollectiveKeys[] = {
    {"collective", RequestField::collective}, {"algorithm", RequestField::algorithm},
    {"count", RequestField::count},           {"dtype", RequestField::dtype},
    {"op", RequestField::op},                 {"root", RequestField::root},
    {"in_place", RequestField::in_place},     {"slices", RequestField::slices},
    {"servers", RequestField::servers},       {"colocated", RequestField::colocated},
    {"ranks_per_node", RequestField::ranks_per_node},
};
constexpr std::pair<std::string_view, RequestField> kTopologyKeys[] = {
    {"kind", RequestField::topology},
    {"link", RequestField::link},
    {"bandwidth", RequestField::bandwidth},
    {"latency", RequestField::latency},
    {"uplink", RequestField::uplink},
    {"uplink_bandwidth", RequestField::uplink_bandwidth},
    {"uplink_latency", RequestField::uplink_latency},
    {"group_size", RequestField::group_size},
    {"nic", RequestField::nic},
    {"reduce_rate", RequestField::reduce_rate},
    {"copy_rate", RequestField::copy_rate},
    {"protocol", RequestField::protocol},
    {"latency_rule", RequestField::latency_rule},
    {"arrange", RequestField::arrange},
    {"stragglers", RequestField::stragglers},
};

// A value as a command line or a TOML file writes it: "pcie4", "1M", 8, 2.5, true.
std::string value_words(const toml::node& n, bool quoted) {
  if (const auto* v = n.as_string()) return quoted ? fmt::format("\"{}\"", v->get()) : std::string(v->get());
  if (const auto* v = n.as_integer()) return fmt::format("{}", v->get());
  if (const auto* v = n.as_floating_point()) return fmt::format("{}", v->get());
  if (const auto* v = n.as_boolean()) return v->get() ? "true" : "false";
  std::vector<std::string> parts;
  if (const auto* a = n.as_array()) {
    for (const toml::node& item : *a) parts.push_back(value_words(item, true));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  if (const auto* t = n.as_table())
    for (const auto& [key, item] : *t) parts.push_back(fmt::format("{} = {}", key.str(), value_words(item, true)));
  return fmt::format("{{ {} }}", fmt::join(parts, ", "));
}

// "--flag value" (a boolean flag: "--flag" when true).
std::string flag_words(RequestField field, const toml::node& value) {
  if (value.is_boolean()) return value.as_boolean()->get() ? std::string(field_flag(field)) : "";
  return fmt::format("{} {}", field_flag(field), value_words(value, false));
}

// stragglers = [{ rank = 2, late = 0, slow = 1 }] as the command line gives it: "--late 2=0 --slow 2=1".
std::string straggler_words(const Entry& e) {
  std::string out;
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    const toml::table* t = e.array().get(i)->as_table();
    if (!t || !t->get("rank")) continue;  // read_topology_keys said why
    const std::string rank = value_words(*t->get("rank"), false);
    for (const char* key : {"late", "slow"})
      if (const toml::node* v = t->get(key))
        out.append(out.empty() ? "" : " ").append(fmt::format("--{} {}={}", key, rank, value_words(*v, false)));
  }
  return out;
}

void add_words(std::string& to, const std::string& words) {
  if (!words.empty()) to.append(to.empty() ? "" : " ").append(words);
}

using FlagKeys = std::span<const std::pair<std::string_view, RequestField>>;

// A suggestion's `collective = {...}` or `topology = {...}` holds flags only.
void only_flag_keys(const Entry& table, const Table& t, FlagKeys keys, std::string_view what) {
  std::vector<std::string_view> names;
  for (const auto& [key, field] : keys) names.push_back(key);
  for (const auto& [key, value] : *table.node().as_table())
    if (std::find(names.begin(), names.end(), key.str()) == names.end())
      t.find(key.str())->fail(fmt::format("is not a flag a suggestion can set ({} keys: {})", what, fmt::join(names, ", ")));
}

// Each key the table has: its field given, and its flag in the change's words.
void add_given(const Table& t, FlagKeys keys, Suggestion& out) {
  for (const auto& [key, field] : keys)
    if (auto e = t.find(key)) {
      out.given.add(field);
      add_words(out.change, field == RequestField::stragglers ? straggler_words(*e) : flag_words(field, e->node()));
    }
}

// The flags of a suggestion: `ranks`, `seed`, `collective = {...}`, `topology = {...}`.
void read_flags(const Table& t, const Scenario& s, Suggestion& out) {
  // The file's values under the given ones, so that checks of two keys (a root below the ranks,
  // uplink keys for a kind that has uplinks) see what the run will have.
  out.request = s.request;
  out.topology = s.topology;
  if (auto e = t.find("ranks")) {
    out.request.spec.ranks = e->int32(1, s.rank_limit());
    out.given.add(RequestField::ranks);
    add_words(out.change, flag_words(RequestField::ranks, e->node()));
  }
  if (auto e = t.find("seed")) {
    out.request.seed = static_cast<std::uint64_t>(e->integer(0, std::numeric_limits<std::int64_t>::max()));
    out.given.add(RequestField::seed);
    add_words(out.change, flag_words(RequestField::seed, e->node()));
  }
  if (auto c = t.table("collective")) {
    only_flag_keys(*t.find("collective"), *c, kCollectiveKeys, "collective");
    read_collective_keys(*c, out.request);
    add_given(*c, kCollectiveKeys, out);
  }
  if (auto c = t.table("topology")) {
    only_flag_keys(*t.find("topology"), *c, kTopologyKeys, "topology");
    out.topology.stragglers.clear();  // the suggestion's list replaces the file's, as --late and --slow do
    read_topology_keys(*c, out.topology);
    add_given(*c, kTopologyKeys, out);
  }
}

// "set servers = 1 in [training]"; a phase's: "set slices = 1 in phase 2", the same change in
// several phases "set algorithm = "direct" in phases 1 and 3".
std::string edit_words(const std::vector<std::pair<std::string, std::vector<int>>>& edits) {
  std::string out;
  for (const auto& [assignment, phases] : edits) {
    std::string where = "[training]";
    if (!phases.empty()) {
      std::vector<std::string> numbers;
      for (const int p : phases) numbers.push_back(std::to_string(p));
      const std::string last = numbers.back();
      numbers.pop_back();
      where = numbers.empty() ? "phase " + last : fmt::format("phases {} and {}", fmt::join(numbers, ", "), last);
    }
    out.append(out.empty() ? "" : ", ").append(fmt::format("set {} in {}", assignment, where));
  }
  return out;
}

void add_edit(std::vector<std::pair<std::string, std::vector<int>>>& edits, std::string assignment, int phase) {
  for (auto& [a, phases] : edits)
    if (a == assignment && phase > 0 && !phases.empty()) {
      phases.push_back(phase);
      return;
    }
  edits.emplace_back(std::move(assignment), phase > 0 ? std::vector<int>{phase} : std::vector<int>{});
}

// `training = {...}` and `phase = { 2 = {...} }`: the file's TOML with those keys replaced.
void read_edits(const Table& t, std::string_view text, const Scenario& s, Suggestion& out) {
  const std::optional<Entry> training = t.find("training"), phase = t.find("phase");
  if (!training && !phase) return;
  toml::table doc = toml_fields::parse_toml(text, s.source);
  doc.erase("try");
  std::vector<std::pair<std::string, std::vector<int>>> edits;
  if (training) {
    toml::table* to = doc["training"].as_table();
    if (!to) training->fail("the lesson has no [training] to edit");
    if (!training->node().is_table()) training->wrong_type("a table ({ servers = 1 })");
    for (const auto& [key, value] : *training->node().as_table()) {
      to->insert_or_assign(key.str(), value);
      add_edit(edits, fmt::format("{} = {}", key.str(), value_words(value, true)), 0);
    }
  }
  if (phase) {
    toml::array* phases = doc["phase"].as_array();
    if (!phases) phase->fail("the lesson has no [[phase]]s to edit");
    if (!phase->node().is_table()) phase->wrong_type("a table of phase numbers ({ 2 = { slices = 1 } })");
    for (const auto& [key, value] : *phase->node().as_table()) {
      const Entry e(phase->file(), fmt::format("{}.{}", phase->path(), key.str()), value);
      int number = 0;
      const auto [end, ec] = std::from_chars(key.str().data(), key.str().data() + key.str().size(), number);
      if (ec != std::errc{} || end != key.str().data() + key.str().size() || number < 1 ||
          number > static_cast<int>(phases->size()))
        e.fail(fmt::format("names no phase of the file (its [[phase]]s are 1..{})", phases->size()));
      if (!value.is_table()) e.wrong_type("a table ({ slices = 1 })");
      toml::table* to = phases->get(static_cast<std::size_t>(number - 1))->as_table();
      for (const auto& [k, v] : *value.as_table()) {
        to->insert_or_assign(k.str(), v);
        add_edit(edits, fmt::format("{} = {}", k.str(), value_words(v, true)), number);
      }
    }
  }
  std::ostringstream os;
  os << doc;
  out.edited_text = os.str();
  add_words(out.change, (out.change.empty() ? "" : "and ") + edit_words(edits));
  try {
    parse_scenario(out.edited_text, s.source);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}: the file with this change does not read: {}", out.origin, out.change, e.what()));
  }
}

}  // namespace

void read_suggestions(const Table& top, std::string_view text, Scenario& s) {
  const std::optional<Entry> tries = top.find("try");
  if (!tries) return;
  if (!tries->node().is_array()) tries->wrong_type("[[try]] tables");
  for (std::size_t i = 0; i < tries->array().size(); ++i) {
    const Entry item(tries->file(), fmt::format("try[{}]", i + 1), *tries->array().get(i));
    const Table t = Table::of(item, "a suggestion ([[try]])");
    t.only_keys({"ranks", "seed", "collective", "topology", "training", "phase", "notice"});
    Suggestion out;
    out.origin = item.where();
    out.key = item.path();
    read_flags(t, s, out);
    read_edits(t, text, s, out);
    if (out.change.empty()) item.fail("changes nothing: give flags (ranks, collective, topology, seed) or edits (training, phase)");
    if (auto e = t.find("notice")) {
      out.notice = e->string();
      out.notice_where = e->where();
      parse_text(out.notice, out.notice_where);  // the syntax now; the names once the run is known
    }
    s.suggestions.push_back(std::move(out));
  }
}

std::string suggestion_name(const Suggestion& t) { return fmt::format("{} ({})", t.origin, t.change); }

namespace {
// A suggestion's link or uplink preset replaces that link's figures, as --link does; the
// figures the user typed (--bandwidth, --latency and the uplink's) stay, as they would on the
// command line the Try line stands for (figure flags beat presets, whatever their order).
void keep_typed_figures(Scenario& out, const Scenario& s, const Suggestion& t) {
  const auto keep = [&](RequestField f, std::optional<double> TopologyConfig::*figure) {
    if (s.applied.given(f) && !t.given(f)) out.topology.*figure = s.applied.topology.*figure;
  };
  keep(RequestField::bandwidth, &TopologyConfig::bandwidth_gbps);
  keep(RequestField::latency, &TopologyConfig::latency_us);
  keep(RequestField::uplink_bandwidth, &TopologyConfig::uplink_bandwidth_gbps);
  keep(RequestField::uplink_latency, &TopologyConfig::uplink_latency_us);
}
}  // namespace

Scenario apply_suggestion(const Scenario& s, std::size_t k) {
  const Suggestion& t = s.suggestions.at(k);
  try {
    Scenario base = s;
    if (!t.edited_text.empty()) {
      base = parse_scenario(t.edited_text, s.source);
      if (s.applied.given.any()) base = apply_scenario_overrides(base, s.applied.request, s.applied.topology, s.applied.given);
    }
    base.suggestions.clear();
    if (!t.given.any()) return base;
    Scenario out = apply_scenario_overrides(base, t.request, t.topology, t.given);
    keep_typed_figures(out, s, t);
    return out;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", suggestion_name(t), e.what()));
  }
}

SuggestedRun run_suggestion(const Scenario& s, std::size_t k) {
  SuggestedRun r{apply_suggestion(s, k), {}, {}};
  try {
    r.program = prepare_program(r.scenario, /*model_only=*/true);
    predict_program(r.program, r.scenario, r.scenario.topology);
  } catch (const InputError& e) {
    const Suggestion& t = s.suggestions.at(k);
    throw InputError(fmt::format("{}: {}", suggestion_name(t), e.what()));
  }
  r.facts = lesson_facts(r.scenario, r.program);
  return r;
}

}  // namespace collsim
