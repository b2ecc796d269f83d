// The scenario loader (toml++). Strict on purpose: a teacher's typo ("rank = 8") must be an
// error with a position, not a silently ignored key that runs the default instead. This
// file reads a scenario's frame (format, title, [run], [topology]) and applies flags;
// scenario_lesson.cpp reads what it runs ([collective], [[phase]], [training], [[question]]).
#include "sim/lesson/scenario.h"
#include "sim/lesson/text.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "sim/schedule/algorithm.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/core/toml_fields.h"

namespace collsim {
namespace {

using toml_fields::Entry;
using toml_fields::enum_value;
using toml_fields::Table;

// [run]: how to run it.
void read_run(const Table& t, Scenario& s) {
  t.only_keys({"backend", "model_only", "seed"});
  if (auto e = t.find("backend")) {
    s.backend = e->string();
    if (s.backend != "auto" && s.backend != "cpu" && s.backend != "cuda")
      e->fail(fmt::format("unknown backend '{}' (use auto, cpu or cuda)", s.backend));
  }
  if (auto e = t.find("model_only")) {
    s.model_only = e->boolean();
    if (s.model_only && t.find("backend")) e->fail("a file that runs on the model alone has no backend: leave out 'backend'");
  }
  if (auto e = t.find("seed")) s.request.seed = static_cast<std::uint64_t>(e->integer(0, std::numeric_limits<std::int64_t>::max()));
}

std::string preset(const Entry& e) {
  std::string name = e.string();
  if (!find_link_preset(name)) e.fail(fmt::format("unknown link preset '{}' (use {})", name, link_preset_names()));
  return name;
}

// overrides = [{ link = "rank3", bandwidth = 25.0, latency = 5.0 }, { link = "rank4", preset = "eth10" }]
LinkOverride read_override(const Entry& item, const Table& t) {
  t.only_keys({"link", "preset", "bandwidth", "latency"});
  LinkOverride o;
  const std::optional<Entry> link = t.find("link");
  if (!link) item.fail("needs a `link` (a link's name, e.g. \"rank3\")");
  o.link = link->string();
  o.origin = link->where();
  if (auto e = t.find("preset")) {
    const LinkPreset* p = find_link_preset(preset(*e));
    o.bandwidth_gbps = p->bandwidth_gbps;
    o.latency_us = p->latency_us;
  }
  if (auto e = t.find("bandwidth")) o.bandwidth_gbps = e->number(true);
  if (auto e = t.find("latency")) o.latency_us = e->number(false);
  if (!o.bandwidth_gbps && !o.latency_us) item.fail("gives no `preset`, `bandwidth` or `latency`");
  return o;
}

// stragglers = [{ rank = 3, late = 50.0 }, { rank = 5, slow = 2.0 }]
Straggler read_straggler(const Entry& item, const Table& t) {
  t.only_keys({"rank", "late", "slow"});
  const std::optional<Entry> rank = t.find("rank");
  if (!rank) item.fail("needs a `rank`");
  Straggler s{rank->int32(0, kMaxStreamedRanks - 1), 0, 1, rank->where()};
  if (auto e = t.find("late")) s.late_us = e->number(false);
  if (auto e = t.find("slow")) s.slow = e->number(true);
  return s;
}

// [topology]: what the timing model predicts on. Keys that only some kinds have are
// checked against the file's own kind (the command line may still change it).
void read_topology(const Table& t, TopologyConfig& c) {
  t.only_keys({"kind", "link", "bandwidth", "latency", "uplink", "uplink_bandwidth", "uplink_latency", "group_size",
               "nic", "reduce_rate", "copy_rate", "overrides", "stragglers", "protocol", "latency_rule", "arrange"});
  if (auto e = t.find("kind")) c.kind = enum_value(*e, kAllTopologyKinds, "topology");
  if (auto e = t.find("protocol")) c.protocol = enum_value(*e, kAllProtocols, "protocol");
  if (auto e = t.find("latency_rule")) c.latency_rule = enum_value(*e, kAllLatencyRules, "latency rule");
  if (auto e = t.find("arrange")) c.arrange = enum_value(*e, kAllArrangements, "arrangement");
  if (auto e = t.find("link")) c.link = preset(*e);
  if (auto e = t.find("bandwidth")) c.bandwidth_gbps = e->number(true);
  if (auto e = t.find("latency")) c.latency_us = e->number(false);
  for (std::string_view key : {"uplink", "uplink_bandwidth", "uplink_latency"})
    if (auto e = t.find(key); e && !has_uplinks(c.kind))
      e->fail(fmt::format("{} has no uplinks (pcie_tree, two_level and star have)", to_string(c.kind)));
  if (auto e = t.find("uplink")) c.uplink = preset(*e);
  if (auto e = t.find("uplink_bandwidth")) c.uplink_bandwidth_gbps = e->number(true);
  if (auto e = t.find("uplink_latency")) c.uplink_latency_us = e->number(false);
  if (auto e = t.find("group_size")) {
    if (!has_groups(c.kind)) e->fail(fmt::format("{} has no groups (pcie_tree and two_level have)", to_string(c.kind)));
    c.group_size = e->int32(1, kMaxStreamedRanks);
  }
  if (auto e = t.find("nic")) {
    const std::string nic = e->string();
    if (c.kind != TopologyKind::two_level) e->fail("only two_level has network links");
    if (nic != "node" && nic != "gpu") e->fail(fmt::format("unknown nic '{}' (use node or gpu)", nic));
    c.nic_per_gpu = nic == "gpu";
  }
  if (auto e = t.find("reduce_rate")) c.reduce_rate_gbps = e->number(true);
  if (auto e = t.find("copy_rate")) c.copy_rate_gbps = e->number(true);
  t.each_table("overrides", [&](const Entry& item, const Table& o) { c.overrides.push_back(read_override(item, o)); });
  t.each_table("stragglers", [&](const Entry& item, const Table& o) { c.stragglers.push_back(read_straggler(item, o)); });
}

int read_format(const Table& top, const std::string& file) {
  const std::optional<Entry> format = top.find("format");
  if (!format)
    throw InputError(fmt::format("{}:1:1: key 'format' is missing: a scenario file starts with `format = {}`", file,
                                 kScenarioFormatVersion));
  const std::int64_t version = format->integer(0, std::numeric_limits<std::int64_t>::max());
  if (version < kOldestScenarioFormat || version > kScenarioFormatVersion)
    format->fail(fmt::format("scenario format {} is not supported (this build reads formats {} to {})", version,
                             kOldestScenarioFormat, kScenarioFormatVersion));
  return static_cast<int>(version);
}

// A format 1 file that uses what format 2 added gets told which format it needs, rather
// than "unknown key".
void refuse_format2_keys(const Table& t, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys)
    if (auto e = t.find(key)) e->fail("is new in scenario format 2: start the file with `format = 2` to use it");
}

// Each field the scenario file also sets, with how the user's value replaces the file's.
struct Override {
  RequestField field;
  void (*apply)(RunRequest& to, const RunRequest& from);
};

constexpr Override kOverrides[] = {
    {RequestField::collective, [](RunRequest& t, const RunRequest& f) { t.spec.collective = f.spec.collective; }},
    {RequestField::algorithm,
     [](RunRequest& t, const RunRequest& f) {
       t.algorithm = f.algorithm;
       if (f.algorithm != kCustomAlgorithm) t.options.schedule_file.clear();  // the file's schedule goes with its algorithm
     }},
    {RequestField::schedule,  // a schedule file means the custom algorithm (--algorithm may say so too)
     [](RunRequest& t, const RunRequest& f) {
       t.options.schedule_file = f.options.schedule_file;
       t.algorithm = kCustomAlgorithm;
     }},
    {RequestField::ranks, [](RunRequest& t, const RunRequest& f) { t.spec.ranks = f.spec.ranks; }},
    {RequestField::count, [](RunRequest& t, const RunRequest& f) { t.spec.count = f.spec.count; }},
    {RequestField::dtype, [](RunRequest& t, const RunRequest& f) { t.spec.dtype = f.spec.dtype; }},
    {RequestField::op, [](RunRequest& t, const RunRequest& f) { t.spec.op = f.spec.op; }},
    {RequestField::inputs, [](RunRequest& t, const RunRequest& f) { t.input_values = f.input_values; }},
    {RequestField::root, [](RunRequest& t, const RunRequest& f) { t.spec.root = f.spec.root; }},
    {RequestField::in_place, [](RunRequest& t, const RunRequest& f) { t.spec.in_place = f.spec.in_place; }},
    {RequestField::slices, [](RunRequest& t, const RunRequest& f) { t.options.slices = f.options.slices; }},
    {RequestField::servers, [](RunRequest& t, const RunRequest& f) { t.options.servers = f.options.servers; }},
    {RequestField::colocated, [](RunRequest& t, const RunRequest& f) { t.options.colocated = f.options.colocated; }},
    {RequestField::ranks_per_node, [](RunRequest& t, const RunRequest& f) { t.options.ranks_per_node = f.options.ranks_per_node; }},
    {RequestField::seed, [](RunRequest& t, const RunRequest& f) { t.seed = f.seed; }},
};

struct TopologyOverride {
  RequestField field;
  void (*apply)(TopologyConfig& to, const TopologyConfig& from);
};

// A preset given over the file names what those links are: it takes the figures given with it
// (none: the preset's own), not the file's; the figure fields, applied after, still win.
constexpr TopologyOverride kTopologyOverrides[] = {
    {RequestField::topology, [](TopologyConfig& t, const TopologyConfig& f) { t.kind = f.kind; }},
    {RequestField::link,
     [](TopologyConfig& t, const TopologyConfig& f) {
       t.link = f.link;
       t.bandwidth_gbps = f.bandwidth_gbps;
       t.latency_us = f.latency_us;
     }},
    {RequestField::bandwidth, [](TopologyConfig& t, const TopologyConfig& f) { t.bandwidth_gbps = f.bandwidth_gbps; }},
    {RequestField::latency, [](TopologyConfig& t, const TopologyConfig& f) { t.latency_us = f.latency_us; }},
    {RequestField::uplink,
     [](TopologyConfig& t, const TopologyConfig& f) {
       t.uplink = f.uplink;
       t.uplink_bandwidth_gbps = f.uplink_bandwidth_gbps;
       t.uplink_latency_us = f.uplink_latency_us;
     }},
    {RequestField::uplink_bandwidth, [](TopologyConfig& t, const TopologyConfig& f) { t.uplink_bandwidth_gbps = f.uplink_bandwidth_gbps; }},
    {RequestField::uplink_latency, [](TopologyConfig& t, const TopologyConfig& f) { t.uplink_latency_us = f.uplink_latency_us; }},
    {RequestField::group_size, [](TopologyConfig& t, const TopologyConfig& f) { t.group_size = f.group_size; }},
    {RequestField::nic, [](TopologyConfig& t, const TopologyConfig& f) { t.nic_per_gpu = f.nic_per_gpu; }},
    {RequestField::reduce_rate, [](TopologyConfig& t, const TopologyConfig& f) { t.reduce_rate_gbps = f.reduce_rate_gbps; }},
    {RequestField::copy_rate, [](TopologyConfig& t, const TopologyConfig& f) { t.copy_rate_gbps = f.copy_rate_gbps; }},
    {RequestField::link_override, [](TopologyConfig& t, const TopologyConfig& f) { t.overrides = f.overrides; }},
    {RequestField::protocol, [](TopologyConfig& t, const TopologyConfig& f) { t.protocol = f.protocol; }},
    {RequestField::latency_rule, [](TopologyConfig& t, const TopologyConfig& f) { t.latency_rule = f.latency_rule; }},
    {RequestField::arrange, [](TopologyConfig& t, const TopologyConfig& f) { t.arrange = f.arrange; }},
};

}  // namespace

