// Scenario files: a lesson as a TOML file — a title, a description for the student, and
// what to run: one collective, or phases of collectives and compute with captions and
// questions (docs/scenario-format.md). The CLI runs them today; the GUI will
// list and open them. This header is cheap to include: toml++ appears only in the .cpp.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/lesson/lesson.h"
#include "sim/run/request_fields.h"
#include "sim/run/run.h"
#include "sim/model/topology.h"

namespace collsim {

// A lesson that runs on the model alone ([run] model_only) takes up to this many ranks under
// `--ranks`; its views and exports, which show every transfer, still stop at kMaxRanks.
inline constexpr int kMaxModelLessonRanks = 16384;

// The "format" key every scenario file starts with. This build reads format 1 (one
// [collective]) and format 2 (lessons: [[phase]], [training], captions, [[question]]).
inline constexpr int kScenarioFormatVersion = 2;
inline constexpr int kOldestScenarioFormat = 1;

// Fields a user changed over a file's values, as apply_scenario_overrides was given them:
// what a lesson's suggestion applies on top of (apply_suggestion, suggestion.h).
struct AppliedFlags {
  RunRequest request;
  TopologyConfig topology;
  GivenFields given;
};

// One of a lesson's "Try" suggestions, as data (`[[try]]`, docs/scenario-format.md): a change a
// student makes next and what to notice under it. The change is flags (the keys `ranks`, `seed`,
// `collective = {...}` and `topology = {...}`, as the command line's flags set them) and edits of
// the file (`training = {...}`, `phase = { 2 = {...} }`). `collsim validate` and the lesson tests
// run every one.
struct Suggestion {
  std::string origin;  // "file:line:column: key 'try[2]'"
  std::string key;     // "try[2]", for messages that name it without its position
  std::string change;  // as a student types or edits it: "--link pcie4", "set servers = 1 in [training]"
  // What to notice, a template (text.h) over the facts of the run under the change; `was.NAME`
  // names the facts of the run it is suggested from.
  std::string notice, notice_where;
  RunRequest request;  // the flags' values, in the fields `given` names
  TopologyConfig topology;
  GivenFields given;
  std::string edited_text;  // the file's text with the edits and without its suggestions; empty: no edits
};

struct Scenario {
  std::string source;       // the file it came from, as given
  std::string text;         // the file's text, as parsed (a lesson trace carries it: program.h)
  std::string title;        // empty when the file has none; rendered (below)
  // The title as written: a template over the run's request (`{ranks}`, `{servers}`, `{count}`,
  // `{collective}`, `{algorithm}`), rendered into `title` when the file is read and again when
  // flags change the run (apply_scenario_overrides), so every view shows a true title.
  std::string title_template, title_where;
  std::string description;  // for the student: what to look for, and why (a template: captions.h)
  // The lesson's text is true only at its own rank count: `--ranks` with another is refused
  // (docs/scenario-format.md). Without it, numbers that change with the rank count must be
  // computed (placeholders), and `collsim validate` warns about literal ones.
  bool ranks_fixed = false;
  std::string ranks_fixed_why;  // the file's reason (`ranks_fixed = "why"`), for the refusal
  // The rank counts the lesson runs at, as an expression over `ranks` (text.h): "ranks >= 8"
  // (its figures name 8 ranks), "round(ranks / 8) == ranks / 8" (nodes of 8 GPUs). `--ranks`
  // with another count is refused, naming it. Empty: every count.
  std::string ranks_allowed, ranks_allowed_where;
  // The [topology] keys its text states facts of (`topology_fixed = ["group_size"]`: "nodes of
  // 8 GPUs"): a flag or an edit that changes one is refused, naming it (docs/scenario-format.md).
  // Of kind, link, uplink, group_size and nic.
  std::vector<RequestField> topology_fixed;
  std::string topology_fixed_where;
  // The latency rules (timing-model.md) its text is true under: a file with a description
  // explains times under the rule its [topology] runs (delay unless it says latency_rule)
  // unless it lists them, `latency_rules = ["message", "delay"]`; `--latency-rule` with
  // another is refused, naming the key. Empty: the file's own rule only.
  std::vector<LatencyRule> latency_rules;
  std::string latency_rules_where;
  // Whether `rule` keeps the file's text true: always for a file without a description or
  // questions; else one of latency_rules.
  bool text_holds_under(LatencyRule rule) const;
  // Where the rules come from, for a refusal: "latency_rules, FILE:LINE:COL" or the default.
  std::string latency_rules_origin() const;
  // Where the description and the lesson caption were written ("file:line:column: key '...'").
  std::string description_where, caption_where;
  // Keys the file leaves out take the command line's defaults: all_reduce with ring on 4
  // ranks, count 1M, f32, sum, root 0, out of place, slices 0 (the algorithm's default),
  // servers 1, not colocated, ranks_per_node 0 (automatic), seed 1.
  RunRequest request;
  std::string backend = "auto";  // auto, cpu or cuda
  // [run] model_only = true: the file runs on the timing model alone, as `--model-only` runs
  // any file: nothing is allocated or executed (a lesson at sizes no machine here could hold).
  // Every front end runs it so; run_pipeline refuses a request that does not ask for it.
  bool model_only = false;
  // The most ranks `--ranks` may give it: kMaxRanks, or kMaxModelLessonRanks on the model
  // alone, where its phases are predicted from one node's transfers (program.h) or, for
  // algorithms that do not look the same from every node (trees), whole.
  int rank_limit() const;
  // The clock the views open it on ("steps", "measured", "predicted"); empty: steps.
  // A phase's own `clock` (Phase::clock) wins while that phase is shown.
  std::string clock;
  // [topology]: what the timing model predicts on (docs/scenario-format.md); the defaults
  // (a switch of NVLink 4 ports) when the file has none.
  TopologyConfig topology;

