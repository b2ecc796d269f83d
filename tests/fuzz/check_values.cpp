// The command line's values: counts and sizes ("1M", "64KiB"), numbers, the names of
// collectives, types, ops, topologies, protocols, presets and placements, and the timing
// model's flags (--link-override, --late, --slow ...) through the CLI's own topology_flags.
// The input is lines "--FLAG VALUE"; every line's value is also tried as each kind of value.
// Besides crashes, the check asks what each parser promises: a count or number it accepts
// reads back from its own printed form, and a name it accepts is the one it prints.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/flags/topology_flags.h"
#include "sim/core/errors.h"
#include "sim/core/types.h"
#include "sim/exec/cuda_plan.h"
#include "sim/model/protocol.h"
#include "sim/model/topology.h"
#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {
namespace {

void check_count(std::string_view text) {
  const auto n = parse_count(text);
  if (!n) return;
  const std::string printed = std::to_string(*n);
  if (parse_count(printed) != n) finding(fmt::format("parse_count('{}') = {}, which does not read back", text, *n));
  // The digits times the suffix's power of 1024, nothing else.
  std::uint64_t digits = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) digits = digits * 10 + (text[i] - '0');
  const int shift = i == text.size() ? 0 : text[i] == 'K' || text[i] == 'k' ? 10 : text[i] == 'M' || text[i] == 'm' ? 20 : 30;
  if (digits << shift != *n) finding(fmt::format("parse_count('{}') = {}, not {} << {}", text, *n, digits, shift));
}

void check_number(std::string_view text) {
  const auto v = parse_number(text);
  if (!v || !std::isfinite(*v)) return;
  if (parse_number(fmt::format("{}", *v)) != v) finding(fmt::format("parse_number('{}') = {} does not read back", text, *v));
}

// A name a parser accepts prints as a name that parses to the same value.
template <class Parse>
void check_name(std::string_view text, Parse parse) {
  const auto v = parse(text);
  if (v && parse(to_string(*v)) != v) finding(fmt::format("the name '{}' does not read back", text));
}

void check_scalars(std::string_view text) {
  check_count(text);
  check_number(text);
  check_name(text, parse_collective);
  check_name(text, parse_data_type);
  check_name(text, parse_reduce_op);
  check_name(text, parse_topology_kind);
  check_name(text, parse_protocol);
  check_name(text, parse_cuda_placement);
  (void)find_link_preset(text);
}

// One "--FLAG VALUE" line into the flags, as CLI11 would store it (numbers it could not
// read are left out: CLI11 refuses them before collsim sees them).
void add_flag(flags::ModelFlags& f, std::vector<std::string>& given, std::string_view line) {
  const std::size_t space = line.find(' ');
  const std::string flag(line.substr(0, space));
  const std::string value(space == std::string_view::npos ? "" : line.substr(space + 1));
  const auto number = parse_number(value);
  std::string* text_field = flag == "--topology" ? &f.topology
                            : flag == "--link"   ? &f.link
                            : flag == "--uplink" ? &f.uplink
                            : flag == "--nic"    ? &f.nic
                            : flag == "--protocol" ? &f.protocol
                                                   : nullptr;
  double* number_field = flag == "--bandwidth"          ? &f.bandwidth
                         : flag == "--latency"          ? &f.latency
                         : flag == "--uplink-bandwidth" ? &f.uplink_bandwidth
                         : flag == "--uplink-latency"   ? &f.uplink_latency
                         : flag == "--reduce-rate"      ? &f.reduce_rate
                         : flag == "--copy-rate"        ? &f.copy_rate
                                                        : nullptr;
  if (text_field) {
    *text_field = value;
  } else if (number_field && number) {
    *number_field = *number;
  } else if (flag == "--group-size" && number && *number >= -1e9 && *number <= 1e9) {
    f.group_size = static_cast<int>(*number);
  } else if (flag == "--link-override") {
    f.link_overrides.push_back(value);
  } else if (flag == "--late") {
    f.late.push_back(value);
  } else if (flag == "--slow") {
    f.slow.push_back(value);
  } else {
    return;
  }
  given.push_back(flag);
}

}  // namespace

void check_values(std::string_view input) {
  flags::ModelFlags flags;
  std::vector<std::string> given;
  std::size_t begin = 0;
  while (begin <= input.size()) {
    const std::size_t end = std::min(input.find('\n', begin), input.size());
    const std::string_view line = input.substr(begin, end - begin);
    const std::size_t space = line.find(' ');
    check_scalars(line);
    if (space != std::string_view::npos) check_scalars(line.substr(space + 1));
    add_flag(flags, given, line);
    begin = end + 1;
  }
  const flags::FlagGiven was_given = [&](std::string_view flag) {
    return std::find(given.begin(), given.end(), flag) != given.end();
  };
  try {
    const TopologyConfig config = flags::topology_flags(flags, was_given);
    flags::check_topology_flags(config, was_given);
  } catch (const InputError&) {
    // the documented answer to a bad value: exit 2, naming the flag
  }
}

}  // namespace collsim::fuzz