TopologyConfig apply_topology_overrides(const TopologyConfig& from_file, const TopologyConfig& from_user,
                                        const GivenFields& given) {
  TopologyConfig c = from_file;
  for (const TopologyOverride& o : kTopologyOverrides)
    if (given(o.field)) o.apply(c, from_user);
  if (given(RequestField::stragglers)) c.stragglers = from_user.stragglers;  // the list as a whole
  if (!from_user.file.empty()) c.file = from_user.file;  // a topology file's values: refusals name it
  return c;
}

RunRequest apply_flag_overrides(const RunRequest& from_file, const RunRequest& from_user, const GivenFields& given) {
  RunRequest r = from_file;
  for (const Override& o : kOverrides)
    if (given(o.field)) o.apply(r, from_user);
  return adopt_schedule_spec(std::move(r), given);
}

RunRequest default_run_request() {
  RunRequest r;
  r.spec.count = 1 << 20;
  return r;
}

namespace {

// topology_fixed's keys: the [topology] keys a lesson's text may state facts of. A link's
// figures are facts of its preset too ("NVLink's 0.6 µs a hop"): fixing link also refuses
// --bandwidth and --latency, fixing uplink their uplink flags.
struct FixableKey {
  std::string_view key;
  RequestField field;                     // what topology_fixed holds
  std::vector<RequestField> refused;      // the fields that may not change
};
const FixableKey kFixableTopologyKeys[] = {
    {"kind", RequestField::topology, {RequestField::topology}},
    {"link", RequestField::link, {RequestField::link, RequestField::bandwidth, RequestField::latency}},
    {"uplink", RequestField::uplink, {RequestField::uplink, RequestField::uplink_bandwidth, RequestField::uplink_latency}},
    {"group_size", RequestField::group_size, {RequestField::group_size}},
    {"nic", RequestField::nic, {RequestField::nic}},
    {"stragglers", RequestField::stragglers, {RequestField::stragglers}},
    {"link_override", RequestField::link_override, {RequestField::link_override}},
};

RequestField fixed_topology_field(const std::string& key, const toml_fields::Entry& e) {
  for (const FixableKey& k : kFixableTopologyKeys)
    if (k.key == key) return k.field;
  e.fail(fmt::format("'{}' is not a [topology] key a lesson can fix (use kind, link, uplink, group_size, nic, stragglers "
                     "or link_override)",
                     key));
}

std::string figure(const std::optional<double>& v, std::string_view unit) {
  return v ? fmt::format("{} {}", *v, unit) : "the preset's";
}

// A fixable field's value in `t`, as a student would write it; `shown`: a preset left to the
// kind's default is named (compared, it stays empty: another kind's default is no change of the
// file's link).
std::string fixable_value(RequestField f, const TopologyConfig& t, bool shown = false) {
  switch (f) {
    case RequestField::topology: return std::string(to_string(t.kind));
    case RequestField::link: return t.link.empty() && shown ? std::string(default_link_preset(t.kind)) : t.link;
    case RequestField::bandwidth: return figure(t.bandwidth_gbps, "GB/s");
    case RequestField::latency: return figure(t.latency_us, "us");
    case RequestField::uplink: return t.uplink.empty() && shown ? std::string(default_uplink_preset(t.kind)) : t.uplink;
    case RequestField::uplink_bandwidth: return figure(t.uplink_bandwidth_gbps, "GB/s");
    case RequestField::uplink_latency: return figure(t.uplink_latency_us, "us");
    case RequestField::group_size: return std::to_string(t.group_size);
    case RequestField::nic: return t.nic_per_gpu ? "gpu" : "node";
    case RequestField::stragglers: {
      std::string out;
      for (const Straggler& x : t.stragglers)
        out += fmt::format("{}{{ rank = {}, late = {}, slow = {} }}", out.empty() ? "" : ", ", x.rank, x.late_us, x.slow);
      return out.empty() ? "none" : "[" + out + "]";
    }
    case RequestField::link_override: {
      std::string out;
      for (const LinkOverride& o : t.overrides) out += (out.empty() ? "" : ", ") + o.link;
      return out.empty() ? "none" : "[" + out + "]";
    }
    default: return "";
  }
}

}  // namespace

