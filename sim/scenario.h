// Scenario files: a lesson as a TOML file — a title, a description for the student, and
// the collective to run (docs/scenario-format.md). The CLI runs them today; the GUI will
// list and open them. This header is cheap to include: toml++ appears only in the .cpp.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/lesson.h"
#include "sim/run.h"
#include "sim/topology.h"

namespace collsim {

// The "format" key every scenario file starts with. This build reads format 1 (one
// [collective]) and format 2 (lessons: [[phase]], [training], captions, [[question]]).
inline constexpr int kScenarioFormatVersion = 2;
inline constexpr int kOldestScenarioFormat = 1;

struct Scenario {
  std::string source;       // the file it came from, as given
  std::string title;        // empty when the file has none
  std::string description;  // for the student: what to look for, and why
  // Keys the file leaves out take the command line's defaults: all_reduce with ring on 4
  // ranks, count 1M, f32, sum, root 0, out of place, slices 0 (the algorithm's default),
  // servers 1, not colocated, ranks_per_node 0 (automatic), seed 1.
  RunRequest request;
  std::string backend = "auto";  // auto, cpu or cuda
  // [topology]: what the timing model predicts on (docs/scenario-format.md); the defaults
  // (a switch of NVLink 4 ports) when the file has none.
  TopologyConfig topology;

  // --- lessons (format 2; lesson.h) ---
  int format = 1;
  std::string caption;  // shown with every step of every phase, before the phase's own
  // Every phase in program order: format 1's [collective] is one collective phase, and
  // [training] appends the phases its pattern generates after the file's own [[phase]]s.
  std::vector<Phase> phases;
  std::optional<TrainingSpec> training;
  std::vector<Question> questions;

  // One collective phase over all its steps and nothing else: `request` is that phase's,
  // and the single-run front ends (run, explain, bench, the GUI's run view) apply to it.
  bool single_collective() const;
};

// The request `collsim run` uses when nothing says otherwise (count 1M, unlike RunRequest's 0).
RunRequest default_run_request();

// Whether the user gave a flag (by its long name, e.g. "--ranks") rather than leaving its default.
using FlagGiven = std::function<bool(std::string_view flag)>;

// Flags override a scenario's values, but only the flags the user actually gave: for
// each of --collective --algorithm --ranks --count --dtype --op --root --in-place
// --slices --servers --colocated --ranks-per-node --seed that `given` reports, the
// value in `from_flags` replaces the file's. (--backend is the front end's business.)
// --schedule FILE replaces the file's schedule and selects the algorithm "custom"; an
// --algorithm other than custom drops the file's schedule. Then, for "custom", the
// schedule file's collective, ranks, root and count replace those no flag gave
// (adopt_schedule_spec in custom_schedule.h).
RunRequest apply_flag_overrides(const RunRequest& from_file, const RunRequest& from_flags, const FlagGiven& given);
// The same for [topology]: each of --topology --link --bandwidth --latency --uplink
// --uplink-bandwidth --uplink-latency --group-size --nic --reduce-rate --copy-rate that
// `given` reports replaces the file's value; --link-override replaces the file's
// overrides, and --late or --slow its stragglers, as a whole.
TopologyConfig apply_topology_overrides(const TopologyConfig& from_file, const TopologyConfig& from_flags,
                                        const FlagGiven& given);

// Parses scenario text. Every error is an InputError that starts with
// "SOURCE:LINE:COLUMN:" and names the key ("key 'collective.ranks'"): malformed TOML,
// an unknown key, a wrong type, an impossible value, a missing or unsupported format.
Scenario parse_scenario(std::string_view text, const std::string& source_name);
// Reads and parses a file; an unreadable file is an InputError naming it.
Scenario load_scenario(const std::filesystem::path& path);

}  // namespace collsim
