// Exports from the app, as plain C++: the trace (JSON, Chrome, CSV, through sim's
// exporters) and the run as a scenario file that `collsim` and the app load again; for a
// lesson of several phases, the whole program too (sim/lesson/program.h's exporters).
#pragma once
#include <filesystem>
#include <string>

#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"
#include "sim/model/topology.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

enum class ExportKind : std::uint8_t { json, chrome, csv, scenario };

// The file's text.
std::string export_text(ExportKind kind, const Trace& trace, const TopologyConfig& topology);
// `base` + ".json", ".chrome.json", ".csv" or ".toml".
std::filesystem::path export_path(const std::filesystem::path& base, ExportKind kind);
// Writes the file whole or not at all (sim's OutputFileSet). Returns "" or the error.
std::string write_export(const std::filesystem::path& path, const std::string& text);

// The whole lesson, every phase: the lesson trace (collsim-lesson, docs/trace-format.md),
// its Chrome trace and its CSV, as `collsim run LESSON --trace/--chrome/--csv` writes them
// (program_to_json, program_to_chrome, program_to_csv). The program must be predicted (the
// loader always predicts it).
enum class LessonExportKind : std::uint8_t { json, chrome, csv };
std::string lesson_export_text(LessonExportKind kind, const Scenario& s, const ProgramResult& p);
// `base` + ".lesson.json", ".lesson.chrome.json" or ".lesson.csv": beside the shown phase's
// exports of the same base, never over them.
std::filesystem::path lesson_export_path(const std::filesystem::path& base, LessonExportKind kind);

// The run as a scenario (docs/scenario-format.md): title, description, [collective] with
// every field of the request, [run] seed, and the whole [topology] — kind, link preset and
// figures, uplinks, groups, NIC, compute rates, link overrides and stragglers (the keys the
// configuration sets and its kind accepts). load_scenario reads back the same request and
// topology.
std::string scenario_toml(const Trace& trace, const TopologyConfig& topology);

}  // namespace collsim::gui
