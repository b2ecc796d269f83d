// The CUDA backend (sim/exec/cuda_backend.cpp) on the emulated CUDA runtime of
// tests/cuda_emulator.h: buffers, pre- and post-operations, the event replay of the
// launch plan, staging through pinned host memory, peer access, copy-back and the
// conversion of event times, all without a GPU. Streams interleave at random (several
// seeds per case), so a missing wait would give a wrong result; outputs must equal the
// CPU backend's bit for bit. What this cannot show — real kernels, real concurrency,
// real peer access and speed — is for tests/test_gpu_backend.cpp on a GPU.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>

#include "sim/exec/cuda_backend.h"
#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "tests/cuda_emulator.h"

using namespace collsim;
namespace emu = collsim::cuda::emulator;

namespace {

Backend& cpu() {
  static std::unique_ptr<Backend> b = make_cpu_backend({.threads = 1, .before_transfer = {}, .should_stop = {}, .after_transfer = {}});
  return *b;
}

RunRequest request(Collective c, std::string_view algorithm, int ranks, std::uint64_t count, DataType dt = DataType::f32,
                   ReduceOp op = ReduceOp::sum, bool in_place = false) {
  RunRequest r;
  r.spec = {c, ranks, count, dt, op, 0, in_place};
  r.algorithm = std::string(algorithm);
  r.seed = static_cast<std::uint64_t>(ranks) * 31 + count;
  return r;
}

void check_same_outputs(const RunResult& a, const RunResult& b) {
  for (int r = 0; r < a.schedule.spec.ranks; ++r) {
    const auto x = output_after_run(a, r), y = output_after_run(b, r);
    REQUIRE(x.size() == y.size());
    CHECK_MESSAGE((x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0), "rank ", r, "'s output");
  }
}

// Each transfer began after every transfer it depends on ended, on the emulated clock
// (which only moves forward, in the order operations ran). Only on one device: each
// device's times count from its own origin event, and the emulator runs those at
// arbitrary moments, where a real GPU runs them as soon as they are issued.
void check_timings(const RunResult& r, const CudaLaunchPlan& plan) {
  const Execution& ex = r.execution;
  CHECK(ex.total_ns > 0);
  for (std::size_t t = 0; t < ex.timings.size(); ++t) {
    const TransferTiming& x = ex.timings[t];
    CHECK(x.worker == r.schedule.transfers[t].dst);  // the receiver's stream
    CHECK(0 <= x.begin_ns);
    CHECK(x.begin_ns < x.end_ns);
    CHECK(x.end_ns <= ex.total_ns);
    const auto device = [&](std::size_t i) { return plan.device_of_stream[static_cast<std::size_t>(r.schedule.transfers[i].dst)]; };
    for (std::uint32_t d : r.dependencies.dependencies_of(t))
      if (device(d) == device(t)) CHECK(x.begin_ns > ex.timings[d].end_ns);
  }
}

// Runs `req` on a CUDA backend over an emulator set up by `config`, for three seeds of
// the stream interleaving: verified, equal to the CPU's outputs, timings in order.
void run_emulated(const RunRequest& req, CudaBackendOptions options = {}, emu::Config config = {}) {
  INFO(to_string(req.spec.collective), " ", req.algorithm, " N=", req.spec.ranks, " count=", req.spec.count, " ",
       to_string(req.spec.dtype), " ", to_string(req.spec.op), std::string(req.spec.in_place ? " in place " : " "),
       to_string(options.placement), " on ", config.devices, " device(s)");
  const RunResult want = run_collective(req, cpu());
  for (std::uint64_t seed : {1, 2, 3}) {
    config.seed = seed;
    emu::reset(config);
    auto backend = make_cuda_backend(options);
    const RunResult got = run_collective(req, *backend);
    REQUIRE_MESSAGE(got.verification.ok, got.verification.first_mismatch);
    check_same_outputs(got, want);
    if (options.record_timings)
      check_timings(got, plan_cuda_launches(got.schedule, got.dependencies, options.placement, config.devices));
  }
}

}  // namespace

TEST_CASE("every algorithm of every collective runs and verifies on emulated streams") {
  for (const AlgorithmInfo& a : all_algorithms())
    for (int ranks : {1, 3, 4, 8}) {
      const bool reduces = collective_reduces(a.collective);
      run_emulated(request(a.collective, a.name, ranks, 7, reduces ? DataType::bf16 : DataType::i64,
                           reduces ? ReduceOp::avg : ReduceOp::sum));
      run_emulated(request(a.collective, a.name, ranks, 1000, DataType::i32, reduces ? ReduceOp::max : ReduceOp::sum));
      if (collective_supports_in_place(a.collective)) run_emulated(request(a.collective, a.name, ranks, 1000, DataType::f32, ReduceOp::sum, true));
    }
}

