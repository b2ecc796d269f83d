// collsim: the command-line front end. Thin: it parses flags into the library's plain
// requests and prints the library's reports. Exit codes: 0 success, 1 a wrong result
// (verification or schedule check failed) or a failure while running (e.g. a CUDA error),
// 2 bad input (flags, values, files).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <collsim/version.h>

#include "sim/exec/backend_choice.h"
#include "app/cli/cli_bench.h"
#include "app/cli/cli_io.h"
#include "app/cli/cli_lesson.h"
#include "app/cli/cli_model.h"
#include "app/cli/cli_mpi.h"
#include "app/cli/cli_progress.h"
#include "app/cli/cli_msccl.h"
#include "sim/schedule/algorithm.h"
#include "app/cli/cli_html.h"
#include "app/cli/cli_storyboard.h"
#include "app/cli/cli_validate.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/run_estimate.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/trace/report.h"
#include "sim/run/run.h"

namespace {

using namespace collsim;

// Flags as typed, before they are checked and turned into a RunRequest.
struct SpecFlags {
  std::string collective = "all_reduce", algorithm, count = "1M", dtype = "f32", op = "sum", schedule, inputs;
  int ranks = 4, root = 0, slices = 0, servers = 1, ranks_per_node = 0;
  bool colocated = false, in_place = false;
};

struct RunFlags {
  std::string backend = "auto", placement = "streams", dump;
  bool allow_long = false;
  std::uint64_t seed = 1;
  bool quiet = false;
  bool answers = false;  // a scenario's questions: show the answers
};

void add_spec_flags(CLI::App& cmd, SpecFlags& f) {
  cmd.add_option("-c,--collective", f.collective, "all_reduce, broadcast, reduce, all_gather, ... (see `collsim list`)")
      ->capture_default_str();
  cmd.add_option("-a,--algorithm", f.algorithm,
                 "ring, parameter_server, direct, ... (see `collsim list`); custom: your own, with --schedule FILE; "
                 "default: the collective's default (all_reduce: ring, broadcast: binomial_tree, ...)");
  cmd.add_option("-n,--ranks", f.ranks, "number of ranks (parameter_server: workers)")->capture_default_str();
  cmd.add_option("--count", f.count, "elements per block (K in the buffer table); suffixes K, M, G = powers of 1024")
      ->capture_default_str();
  cmd.add_option("-t,--dtype", f.dtype, "f32 f64 f16 bf16 i32 i64")->capture_default_str();
  cmd.add_option("-o,--op", f.op, "sum prod min max avg")->capture_default_str();
  cmd.add_option("--inputs", f.inputs,
                 "given inputs instead of the seeded ones: comma-separated numbers, rank r holds the r-th at every "
                 "element (the last for every further rank), e.g. 2048,1");
  cmd.add_option("--root", f.root, "root rank of rooted collectives")->capture_default_str();
  cmd.add_option("--slices", f.slices,
                 "pipelined algorithms (ring, chain, ...): slices per chunk; 0: the algorithm's default")
      ->capture_default_str();
  cmd.add_option("--servers", f.servers, "parameter_server: number of servers S (1..ranks)")->capture_default_str();
  cmd.add_flag("--colocated", f.colocated, "parameter_server: servers run on workers 0..S-1 instead of extra ranks");
  cmd.add_option("--ranks-per-node", f.ranks_per_node,
                 "hierarchical: G ranks per node, --ranks a multiple of G; 0: the smallest divisor of N >= sqrt(N)")
      ->capture_default_str();
  cmd.add_flag("--in-place", f.in_place,
               "input and output share one buffer, as in NCCL "
               "(all_reduce, broadcast, reduce, all_gather, reduce_scatter)");
  cmd.add_option("--schedule", f.schedule,
                 "a schedule you wrote by hand (TOML, docs/scenario-format.md) or an MSCCL algorithm file (.xml, "
                 "docs/msccl.md): runs the algorithm custom, with the file's collective, ranks and root unless given");
}

// --inputs 2048,1: the numbers, each one the dtype holds (given_inputs_problem).
std::vector<double> parse_inputs_flag(const std::string& text, DataType dtype) {
  std::vector<double> values;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw InputError(fmt::format("--inputs: '{}' is not a number (give comma-separated numbers, e.g. 2048,1)", item));
    values.push_back(v);
    begin = end + 1;
  }
  const std::string problem = given_inputs_problem(dtype, values);
  if (!problem.empty()) throw InputError(fmt::format("--inputs: {}", problem));
  return values;
}

