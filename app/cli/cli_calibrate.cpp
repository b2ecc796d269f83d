#include "app/cli/cli_calibrate.h"

#include <cstdio>

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/output_files.h"
#include "sim/core/types.h"
#include "sim/exec/mpi_backend.h"
#include "sim/run/calibrate.h"

namespace collsim::cli {
namespace {

constexpr const char* kOneProcess =
    "calibrate was started without mpirun, so its job is this one process and there is no link to measure: start it "
    "with mpirun -np 2 or more (scripts/netlab mpirun collsim calibrate ... on the virtual cluster)";

// The sizes measured: 8 B for α, then 64 KiB up to the largest by factors of 4.
std::vector<std::size_t> sizes_up_to(const std::string& max_size) {
  const auto top = parse_count(max_size);
  if (!top || *top < (256u << 10) || *top > (256u << 20))
    throw InputError(fmt::format("--max-size: a size from 256K to 256M (an integer, optionally with K or M), got '{}'",
                                 max_size));
  std::vector<std::size_t> sizes{8};
  for (std::size_t s = 64 << 10; s <= *top; s *= 4) sizes.push_back(s);
  if (sizes.back() != *top) sizes.push_back(static_cast<std::size_t>(*top));
  return sizes;
}

void print_path(const PathMeasurement& m) {
  fmt::print("  {:<20} rank {} <-> rank {}:", m.what, m.a, m.b);
  for (const PingPongPoint& p : m.points)
    fmt::print(" {} {};", format_bytes(static_cast<double>(p.bytes)), format_duration_ns(p.one_way_ns));
  fmt::print("  fit {:.4g} us, {:.4g} GB/s\n", m.fit.latency_us, m.fit.bandwidth_gbps);
}

}  // namespace

int command_calibrate(const CalibrateFlags& f) {
  if (!why_no_mpi().empty()) throw InputError("calibrate: " + why_no_mpi());
  CalibrateOptions o;
  o.sizes = sizes_up_to(f.max_size);
  if (f.repeats < 1 || f.repeats > 1000) throw InputError(fmt::format("--repeats: a whole number from 1 to 1000, got {}", f.repeats));
  o.large_repeats = f.repeats;
  // Without a launcher the job is this process alone: said before MPI starts at all.
  if (!launched_by_mpi_launcher()) throw InputError(kOneProcess);
  const MpiPlace& me = mpi_place();
  std::string problem;
  if (me.rank == 0) try {
      check_output_path("--out", f.out);
    } catch (const InputError& e) {
      problem = e.what();
    }
  try {
    mpi_stop_all_if(problem);
  } catch (const MpiStopped&) {
    return 2;
  }
  const Calibration c = calibrate_over_mpi(o, [](const std::string& what) {
    fmt::print(stderr, "calibrate: measuring {}\n", what);
    std::fflush(stderr);
  });
  if (me.rank != 0) return c.stopped ? 2 : 0;
  const TopologyConfig t = calibrated_topology(c);
  OutputFileSet files;
  const std::string text = topology_file_text(c, t);
  files.stage(f.out, std::as_bytes(std::span(text.data(), text.size())));
  files.commit();
  fmt::print("calibrated {} processes on {} host{}, {} per host ({})\n", c.shape.hosts * c.shape.ranks_per_host,
             c.shape.hosts, c.shape.hosts == 1 ? "" : "s", c.shape.ranks_per_host, c.library);
  if (c.local) print_path(*c.local);
  for (const PathMeasurement& m : c.hosts) print_path(m);
  fmt::print("  reduce {:.4g} GB/s, copy {:.4g} GB/s (rank 0, {} of f32)\n", c.reduce_rate_gbps, c.copy_rate_gbps,
             format_bytes(static_cast<double>(c.rate_bytes)));
  fmt::print("topology: {} in {}{}\n", to_string(t.kind), f.out,
             t.overrides.empty() ? "" : fmt::format(" ({} slower host link{})", t.overrides.size(), t.overrides.size() == 1 ? "" : "s"));
  fmt::print("  use it: collsim run --topology-file {} ...   (mpirun ... collsim bench --backend mpi --topology-file {})\n",
             f.out, f.out);
  return 0;
}

}  // namespace collsim::cli
