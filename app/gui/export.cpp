#include "app/gui/export.h"

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/output_files.h"

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
  if (r.algorithm == "parameter_server")
    out += fmt::format("servers = {}\ncolocated = {}\n", r.options.servers, r.options.colocated ? "true" : "false");
  if (r.algorithm == "hierarchical") out += fmt::format("ranks_per_node = {}\n", r.options.ranks_per_node);
  out += fmt::format("\n[run]\nseed = {}\n", r.seed);
  out += fmt::format("\n[topology]\nkind = \"{}\"\n", to_string(topology.kind));
  return out;
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