  // --- lessons (format 2; lesson.h) ---
  int format = 1;
  std::string caption;  // shown with every step of every phase, before the phase's own
  int ranks = 4;        // every phase's ranks: the workers (a parameter server's servers are extra ranks)
  // Every phase in program order: format 1's [collective] is one collective phase, and
  // [training] appends the phases its pattern generates after the file's own [[phase]]s.
  // Every compute phase has a figure for each rank of the program (zeros for idle ranks).
  std::vector<Phase> phases;
  std::optional<TrainingSpec> training;
  std::vector<Question> questions;
  std::vector<Suggestion> suggestions;  // [[try]], in the file's order
  AppliedFlags applied;                 // what the user's flags changed (apply_scenario_overrides)
  // What --ranks needs to redo the phases (apply_scenario_overrides): phases[0..file_phases)
  // are the file's own, the rest generated by `training`; compute_every_worker[i] says file
  // phase i's `compute` was one figure for every worker rank, not an array per rank.
  std::size_t file_phases = 0;
  std::vector<bool> compute_every_worker;

  // One collective phase over all its steps and nothing else: `request` is that phase's,
  // and the single-run front ends (run, explain, bench, the GUI's run view) apply to it.
  bool single_collective() const;
};

// The request `collsim run` uses when nothing says otherwise (count 1M, unlike RunRequest's 0).
RunRequest default_run_request();

// A user's values override a scenario's, but only the fields the user gave (`given`,
// run/request_fields.h; the CLI's flags, the app's run editor). For each of collective,
// algorithm, ranks, count, dtype, op, inputs, root, in_place, slices, servers, colocated,
// ranks_per_node and seed given, the value in `from_user` replaces the file's. (The
// backend is the front end's business.) A given schedule file replaces the file's schedule
// and selects the algorithm "custom"; a given algorithm other than custom drops the file's
// schedule. Then, for "custom", the schedule file's collective, ranks, root and count
// replace those not given (adopt_schedule_spec in custom_schedule.h).
RunRequest apply_flag_overrides(const RunRequest& from_file, const RunRequest& from_user, const GivenFields& given);
// The same for [topology]: each of topology, link, bandwidth, latency, uplink,
// uplink_bandwidth, uplink_latency, group_size, nic, reduce_rate, copy_rate and protocol
// given replaces the file's value; link_override replaces the file's overrides, and
// stragglers its stragglers, as a whole.
// topology_fixed: `t`, the topology that flags (by_flags) or an edit in the app make of the
// file's, must keep the file's value of each fixed key; else an InputError names the flag (or
// the key) and the file's value.
void refuse_fixed_topology(const Scenario& s, const TopologyConfig& t, bool by_flags);
TopologyConfig apply_topology_overrides(const TopologyConfig& from_file, const TopologyConfig& from_user,
                                        const GivenFields& given);
// Both for a whole scenario, the way front ends apply what the user gave. A
// single-collective scenario (single_collective()) takes every field as above, and its
// phase follows its request. A lesson of several phases takes ranks (every phase; roots,
// servers and compute figures per rank must still fit, and [training] generates its phases
// again), seed and the topology's fields; the fields that change one collective
// (collective, algorithm, count, dtype, op, inputs, root, in_place, slices, servers,
// colocated, ranks_per_node, schedule) are refused with an InputError, naming the field by
// its flag (field_flag), that says to edit the file instead.
Scenario apply_scenario_overrides(const Scenario& s, const RunRequest& from_user, const TopologyConfig& topology_from_user,
                                  const GivenFields& given);

// The scenario again with a whole run's changes and topology (the app's run editor, and a
// lesson trace's import, which carries the run its lesson was given): a single collective takes the
// whole edited run (its captions only while the collective and algorithm stay the file's:
// they describe those); a lesson of several phases takes the ranks (every phase, and
// [training] generates its phases again) and the seed. The questions never stop a re-run:
// one the new run cannot answer says why (Lesson::answers).
Scenario rerun_scenario(const Scenario& s, const RunRequest& edited, const TopologyConfig& topology);

// Parses scenario text. Every error is an InputError that starts with
// "SOURCE:LINE:COLUMN:" and names the key ("key 'collective.ranks'"): malformed TOML,
// an unknown key, a wrong type, an impossible value, a missing or unsupported format.
Scenario parse_scenario(std::string_view text, const std::string& source_name);
// Reads and parses a file; an unreadable file is an InputError naming it.
Scenario load_scenario(const std::filesystem::path& path);

// A topology file (--topology-file; `collsim calibrate` writes one): a [topology] table with
// the scenario format's keys and nothing else, read and checked as a scenario's is. Its
// errors name the file, line, column and key.
TopologyConfig parse_topology_file(std::string_view text, const std::string& source_name);
TopologyConfig load_topology_file(const std::filesystem::path& path);

namespace toml_fields {
class Table;
class Entry;
}
// Where the loader's two files meet; not for front ends (a Table needs toml++, which only
// sim/'s .cpp files see). scenario.cpp reads the frame of the file (format, title, [run],
// [topology]) and calls this for what it runs: format 1's [collective]; format 2's
// [collective] or [[phase]]s and [training], and its [[question]]s (scenario_lesson.cpp).
void read_scenario_program(const toml_fields::Table& top, Scenario& s);
// The keys of a [collective] (or a suggestion's `collective = {...}`) and of a [topology] into
// a request and a configuration: the values only, each checked as the file's own are.
void read_collective_keys(const toml_fields::Table& t, RunRequest& r);
void read_topology_keys(const toml_fields::Table& t, TopologyConfig& c);
// [[try]] (suggestion.cpp): after everything else, as a suggestion's flags are checked against
// the file's own collective and topology. `text` is the file's text, which the edits change.
void read_suggestions(const toml_fields::Table& top, std::string_view text, Scenario& s);
// `title` from `title_template`, at the scenario's request (scenario.cpp); InputError naming
// the title's key for an unknown name.
void render_title(Scenario& s);
// What apply_scenario_overrides was given, added to what the scenario had been given before.
void record_applied(AppliedFlags& applied, const RunRequest& from_user, const TopologyConfig& topology,
                    const GivenFields& given);
// `clock = "..."` (a scenario's or a phase's) as written, once it names one of the views'
// three clocks; InputError naming the file, line and key otherwise.
std::string clock_name(const toml_fields::Entry& e);

}  // namespace collsim
