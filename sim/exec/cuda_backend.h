// The CUDA backend: every rank's buffers on a GPU, every transfer a real kernel on the
// receiver's stream, ordered by the events of plan_cuda_launches (sim/exec/cuda_plan.h), with
// no device-wide synchronisation between steps. Plain C++ on kernels/cuda_api.h: without
// CUDA (the API's stub) it compiles and make_cuda_backend reports that no device exists.
//
// One execute(): copy every rank's host buffers to its device, run the pre-operations,
// the transfers and the post-operations, wait, copy the buffers back into the host
// RankBuffers (so the host reference verifies them). Timings are measured on the device
// with CUDA events: a begin and an end event around each launch, read as ns since the
// run's origin event; the host-device copies are outside the measured time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "sim/exec/backend.h"
#include "sim/exec/cuda_plan.h"

namespace collsim {

struct CudaBackendOptions {
  CudaPlacement placement = CudaPlacement::streams;
  int device = 0;       // streams: the device every rank shares
  int max_devices = 0;  // devices: use devices 0..D-1 with D = min(this, device_count()); 0: all
  // Begin/end events around every transfer. Off: TransferTiming stays 0 and only the
  // total time is measured (to measure what recording costs).
  bool record_timings = true;
  WaitElision elision = WaitElision::covered;
  // Test hook: stage every transfer between two ranks through pinned host memory, as
  // the devices placement does between devices without peer access, so that path runs on
  // a machine with one GPU.
  bool stage_through_host = false;
};

// Throws InputError when there is no usable CUDA device (or collsim was built without
// CUDA), or an option names a device that does not exist.
std::unique_ptr<Backend> make_cuda_backend(CudaBackendOptions options = {});

// The device-to-device copy ceiling, measured like the CPU bench's memcpy rate: bytes
// read + written over time, best of `trials`, each `iterations` back-to-back copies of
// `bytes` between two buffers of `device` (far larger than its L2 cache), once with
// cudaMemcpyAsync and once with collsim's own copy kernel (launch_copy). Throws
// std::runtime_error naming the CUDA call on failure.
struct DeviceCopyRate {
  int device = 0;
  std::string device_name;
  std::uint64_t bytes = 0;
  int iterations = 0;
  int trials = 0;
  double memcpy_gbps = 0;  // cudaMemcpyAsync, device to device
  double kernel_gbps = 0;  // launch_copy
  double ceiling_gbps() const { return memcpy_gbps > kernel_gbps ? memcpy_gbps : kernel_gbps; }
};
DeviceCopyRate measure_device_copy_rate(int device, std::uint64_t bytes, int iterations, int trials);

}  // namespace collsim
