// collsim: the command-line front end. Thin: it parses flags into the library's plain
// requests and prints the library's reports. Exit codes: 0 success, 1 a wrong result
// (verification or schedule check failed) or a failure while running (e.g. a CUDA error),
// 2 bad input (flags, values, files). This file builds the commands and their flags and
// dispatches: each command is in its own file (cli_run, cli_explain, cli_list, cli_convert,
// cli_bench, ...), the run's flags (shared with collsim-gui) in app/flags/, the trace files'
// in cli_flags.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <collsim/version.h>

#include "app/cli/cli_bench.h"
#include "app/cli/cli_calibrate.h"
#include "app/cli/cli_convert.h"
#include "app/cli/cli_explain.h"
#include "app/cli/cli_flags.h"
#include "app/cli/cli_html.h"
#include "app/cli/cli_list.h"
#include "app/cli/cli_msccl.h"
#include "app/cli/cli_run.h"
#include "app/cli/cli_storyboard.h"
#include "app/cli/cli_validate.h"
#include "app/flags/data_files.h"
#include "app/flags/parse_errors.h"
#include "app/flags/run_flags.h"
#include "app/flags/topology_flags.h"
#include "sim/core/errors.h"
#include "sim/run/custom_schedule.h"
#include "sim/run/run.h"
#include "sim/schedule/algorithm.h"

namespace {

using namespace collsim;

CLI::App* add_bench_command(CLI::App& app, cli::BenchFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "benchmark a backend (an nccl-tests-style table) against memcpy's rate (cpu), the device copy ceiling (cuda) "
               "or the MPI library's own collective (mpi)");
  cmd->add_option("--backend", f.backend,
                  "cpu, cuda, auto (CUDA when a device is present) or mpi (under mpirun with -np = --ranks: each size "
                  "beside MPI's own collective, and measured / predicted; docs/distributed.md)")
      ->capture_default_str();
  cmd->add_option("--placement", f.placement, "cuda: streams (one GPU, a stream per rank) or devices (rank r on GPU r mod D)")
      ->capture_default_str();
  cmd->add_option("--timings", f.timings, "cuda: on or off, record every transfer's begin and end (off: measures what that costs)")
      ->capture_default_str();
  cmd->add_option("-c,--collective", f.collective, "the collective (see `collsim list`)")->capture_default_str();
  cmd->add_option("-a,--algorithms", f.algorithms,
                  "comma-separated algorithms, e.g. ring,direct; one may have its own slices, ring,nccl_tree:slices=16 "
                  "(default: the collective's default algorithm, "
                  "all_reduce's ring; see `collsim list`)");
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
  flags::add_model_flags(*cmd, f.model);
  cmd->add_flag("--model-only", f.model.model_only, "predicted times only: nothing is allocated or executed");
  cmd->add_option("--csv", f.csv, "write every row (predicted and measured times) as CSV to this file");
  cmd->add_option("--json", f.json, "write every row and the crossover summary as JSON to this file");
  cmd->add_option("--plot", f.plot, "draw busbw against size (measured and predicted, one line each per algorithm, the crossover marked) as SVG to this file (.svg)");
  return cmd;
}

// The rank mpirun (or srun) gave this process, before MPI starts; -1 when no launcher started it.
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return -1;
}

// A mistake in the input, said once per job: under mpirun every process reads the same
// command line and files, so rank 0 says it and the launcher stops the others (it does
// when a process exits non-zero) before they speak; a rank whose mistake is its own (a
// file missing on its host) still says it, a moment later.
// An empty message is a process's share of an error rank 0 says for the whole job.
void print_input_error(const std::string& text) {
  if (text.empty() || text == "collsim: error: ") return;
  if (launcher_rank() > 0) std::this_thread::sleep_for(std::chrono::seconds(2));
  std::fprintf(stderr, "%s\n", text.c_str());
}