// `given` tells which flags were typed: --schedule without --algorithm means custom.
RunRequest to_request(const SpecFlags& f, const cli::FlagGiven& given) {
  if (given("--schedule") && given("--algorithm") && f.algorithm != kCustomAlgorithm)
    throw InputError(fmt::format("--schedule runs a schedule written by hand: leave out --algorithm {} (or give "
                                 "--algorithm custom)",
                                 f.algorithm));
  RunRequest r;
  const auto collective = parse_collective(f.collective);
  if (!collective) throw InputError(fmt::format("--collective: unknown collective '{}' (see `collsim list`)", f.collective));
  const auto dtype = parse_data_type(f.dtype);
  if (!dtype) throw InputError(fmt::format("--dtype: unknown data type '{}' (use f32 f64 f16 bf16 i32 i64)", f.dtype));
  const auto op = parse_reduce_op(f.op);
  if (!op) throw InputError(fmt::format("--op: unknown reduce op '{}' (use sum prod min max avg)", f.op));
  const auto count = parse_count(f.count);
  if (!count)
    throw InputError(fmt::format("--count: '{}' is not a count (a non-negative integer, optionally with K, M or G)", f.count));
  r.spec = {*collective, f.ranks, *count, *dtype, *op, f.root, f.in_place};
  r.algorithm = f.schedule.empty() ? std::string(algorithm_or_default(*collective, f.algorithm))
                                   : std::string(kCustomAlgorithm);
  r.options = {f.slices, f.servers, f.colocated, f.ranks_per_node, f.schedule};
  if (given("--inputs")) r.input_values = parse_inputs_flag(f.inputs, *dtype);
  return r;
}

// DIR/rank<r>.in.bin and DIR/rank<r>.out.bin, raw little-endian arrays, staged in
// `files` with the run's other outputs: all or nothing.
void dump_buffers(const RunResult& r, const std::filesystem::path& dir, OutputFileSet& files) {
  for (int rank = 0; rank < r.schedule.spec.ranks; ++rank) {
    // Inputs as before the run (in place, the run overwrote them); outputs after it.
    if (cli::dumps_buffer(r.schedule, rank, BufferKind::input))
      files.stage(cli::dump_file(dir, rank, BufferKind::input), input_before_run(r, rank));
    if (cli::dumps_buffer(r.schedule, rank, BufferKind::output))
      files.stage(cli::dump_file(dir, rank, BufferKind::output), output_after_run(r, rank));
  }
}

// A scenario file (optional) and the output files of `collsim run`.
struct FileArgs {
  std::string scenario;
  cli::TraceOutputs outputs;
};

// Whether the user typed `flag` on `cmd`'s command line (not just its default).
cli::FlagGiven flags_given(const CLI::App* cmd) {
  return [cmd](std::string_view flag) {
    const CLI::Option* o = cmd->get_option_no_throw(std::string(flag));
    return o && o->count() > 0;
  };
}