void refuse_fixed_topology(const Scenario& s, const TopologyConfig& t, bool by_flags) {
  for (const RequestField fixed : s.topology_fixed) {
    const FixableKey& k = *std::find_if(std::begin(kFixableTopologyKeys), std::end(kFixableTopologyKeys),
                                        [fixed](const FixableKey& x) { return x.field == fixed; });
    for (const RequestField f : k.refused) {
      const std::string now = fixable_value(f, t);
      if (fixable_value(f, s.topology) == now) continue;
      // What changed it: a topology file's [topology] (named with its value), a flag, or the app's editor.
      const std::string by = !by_flags          ? fmt::format("topology {}", k.key)
                             : !t.file.empty() ? fmt::format("--topology-file {} ([topology] {} = {})", t.file, k.key,
                                                             fixable_value(fixed, t, true))
                                               : std::string(field_flag(f));
      throw InputError(fmt::format("{}: {} is written for its own [topology] {} = {} (topology_fixed, {}): its text "
                                   "states facts of it; copy the file to change it",
                                   by, s.source, k.key, fixable_value(fixed, s.topology, true), s.topology_fixed_where));
    }
  }
}

std::string clock_name(const toml_fields::Entry& e) {
  std::string c = e.string();
  if (c != "steps" && c != "measured" && c != "predicted")
    e.fail(fmt::format("unknown clock '{}' (use steps, measured or predicted)", c));
  return c;
}