// Input files typed by name, as installed lessons are: `collsim run lessons/01_ring_allreduce`
// reads <share>/scenarios/lessons/01_ring_allreduce.toml (app/flags/data_files.h), and says
// which file it read on stderr (once, by rank 0 under mpirun).
void find_input_files(std::string& scenario, std::string& trace, std::vector<std::string>& validated) {
  const auto find = [](std::string& typed) {
    const flags::FoundFile found = flags::find_input_file(typed);
    if (found.found_by_name && launcher_rank() <= 0)
      std::fprintf(stderr, "collsim: %s is %s\n", typed.c_str(), found.path.c_str());
    typed = found.path;
  };
  find(scenario);
  find(trace);
  for (std::string& file : validated) find(file);
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
  flags::SpecFlags spec;
  cli::RunFlags run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "run a collective or a lesson (every phase) on a backend, verify every output, print the summary");
  flags::add_spec_flags(*run_cmd, spec);
  run_cmd->add_option("--backend", run.backend,
                      "auto (CUDA when a device is present, else the CPU), cpu, cuda, or mpi (one process per rank: "
                      "mpirun -np N collsim run --backend mpi ..., docs/distributed.md)")
      ->capture_default_str();
  run_cmd->add_option("--placement", run.placement,
                      "cuda: streams (every rank on one GPU, a stream each) or devices (rank r on GPU r mod D)")
      ->capture_default_str();
  flags::add_seed_flag(*run_cmd, run.seed);
  run_cmd->add_option("--dump", run.dump, "write DIR/rank<r>.in.bin and rank<r>.out.bin (raw little-endian arrays)")
      ->check([](const std::string& dir) { return dir.empty() ? std::string("the folder name is empty") : std::string(); });
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only the verification result");
  run_cmd->add_flag("--allow-long", run.allow_long,
                    "run even when the run (a lesson: all its collectives) is estimated to take more than 10 minutes "
                    "(its data at this machine's memcpy rate); without it such a run is refused before it starts");
  run_cmd->add_flag("--answers", run.answers, "a scenario's or lesson's questions: print the answers too");
  run_cmd->add_option("--timeout", run.timeout,
                      "--backend mpi: a process whose transfers have not moved for this many seconds says which rank "
                      "and transfer it waits for and aborts the job (exit 3), as a process group's timeout does; "
                      "0 (the default): wait as long as it takes")
      ->check([](const std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        return !text.empty() && end == text.c_str() + text.size() && v >= 0 && v <= 86400
                   ? std::string()
                   : "a number of seconds from 0 to 86400, got '" + text + "'";
      });
  cli::FileArgs files;
  const char* scenario_help =
      "a scenario file or lesson (TOML, docs/scenario-format.md; installed lessons by name, e.g. "
      "lessons/01_ring_allreduce); flags given override its values (a lesson of several phases takes --ranks, --seed, "
      "--backend and the topology flags; edit its phases in the file)";
  run_cmd->add_option("scenario", files.scenario, scenario_help);
  cli::add_trace_flags(*run_cmd, files.outputs);
  flags::ModelFlags model;
  flags::add_model_flags(*run_cmd, model);
  run_cmd->add_flag("--model-only", model.model_only,
                    fmt::format("predict only: no buffers, no backend, no check above {} ranks (up to {}; up to {} "
                                "for an algorithm that streams, predicted step by step, or that looks the same from "
                                "every rank, predicted from one node's transfers: `collsim list` marks them)",
                                kMaxRanks, kMaxModelRanks, kMaxStreamedRanks));
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "print the step table of a schedule, or of every phase of a lesson with its captions (checked, not run)");
  flags::add_spec_flags(*explain_cmd, spec);
  explain_cmd->add_option("scenario", files.scenario,
                          "a scenario file or lesson (TOML, docs/scenario-format.md; installed lessons by name, e.g. "
                          "lessons/01_ring_allreduce); flags given override its values (a lesson of several phases "
                          "takes --ranks; edit its phases in the file)");
  cli::BenchFlags bench;
  CLI::App* bench_cmd = add_bench_command(app, bench);
  std::string convert_input;
  CLI::App* convert_cmd = app.add_subcommand("convert", "read a JSON trace (a run's or a lesson's) and write it again as JSON, Chrome trace or CSV");
  convert_cmd->add_option("trace", convert_input, "a JSON trace written by `collsim run --trace` (a run's, or a lesson's .lesson.json)")->required();
  cli::add_trace_flags(*convert_cmd, files.outputs);
  std::string storyboard_out;
  CLI::App* storyboard_cmd = app.add_subcommand(
      "storyboard",
      "draw every step as an SVG (scene, packets, buffers, caption) plus an index.html that plays them; a lesson: every "
      "phase's steps, and a card per compute phase");
  flags::add_spec_flags(*storyboard_cmd, spec);
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
  flags::add_spec_flags(*html_cmd, spec);
  html_cmd->add_option("input", files.scenario,
                       "a scenario file or lesson (run on the CPU backend first) or a JSON trace; none: the flags' run");
  html_cmd->add_option("--out", html.out, "the page to write (e.g. ring.html)")
      ->required()
      ->check([](const std::string& path) { return path.empty() ? std::string("the file name is empty") : std::string(); });
  flags::add_seed_flag(*html_cmd, html_seed);
  flags::add_model_flags(*html_cmd, model);
  html_cmd->add_flag("--live", html.live,
                     "add collsim itself (WebAssembly, about 4 MiB) and a form that runs the lesson or collective again "
                     "in the browser with other ranks, sizes, algorithms and topologies (built when emscripten is "
                     "installed; docs/web.md)");
  html_cmd->add_flag("--data", html.data_only, "write only the page's data (JSON, docs/web.md), not the page");
  html_cmd->add_option("--trace", html.trace,
                       "also write the trace of the run the page plays (JSON, docs/trace-format.md; a lesson: the "
                       "lesson trace), the same file `collsim run --trace` writes");
  std::vector<std::string> validate_files;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "check scenario, lesson, schedule, trace and lecture files without running them (a lesson: every phase prepared, "
      "every question answered; a lecture: every slide's file, phase and comparison); every file is checked and "
      "every bad one said: exit 2 if any had an input error");
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
  flags::add_spec_flags(*export_cmd, spec);
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
  cli::CalibrateFlags calibrate;
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate",
      "measure the links a job's ranks sit on and write them as a topology file: under mpirun (one process per rank, "
      "placed host by host), ping-pongs between rank 0 and a rank of its own host (shared memory) and of every other "
      "host (the network) give each path's latency and bandwidth, and rank 0's reduce and copy rates; --topology-file "
      "reads the file back, so that predictions use what was measured (docs/netlab.md)");
  calibrate_cmd->add_option("--out", calibrate.out, "the topology file to write (a [topology] table)")->required();
  calibrate_cmd->add_option("--max-size", calibrate.max_size,
                            "the largest ping-pong, bytes (K, M suffixes; 256K to 256M): 8 B, then 64K up to it by 4x")
      ->capture_default_str();
  calibrate_cmd->add_option("--repeats", calibrate.repeats, "ping-pongs per size of 64K and more (20 below; the median counts)")
      ->capture_default_str();
  calibrate_cmd->footer(
      "Example, on scripts/netlab's virtual cluster: scripts/netlab mpirun build/app/collsim calibrate --out cluster.toml");
  app.require_subcommand(0, 1);
  flags::prepare_for_people(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_input_error(flags::parse_error_message(app, e, std::vector<std::string>(argv + 1, argv + argc)));
    return 2;
  }
  if (const std::string unexpected = flags::unexpected_arguments(app); !unexpected.empty()) {
    print_input_error(unexpected);
    return 2;
  }
  find_input_files(files.scenario, convert_input, validate_files);
  if (run_cmd->parsed()) return cli::command_run(spec, run, files, model, flags::flags_given(run_cmd));
  if (explain_cmd->parsed()) return cli::command_explain(spec, files.scenario, flags::flags_given(explain_cmd));
  if (bench_cmd->parsed()) return cli::command_bench(bench, flags::flags_given(bench_cmd));
  if (convert_cmd->parsed()) return cli::command_convert(convert_input, files.outputs);
  if (storyboard_cmd->parsed()) {
    const flags::FlagGiven given = flags::flags_given(storyboard_cmd);
    return cli::command_storyboard(files.scenario, storyboard_out, flags::to_request(spec, given), given);
  }
  if (html_cmd->parsed()) {
    const flags::FlagGiven given = flags::flags_given(html_cmd);
    RunRequest request = flags::to_request(spec, given);
    request.seed = html_seed;
    html.topology = flags::topology_flags(model, given);
    return cli::command_html(files.scenario, request, given, html);
  }
  if (validate_cmd->parsed()) return cli::command_validate(validate_files);
  if (calibrate_cmd->parsed()) return cli::command_calibrate(calibrate);
  if (export_cmd->parsed()) {
    const flags::FlagGiven given = flags::flags_given(export_cmd);
    return cli::command_export_msccl(flags::to_request(spec, given), given, msccl);
  }
  if (list_cmd->parsed()) return cli::command_list(list_names);
  std::fputs(app.help().c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const collsim::InputError& e) {
    print_input_error(std::string("collsim: error: ") + e.what());
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
