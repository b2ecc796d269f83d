#include "sim/trace/json_reader.h"

#include <cmath>

#include "sim/core/text_file.h"

namespace collsim::json_reading {
namespace {

// A figure of the configuration, as a scenario's [topology] takes it: finite, and > 0 (a
// bandwidth, a rate, a slow-down) or >= 0 (a latency, a late start).
double figure(const Field& f, bool positive) {
  const double v = f.number();
  if (!std::isfinite(v) || v < 0 || (positive && v == 0))
    f.fail(fmt::format("must be {}, got {}", positive ? "> 0" : ">= 0", v));
  return v;
}

std::optional<double> optional_figure(const Field& f, std::string_view key, bool positive) {
  if (!f.has(key)) return std::nullopt;
  return figure(f[key], positive);
}

std::string preset_name(const Field& f) {
  std::string name = f.str();
  if (!find_link_preset(name)) f.fail(fmt::format("unknown link preset '{}' (use {})", name, link_preset_names()));
  return name;
}

// Overrides and stragglers are checked against the ranks when a re-run resolves the
// topology (make_topology), which names them by their key here.
LinkOverride read_link_override(const Field& f) {
  f.only_keys({"link", "bandwidth", "latency"});
  LinkOverride o{f["link"].str(), optional_figure(f, "bandwidth", true), optional_figure(f, "latency", false),
                 f.where()};
  if (o.link.empty()) f["link"].fail("must not be empty");
  if (!o.bandwidth_gbps && !o.latency_us) f.fail("gives no `bandwidth` or `latency`");
  return o;
}

Straggler read_straggler(const Field& f) {
  f.only_keys({"rank", "late", "slow"});
  Straggler s{f["rank"].int32(0, kMaxStreamedRanks - 1), 0, 1, f.where()};
  if (f.has("late")) s.late_us = figure(f["late"], false);
  if (f.has("slow")) s.slow = figure(f["slow"], true);
  return s;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix: we print our own file:line:column.
std::string parse_problem(const json::parse_error& e) {
  std::string_view what = e.what();
  const auto column = what.find("column ");
  const auto colon = column == std::string_view::npos ? what.find(": ") : what.find(": ", column);
  return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

// nlohmann's own document builder, which also keeps where parsing stopped: its out_of_range
// 406 ("number overflow") names the number but not where it is, unlike its parse errors.
struct LocatingDocumentBuilder : nlohmann::detail::json_sax_dom_parser<json> {
  using json_sax_dom_parser::json_sax_dom_parser;
  std::size_t token_begin = 0;  // where the token at fault begins (bytes from the start)
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    token_begin = position >= token.size() ? position - token.size() : 0;
    return json_sax_dom_parser::parse_error(position, token, e);  // throws e
  }
};

}  // namespace

json parse_document(std::string_view text, const std::string& source_name, std::string_view what) {
  json doc;
  LocatingDocumentBuilder builder(doc, true);
  try {
    json::sax_parse(text, &builder);
  } catch (const json::parse_error& e) {
    // e.byte counts bytes read, so the offending byte is the one before it.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    throw InputError(fmt::format("{}:{}: not valid JSON (a truncated or damaged file?): {}", source_name,
                                 line_column(text, offset), parse_problem(e)));
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number too large for a double
    std::string_view problem = e.what();
    const auto bracket = problem.find("] ");
    throw InputError(fmt::format("{}:{}: not {}: {}", source_name, line_column(text, builder.token_begin), what,
                                 bracket == std::string_view::npos ? problem : problem.substr(bracket + 2)));
  }
  if (!doc.is_object())
    throw InputError(fmt::format("{}: not {} (the top level is a JSON {}, not an object)", source_name, what,
                                 doc.type_name()));
  return doc;
}