TEST_CASE("devices placement: rank r on device r mod D, with peer access or staged") {
  const std::vector<RunRequest> requests = {
      request(Collective::all_reduce, "ring", 5, 1000, DataType::f32, ReduceOp::sum),
      request(Collective::all_reduce, "parameter_server", 4, 1001, DataType::f16, ReduceOp::avg),
      request(Collective::all_to_all, "bruck", 6, 100, DataType::i32),
      request(Collective::barrier, "dissemination", 5, 0, DataType::i32)};
  const CudaBackendOptions devices{.placement = CudaPlacement::devices};
  SUBCASE("peer access everywhere: no transfer is staged") {
    for (const RunRequest& r : requests) run_emulated(r, devices, {.devices = 3});
    CHECK(emu::stats().host_touches == 0);
  }
  SUBCASE("no peer access: transfers between devices go through pinned host memory") {
    for (const RunRequest& r : requests) run_emulated(r, devices, {.devices = 3, .peer_allowed = [](int, int) { return false; }});
    CHECK(emu::stats().host_touches > 0);
  }
  SUBCASE("peer access one way only") {
    for (const RunRequest& r : requests)
      run_emulated(r, devices, {.devices = 2, .peer_allowed = [](int reader, int owner) { return reader < owner; }});
  }
  SUBCASE("max_devices limits D") {
    emu::reset({.devices = 4});
    auto b = make_cuda_backend({.placement = CudaPlacement::devices, .max_devices = 2});
    CHECK(b->device_name().find("2 CUDA devices") != std::string::npos);
    CHECK(run_collective(requests[0], *b).verification.ok);
  }
}

TEST_CASE("the device name says where ranks live and what is staged") {
  emu::reset({.devices = 2, .peer_allowed = [](int, int) { return false; }});
  CHECK(make_cuda_backend()->device_name() == "CUDA device 0 (emulated GPU 0), one stream per rank");
  const std::string devices = make_cuda_backend({.placement = CudaPlacement::devices})->device_name();
  CHECK(devices.find("rank r on device r mod 2") != std::string::npos);
  CHECK(devices.find("staged through pinned host memory 0<-1 1<-0") != std::string::npos);
  CHECK(make_cuda_backend({.record_timings = false})->device_name().find("timings off") != std::string::npos);
}

TEST_CASE("staging every transfer through host memory still verifies (the test hook for one GPU)") {
  for (const char* algorithm : {"ring", "rabenseifner", "double_binary_tree"})
    run_emulated(request(Collective::all_reduce, algorithm, 6, 999, DataType::f64, ReduceOp::prod),
                 {.stage_through_host = true});
  CHECK(emu::stats().host_touches > 0);
}

TEST_CASE("timings off, and no wait elision, give the same results") {
  const RunRequest req = request(Collective::reduce_scatter, "ring", 5, 333, DataType::f32, ReduceOp::sum);
  run_emulated(req, {.record_timings = false});
  emu::reset({});
  auto untimed = make_cuda_backend({.record_timings = false});
  const RunResult r = run_collective(req, *untimed);
  CHECK(r.execution.total_ns > 0);
  for (const TransferTiming& t : r.execution.timings) CHECK(t.end_ns == 0);
  const std::size_t records_untimed = emu::stats().records;
  emu::reset({});
  auto timed = make_cuda_backend();
  run_collective(req, *timed);
  CHECK(emu::stats().records == records_untimed + 2 * r.schedule.transfers.size());  // a begin and an end each
  run_emulated(req, {.elision = WaitElision::none});
}

TEST_CASE("execute_repeatedly copies in once, runs N times, copies out once") {
  emu::reset({});
  auto backend = make_cuda_backend();
  RunResult r = run_collective(request(Collective::all_gather, "ring", 4, 100), *backend);
  emu::reset({});
  const auto runs = backend->execute_repeatedly(r.schedule, r.dependencies, r.buffers, 4);
  CHECK(runs.size() == 4);
  CHECK(emu::stats().kernels == 4 * r.schedule.transfers.size() + 4 * r.schedule.pre_ops.size());
  CHECK(verify_outputs(r.schedule, r.buffers).ok);
  CHECK(backend->execute_repeatedly(r.schedule, r.dependencies, r.buffers, 0).empty());
}

TEST_CASE("make_cuda_backend refuses a device that does not exist") {
  emu::reset({.devices = 1});
  CHECK_THROWS_AS(make_cuda_backend({.device = 1}), InputError);
  emu::reset({.devices = 0});
  CHECK_THROWS_WITH_AS(make_cuda_backend(), "no CUDA device found", InputError);
  emu::reset({});
}
