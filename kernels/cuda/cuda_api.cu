// kernels/cuda_api.h on top of the CUDA runtime.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/copy_reduce.cuh"
#include "kernels/cuda_api.h"

namespace collsim::cuda {
namespace {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                   int line) {
  // Clear the runtime's last-error slot, so that a later cudaGetLastError() after a kernel
  // launch does not report this already-reported failure again.
  (void)cudaGetLastError();
  throw CudaError(std::string("CUDA error: ") + call + " failed with " + cudaGetErrorName(err) + " (" +
                      cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line),
                  call, static_cast<int>(err), cudaGetErrorName(err));
}

#define COLLSIM_CUDA_CHECK(call)                                  \
  do {                                                            \
    const cudaError_t collsim_err_ = (call);                      \
    if (collsim_err_ != cudaSuccess)                              \
      throw_cuda_error(collsim_err_, #call, __FILE__, __LINE__);  \
  } while (0)

cudaStream_t raw(Stream s) { return static_cast<cudaStream_t>(s.handle); }
cudaEvent_t raw(Event e) { return static_cast<cudaEvent_t>(e.handle); }

// The kernels index typed pointers; a pointer that is not element-aligned would fault.
void require_aligned(const void* p, DataType dt, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % dtype_size(dt) != 0)
    throw std::invalid_argument(std::string("collsim::cuda::") + what +
                                ": device pointer not aligned to the element size");
}

// Owns one cudaMalloc allocation, so the round trips free it on every path.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : ptr_(static_cast<char*>(device_alloc(bytes))) {}
  ~DeviceBuffer() { device_free(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  char* get() const { return ptr_; }

 private:
  char* ptr_;
};

}  // namespace

bool built_with_cuda() noexcept { return true; }

int device_count() noexcept {
  int n = 0;  // left untouched on error (error 35 without a driver)
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  if (device < 0 || device >= device_count() ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  return prop.name;
}

void set_device(int device) { COLLSIM_CUDA_CHECK(cudaSetDevice(device)); }

int current_device() {
  int device = 0;
  COLLSIM_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void device_synchronize() { COLLSIM_CUDA_CHECK(cudaDeviceSynchronize()); }

bool can_access_peer(int device, int peer) {
  int ok = 0;
  COLLSIM_CUDA_CHECK(cudaDeviceCanAccessPeer(&ok, device, peer));
  return ok != 0;
}

void enable_peer_access(int peer) {
  const cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
  if (err == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return;
  }
  COLLSIM_CUDA_CHECK(err);
}

void* device_alloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  COLLSIM_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* ptr) noexcept {
  if (ptr != nullptr) (void)cudaFree(ptr);
}

MemoryInfo device_memory_info() {
  MemoryInfo info;
  COLLSIM_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

void* host_alloc_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  COLLSIM_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
  return p;
}

void host_free_pinned(void* ptr) noexcept {
  if (ptr != nullptr) (void)cudaFreeHost(ptr);
}

void memcpy_sync(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  COLLSIM_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  // cudaMemcpy from pageable host memory may return before the DMA to the device is done;
  // wait for it, so that "sync" also holds for work on non-blocking streams.
  COLLSIM_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void memcpy_async(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (bytes == 0) return;
  COLLSIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, raw(stream)));
}

Stream stream_create() {
  cudaStream_t s = nullptr;
  COLLSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream{s};
}

void stream_destroy(Stream stream) noexcept {
  if (stream.handle != nullptr) (void)cudaStreamDestroy(raw(stream));
}

void stream_synchronize(Stream stream) { COLLSIM_CUDA_CHECK(cudaStreamSynchronize(raw(stream))); }

void stream_wait_event(Stream stream, Event event) {
  COLLSIM_CUDA_CHECK(cudaStreamWaitEvent(raw(stream), raw(event), 0));
}

Event event_create(bool timing) {
  cudaEvent_t e = nullptr;
  COLLSIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return Event{e};
}

