#include "app/cli/cli_bench.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "app/cli/cli_progress.h"
#include "app/flags/run_flags.h"
#include "app/storyboard/bench_plot_svg.h"
#include "app/views/bench_plot.h"
#include "sim/exec/backend_choice.h"
#include "sim/exec/mpi_backend.h"
#include "sim/exec/reference.h"
#include "sim/schedule/algorithm.h"
#include "sim/run/bench.h"
#include "sim/run/bench_model.h"
#include "sim/run/run_estimate.h"
#include "sim/core/errors.h"
#include "sim/core/output_files.h"

namespace collsim::cli {
namespace {

std::uint64_t bytes_flag(std::string_view flag, const std::string& text) {
  const auto n = parse_count(text);
  if (!n) throw InputError(fmt::format("{}: '{}' is not a size in bytes (an integer, optionally with K, M or G)", flag, text));
  return *n;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// --backend, --placement and --timings: which backend the bench builds for every point.
BackendChoice backend_choice(const BenchFlags& f) {
  if (f.fuse && f.backend != "cpu" && f.backend != "auto")
    throw InputError(fmt::format("--fuse: fusing forwarding chains is the CPU backend's, not --backend {}'s", f.backend));
  BackendChoice choice = choose_backend(f.backend, f.placement);
  if (f.timings != "on" && f.timings != "off")
    throw InputError(fmt::format("--timings: '{}' is not on or off", f.timings));
  choice.cuda.record_timings = f.timings == "on";
  return choice;
}

BenchOptions to_options(const BenchFlags& f, const BackendChoice& backend) {
  BenchOptions o;
  o.backend_name = backend.name;
  if (backend.name == "cuda") o.make_backend = [options = backend.cuda] { return make_cuda_backend(options); };
  o.collective = flags::collective_flag(f.collective);
  o.dtype = flags::dtype_flag(f.dtype);
  o.op = flags::op_flag(f.op);
  // None named: the collective's default (all_reduce's ring, send_recv's direct, ...).
  o.algorithms = f.algorithms.empty() ? std::vector<std::string>{std::string(algorithm_or_default(o.collective, ""))}
                                      : split_list(f.algorithms);
  o.ranks = f.ranks;
  o.root = f.root;
  o.min_bytes = bytes_flag("-b/--minbytes", f.min_bytes);
  o.max_bytes = bytes_flag("-e/--maxbytes", f.max_bytes);
  o.factor = f.factor;
  o.iterations = f.iterations;
  o.warmup = f.warmup;
  o.threads = f.threads;
  if (f.fuse && backend.name != "cpu")
    throw InputError(fmt::format("--fuse: fusing forwarding chains is the CPU backend's (this bench runs on {})", backend.name));
  o.fuse = f.fuse;
  o.algorithm_options.slices = f.slices;
  o.algorithm_options.servers = f.servers;
  o.algorithm_options.colocated = f.colocated;
  o.algorithm_options.ranks_per_node = f.ranks_per_node;
  validate_bench_options(o, f.model.model_only ? kMaxStreamedRanks : kMaxRanks);
  return o;
}

// The reference measured in the same run. CPU: memcpy's rate with the engine's thread
// count, best of 5 trials of 10 copies of 64 MiB per thread (far larger than any cache).
// CUDA: the device copy ceiling, and o.reference_line says so in the header.
MemcpyRate measure_reference(BenchOptions& o, const BackendChoice& backend) {
  if (backend.name != "cuda") return measure_memcpy_rate(o.threads, 64ull << 20, 10, 5);
  const int device = backend.cuda.placement == CudaPlacement::streams ? backend.cuda.device : 0;
  const DeviceCopyRate d = measure_device_copy_ceiling(device);
  o.reference_line = fmt::format(
      "device copy ceiling: {:.2f} GB/s (bytes read + written; the better of cudaMemcpyAsync device to device, "
      "{:.2f} GB/s, and collsim's copy kernel, {:.2f} GB/s; {} copied {} times, best of {} trials, on device {}, {}); "
      "%memcpy and %xfer compare with this ceiling",
      d.ceiling_gbps(), d.memcpy_gbps, d.kernel_gbps, format_bytes(static_cast<double>(d.bytes)), d.iterations,
      d.trials, d.device, d.device_name);
  MemcpyRate m;
  m.threads = 1;
  m.bytes_per_thread = d.bytes;
  m.iterations = d.iterations;
  m.trials = d.trials;
  m.gbps = d.ceiling_gbps();
  return m;
}

// One row of the NCCL reference: the mean and best time of ncclAllReduce on `gpus` ranks.
std::string nccl_row(const BenchOptions& o, int gpus, std::uint64_t bytes) {
  const std::uint64_t count = bytes / dtype_size(o.dtype);
  const NcclTime t = time_nccl_all_reduce(gpus, count, o.dtype, o.op, o.warmup, o.iterations);
  CollectiveSpec spec;
  spec.ranks = gpus;
  spec.count = count;
  spec.dtype = o.dtype;
  const Bandwidth bw = bandwidth(spec, static_cast<std::int64_t>(t.mean_us * 1e3));
  const auto gbps = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : std::string("n/a"); };
  return fmt::format("  {:>10} {:>12} {:>5} {:>6} {:>11.1f} {:>11.1f} {:>8} {:>8}\n", count * dtype_size(o.dtype), count,
                     to_string(o.dtype), to_string(o.op), t.mean_us, t.best_us, gbps(bw.algbw_gbps), gbps(bw.busbw_gbps));
}

// NCCL's own all-reduce on the same sizes, one rank per GPU, as a reference row where
// two or more GPUs are present; otherwise one line says why it did not run. A failure
// here is reported, not fatal: collsim's own rows are the bench's result.
void print_nccl_reference(const BenchOptions& o) {
  const int gpus = cuda_device_count();
  const std::string why = why_no_nccl_reference(o.collective);
  if (!why.empty()) {
    fmt::print("#\n# nccl reference: not run ({})\n", why);
    return;
  }
  fmt::print("#\n# nccl reference: ncclAllReduce in place, {} ranks = GPUs 0..{} in one process; outputs not checked\n"
             "# {:>10} {:>12} {:>5} {:>6} {:>11} {:>11} {:>8} {:>8}\n",
             gpus, gpus - 1, "size", "count", "type", "redop", "time (us)", "best (us)", "algbw", "busbw");
  try {
    for (std::uint64_t bytes : bench_sizes(o)) {
      fmt::print("{}", nccl_row(o, gpus, bytes));
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    fmt::print("# nccl reference failed: {}\n", e.what());
  }
}

// --csv F, --json F and --plot F.svg: checked before the (long) run, written after it, together.
void check_bench_outputs(const BenchFlags& f) {
  check_output_file("--csv", f.csv);
  check_output_file("--json", f.json);
  if (!f.csv.empty() && f.csv == f.json) throw InputError(fmt::format("--json {}: the same file as --csv", f.json));
  if (f.plot.empty()) return;
  std::string extension = std::filesystem::path(f.plot).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".svg")
    throw InputError(fmt::format("--plot {}: the plot is written as SVG; give a file name ending in .svg", f.plot));
  check_output_file("--plot", f.plot);
  for (const auto& [flag, path] : {std::pair{"--csv", &f.csv}, std::pair{"--json", &f.json}})
    if (!path->empty() && same_output_file(f.plot, *path))
      throw InputError(fmt::format("--plot {}: the same file as {}", f.plot, flag));
}

// `backend`: the backend measured; empty under --model-only (the plot then draws predictions only).
void write_bench_outputs(const BenchFlags& f, const BenchOptions& o, const std::string& topology,
                         const std::vector<SweepPoint>& points, const std::string& backend) {
  OutputFileSet files;
  if (!f.csv.empty()) files.stage(f.csv, sweep_csv(o, points));
  if (!f.json.empty()) files.stage(f.json, sweep_json(o, topology, points));
  if (!f.plot.empty()) {
    // The crossover summaries are the ones the bench printed (format_crossover's).
    const gui::BenchPlotInput plot{o, topology, backend, points, crossover(points, SweepClock::predicted),
                                   crossover(points, SweepClock::measured)};
    files.stage(f.plot, storyboard::bench_plot_svg(gui::make_bench_plot(plot)));
  }
  files.commit();
}

std::string topology_line(const BenchOptions& o) { return describe(make_topology(o.topology, o.ranks, o.ranks)); }

// --model-only: the predicted table and its crossover; nothing is allocated or executed.
// Thousands of ranks: every point is a model-only run of its own (run_estimate.h). Their
// sum is said, and the largest one's memory checked, before the first point.
void check_model_bench_estimate(const BenchOptions& o, const TopologyConfig& topology) {
  const std::vector<std::uint64_t> all_sizes = bench_sizes(o);
  if (all_sizes.empty()) return;
  const double sizes = static_cast<double>(all_sizes.size());
  const std::uint64_t largest_count = std::max<std::uint64_t>(1, all_sizes.back() / dtype_size(o.dtype));
  ModelRunEstimate whole, largest;  // every point as the largest (a small count can leave chunks empty)
  for (const std::string& algorithm : o.algorithms)
    if (const std::optional<ModelRunEstimate> e = estimate_model_run(bench_request(o, algorithm, largest_count), topology)) {
      whole.transfers += e->transfers * sizes;
      whole.seconds += e->seconds * sizes;
      if (e->bytes > largest.bytes) largest = *e;
    }
  if (whole.transfers == 0) return;
  const AvailableMemory memory = available_memory();
  if (memory.known) check_model_memory(largest, memory.bytes, memory.limit);
  whole.bytes = largest.bytes;  // one point at a time
  if (whole.seconds > kSayEstimateSeconds)
    fmt::print(stderr, "estimated: {} for {:g} sizes of {} algorithm{}, one point at a time\n", describe(whole), sizes,
               o.algorithms.size(), o.algorithms.size() == 1 ? "" : "s");
}

int command_bench_model_only(const BenchFlags& flags, const TopologyConfig& topology) {
  BenchOptions o = to_options(flags, BackendChoice{});
  o.topology = topology;
  check_model_bench_estimate(o, topology);
  fmt::print("{}", format_model_bench_header(o, topology_line(o)));
  std::string current;
  const std::vector<SweepPoint> points = predict_sweep(o, topology, [&](const SweepPoint& p) {
    if (p.algorithm != current) fmt::print("{}", format_model_bench_algorithm_header(current = p.algorithm));
    fmt::print("{}", format_model_bench_row(o, p));
  });
  fmt::print("#\n{}", format_crossover(points, SweepClock::predicted));
  write_bench_outputs(flags, o, topology_line(o), points, "");
  return 0;
}

// bench --backend mpi, under mpirun: every process runs the bench in step on its own rank;
// under each size, the MPI library's own collective on the same buffers, checked with the
// same reference (docs/distributed.md). Rank 0 prints and writes.
int command_bench_mpi(const BenchFlags& flags, BenchOptions o) {
  const MpiPlace& me = mpi_place();
  for (const std::string& algorithm : o.algorithms) {
    const RunRequest r = bench_request(o, algorithm, 1);
    const int ranks = schedule_total_ranks(r.spec, r.algorithm, r.options);
    if (ranks != me.size && me.rank != 0) throw InputError("");  // the same on every process: rank 0 says it
    if (ranks != me.size)
      throw InputError(fmt::format("{} on {} ranks has {} ranks, but mpirun started {} process{}: give -np {}", algorithm,
                                   o.ranks, ranks, me.size, me.size == 1 ? "" : "es", ranks));
  }
  o.make_backend = [record = flags.timings == "on"] { return make_mpi_backend({.ping_pongs = 16, .record = record}); };
  o.only_rank = me.rank;
  o.sum_over_processes = mpi_sum;
  o.reference_line = "reference: the MPI library's own collective on the same buffers, a '# MPI_…' line under each size";
  const bool speaks = me.rank == 0;
  if (speaks) fmt::print("{}", format_bench_header(o, MemcpyRate{}, make_mpi_backend()->device_name()));
  std::string current;
  std::uint64_t wrong = 0;
  std::vector<SweepPoint> points;
  BenchCallbacks callbacks;
  callbacks.on_row = [&](const BenchRow& row) {
    if (speaks && row.algorithm != current) fmt::print("{}", format_bench_algorithm_header(current = row.algorithm));
    if (speaks) fmt::print("{}", format_bench_row(o, row));
    wrong += row.wrong;
    points.push_back(sweep_point(row));
    if (!row.skipped.empty()) return;
    if (speaks && row.predicted_us && *row.predicted_us > 0)
      fmt::print("#   measured / predicted: {:.2f}{}\n", row.time_us / *row.predicted_us,
                 flags.model.topology_file.empty()
                     ? " (predicted on the preset links, not this network's: `collsim calibrate` measures them for "
                       "--topology-file, docs/netlab.md)"
                     : " (predicted on " + flags.model.topology_file + ")");
    RunResult native = prepare_run(bench_request(o, row.algorithm, row.count));
    native.buffers = allocate_buffers(native.schedule);
    fill_inputs(native.schedule, o.seed, native.buffers);
    const NativeMpiTime t = time_native_collective(native.schedule, native.buffers, o.warmup, o.iterations);
    if (!t.unsupported.empty()) {
      if (speaks) fmt::print("#   {}: not compared ({})\n", t.call.empty() ? "MPI" : t.call, t.unsupported);
      return;
    }
    const std::uint64_t native_wrong = mpi_sum(
        verify_outputs(native.schedule, native.buffers, input_bytes(native.schedule, native.buffers), me.rank).mismatches);
    wrong += native_wrong;
    const Bandwidth bw = bandwidth(native.schedule.spec, t.mean_us * 1e3);
    points.back().native_call = t.call;  // for --plot
    points.back().native_busbw_gbps = bw.busbw_gbps;
    if (speaks)
      fmt::print("#   {} (the MPI library's own): time {:.1f} us, best {:.1f} us, busbw {} GB/s, #wrong {}; collsim's "
                 "busbw / MPI's: {}\n",
                 t.call, t.mean_us, t.best_us, bw.busbw_gbps ? fmt::format("{:.2f}", *bw.busbw_gbps) : "n/a", native_wrong,
                 row.busbw_gbps && bw.busbw_gbps && *bw.busbw_gbps > 0 ? fmt::format("{:.2f}", *row.busbw_gbps / *bw.busbw_gbps)
                                                                    : "n/a");
    std::fflush(stdout);
  };
  run_bench(o, MemcpyRate{}, callbacks);
  if (speaks) {
    // The crossovers as the other backends print them (and --plot marks).
    fmt::print("#\n{}{}", format_crossover(points, SweepClock::predicted), format_crossover(points, SweepClock::measured));
    write_bench_outputs(flags, o, topology_line(o), points, "mpi");
    fmt::print("# wrong output elements in all: {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  }
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int command_bench(const BenchFlags& flags, const flags::FlagGiven& given) {
  const TopologyConfig topology = flags::topology_flags(flags.model, given);
  flags::check_topology_flags(topology, given);
  check_bench_outputs(flags);
  if (flags.model.model_only) return command_bench_model_only(flags, topology);
  const BackendChoice backend = backend_choice(flags);
  BenchOptions o = to_options(flags, backend);
  o.topology = topology;
  if (backend.name == "mpi") return command_bench_mpi(flags, std::move(o));
  const MemcpyRate reference = measure_reference(o, backend);
  // Estimated from the reference just measured, before the first point (the CPU's only:
  // a device's time is not its host's memcpy).
  const RunTimeEstimate estimate =
      backend.name == "cpu" ? estimate_cpu_bytes(bench_data_moved(o), o.threads, reference.gbps) : RunTimeEstimate{};
  if (!flags.allow_long) check_run_time(estimate, "--allow-long", "fewer --ranks, a smaller -e/--maxbytes or fewer --iters");
  const std::string device = make_backend(backend, o.threads)->device_name();
  fmt::print("{}", format_bench_header(o, reference, device));
  if (estimate.seconds > kSayEstimateSeconds) fmt::print("# estimated: {}\n", describe(estimate));
  std::fflush(stdout);
  ProgressLine progress;
  std::string current;
  std::uint64_t wrong = 0;
  std::vector<SweepPoint> points;
  BenchCallbacks callbacks;
  callbacks.on_progress = [&](const BenchProgress& p) {
    progress.show(fmt::format("bench: {}/{}: {} at {} per rank ...", p.done + 1, p.total, p.algorithm,
                              format_bytes(static_cast<double>(p.bytes))));
  };
  callbacks.on_row = [&](const BenchRow& row) {
    progress.clear();
    if (row.algorithm != current) fmt::print("{}", format_bench_algorithm_header(current = row.algorithm));
    fmt::print("{}", format_bench_row(o, row));
    std::fflush(stdout);
    wrong += row.wrong;
    points.push_back(sweep_point(row));
  };
  run_bench(o, reference, callbacks);
  progress.clear();
  if (backend.name == "cuda") print_nccl_reference(o);
  fmt::print("#\n{}{}", format_crossover(points, SweepClock::predicted), format_crossover(points, SweepClock::measured));
  write_bench_outputs(flags, o, topology_line(o), points, backend.name);
  fmt::print("# wrong output elements in all: {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  return wrong == 0 ? 0 : 1;
}

}  // namespace collsim::cli
