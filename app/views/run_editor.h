// The toolbar's run editor as plain data (no ImGui): the fields a student edits — the
// collective and its options, the topology the times are predicted on, the algorithm to
// compare with — and how they become a RunRequest and a TopologyConfig. Text fields
// (count, the figures and rates, the link overrides' figures) are kept as typed; turning
// them into numbers is the one check made here (and that an override gives a figure).
// Everything else (a root beyond the ranks, in place for a collective without an in-place
// form, a zero bandwidth, a link the topology does not have) is left to the library, whose
// InputError the window shows.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/run.h"
#include "sim/model/topology.h"

namespace collsim::gui {

struct RunEditor {
  int collective = 0;  // index into kAllCollectives
  std::string algorithm = "ring";
  int ranks = 4, slices = 0, servers = 1, ranks_per_node = 0, root = 0;
  bool colocated = false, in_place = false;
  DataType dtype = DataType::f32;
  ReduceOp op = ReduceOp::sum;
  std::string count = "1M";
  std::uint64_t seed = 1;
  std::string schedule_file;  // the custom algorithm's, kept from the scenario (not editable here)
  // What the timing model predicts on. The toolbar edits every field: kind, link, uplink,
  // group_size, nic_per_gpu and the stragglers here; the figures below as typed (the
  // topology's own figures, rates and overrides are replaced by them in topology_config).
  TopologyConfig topology;
  std::string bandwidth, latency;  // override the link preset's figures (GB/s, µs); empty: the preset's
  std::string uplink_bandwidth, uplink_latency;  // the same for the uplink preset (kinds with uplinks)
  std::string reduce_rate, copy_rate;            // GB/s; empty: the defaults (kDefaultReduceRateGbps, ...)
  // One link with figures of its own: its name ("rank3", "uplink0") and its figures as
  // typed; an empty figure keeps the link's own.
  struct OverrideRow {
    std::string link, bandwidth, latency;
  };
  std::vector<OverrideRow> overrides;
  std::string compare;  // the algorithm to run side by side; empty: none

  Collective collective_kind() const;
  // Takes the fields of a run that was loaded (its request and topology).
  void load(const RunRequest& r, const TopologyConfig& t);
  // Another topology kind: the link preset and figures, the compute rates and the
  // stragglers stay (every kind has rank links and ranks); what only some kinds have
  // (uplinks, groups, the NIC choice) and the link overrides (named after another kind's
  // links) are dropped.
  void set_topology_kind(TopologyKind k);
  // The stragglers' list (topology.stragglers), as the toolbar's popup edits it. Their
  // figures are the library's to check when the run starts (a rank beyond the ranks, a
  // negative late start, a slow-down <= 0), as every other field's.
  void add_straggler(int rank, double late_us, double slow);
  void add_straggler();  // the first rank not listed yet, 10 µs late
  void remove_straggler(std::size_t k);
  // The link overrides, as the "links…" popup edits them. Whether the topology has the link
  // is the library's to check when the run starts (its message names the row).
  void add_override(std::string link, std::string bandwidth, std::string latency);
  void add_override();  // the first uplink (kinds with uplinks) or rank link not listed yet, figures empty
  void remove_override(std::size_t k);
  // The request; nullopt and `error` set when the count does not parse.
  std::optional<RunRequest> request(std::string& error) const;
  // The topology; nullopt and `error` set when a figure is not a number or an override
  // row gives neither figure (a scenario could not say it). The stragglers are named
  // "straggler K (toolbar)" and the overrides "link override K (toolbar)" in the
  // library's messages.
  std::optional<TopologyConfig> topology_config(std::string& error) const;
};

// "450" for 450.0, "0.6", "1e-05": the shortest text that reads back as the same double.
std::string format_figure(double v);

}  // namespace collsim::gui