int command_run(const SpecFlags& sf, const RunFlags& rf, const FileArgs& fa, const cli::ModelFlags& mf,
                const cli::FlagGiven& given) {
  const cli::RunPlan plan = [&] {
    RunRequest r = to_request(sf, given);
    r.seed = rf.seed;
    return cli::plan_run(fa.scenario, r, rf.backend, given, cli::topology_flags(mf, given));
  }();
  cli::check_topology_flags(plan.topology, given);
  if (plan.backend == "mpi") {
    if (mf.model_only) throw InputError("--model-only executes nothing: leave out --backend mpi");
    return cli::command_run_mpi(plan, fa.scenario, {rf.placement, fa.outputs, rf.dump, false, rf.quiet, rf.answers});
  }
  if (plan.lesson())
    return cli::command_run_lesson(plan, fa.scenario,
                                   {rf.placement, fa.outputs, rf.dump, mf.model_only, rf.quiet, rf.answers, rf.allow_long});
  // A single collective's questions are answered from the model, before anything runs.
  const std::string questions = cli::single_collective_questions(plan, rf.answers);
  if (mf.model_only) {
    const int status = cli::command_model_only(plan, fa.scenario, fa.outputs, rf.dump, rf.quiet);
    if (!rf.quiet) fmt::print("{}", questions);
    return status;
  }
  // Check everything before touching the file system or printing anything.
  RunResult result = prepare_run(plan.request);
  predict_run(result, plan.topology);  // cheap, and a bad topology is refused before anything runs
  const BackendChoice choice = choose_backend(plan.backend, rf.placement);
  cli::check_trace_outputs(fa.outputs);  // before the dump folder is created
  const RunTimeEstimate estimate = choice.name == "cpu" ? estimate_cpu_run(result.schedule) : RunTimeEstimate{};
  if (!rf.allow_long) check_run_time(estimate, "--allow-long");
  const bool long_run = estimate.seconds > kSayEstimateSeconds;
  cli::TransferProgress progress("run");
  std::unique_ptr<Backend> backend =
      make_backend(choice, 0, long_run ? std::function<void(std::size_t, std::size_t)>(std::ref(progress)) : nullptr);
  if (!rf.dump.empty()) ensure_writable_folder(rf.dump, "--dump");
  if (plan.backend == "auto" && !rf.quiet)
    fmt::print("backend auto: using {} ({}): {}\n", backend->name(), choice.auto_reason, backend->device_name());
  if (long_run && !rf.quiet) {
    fmt::print(stderr, "estimated: {}\n", describe(estimate));
    std::fflush(stdout);
  }
  execute_run(result, *backend);
  progress.clear();
  OutputFileSet files;  // the dump and the traces land together or not at all
  if (!rf.dump.empty()) dump_buffers(result, rf.dump, files);
  cli::stage_trace_outputs(result, plan, fa.outputs, files);
  files.commit();
  if (rf.quiet) {
    cli::print_quiet_verdict(result.verification);
  } else {
    cli::print_run_report(result, plan, fa.scenario, fa.outputs, rf.dump);
    fmt::print("{}", questions);
  }
  return result.verification.ok ? 0 : 1;
}

int command_explain(const SpecFlags& sf, const std::string& scenario, const cli::FlagGiven& given) {
  const cli::RunPlan plan = cli::plan_run(scenario, to_request(sf, given), "auto", given);
  if (plan.lesson()) return cli::command_explain_lesson(*plan.scenario);
  const Schedule s = build_schedule(plan.request.spec, plan.request.algorithm, plan.request.options);
  if (plan.request.algorithm != kCustomAlgorithm) check_schedule(s);  // a hand-written one was checked while built
  fmt::print("{}", plan.scenario ? cli::format_explained_collective(*plan.scenario, s) : format_step_table(s));
  return 0;
}

