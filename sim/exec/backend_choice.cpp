#include "sim/exec/backend_choice.h"
#include "sim/exec/mpi_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "kernels/cuda_api.h"
#include "kernels/nccl_api.h"
#include "sim/core/errors.h"
#include "sim/core/nearest_name.h"

namespace collsim {
namespace {

// Why there is no CUDA device to use, in words a user can act on.
std::string no_device_reason() {
  return cuda::built_with_cuda() ? "collsim has the CUDA backend, but the CUDA runtime reports no device"
                                 : "this build of collsim has no CUDA backend (nvcc was not found when it was configured)";
}

}  // namespace

BackendChoice choose_backend(const std::string& backend_flag, const std::string& placement_flag) {
  const auto placement = parse_cuda_placement(placement_flag);
  if (!placement)
    throw InputError(fmt::format("--placement: unknown placement '{}' (use streams or devices)", placement_flag));
  BackendChoice choice;
  choice.cuda.placement = *placement;
  const bool device = cuda::device_count() > 0;
  if (backend_flag == "cpu") {
    choice.name = "cpu";
  } else if (backend_flag == "cuda") {
    if (!device) throw InputError(fmt::format("--backend cuda: no CUDA device: {}; use --backend cpu or auto", no_device_reason()));
    choice.name = "cuda";
  } else if (backend_flag == "mpi") {
    if (const std::string why = why_no_mpi(); !why.empty()) throw InputError("--backend mpi: " + why);
    choice.name = "mpi";
  } else if (backend_flag == "auto") {
    choice.name = device ? "cuda" : "cpu";
    choice.auto_reason = device ? fmt::format("{} CUDA device(s) found", cuda::device_count()) : no_device_reason();
  } else {
    throw InputError(fmt::format("--backend: unknown backend '{}' (use auto, cpu, cuda or mpi){}", backend_flag,
                                 did_you_mean(backend_flag, {"auto", "cpu", "cuda", "mpi"})));
  }
  return choice;
}

std::unique_ptr<Backend> make_backend(const BackendChoice& choice, int cpu_threads,
                                      std::function<void(std::size_t, std::size_t)> cpu_progress) {
  if (choice.name == "cuda") return make_cuda_backend(choice.cuda);
  if (choice.name == "mpi") return make_mpi_backend(choice.mpi);
  return make_cpu_backend(
      {.threads = cpu_threads, .before_transfer = {}, .should_stop = {}, .after_transfer = std::move(cpu_progress)});
}

int cuda_device_count() { return cuda::device_count(); }

DeviceCopyRate measure_device_copy_ceiling(int device) {
  cuda::set_device(device);
  const std::uint64_t bytes = std::min<std::uint64_t>(1ull << 30, cuda::device_memory_info().free_bytes / 4);
  return measure_device_copy_rate(device, bytes, 20, 5);
}

std::string why_no_nccl_reference(Collective collective) {
  const int gpus = cuda::device_count();
  if (collective != Collective::all_reduce) return "it is all_reduce only";
  if (!nccl::available()) return "collsim was built without NCCL";
  if (gpus < 2) return fmt::format("it needs 2 or more GPUs, {} found", gpus);
  return "";
}

NcclTime time_nccl_all_reduce(int gpus, std::uint64_t count, DataType dtype, ReduceOp op, int warmup, int iterations) {
  const nccl::AllReduceTime t = nccl::time_all_reduce(gpus, count, dtype, op, warmup, iterations);
  return {t.mean_us, t.best_us};
}

}  // namespace collsim
