#include "app/cli/cli_io.h"

#include "sim/lesson/captions.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/cli/cli_msccl.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/trace/report.h"
#include "sim/trace/trace.h"

namespace collsim::cli {
namespace {

void check_output(std::string_view flag, const std::string& path) {
  if (!path.empty()) check_output_path(flag, path);  // empty: the output is not wanted
}

std::vector<std::pair<std::string_view, const std::string*>> named(const TraceOutputs& o) {
  return {{"--trace", &o.trace}, {"--chrome", &o.chrome}, {"--csv", &o.csv}};
}

// Display columns of UTF-8 text: one per code point.
std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string format_description(std::string_view text, std::size_t width) {
  // Blocks of words: a paragraph (runs of non-blank lines), or an item of a list ("- ", "* ",
  // "1. ": a line that starts one keeps its line break, and its words wrap under its text).
  struct Block {
    std::vector<std::string_view> words;
    bool after_blank = false;   // a blank line before it
    std::size_t hanging = 0;    // the list marker's width, for the lines after the first
  };
  std::vector<Block> blocks;
  bool blank = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {
      blank = true;
      continue;
    }
    const std::string_view rest = line.substr(first);
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    const bool item = rest.starts_with("- ") || rest.starts_with("* ") || rest.starts_with("• ") ||
                      (digits > 0 && rest.substr(digits).starts_with(". "));
    if (blocks.empty() || blank || item) {
      const std::size_t marker = !item ? 0 : digits > 0 ? digits + 2 : 2;
      blocks.push_back({{}, blank && !blocks.empty(), marker});
    }
    blank = false;
    for (std::size_t i = 0; i < rest.size();) {
      const std::size_t w = rest.find_first_not_of(" \t\r", i);
      if (w == std::string_view::npos) break;
      const std::size_t e = std::min(rest.find_first_of(" \t\r", w), rest.size());
      blocks.back().words.push_back(rest.substr(w, e - w));
      i = e;
    }
  }
  std::string out;
  for (const Block& block : blocks) {
    if (block.after_blank) out += '\n';
    std::size_t used = 0;
    bool first_line = true;
    for (const std::string_view word : block.words) {
      if (used > 0 && used + 1 + columns(word) > width) {
        out += '\n';
        used = 0;
        first_line = false;
      }
      if (used == 0) {
        const std::size_t indent = 2 + (first_line ? 0 : block.hanging);
        out.append(indent, ' ');
        used = indent;
      } else {
        out += ' ';
        ++used;
      }
      out += word;
      used += columns(word);
    }
    out += '\n';
  }
  return out;
}

void stage_trace(const Trace& trace, const TraceOutputs& o, OutputFileSet& files) {
  if (!o.trace.empty()) files.stage(o.trace, trace_to_json(trace));
  if (!o.chrome.empty()) files.stage(o.chrome, trace_to_chrome(trace));
  if (!o.csv.empty()) files.stage(o.csv, trace_to_csv(trace));
}

RunPlan plan_run(const std::string& scenario_path, const RunRequest& from_flags, const std::string& backend_flag,
                 const flags::FlagGiven& given, const TopologyConfig& topology_flags) {
  flags::FlagPlan p = flags::plan_flags(scenario_path, from_flags, given, topology_flags);
  RunPlan plan{std::move(p.request), backend_flag, {}, {}, std::move(p.topology), std::move(p.scenario)};
  if (plan.scenario) {
    plan.title = plan.scenario->title;
    plan.description = plan.scenario->description;
    if (!given("--backend")) plan.backend = plan.scenario->backend;
    if (plan.model_only() && given("--backend"))
      throw InputError(fmt::format("--backend {}: {} runs on the timing model alone ([run] model_only = true): nothing "
                                   "is executed; leave out --backend",
                                   backend_flag, plan.scenario->source));
  }
  if (!plan.lesson()) print_schedule_warnings(plan.request);
  return plan;
}

void check_output_file(std::string_view flag, const std::string& path) { check_output(flag, path); }

void print_quiet_verdict(const Verification& v) { fmt::print("{}\n", v.ok ? "verified" : "WRONG: " + v.first_mismatch); }

bool dumps_buffer(const Schedule& s, int rank, BufferKind b) {
  return rank < s.spec.ranks && s.buffer_elements(rank, b) > 0;  // not a parameter server's servers
}

std::filesystem::path dump_file(const std::filesystem::path& dir, int rank, BufferKind buffer) {
  return dir / fmt::format("rank{}.{}.bin", rank, buffer == BufferKind::input ? "in" : "out");
}

void check_trace_outputs(const TraceOutputs& outputs) {
  const auto list = named(outputs);
  for (std::size_t i = 0; i < list.size(); ++i) {
    check_output(list[i].first, *list[i].second);
    for (std::size_t j = 0; j < i; ++j)
      if (!list[i].second->empty() && !list[j].second->empty() && same_output_file(*list[i].second, *list[j].second))
        throw InputError(fmt::format("{} {}: the same file as {}", list[i].first, *list[i].second, list[j].first));
  }
}

PipelineRequest pipeline_request(const RunPlan& plan, bool want_trace) {
  return {.run = plan.request,
          .scenario = plan.scenario ? &*plan.scenario : nullptr,
          .topology = plan.topology,
          .model_only = plan.model_only(),
          .want_trace = want_trace,
          .title = plan.title,
          .description = plan.description};
}

void print_run_report(const RunResult& result, const RunPlan& plan, const std::string& scenario_path,
                      const TraceOutputs& outputs, const std::string& dump) {
  if (!plan.title.empty()) fmt::print("scenario: {} ({})\n", plan.title, scenario_path);
  // The description rendered for this run's schedule: the trace's and the app's text.
  fmt::print("{}", format_description(run_description(plan.scenario ? &*plan.scenario : nullptr, result.schedule,
                                                      plan.description)));
  if (result.totals.steps <= 64) fmt::print("steps:\n{}", format_step_overview(result.schedule, result.totals));
  fmt::print("{}", format_run_summary(result));
  if (!dump.empty()) fmt::print("  {:<11} {}\n", "dump", dump);
  for (const auto& [key, path] : {std::pair{"trace", outputs.trace}, {"chrome", outputs.chrome}, {"csv", outputs.csv}})
    if (!path.empty()) fmt::print("  {:<11} {}\n", key, path);
}

}  // namespace collsim::cli