// The timing model's flags (cli_model.h), for `run` and `bench`.
void add_model_flags(CLI::App& cmd, cli::ModelFlags& f) {
  cmd.add_option("--topology", f.topology, "what the timing model predicts on: " + topology_kind_names())
      ->capture_default_str();
  cmd.add_option("--link", f.link,
                 "preset of the rank links: " + link_preset_names() + " (default: the topology's; `collsim list` "
                 "gives their figures and classes)");
  cmd.add_option("--bandwidth", f.bandwidth, "GB/s (1e9 B/s) per direction of every rank link, instead of the preset's");
  cmd.add_option("--latency", f.latency, "µs of every rank link, instead of the preset's");
  cmd.add_option("--uplink", f.uplink,
                 "preset of pcie_tree's switch uplinks, two_level's network links, star's server links");
  cmd.add_option("--uplink-bandwidth", f.uplink_bandwidth, "GB/s of every uplink, instead of the preset's");
  cmd.add_option("--uplink-latency", f.uplink_latency, "µs of every uplink, instead of the preset's");
  cmd.add_option("--group-size", f.group_size,
                 "GPUs per PCIe switch (pcie_tree, default 4) or per node (two_level, default 8)");
  cmd.add_option("--nic", f.nic, "two_level: one network link per node or per gpu")->capture_default_str();
  cmd.add_option("--reduce-rate", f.reduce_rate, "GB/s at which a rank reduces (γ = 1/rate; default 1117)");
  cmd.add_option("--copy-rate", f.copy_rate, "GB/s at which a rank copies locally (δ = 1/rate; default 1675)");
  cmd.add_option("--link-override", f.link_overrides,
                 "NAME=GBPS[,US] or NAME=PRESET for one link, e.g. rank3=25 (repeatable)");
  cmd.add_option("--protocol", f.protocol,
                 "NCCL's protocol: none (the links' own latencies, which are NCCL's LL figures, and full bandwidth), "
                 "simple, ll, ll128 (NCCL's per-hop latency for each link's class, its share of the bandwidth and "
                 "its base latency), or auto (the fastest of them for this collective and size)")
      ->capture_default_str();
  cmd.add_option("--late", f.late, "RANK=US: the rank starts US µs late (repeatable)");
  cmd.add_option("--slow", f.slow, "RANK=FACTOR: the rank reduces and copies FACTOR times slower (repeatable)");
}

void add_seed_flag(CLI::App& cmd, std::uint64_t& seed) {
  cmd.add_option("--seed", seed, "seed of the deterministic inputs (0 .. 2^64-1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI11 would wrap "-1" and clamp overflows silently; accept plain digits only.
            return parse_count(text) && text.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "'" + text + "' is not an integer in 0 .. 2^64-1";
          },
          "UINT64"));
}

void add_trace_flags(CLI::App& cmd, cli::TraceOutputs& o) {
  // An empty name would mean "not wanted" further on: refused here, where the flag is known.
  const auto named = [](const std::string& path) { return path.empty() ? std::string("the file name is empty") : std::string(); };
  cmd.add_option("--trace", o.trace, "write the JSON trace (docs/trace-format.md) to this file")->check(named);
  cmd.add_option("--chrome", o.chrome, "write a Chrome/Perfetto trace (open in ui.perfetto.dev) to this file")->check(named);
  cmd.add_option("--csv", o.csv, "write one CSV row per transfer to this file")->check(named);
}

