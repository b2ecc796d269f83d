#include "app/views/export.h"

#include <fmt/format.h>

#include "sim/schedule/algorithm.h"

#include "sim/core/errors.h"
#include "sim/core/output_files.h"

namespace collsim::gui {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + '"';
}

// A TOML number: the shortest text that reads back as the same double, with a fraction
// or an exponent so that it is a float ("450.0", "0.6", "1e-05").
std::string toml_number(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // (n: inf, nan, which no figure is)
  return s;
}

// [topology]: every key the configuration sets, and only the keys its kind accepts.
std::string topology_toml(const TopologyConfig& t) {
  std::string out = fmt::format("\n[topology]\nkind = \"{}\"\n", to_string(t.kind));
  if (!t.link.empty()) out += fmt::format("link = {}\n", toml_string(t.link));
  if (t.bandwidth_gbps) out += fmt::format("bandwidth = {}\n", toml_number(*t.bandwidth_gbps));
  if (t.latency_us) out += fmt::format("latency = {}\n", toml_number(*t.latency_us));
  if (has_uplinks(t.kind)) {
    if (!t.uplink.empty()) out += fmt::format("uplink = {}\n", toml_string(t.uplink));
    if (t.uplink_bandwidth_gbps) out += fmt::format("uplink_bandwidth = {}\n", toml_number(*t.uplink_bandwidth_gbps));
    if (t.uplink_latency_us) out += fmt::format("uplink_latency = {}\n", toml_number(*t.uplink_latency_us));
  }
  if (has_groups(t.kind) && t.group_size > 0) out += fmt::format("group_size = {}\n", t.group_size);
  if (t.kind == TopologyKind::two_level) out += fmt::format("nic = \"{}\"\n", t.nic_per_gpu ? "gpu" : "node");
  if (t.reduce_rate_gbps) out += fmt::format("reduce_rate = {}\n", toml_number(*t.reduce_rate_gbps));
  if (t.copy_rate_gbps) out += fmt::format("copy_rate = {}\n", toml_number(*t.copy_rate_gbps));
  if (t.protocol != Protocol::none) out += fmt::format("protocol = \"{}\"\n", to_string(t.protocol));
  if (t.arrange != Arrangement::algorithm) out += fmt::format("arrange = \"{}\"\n", to_string(t.arrange));
  if (!t.overrides.empty()) {
    out += "overrides = [\n";
    for (const LinkOverride& o : t.overrides) {
      out += fmt::format("  {{ link = {}", toml_string(o.link));
      if (o.bandwidth_gbps) out += fmt::format(", bandwidth = {}", toml_number(*o.bandwidth_gbps));
      if (o.latency_us) out += fmt::format(", latency = {}", toml_number(*o.latency_us));
      out += " },\n";
    }
    out += "]\n";
  }
  if (!t.stragglers.empty()) {
    out += "stragglers = [\n";
    for (const Straggler& s : t.stragglers)
      out += fmt::format("  {{ rank = {}, late = {}, slow = {} }},\n", s.rank, toml_number(s.late_us), toml_number(s.slow));
    out += "]\n";
  }
  return out;
}

}  // namespace

std::string scenario_toml(const Trace& t, const TopologyConfig& topology) {
  const RunRequest& r = t.request;
  std::string out = "# Exported by collsim-gui. Format: docs/scenario-format.md.\nformat = 1\n";
  if (!t.scenario_title.empty()) out += fmt::format("title = {}\n", toml_string(t.scenario_title));
  if (!t.scenario_description.empty()) out += fmt::format("description = {}\n", toml_string(t.scenario_description));
  out += fmt::format("\n[collective]\ncollective = \"{}\"\nalgorithm = {}\nranks = {}\ncount = {}\ndtype = \"{}\"\nop = \"{}\"\n",
                     to_string(r.spec.collective), toml_string(r.algorithm), r.spec.ranks, r.spec.count,
                     to_string(r.spec.dtype), to_string(r.spec.op));
  if (collective_has_root(r.spec.collective)) out += fmt::format("root = {}\n", r.spec.root);
  if (r.spec.in_place) out += "in_place = true\n";
  out += fmt::format("slices = {}\n", r.options.slices);
  const AlgorithmKnobs knobs = algorithm_knobs(r.spec.collective, r.algorithm);
  if (knobs.servers)
    out += fmt::format("servers = {}\ncolocated = {}\n", r.options.servers, r.options.colocated ? "true" : "false");
  if (knobs.ranks_per_node) out += fmt::format("ranks_per_node = {}\n", r.options.ranks_per_node);
  // (absolute: a scenario's schedule path is relative to the scenario, and the export may be elsewhere)
  if (!r.options.schedule_file.empty())
    out += fmt::format("schedule = {}\n", toml_string(std::filesystem::absolute(r.options.schedule_file).string()));
  out += fmt::format("\n[run]\nseed = {}\n", r.seed);
  return out + topology_toml(topology);
}

std::string export_text(ExportKind kind, const Trace& trace, const TopologyConfig& topology) {
  switch (kind) {
    case ExportKind::json: return trace_to_json(trace);
    case ExportKind::chrome: return trace_to_chrome(trace);
    case ExportKind::csv: return trace_to_csv(trace);
    case ExportKind::scenario: return scenario_toml(trace, topology);
  }
  return {};
}

std::filesystem::path export_path(const std::filesystem::path& base, ExportKind kind) {
  static constexpr const char* kSuffix[] = {".json", ".chrome.json", ".csv", ".toml"};
  return base.string() + kSuffix[static_cast<int>(kind)];
}

std::string lesson_export_text(LessonExportKind kind, const Scenario& s, const ProgramResult& p) {
  switch (kind) {
    case LessonExportKind::json: return program_to_json(s, p);
    case LessonExportKind::chrome: return program_to_chrome(s, p);
    case LessonExportKind::csv: return program_to_csv(s, p);
  }
  return {};
}

std::filesystem::path lesson_export_path(const std::filesystem::path& base, LessonExportKind kind) {
  static constexpr const char* kSuffix[] = {".lesson.json", ".lesson.chrome.json", ".lesson.csv"};
  return base.string() + kSuffix[static_cast<int>(kind)];
}

std::string write_export(const std::filesystem::path& path, const std::string& text) {
  try {
    OutputFileSet files;
    files.stage(path, text);
    files.commit();
    return {};
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return fmt::format("{}: {}", path.string(), e.what());
  }
}

}  // namespace collsim::gui