void event_destroy(Event event) noexcept {
  if (event.handle != nullptr) (void)cudaEventDestroy(raw(event));
}

void event_record(Event event, Stream stream) {
  COLLSIM_CUDA_CHECK(cudaEventRecord(raw(event), raw(stream)));
}

void event_synchronize(Event event) { COLLSIM_CUDA_CHECK(cudaEventSynchronize(raw(event))); }

float event_elapsed_ms(Event start, Event end) {
  float ms = 0.0f;
  COLLSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, raw(start), raw(end)));
  return ms;
}

void launch_copy(void* dst, const void* src, std::size_t count, DataType dt, Stream stream) {
  require_aligned(dst, dt, "launch_copy");
  require_aligned(src, dt, "launch_copy");
  COLLSIM_CUDA_CHECK(detail::launch_copy(dst, src, count, dt, raw(stream)));
}

void launch_reduce(void* dst, const void* src, std::size_t count, DataType dt, ReduceOp op,
                   Stream stream) {
  require_aligned(dst, dt, "launch_reduce");
  require_aligned(src, dt, "launch_reduce");
  COLLSIM_CUDA_CHECK(detail::launch_reduce(dst, src, count, dt, op, raw(stream)));
}

void launch_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt, ReduceOp op,
                        Stream stream) {
  require_aligned(dst, dt, "launch_reduce_copy");
  require_aligned(a, dt, "launch_reduce_copy");
  require_aligned(b, dt, "launch_reduce_copy");
  COLLSIM_CUDA_CHECK(detail::launch_reduce_copy(dst, a, b, count, dt, op, raw(stream)));
}

void launch_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op,
                          Stream stream) {
  require_aligned(dst, dt, "launch_fill_identity");
  COLLSIM_CUDA_CHECK(detail::launch_fill_identity(dst, count, dt, op, raw(stream)));
}

void launch_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor,
                   Stream stream) {
  if (divisor <= 0) throw std::invalid_argument("launch_divide: divisor must be positive");
  require_aligned(dst, dt, "launch_divide");
  COLLSIM_CUDA_CHECK(detail::launch_divide(dst, count, dt, divisor, raw(stream)));
}

void reduce_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt,
                      ReduceOp op, std::size_t dst_misalign_elems,
                      std::size_t src_misalign_elems) {
  if (count == 0) return;
  const std::size_t esize = dtype_size(dt);
  const std::size_t bytes = count * esize;
  const DeviceBuffer dst_buf((count + dst_misalign_elems) * esize);
  const DeviceBuffer src_buf((count + src_misalign_elems) * esize);
  char* dst_dev = dst_buf.get() + dst_misalign_elems * esize;
  char* src_dev = src_buf.get() + src_misalign_elems * esize;
  memcpy_sync(dst_dev, dst_host, bytes);
  memcpy_sync(src_dev, src_host, bytes);
  launch_reduce(dst_dev, src_dev, count, dt, op, Stream{});
  // Synchronise explicitly so that a fault inside the kernel is reported as such.
  COLLSIM_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  memcpy_sync(dst_host, dst_dev, bytes);
}

void copy_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt,
                    std::size_t dst_misalign_elems, std::size_t src_misalign_elems) {
  if (count == 0) return;
  const std::size_t esize = dtype_size(dt);
  const std::size_t bytes = count * esize;
  const DeviceBuffer dst_buf((count + dst_misalign_elems) * esize);
  const DeviceBuffer src_buf((count + src_misalign_elems) * esize);
  char* dst_dev = dst_buf.get() + dst_misalign_elems * esize;
  char* src_dev = src_buf.get() + src_misalign_elems * esize;
  memcpy_sync(src_dev, src_host, bytes);
  launch_copy(dst_dev, src_dev, count, dt, Stream{});
  COLLSIM_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  memcpy_sync(dst_host, dst_dev, bytes);
}

}  // namespace collsim::cuda