CLI::App* add_bench_command(CLI::App& app, cli::BenchFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "benchmark a backend (an nccl-tests-style table) against memcpy's rate (cpu) or the device copy ceiling (cuda)");
  cmd->add_option("--backend", f.backend, "cpu, cuda or auto (CUDA when a device is present)")->capture_default_str();
  cmd->add_option("--placement", f.placement, "cuda: streams (one GPU, a stream per rank) or devices (rank r on GPU r mod D)")
      ->capture_default_str();
  cmd->add_option("--timings", f.timings, "cuda: on or off, record every transfer's begin and end (off: measures what that costs)")
      ->capture_default_str();
  cmd->add_option("-c,--collective", f.collective, "the collective (see `collsim list`)")->capture_default_str();
  cmd->add_option("-a,--algorithms", f.algorithms, "comma-separated algorithms, e.g. ring,direct")->capture_default_str();
  cmd->add_option("-n,--ranks", f.ranks, "number of ranks")->capture_default_str();
  cmd->add_option("-b,--minbytes", f.min_bytes, "smallest size, bytes per rank (suffixes K, M, G)")->capture_default_str();
  cmd->add_option("-e,--maxbytes", f.max_bytes, "largest size, bytes per rank (suffixes K, M, G)")->capture_default_str();
  cmd->add_option("-f,--stepfactor", f.factor, "multiply the size by this from row to row")->capture_default_str();
  cmd->add_option("-t,--dtype", f.dtype, "f32 f64 f16 bf16 i32 i64")->capture_default_str();
  cmd->add_option("-o,--op", f.op, "sum prod min max avg")->capture_default_str();
  cmd->add_option("--root", f.root, "root rank of rooted collectives")->capture_default_str();
  cmd->add_option("--iters", f.iterations, "timed iterations per size")->capture_default_str();
  cmd->add_option("-w,--warmup", f.warmup, "untimed iterations per size after the checked one")->capture_default_str();
  cmd->add_option("--threads", f.threads, "CPU worker threads (and memcpy threads); 0: one per hardware thread")
      ->capture_default_str();
  cmd->add_option("--slices", f.slices, "pipelined algorithms: slices per chunk; 0: the algorithm's default")
      ->capture_default_str();
  cmd->add_option("--servers", f.servers, "parameter_server: number of servers")->capture_default_str();
  cmd->add_flag("--colocated", f.colocated, "parameter_server: servers run on workers 0..S-1");
  cmd->add_flag("--fuse", f.fuse,
                "cpu: run forwarding chains fused (NCCL's recvReduceSend): a transfer and those that forward its "
                "result, when they wait for nothing outside the chain, on one worker tile by tile, partial sums read "
                "back from cache (docs/performance.md)");
  cmd->add_flag("--allow-long", f.allow_long,
                "cpu: run even when the whole bench is estimated to take more than 10 minutes (every point's data, "
                "checked run, warm-ups and iterations, at the measured memcpy rate); without it such a bench is refused "
                "before the first point");
  cmd->add_option("--ranks-per-node", f.ranks_per_node, "hierarchical: ranks per node; 0: automatic")->capture_default_str();
  add_model_flags(*cmd, f.model);
  cmd->add_flag("--model-only", f.model.model_only, "predicted times only: nothing is allocated or executed");
  cmd->add_option("--csv", f.csv, "write every row (predicted and measured times) as CSV to this file");
  cmd->add_option("--json", f.json, "write every row and the crossover summary as JSON to this file");
  return cmd;
}