Scenario parse_scenario(std::string_view text, const std::string& source_name) {
  const toml::table doc = toml_fields::parse_toml(text, source_name);
  Scenario s;
  s.source = source_name;
  s.text = std::string(text);
  s.format = read_format(Table(source_name, "", doc, "scenario"), source_name);
  const Table top(source_name, "", doc, fmt::format("scenario format {}", s.format));
  if (s.format == 1) {
    refuse_format2_keys(top, {"caption", "ranks", "ranks_fixed", "ranks_allowed", "phase", "training",
                              "question", "try"});
    if (auto t = top.table("collective")) refuse_format2_keys(*t, {"caption", "step_caption", "step_captions"});
    top.only_keys({"format", "title", "description", "latency_rules", "topology_fixed", "clock", "collective", "run",
                   "topology"});
  } else {
    top.only_keys({"format", "title", "description", "caption", "ranks", "ranks_fixed", "ranks_allowed", "topology_fixed",
                   "latency_rules", "clock",
                   "collective", "phase", "training", "question", "try", "run", "topology"});
  }
  s.request = default_run_request();
  if (auto e = top.find("title")) {
    s.title_template = e->string();
    s.title_where = e->where();
    parse_text(s.title_template, s.title_where);
  }
  if (auto e = top.find("description")) {
    s.description = e->string();
    s.description_where = e->where();
    parse_text(s.description, s.description_where);  // the syntax now; the names once the run is known
  }
  if (auto e = top.find("ranks_allowed")) {
    s.ranks_allowed = e->string();
    s.ranks_allowed_where = e->where();
    parse_text(fmt::format("{{{}}}", s.ranks_allowed), s.ranks_allowed_where);
  }
  if (auto e = top.find("latency_rules")) {
    s.latency_rules.clear();
    for (std::size_t k = 0; k < e->array().size(); ++k)
      s.latency_rules.push_back(enum_value(e->item(k), kAllLatencyRules, "latency rule"));
    if (s.latency_rules.empty()) e->fail("give at least one rule: \"message\" or \"delay\"");
    s.latency_rules_where = e->where();
  }
  if (auto e = top.find("topology_fixed")) {
    for (std::size_t k = 0; k < e->array().size(); ++k)
      s.topology_fixed.push_back(fixed_topology_field(e->item(k).string(), e->item(k)));
    s.topology_fixed_where = e->where();
  }
  if (auto e = top.find("clock")) s.clock = clock_name(*e);
  if (auto e = top.find("ranks_fixed")) {
    // true, or the reason: "its figures are for 2 nodes of 8 GPUs".
    s.ranks_fixed = e->node().is_string() || e->boolean();
    if (e->node().is_string()) s.ranks_fixed_why = e->string();
  }
  if (auto t = top.table("run")) read_run(*t, s);  // first: its seed goes to every phase
  if (auto t = top.table("topology")) read_topology(*t, s.topology);
  read_scenario_program(top, s);
  if (!s.text_holds_under(s.topology.latency_rule))
    throw InputError(fmt::format("{}: key 'topology.latency_rule': \"{}\" is not among the rules the text is written for "
                                 "({}): add it there once the text is true under it",
                                 source_name, to_string(s.topology.latency_rule), s.latency_rules_origin()));
  if (s.format >= 2) read_suggestions(top, text, s);
  render_title(s);
  return s;
}

