// GPU test: the CUDA backend runs every algorithm of every collective correctly. A subset
// of the CPU sweep (ranks 1-5 and 8; counts 0, 1, 7, 1000; every data type and op in
// rotation), streams placement, against the host reference; the outputs must equal the CPU
// backend's bit for bit (same schedule, same order of reductions, same functors). Then the
// other paths once each: devices placement, transfers staged through pinned host memory,
// timings off, no wait elision, repeated runs, device timings that respect every
// dependency, the copy ceiling, and a CUDA error that names its call, file and line.
//
// Exit codes: 0 pass, 1 failure, 77 skipped (no CUDA device, or built without CUDA).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "kernels/cuda_api.h"
#include "sim/exec/cuda_backend.h"
#include "sim/run/run.h"

using namespace collsim;

namespace {

int g_checks = 0;
int g_failures = 0;

void check(bool ok, const std::string& what) {
  ++g_checks;
  if (ok) return;
  if (++g_failures <= 30) std::printf("FAIL %s\n", what.c_str());
}

std::string describe(const RunRequest& r) {
  return std::string(to_string(r.spec.collective)) + " " + r.algorithm + " N=" + std::to_string(r.spec.ranks) +
         " count=" + std::to_string(r.spec.count) + " " + std::string(to_string(r.spec.dtype)) + " " +
         std::string(to_string(r.spec.op)) + (r.spec.in_place ? " in place" : "");
}

// Every (type, op) pair over the sweep: each point takes the next few in rotation.
struct TypeOp {
  DataType dtype;
  ReduceOp op;
};
constexpr TypeOp kRotation[] = {
    {DataType::f32, ReduceOp::sum},  {DataType::f64, ReduceOp::prod}, {DataType::f16, ReduceOp::min},
    {DataType::bf16, ReduceOp::max}, {DataType::i32, ReduceOp::avg},  {DataType::i64, ReduceOp::sum},
    {DataType::f16, ReduceOp::avg},  {DataType::bf16, ReduceOp::sum}, {DataType::i32, ReduceOp::prod},
    {DataType::i64, ReduceOp::max},  {DataType::f32, ReduceOp::min},  {DataType::f64, ReduceOp::avg},
};

Backend& cpu() {
  static std::unique_ptr<Backend> b = make_cpu_backend();
  return *b;
}

bool same_outputs(const RunResult& a, const RunResult& b) {
  for (int r = 0; r < a.schedule.spec.ranks; ++r) {
    const auto x = output_after_run(a, r), y = output_after_run(b, r);
    if (x.size() != y.size() || (!x.empty() && std::memcmp(x.data(), y.data(), x.size()) != 0)) return false;
  }
  return true;
}

// Runs `req` on `gpu`: verified against the host reference and, when `compare`, equal to
// the CPU backend's outputs bit for bit. Returns the GPU run.
RunResult run_and_check(const RunRequest& req, Backend& gpu, const std::string& label, bool compare = true) {
  const std::string what = label + ": " + describe(req);
  try {
    RunResult r = run_collective(req, gpu);
    check(r.verification.ok, what + ": " + r.verification.first_mismatch);
    if (compare) check(same_outputs(r, run_collective(req, cpu())), what + ": outputs differ from the CPU backend's");
    return r;
  } catch (const std::exception& e) {
    check(false, what + ": " + e.what());
    return {};
  }
}

RunRequest request(Collective c, std::string_view algorithm, int ranks, std::uint64_t count, TypeOp to,
                   bool in_place = false) {
  RunRequest r;
  r.spec = {c, ranks, count, to.dtype, to.op, 0, in_place};
  r.algorithm = std::string(algorithm);
  r.seed = static_cast<std::uint64_t>(ranks) * 7919 + count;
  return r;
}

void sweep(Backend& gpu) {
  std::size_t next = 0, runs = 0;
  for (const AlgorithmInfo& a : all_algorithms())
    for (int ranks : {1, 2, 3, 4, 5, 8})
      for (std::uint64_t count : {0u, 1u, 7u, 1000u}) {
        const bool reduces = collective_reduces(a.collective);
        for (int k = 0; k < (reduces ? 4 : 1); ++k, ++runs) {
          const TypeOp to = reduces ? kRotation[next++ % std::size(kRotation)]
                                    : TypeOp{kRotation[(runs + static_cast<std::size_t>(ranks)) % 6].dtype, ReduceOp::sum};
          run_and_check(request(a.collective, a.name, ranks, count, to), gpu, "sweep");
        }
        if (collective_supports_in_place(a.collective)) {
          run_and_check(request(a.collective, a.name, ranks, count, kRotation[0], true), gpu, "sweep");
          ++runs;
        }
      }
  std::printf("sweep: %zu runs of %zu algorithms\n", runs, all_algorithms().size());
}

// Each transfer starts after everything it depends on ended, on the device's clock
// (events resolve about 0.5 us: allow 2 us).
void check_timings(const RunResult& r, const std::string& label) {
  const Execution& ex = r.execution;
  check(ex.total_ns > 0, label + ": total time measured");
  for (std::size_t t = 0; t < ex.timings.size(); ++t) {
    const TransferTiming& x = ex.timings[t];
    check(0 <= x.begin_ns && x.begin_ns <= x.end_ns && x.end_ns <= ex.total_ns + 2000,
          label + ": transfer " + std::to_string(t) + " times inside the run");
    for (std::uint32_t d : r.dependencies.dependencies_of(t))
      check(x.begin_ns + 2000 >= ex.timings[d].end_ns,
            label + ": transfer " + std::to_string(t) + " began before its dependency " + std::to_string(d) + " ended");
  }
}

void other_paths() {
  const RunRequest ring = request(Collective::all_reduce, "ring", 8, 1 << 20, kRotation[0]);
  const RunRequest ps = request(Collective::all_reduce, "parameter_server", 5, 65537, {DataType::bf16, ReduceOp::avg});
  const RunRequest a2a = request(Collective::all_to_all, "bruck", 6, 1000, {DataType::i64, ReduceOp::sum});

  auto streams = make_cuda_backend();
  check_timings(run_and_check(ring, *streams, "timings"), "timings ring");
  check_timings(run_and_check(ps, *streams, "timings"), "timings parameter_server");

  auto devices = make_cuda_backend({.placement = CudaPlacement::devices});
  std::printf("devices placement: %s\n", devices->device_name().c_str());
  for (const RunRequest& r : {ring, ps, a2a}) run_and_check(r, *devices, "devices");

  auto staged = make_cuda_backend({.stage_through_host = true});
  for (const RunRequest& r : {ring, ps, a2a}) run_and_check(r, *staged, "staged through host");

  auto untimed = make_cuda_backend({.record_timings = false});
  const RunResult u = run_and_check(ring, *untimed, "timings off");
  check(u.execution.total_ns > 0, "timings off: the total is still measured");

  auto no_elision = make_cuda_backend({.elision = WaitElision::none});
  for (const RunRequest& r : {ring, ps, a2a}) run_and_check(r, *no_elision, "no wait elision");

  RunResult rep = run_and_check(ring, *streams, "repeated");
  const auto runs = streams->execute_repeatedly(rep.schedule, rep.dependencies, rep.buffers, 3);
  check(runs.size() == 3 && verify_outputs(rep.schedule, rep.buffers).ok, "execute_repeatedly: 3 runs, outputs still right");
}

void copy_ceiling_and_errors() {
  const DeviceCopyRate d = measure_device_copy_rate(0, 256ull << 20, 5, 2);
  std::printf("copy ceiling (256 MiB): cudaMemcpyAsync %.1f GB/s, copy kernel %.1f GB/s\n", d.memcpy_gbps, d.kernel_gbps);
  check(d.memcpy_gbps > 0 && d.kernel_gbps > 0, "copy ceiling measured");
  try {
    cuda::set_device(1 << 20);
    check(false, "cudaSetDevice(1 << 20) should fail");
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    check(m.find("cudaSetDevice") != std::string::npos && m.find("cuda_api.cu:") != std::string::npos,
          std::string("a CUDA error names its call, file and line: ") + m);
  }
  cuda::set_device(0);
}

}  // namespace

int main() {
  const int devices = cuda::device_count();
  if (devices == 0) {
    std::printf("SKIP: no CUDA device (%s)\n", cuda::built_with_cuda() ? "cudaGetDeviceCount reports none"
                                                                        : "collsim was built without CUDA");
    return 77;
  }
  std::printf("CUDA devices: %d, device 0: %s\n", devices, cuda::device_name(0).c_str());
  const auto start = std::chrono::steady_clock::now();
  try {
    auto gpu = make_cuda_backend();
    sweep(*gpu);
    other_paths();
    copy_ceiling_and_errors();
  } catch (const std::exception& e) {
    check(false, std::string("unexpected error: ") + e.what());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %d checks, %d failures, %.1f s\n", g_failures ? "FAIL" : "PASS", g_checks, g_failures, s);
  return g_failures ? 1 : 0;
}