int run_cli(int argc, char** argv) {
  CLI::App app{"collsim: run collective-communication algorithms chunk by chunk, verify them, and show each transfer.\n"
               "Lessons (scenario files of several phases, with captions and questions) run the same way.\n"
               "Try: collsim run            (ring all-reduce on 4 ranks)\n"
               "     collsim explain --count 8\n"
               "     collsim run scenarios/lessons/02_ring_vs_parameter_server.toml --answers\n"
               "     collsim list",
               "collsim"};
  app.set_version_flag("--version", std::string("collsim ") + COLLSIM_VERSION);
  SpecFlags spec;
  RunFlags run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "run a collective or a lesson (every phase) on a backend, verify every output, print the summary");
  add_spec_flags(*run_cmd, spec);
  run_cmd->add_option("--backend", run.backend,
                      "auto (CUDA when a device is present, else the CPU), cpu, cuda, or mpi (one process per rank: "
                      "mpirun -np N collsim run --backend mpi ..., docs/distributed.md)")
      ->capture_default_str();
  run_cmd->add_option("--placement", run.placement,
                      "cuda: streams (every rank on one GPU, a stream each) or devices (rank r on GPU r mod D)")
      ->capture_default_str();
  add_seed_flag(*run_cmd, run.seed);
  run_cmd->add_option("--dump", run.dump, "write DIR/rank<r>.in.bin and rank<r>.out.bin (raw little-endian arrays)")
      ->check([](const std::string& dir) { return dir.empty() ? std::string("the folder name is empty") : std::string(); });
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only the verification result");
  run_cmd->add_flag("--allow-long", run.allow_long,
                    "run even when the run (a lesson: all its collectives) is estimated to take more than 10 minutes "
                    "(its data at this machine's memcpy rate); without it such a run is refused before it starts");
  run_cmd->add_flag("--answers", run.answers, "a scenario's or lesson's questions: print the answers too");
  FileArgs files;
  const char* scenario_help =
      "a scenario file or lesson (TOML, docs/scenario-format.md); flags given override its values (a lesson of several "
      "phases takes --ranks, --seed, --backend and the topology flags; edit its phases in the file)";
  run_cmd->add_option("scenario", files.scenario, scenario_help);
  add_trace_flags(*run_cmd, files.outputs);
  cli::ModelFlags model;
  add_model_flags(*run_cmd, model);
  run_cmd->add_flag("--model-only", model.model_only,
                    fmt::format("predict only: no buffers, no backend, no check above {} ranks (up to {})",
                                kMaxRanks, kMaxModelRanks));
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "print the step table of a schedule, or of every phase of a lesson with its captions (checked, not run)");
  add_spec_flags(*explain_cmd, spec);
  explain_cmd->add_option("scenario", files.scenario, scenario_help);
  cli::BenchFlags bench;
  CLI::App* bench_cmd = add_bench_command(app, bench);
  std::string convert_input;
  CLI::App* convert_cmd = app.add_subcommand("convert", "read a JSON trace and write it again as JSON, Chrome trace or CSV");
  convert_cmd->add_option("trace", convert_input, "a JSON trace written by `collsim run --trace`")->required();
  add_trace_flags(*convert_cmd, files.outputs);
  std::string storyboard_out;
  CLI::App* storyboard_cmd = app.add_subcommand(
      "storyboard",
      "draw every step as an SVG (scene, packets, buffers, caption) plus an index.html that plays them; a lesson: every "
      "phase's steps, and a card per compute phase");
  add_spec_flags(*storyboard_cmd, spec);
  storyboard_cmd->add_option("input", files.scenario,
                             "a scenario file or lesson (run on the CPU backend first) or a JSON trace");
  storyboard_cmd->add_option("--out", storyboard_out, "the folder to write step-NN.svg and index.html into (created if needed)")
      ->required()
      ->check([](const std::string& dir) { return dir.empty() ? std::string("the folder name is empty") : std::string(); });
  cli::HtmlOptions html;
  std::uint64_t html_seed = 1;
  CLI::App* html_cmd = app.add_subcommand(
      "html",
      "write one self-contained web page that plays the run or lesson in any browser, offline: the scene, the buffers, "
      "the timeline and the caption on the steps, measured and predicted clocks, a lesson's phases and program, and the "
      "questions (docs/web.md)");
  add_spec_flags(*html_cmd, spec);
  html_cmd->add_option("input", files.scenario,
                       "a scenario file or lesson (run on the CPU backend first) or a JSON trace; none: the flags' run");
  html_cmd->add_option("--out", html.out, "the page to write (e.g. ring.html)")
      ->required()
      ->check([](const std::string& path) { return path.empty() ? std::string("the file name is empty") : std::string(); });
  add_seed_flag(*html_cmd, html_seed);
  add_model_flags(*html_cmd, model);
  html_cmd->add_flag("--live", html.live,
                     "add collsim itself (WebAssembly, about 4 MiB) and a form that runs the lesson or collective again "
                     "in the browser with other ranks, sizes, algorithms and topologies (built when emscripten is "
                     "installed; docs/web.md)");
  html_cmd->add_flag("--data", html.data_only, "write only the page's data (JSON, docs/web.md), not the page");
  std::vector<std::string> validate_files;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "check scenario, lesson, schedule, trace and lecture files without running them (a lesson: every phase prepared, "
      "every question answered; a lecture: every slide's file, phase and comparison; exit 2 at the first bad one)");
  validate_cmd->add_option("files", validate_files, "the files to check")->required();
  CLI::App* list_cmd = app.add_subcommand("list", "list collectives, algorithms with their cost formulas, types and ops");
  bool list_names = false;
  list_cmd->add_flag("--names", list_names, "only 'COLLECTIVE ALGORITHM' per line, for scripts");
  cli::MscclFlags msccl;
  CLI::App* export_cmd = app.add_subcommand(
      "export-msccl",
      "write a schedule as an MSCCL algorithm file (XML) that NCCL's MSCCL runtime runs: a built-in algorithm at "
      "--ranks (every collective MSCCL has a `coll` for), or your own with --schedule; checked first. Each transfer "
      "becomes a send and a receive (fused into rcs/rrs/rrcs where a received chunk is forwarded), thread blocks per "
      "(receive peer, send peer, channel), depid/deps where a step needs another thread block's; docs/msccl.md");
  add_spec_flags(*export_cmd, spec);
  export_cmd->add_option("--out", msccl.out, "the file to write (default: standard output)")
      ->check([](const std::string& path) { return path.empty() ? std::string("the file name is empty") : std::string(); });
  export_cmd->add_option("--protocol", msccl.protocol, "the proto attribute: Simple, LL or LL128")->capture_default_str();
  export_cmd->add_option("--nchannels", msccl.channels,
                         "spread every transfer over N channels (1 to 32), as MSCCLang's instances: each piece of "
                         "data is cut into N, piece k travelling on channel k (the count is multiplied by N unless "
                         "--count is given); a schedule file's own channels are kept")
      ->capture_default_str();
  export_cmd->add_option("--name", msccl.name, "the algorithm's name attribute (default: collsim_ALGORITHM_N)");
  export_cmd->footer(
      "Without --count, the count is the smallest at which every chunk of the algorithm holds an element (its chunks "
      "are then MSCCL's chunks); with it, a chunk is the largest element count that divides every region.");
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "collsim: error: %s\nRun 'collsim --help' or 'collsim COMMAND --help' for usage.\n", e.what());
    return 2;
  }
  if (run_cmd->parsed()) return command_run(spec, run, files, model, flags_given(run_cmd));
  if (explain_cmd->parsed()) return command_explain(spec, files.scenario, flags_given(explain_cmd));
  if (bench_cmd->parsed()) return cli::command_bench(bench, flags_given(bench_cmd));
  if (convert_cmd->parsed()) return cli::command_convert(convert_input, files.outputs);
  if (storyboard_cmd->parsed()) {
    const cli::FlagGiven given = flags_given(storyboard_cmd);
    return cli::command_storyboard(files.scenario, storyboard_out, to_request(spec, given), given);
  }
  if (html_cmd->parsed()) {
    const cli::FlagGiven given = flags_given(html_cmd);
    RunRequest request = to_request(spec, given);
    request.seed = html_seed;
    html.topology = cli::topology_flags(model, given);
    return cli::command_html(files.scenario, request, given, html);
  }
  if (validate_cmd->parsed()) return cli::command_validate(validate_files);
  if (export_cmd->parsed()) {
    const cli::FlagGiven given = flags_given(export_cmd);
    return cli::command_export_msccl(to_request(spec, given), given, msccl);
  }
  if (list_cmd->parsed()) {
    if (list_names) {
      for (const AlgorithmInfo& a : all_algorithms()) fmt::print("{} {}\n", to_string(a.collective), a.name);
      return 0;
    }
    fmt::print("{}", format_catalogue());
    return 0;
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const collsim::InputError& e) {
    std::fprintf(stderr, "collsim: error: %s\n", e.what());
    return 2;
  } catch (const collsim::WrongScheduleError& e) {  // a hand-written schedule: the student's, not ours
    std::fprintf(stderr, "collsim: the schedule is wrong: %s\n", e.what());
    return 1;
  } catch (const collsim::ScheduleError& e) {
    std::fprintf(stderr, "collsim: schedule check failed (a bug in the algorithm): %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "collsim: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {  // e.g. a CUDA error, which names the call, file and line
    std::fprintf(stderr, "collsim: failed: %s\n", e.what());
    return 1;
  }
}
