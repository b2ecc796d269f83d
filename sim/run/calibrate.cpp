#include "sim/run/calibrate.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>

#include <fmt/format.h>

#include "kernels/host_loops.h"
#include "sim/core/errors.h"
#include "sim/exec/mpi_backend.h"

namespace collsim {
namespace {

constexpr std::size_t kLarge = 64 * 1024;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Ranks a and b at every size (rank 0 is a): the medians, on rank 0.
PathMeasurement measure(std::string what, int a, int b, const std::vector<std::size_t>& sizes, const CalibrateOptions& o) {
  PathMeasurement m{std::move(what), a, b, {}, {}};
  for (const std::size_t bytes : sizes) {
    const std::vector<double> ns = mpi_ping_pong_ns(a, b, bytes, bytes < kLarge ? o.small_repeats : o.large_repeats);
    if (!ns.empty()) m.points.push_back({bytes, median(ns)});
  }
  mpi_idle_barrier();  // the others sleep meanwhile, leaving the cores to the two that measure
  std::string problem;
  if (mpi_place().rank == a) try {
      m.fit = fit_link(m.points);
    } catch (const InputError& e) {
      problem = fmt::format("{} (rank {} <-> rank {}, {})", e.what(), a, b, m.what);
    }
  mpi_stop_all_if(problem);
  return m;
}

// GB/s of `run` over `bytes`: the best of five.
template <typename F>
double best_rate(std::size_t bytes, F run) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 6; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (k > 0) best = std::min(best, ns);  // k = 0 touches the pages
  }
  return static_cast<double>(bytes) / best;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

// calibrate_over_mpi, with MpiStopped on the processes but rank 0 when rank 0 found an error.
Calibration calibrate_job(const CalibrateOptions& o, const CalibrateProgress& progress) {
  const MpiPlace& me = mpi_place();
  if (me.size < 2)
    throw InputError("calibrate measures links between ranks: start it with mpirun -np 2 or more (scripts/netlab mpirun "
                     "collsim calibrate ... on the virtual cluster)");
  // Every process learns the shape (an error stops them all alike).
  const std::vector<std::string> hosts = mpi_gather_text(me.host);
  std::string problem;
  Calibration c;
  if (me.rank == 0) try {
      c.shape = cluster_shape(hosts);
    } catch (const InputError& e) {
      problem = e.what();
    }
  mpi_stop_all_if(problem);
  const std::string shape = mpi_share(me.rank == 0 ? fmt::format("{} {}", c.shape.hosts, c.shape.ranks_per_host) : "");
  const int host_count = std::stoi(shape), per_host = std::stoi(shape.substr(shape.find(' ') + 1));
  const auto say = [&](const std::string& what) {
    if (me.rank == 0 && progress) progress(what);
  };
  if (per_host > 1) {
    say("shared memory: rank 0 <-> rank 1");
    c.local = measure("shared memory", 0, 1, o.sizes, o);
  }
  if (host_count > 1) {
    say(fmt::format("network: rank 0 <-> rank {}", per_host));
    c.network = measure("network", 0, per_host, o.sizes, o);
    // Each other host: the smallest size and the largest, for a host whose link is slower.
    const std::vector<std::size_t> two{o.sizes.front(), o.sizes.back()};
    for (int h = 2; h < host_count; ++h) {
      say(fmt::format("host {}: rank 0 <-> rank {}", h, h * per_host));
      PathMeasurement m = measure(fmt::format("to host {}", h), 0, h * per_host, two, o);
      if (me.rank == 0) m.what = "to host " + c.shape.host_names[static_cast<std::size_t>(h)];
      c.hosts.push_back(std::move(m));
    }
    if (me.rank == 0) {
      PathMeasurement first = *c.network;
      first.what = "to host " + c.shape.host_names[1];
      c.hosts.insert(c.hosts.begin(), first);
    }
  }
  if (me.rank == 0) {
    say(fmt::format("rank 0's reduce and copy of {}", format_bytes(static_cast<double>(o.rate_bytes))));
    const std::size_t n = o.rate_bytes / sizeof(float);
    std::vector<float> a(n, 1.0f), b(n, 2.0f);
    c.reduce_rate_gbps = best_rate(o.rate_bytes, [&] { host_reduce(a.data(), b.data(), n, DataType::f32, ReduceOp::sum); });
    c.copy_rate_gbps = best_rate(o.rate_bytes, [&] { host_copy(a.data(), b.data(), n, DataType::f32); });
    c.rate_bytes = o.rate_bytes;
    c.when = utc_now();
    c.library = mpi_library_version();
  }
  mpi_idle_barrier();
  return c;
}

}  // namespace

Calibration calibrate_over_mpi(const CalibrateOptions& o, const CalibrateProgress& progress) {
  try {
    return calibrate_job(o, progress);
  } catch (const MpiStopped&) {
    Calibration stopped;
    stopped.stopped = true;
    return stopped;
  }
}

}  // namespace collsim