RunRequest read_request(const Field& f) {
  f.only_keys({"collective", "algorithm", "ranks", "count", "dtype", "op", "root", "in_place", "slices", "servers",
               "colocated", "ranks_per_node", "seed", "inputs", "schedule_file"});
  RunRequest r;
  r.spec.collective = f["collective"].name_of(kAllCollectives, "collective");
  r.algorithm = f["algorithm"].str();
  if (r.algorithm.empty()) f["algorithm"].fail("must not be empty");
  r.spec.ranks = f["ranks"].int32(1, kMaxRanks);
  r.spec.count = f["count"].unsigned_integer();
  r.spec.dtype = f["dtype"].name_of(kAllDataTypes, "data type");
  r.spec.op = f["op"].name_of(kAllReduceOps, "reduce op");
  r.spec.root = f["root"].int32(0, r.spec.ranks - 1);
  // Keep element indices far from overflow, as build_schedule does for --count.
  if (static_cast<double>(r.spec.count) * r.spec.ranks * static_cast<double>(dtype_size(r.spec.dtype)) > 0x1p50)
    f["count"].fail(fmt::format("{} is absurd for {} ranks", r.spec.count, r.spec.ranks));
  r.spec.in_place = f["in_place"].boolean();
  if (r.spec.in_place && !collective_supports_in_place(r.spec.collective))
    f["in_place"].fail(fmt::format("{} has no in-place form", to_string(r.spec.collective)));
  r.options.slices = f["slices"].int32(0, 1024);
  r.options.servers = f["servers"].int32(1, kMaxRanks);
  r.options.colocated = f["colocated"].boolean();
  r.options.ranks_per_node = f["ranks_per_node"].int32(0, kMaxRanks);
  r.seed = f["seed"].unsigned_integer();
  if (f.has("inputs")) {
    const Field inputs = f["inputs"];
    for (std::size_t i = 0; i < inputs.size(); ++i) r.input_values.push_back(inputs.at(i).number());
    const std::string problem = given_inputs_problem(r.spec.dtype, r.input_values);
    if (r.input_values.empty() || !problem.empty()) inputs.fail(r.input_values.empty() ? "must not be empty" : problem);
  }
  if (f.has("schedule_file")) r.options.schedule_file = f["schedule_file"].str();
  return r;
}

Verification read_verification(const Field& f) {
  f.only_keys({"ok", "checked", "mismatches", "max_error", "first_mismatch", "rule"});
  return {f["ok"].boolean(), f["checked"].unsigned_integer(), f["mismatches"].unsigned_integer(),
          f["max_error"].number(), f["first_mismatch"].str(), f["rule"].str()};
}

// The keys of a scenario's [topology] (scenario.cpp's read_topology), with the same checks
// on each value. Keys a kind does not use are kept, not refused: they were in the
// configuration the prediction was made on, and make_topology ignored them there too.
TopologyConfig read_topology_config(const Field& f) {
  f.only_keys({"kind", "link", "bandwidth", "latency", "uplink", "uplink_bandwidth", "uplink_latency", "group_size",
               "nic", "reduce_rate", "copy_rate", "overrides", "stragglers", "protocol", "latency_rule", "arrange"});
  TopologyConfig c;
  c.kind = f["kind"].name_of(kAllTopologyKinds, "topology");
  if (f.has("protocol")) c.protocol = f["protocol"].name_of(kAllProtocols, "protocol");
  // A trace without the key was written when every prediction held the link per message.
  c.latency_rule = f.has("latency_rule") ? f["latency_rule"].name_of(kAllLatencyRules, "latency rule")
                                         : LatencyRule::message;
  if (f.has("arrange")) c.arrange = f["arrange"].name_of(kAllArrangements, "arrangement");
  if (f.has("link")) c.link = preset_name(f["link"]);
  c.bandwidth_gbps = optional_figure(f, "bandwidth", true);
  c.latency_us = optional_figure(f, "latency", false);
  if (f.has("uplink")) c.uplink = preset_name(f["uplink"]);
  c.uplink_bandwidth_gbps = optional_figure(f, "uplink_bandwidth", true);
  c.uplink_latency_us = optional_figure(f, "uplink_latency", false);
  if (f.has("group_size")) c.group_size = f["group_size"].int32(1, kMaxStreamedRanks);
  if (f.has("nic")) {
    const std::string nic = f["nic"].str();
    if (nic != "node" && nic != "gpu") f["nic"].fail(fmt::format("unknown nic '{}' (use node or gpu)", nic));
    c.nic_per_gpu = nic == "gpu";
  }
  c.reduce_rate_gbps = optional_figure(f, "reduce_rate", true);
  c.copy_rate_gbps = optional_figure(f, "copy_rate", true);
  if (f.has("overrides")) c.overrides = read_array<LinkOverride>(f["overrides"], read_link_override);
  if (f.has("stragglers")) c.stragglers = read_array<Straggler>(f["stragglers"], read_straggler);
  return c;
}

}  // namespace collsim::json_reading
