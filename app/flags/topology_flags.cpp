#include "app/flags/topology_flags.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/run/request_fields.h"
#include "sim/schedule/algorithm.h"
#include "sim/core/nearest_name.h"

namespace collsim::flags {
namespace {

// The whole of `text` as a number, or nullopt (strtod alone accepts "12abc").
std::optional<double> parse_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

double positive(std::string_view flag, double v) {
  if (!(v > 0) || !std::isfinite(v)) throw InputError(fmt::format("{}: must be > 0, got {}", flag, v));
  return v;
}

double non_negative(std::string_view flag, double v) {
  if (!(v >= 0) || !std::isfinite(v)) throw InputError(fmt::format("{}: must be >= 0, got {}", flag, v));
  return v;
}

std::string checked_preset(std::string_view flag, const std::string& name) {
  if (!find_link_preset(name))
    throw InputError(fmt::format("{}: unknown link preset '{}' (use {}){}", flag, name, link_preset_names(),
                                 did_you_mean(name, words_of(link_preset_names()))));
  return name;
}

// "KEY=VALUE" split at the first '='; InputError showing the expected shape.
std::pair<std::string, std::string> key_value(std::string_view flag, const std::string& text, std::string_view shape) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(fmt::format("{} '{}': expected {}", flag, text, shape));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// NAME=PRESET, NAME=GBPS or NAME=GBPS,US.
LinkOverride link_override(const std::string& text) {
  const std::string flag = "--link-override";
  const auto [name, value] = key_value(flag, text, "NAME=GBPS[,US] or NAME=PRESET, e.g. rank3=25 or rank3=eth10");
  LinkOverride o{name, std::nullopt, std::nullopt, fmt::format("{} {}", flag, text)};
  if (const LinkPreset* p = find_link_preset(value)) {
    o.bandwidth_gbps = p->bandwidth_gbps;
    o.latency_us = p->latency_us;
    return o;
  }
  const auto comma = value.find(',');
  const auto gbps = parse_number(value.substr(0, comma));
  const auto us =
      comma == std::string::npos ? std::optional<double>(std::nullopt) : parse_number(value.substr(comma + 1));
  if (!gbps || (comma != std::string::npos && !us))
    throw InputError(
        fmt::format("{} '{}': '{}' is neither a preset ({}) nor GBPS[,US]", flag, text, value, link_preset_names()));
  o.bandwidth_gbps = positive(o.origin + ": bandwidth", *gbps);
  if (us) o.latency_us = non_negative(o.origin + ": latency", *us);
  return o;
}

// RANK=NUMBER for --late and --slow.
std::pair<int, double> rank_value(std::string_view flag, const std::string& text, std::string_view unit) {
  const auto [rank_text, value_text] =
      key_value(flag, text, fmt::format("RANK={}, e.g. 3={}", unit, unit == "US" ? "50" : "2"));
  const auto rank = parse_number(rank_text);
  const auto value = parse_number(value_text);
  if (!rank || *rank < 0 || *rank != std::floor(*rank) || *rank > kMaxStreamedRanks)
    throw InputError(fmt::format("{} '{}': '{}' is not a rank", flag, text, rank_text));
  if (!value) throw InputError(fmt::format("{} '{}': '{}' is not a number", flag, text, value_text));
  return {static_cast<int>(*rank), *value};
}

Straggler& straggler_of(std::vector<Straggler>& list, int rank, const std::string& origin) {
  for (Straggler& s : list)
    if (s.rank == rank) return s;
  return list.emplace_back(Straggler{rank, 0, 1, origin});
}

std::vector<Straggler> stragglers(const ModelFlags& f) {
  std::vector<Straggler> list;
  for (const std::string& text : f.late) {
    const auto [rank, us] = rank_value("--late", text, "US");
    straggler_of(list, rank, "--late " + text).late_us = non_negative("--late " + text, us);
  }
  for (const std::string& text : f.slow) {
    const auto [rank, factor] = rank_value("--slow", text, "FACTOR");
    straggler_of(list, rank, "--slow " + text).slow = positive("--slow " + text, factor);
  }
  return list;
}

}  // namespace

TopologyConfig topology_flags(const ModelFlags& f, const FlagGiven& given) {
  const bool file = given("--topology-file");
  TopologyConfig c;
  if (file) {
    c = load_topology_file(f.topology_file);
    c.arrange = Arrangement::algorithm;  // the views' choice and the lesson's stragglers are not the machine's
    c.stragglers.clear();
    // A refusal of the file's kind, link, uplink, group size or NIC names the file, unless a
    // flag typed over it set one of them (then the flag is named).
    const bool typed = given("--topology") || given("--link") || given("--uplink") || given("--group-size") || given("--nic");
    if (!typed) c.file = f.topology_file;
  }
  // A flag with a default (--topology, --nic, --protocol, ...) sets its value when typed, or
  // when no file gives the values.
  const auto sets = [&](std::string_view flag) { return given(flag) || !file; };
  if (sets("--topology")) {
    const auto kind = parse_topology_kind(f.topology);
    if (!kind)
      throw InputError(fmt::format("--topology: unknown topology '{}' (use {}){}", f.topology, topology_kind_names(),
                                   did_you_mean(f.topology, words_of(topology_kind_names()))));
    c.kind = *kind;
  }
  // A preset typed over a topology file replaces the file's figures for those links (the
  // figure flags below still override it): `--uplink ib_ndr` means InfiniBand between nodes.
  // The same rule for flags and suggestions over a scenario's [topology]: kTopologyOverrides
  // (scenario.cpp); here because the file's figures are merged into this one configuration.
  if (given("--link")) {
    c.link = checked_preset("--link", f.link);
    c.bandwidth_gbps.reset();
    c.latency_us.reset();
  }
  if (given("--bandwidth")) c.bandwidth_gbps = positive("--bandwidth", f.bandwidth);
  if (given("--latency")) c.latency_us = non_negative("--latency", f.latency);
  if (given("--uplink")) {
    c.uplink = checked_preset("--uplink", f.uplink);
    c.uplink_bandwidth_gbps.reset();
    c.uplink_latency_us.reset();
  }
  if (given("--uplink-bandwidth")) c.uplink_bandwidth_gbps = positive("--uplink-bandwidth", f.uplink_bandwidth);
  if (given("--uplink-latency")) c.uplink_latency_us = non_negative("--uplink-latency", f.uplink_latency);
  if (given("--group-size") && f.group_size < 1)
    throw InputError(fmt::format("--group-size: must be at least 1, got {}", f.group_size));
  if (sets("--group-size")) c.group_size = f.group_size;
  if (f.nic != "node" && f.nic != "gpu")
    throw InputError(fmt::format("--nic: unknown nic '{}' (use node or gpu)", f.nic));
  if (sets("--nic")) c.nic_per_gpu = f.nic == "gpu";
  if (given("--reduce-rate")) c.reduce_rate_gbps = positive("--reduce-rate", f.reduce_rate);
  if (given("--copy-rate")) c.copy_rate_gbps = positive("--copy-rate", f.copy_rate);
  const auto protocol = parse_protocol(f.protocol);
  if (!protocol)
    throw InputError(fmt::format("--protocol: unknown protocol '{}' (use {})", f.protocol, protocol_names()));
  if (sets("--protocol")) c.protocol = *protocol;
  const auto rule = parse_latency_rule(f.latency_rule);
  if (!rule)
    throw InputError(fmt::format("--latency-rule: unknown rule '{}' (use {})", f.latency_rule, latency_rule_names()));
  if (sets("--latency-rule")) c.latency_rule = *rule;
  const auto arrange = parse_arrangement(f.arrange);
  if (!arrange) throw InputError(fmt::format("--arrange: unknown arrangement '{}' (use {})", f.arrange, arrangement_names()));
  c.arrange = *arrange;
  if (given("--link-override")) {
    c.overrides.clear();
    for (const std::string& text : f.link_overrides) c.overrides.push_back(link_override(text));
  }
  c.stragglers = stragglers(f);
  return c;
}

FlagGiven with_topology_file(const FlagGiven& given) {
  if (!given("--topology-file")) return given;
  return [given](std::string_view flag) {
    if (given(flag)) return true;
    for (std::size_t i = static_cast<std::size_t>(RequestField::topology); i < kRequestFieldCount; ++i) {
      const auto field = static_cast<RequestField>(i);
      if (field == RequestField::arrange || field == RequestField::stragglers) continue;
      for (const std::string_view f : field_flags(field))
        if (f == flag) return true;
    }
    return false;
  };
}

void check_topology_flags(const TopologyConfig& merged, const FlagGiven& given) {
  const std::string_view kind = to_string(merged.kind);
  for (std::string_view flag : {"--uplink", "--uplink-bandwidth", "--uplink-latency"})
    if (given(flag) && !has_uplinks(merged.kind))
      throw InputError(fmt::format("{}: {} has no uplinks (pcie_tree, two_level and star have)", flag, kind));
  if (given("--group-size") && !has_groups(merged.kind))
    throw InputError(fmt::format("--group-size: {} has no groups (pcie_tree and two_level have)", kind));
  if (given("--nic") && merged.kind != TopologyKind::two_level)
    throw InputError(fmt::format("--nic: {} has no network links (two_level has)", kind));
}

}  // namespace collsim::flags