void read_topology_keys(const Table& t, TopologyConfig& c) { read_topology(t, c); }

std::string Scenario::latency_rules_origin() const {
  return latency_rules_where.empty()
             ? fmt::format("latency_rules, by default the file's own rule [\"{}\"]", to_string(topology.latency_rule))
             : "latency_rules, " + latency_rules_where;
}

bool Scenario::text_holds_under(LatencyRule rule) const {
  if (description.empty() && questions.empty()) return true;
  if (latency_rules.empty()) return rule == topology.latency_rule;
  return std::find(latency_rules.begin(), latency_rules.end(), rule) != latency_rules.end();
}

void render_title(Scenario& s) {
  if (s.title_template.empty()) return;
  // What the title may name: the run's request, which flags change (a lesson of several
  // phases: its ranks only; its phases' own facts come from the run, in the description).
  const bool single = s.single_collective();
  const TextScope scope = [&](std::string_view name) -> std::optional<TextValue> {
    if (name == "ranks") return TextValue::of(s.ranks);
    if (!single) return std::nullopt;
    const RunRequest& r = s.request;
    if (name == "servers") return TextValue::of(r.options.servers);
    if (name == "count") return TextValue::of(static_cast<double>(r.spec.count));
    if (name == "collective") return TextValue::of(std::string(to_string(r.spec.collective)));
    if (name == "algorithm") return TextValue::of(r.algorithm);
    return std::nullopt;
  };
  s.title = render_text(s.title_template, scope, s.title_where,
                        single ? "ranks servers count collective algorithm" : "ranks (a lesson of several phases)");
}

