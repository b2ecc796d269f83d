// The timing model's flags on a command line (`collsim run`, `collsim bench`, `collsim-gui`):
// the values as typed, and the topology they describe. No CLI11 here (run_flags.cpp registers
// the flags into ModelFlags), and nothing but sim/ below: the fuzz target of the command
// line's values (tests/fuzz/) calls it without the rest.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/topology.h"

namespace collsim::flags {

// Whether the user gave a flag on the command line (e.g. "--ranks"), as opposed to its
// default: only flags actually given override a scenario file's values (fields_given_by_flags,
// run_plan.h, tells sim/ which fields they set).
using FlagGiven = std::function<bool(std::string_view flag)>;

// The flags as typed. Numbers are only read when the flag was given (FlagGiven), so a
// scenario's [topology] keeps its values for the flags left out.
struct ModelFlags {
  std::string topology = "switch", link, uplink, nic = "node", protocol = "none", latency_rule = "delay", arrange = "algorithm";
  double bandwidth = 0, latency = 0, uplink_bandwidth = 0, uplink_latency = 0, reduce_rate = 0, copy_rate = 0;
  int group_size = 0;
  std::vector<std::string> link_overrides;  // NAME=GBPS[,US] or NAME=PRESET
  std::vector<std::string> late;            // RANK=US
  std::vector<std::string> slow;            // RANK=FACTOR
  std::string topology_file;  // --topology-file: a [topology] table (collsim calibrate writes one)
  bool model_only = false;
};

// The topology the flags describe. InputError naming the flag and its value for anything
// malformed: an unknown kind or preset, a bandwidth <= 0, "--late 3:50". With
// --topology-file, the file's [topology] first (load_topology_file: its errors name the
// file, line and key), then the flags typed beside it, key by key. `given` is what was
// typed (not with_topology_file's).
TopologyConfig topology_flags(const ModelFlags& f, const FlagGiven& given);

// What a --topology-file stands for downstream: every topology flag but --arrange, --late
// and --slow counts as given, so the file replaces a scenario's [topology] as a whole (its
// kind, links, rates, protocol and latency rule: the machine it runs on), while the
// scenario's arrangement and stragglers (its story) stay. Without --topology-file, `given`.
FlagGiven with_topology_file(const FlagGiven& given);

// Flags that only some topologies have, given for one that lacks them (after a scenario's
// [topology] is merged in): InputError naming the flag, e.g. "--group-size: switch has no
// groups (pcie_tree and two_level have)".
void check_topology_flags(const TopologyConfig& merged, const FlagGiven& given);

}  // namespace collsim::flags
