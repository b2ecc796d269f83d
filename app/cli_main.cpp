// collsim: the command-line front end. Thin: it parses flags into the library's plain
// requests and prints the library's reports. Exit codes: 0 success, 1 a wrong result
// (verification or schedule check failed), 2 bad input (flags, values, files).
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <collsim/version.h>

#include "kernels/cuda_api.h"
#include "sim/errors.h"
#include "sim/output_files.h"
#include "sim/report.h"
#include "sim/run.h"

namespace {

using namespace collsim;

// Flags as typed, before they are checked and turned into a RunRequest.
struct SpecFlags {
  std::string collective = "all_reduce", algorithm = "ring", count = "1M", dtype = "f32", op = "sum";
  int ranks = 4, root = 0, slices = 1, servers = 1;
  bool colocated = false;
};

struct RunFlags {
  std::string backend = "auto", dump;
  std::uint64_t seed = 1;
  bool quiet = false;
};

void add_spec_flags(CLI::App& cmd, SpecFlags& f) {
  cmd.add_option("-c,--collective", f.collective, "all_reduce, broadcast, reduce, all_gather, ... (see `collsim list`)")
      ->capture_default_str();
  cmd.add_option("-a,--algorithm", f.algorithm, "ring, parameter_server, direct, ... (see `collsim list`)")
      ->capture_default_str();
  cmd.add_option("-n,--ranks", f.ranks, "number of ranks (parameter_server: workers)")->capture_default_str();
  cmd.add_option("--count", f.count, "elements per block (K in the buffer table); suffixes K, M, G = powers of 1024")
      ->capture_default_str();
  cmd.add_option("-t,--dtype", f.dtype, "f32 f64 f16 bf16 i32 i64")->capture_default_str();
  cmd.add_option("-o,--op", f.op, "sum prod min max avg")->capture_default_str();
  cmd.add_option("--root", f.root, "root rank of rooted collectives")->capture_default_str();
  cmd.add_option("--slices", f.slices, "ring: pipeline every chunk in this many slices")->capture_default_str();
  cmd.add_option("--servers", f.servers, "parameter_server: number of servers S (1..ranks)")->capture_default_str();
  cmd.add_flag("--colocated", f.colocated, "parameter_server: servers run on workers 0..S-1 instead of extra ranks");
}

RunRequest to_request(const SpecFlags& f) {
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
  r.spec = {*collective, f.ranks, *count, *dtype, *op, f.root};
  r.algorithm = f.algorithm;
  r.options = {f.slices, f.servers, f.colocated};
  return r;
}

std::unique_ptr<Backend> make_backend(const std::string& name, bool quiet) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "auto") {
    if (!quiet) std::fputs("backend auto: using the CPU backend (this build runs no CUDA backend yet)\n", stdout);
    return make_cpu_backend();
  }
  if (name == "cuda")
    throw InputError(fmt::format("--backend cuda: not available: this build has no CUDA backend yet "
                                 "(CUDA kernels compiled: {}, CUDA devices: {}); use --backend cpu",
                                 cuda::built_with_cuda() ? "yes" : "no", cuda::device_count()));
  throw InputError(fmt::format("--backend: unknown backend '{}' (use auto, cpu or cuda)", name));
}

// DIR/rank<r>.in.bin and DIR/rank<r>.out.bin, raw little-endian arrays; all or nothing.
void dump_buffers(const RunResult& r, const std::filesystem::path& dir) {
  OutputFileSet files;
  for (int rank = 0; rank < r.schedule.spec.ranks; ++rank) {
    const RankBuffers& b = r.buffers[static_cast<std::size_t>(rank)];
    if (input_elements(r.schedule.spec, rank) > 0) files.stage(dir / fmt::format("rank{}.in.bin", rank), b.input);
    if (output_elements(r.schedule.spec, rank) > 0) files.stage(dir / fmt::format("rank{}.out.bin", rank), b.output);
  }
  files.commit();
}

int command_run(const SpecFlags& sf, const RunFlags& rf) {
  const RunRequest request = [&] {
    RunRequest r = to_request(sf);
    r.seed = rf.seed;
    return r;
  }();
  if (!rf.dump.empty()) ensure_writable_folder(rf.dump, "--dump");
  std::unique_ptr<Backend> backend = make_backend(rf.backend, rf.quiet);
  const RunResult result = run_collective(request, *backend);
  if (!rf.dump.empty()) dump_buffers(result, rf.dump);
  if (rf.quiet) {
    fmt::print("{}\n", result.verification.ok ? "verified" : "WRONG: " + result.verification.first_mismatch);
  } else {
    if (result.schedule.step_count() <= 64) fmt::print("steps:\n{}", format_step_overview(result.schedule));
    fmt::print("{}", format_run_summary(result));
    if (!rf.dump.empty()) fmt::print("  {:<11} {}\n", "dump", rf.dump);
  }
  return result.verification.ok ? 0 : 1;
}

int command_explain(const SpecFlags& sf) {
  const RunRequest request = to_request(sf);
  const Schedule s = build_schedule(request.spec, request.algorithm, request.options);
  check_schedule(s);
  fmt::print("{}", format_step_table(s));
  return 0;
}

int run_cli(int argc, char** argv) {
  CLI::App app{"collsim: run collective-communication algorithms chunk by chunk, verify them, and show each transfer.\n"
               "Try: collsim run            (ring all-reduce on 4 ranks)\n"
               "     collsim explain --count 8\n"
               "     collsim list",
               "collsim"};
  app.set_version_flag("--version", std::string("collsim ") + COLLSIM_VERSION);
  SpecFlags spec;
  RunFlags run;
  CLI::App* run_cmd = app.add_subcommand("run", "run a collective on a backend, verify every output, print the summary");
  add_spec_flags(*run_cmd, spec);
  run_cmd->add_option("--backend", run.backend, "auto, cpu or cuda")->capture_default_str();
  run_cmd->add_option("--seed", run.seed, "seed of the deterministic inputs")->capture_default_str();
  run_cmd->add_option("--dump", run.dump, "write DIR/rank<r>.in.bin and rank<r>.out.bin (raw little-endian arrays)");
  run_cmd->add_flag("-q,--quiet", run.quiet, "print only the verification result");
  CLI::App* explain_cmd = app.add_subcommand("explain", "print the step table of a schedule (checked, not run)");
  add_spec_flags(*explain_cmd, spec);
  CLI::App* list_cmd = app.add_subcommand("list", "list collectives, algorithms with their cost formulas, types and ops");
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
  if (run_cmd->parsed()) return command_run(spec, run);
  if (explain_cmd->parsed()) return command_explain(spec);
  if (list_cmd->parsed()) {
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
  } catch (const collsim::ScheduleError& e) {
    std::fprintf(stderr, "collsim: schedule check failed (a bug in the algorithm): %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "collsim: error: out of memory\n");
    return 2;
  }
}