void record_applied(AppliedFlags& applied, const RunRequest& from_user, const TopologyConfig& topology,
                    const GivenFields& given) {
  for (const Override& o : kOverrides)
    if (given(o.field)) {
      o.apply(applied.request, from_user);
      applied.given.add(o.field);
    }
  for (const TopologyOverride& o : kTopologyOverrides)
    if (given(o.field)) {
      o.apply(applied.topology, topology);
      applied.given.add(o.field);
    }
  if (given(RequestField::stragglers)) {
    applied.topology.stragglers = topology.stragglers;
    applied.given.add(RequestField::stragglers);
  }
}

Scenario load_scenario(const std::filesystem::path& path) {
  return parse_scenario(read_text_file(path, "scenario file"), path.string());
}

TopologyConfig parse_topology_file(std::string_view text, const std::string& source_name) {
  const toml::table doc = toml_fields::parse_toml(text, source_name);
  const Table top(source_name, "", doc, "topology file");
  top.only_keys({"topology"});
  const std::optional<Table> t = top.table("topology");
  if (!t)
    throw InputError(fmt::format("{}:1:1: a topology file holds one [topology] table (the scenario format's keys, as "
                                 "`collsim calibrate` writes it); this one has none",
                                 source_name));
  TopologyConfig c;
  read_topology(*t, c);
  return c;
}

TopologyConfig load_topology_file(const std::filesystem::path& path) {
  return parse_topology_file(read_text_file(path, "topology file"), path.string());
}

}  // namespace collsim
