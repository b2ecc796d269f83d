// Thin, plain-C++ face of the CUDA code: device queries, memory, streams, events and the
// copy/reduce kernels, with opaque handles so that sim/ never includes a CUDA header.
// Built from kernels/cuda/*.cu when CMake finds nvcc (COLLSIM_HAVE_CUDA=1), otherwise from
// kernels/cuda_api_stub.cpp, where built_with_cuda() is false, device_count() is 0 and the
// other functions throw CudaError("... built without CUDA").
//
// Unless marked noexcept, functions throw CudaError naming the failed CUDA call, the source
// file and the line (std::invalid_argument for a misaligned pointer or a bad divisor). Device pointers passed to launch_* must be aligned to the
// element size (cudaMalloc'd buffers plus whole-element offsets are); dst and src either
// do not overlap or are equal. All launch_* calls are asynchronous on `stream`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/dtype.h"

namespace collsim::cuda {

// A failed CUDA runtime call, or in a build without CUDA a function that needs a device, as
// data as well as a sentence: front ends print what() and may say the fields their own way.
struct CudaError : std::runtime_error {
  CudaError(const std::string& message, std::string call, int code, std::string code_name)
      : std::runtime_error(message), call(std::move(call)), code(code), code_name(std::move(code_name)) {}
  std::string call;       // "cudaMalloc(&p, bytes)"; without CUDA "collsim::cuda::device_alloc"
  int code = 0;           // the cudaError_t; 0 in a build without CUDA
  std::string code_name;  // cudaGetErrorName's, e.g. "cudaErrorNoDevice"; "" without CUDA
};

bool built_with_cuda() noexcept;  // true when compiled with nvcc
int device_count() noexcept;      // 0 without a driver or a device; never throws
std::string device_name(int device);  // "" if unavailable; never throws for a bad index

// A cudaStream_t / cudaEvent_t behind a void*. A default Stream is the legacy default
// stream of the current device.
struct Stream {
  void* handle = nullptr;
};
struct Event {
  void* handle = nullptr;
};

void set_device(int device);
int current_device();
void device_synchronize();
bool can_access_peer(int device, int peer);
void enable_peer_access(int peer);  // from the current device; enabling twice is fine

void* device_alloc(std::size_t bytes);  // nullptr for 0 bytes
void device_free(void* ptr) noexcept;
// Free and total bytes of the current device's memory.
struct MemoryInfo {
  std::size_t free_bytes = 0, total_bytes = 0;
};
MemoryInfo device_memory_info();
// Page-locked host memory, portable and mapped: with unified addressing every device's
// kernels can read it through the same pointer, and copies to or from it are truly
// asynchronous (staging between devices without peer access). nullptr for 0 bytes.
void* host_alloc_pinned(std::size_t bytes);
void host_free_pinned(void* ptr) noexcept;
// Any direction (host or device pointers; unified addressing picks the kind).
// memcpy_sync returns when the copy is complete (it is issued on the legacy default
// stream, which non-blocking streams do not wait for). memcpy_async is ordered on
// `stream`; with pageable host memory it may not overlap host work, pinned memory does.
void memcpy_sync(void* dst, const void* src, std::size_t bytes);
void memcpy_async(void* dst, const void* src, std::size_t bytes, Stream stream);

Stream stream_create();  // non-blocking with respect to the legacy default stream
void stream_destroy(Stream stream) noexcept;
void stream_synchronize(Stream stream);
void stream_wait_event(Stream stream, Event event);

// Events belong to the device current at creation: record them on that device's streams
// (any stream may wait on them). Timing off makes record and wait cheaper.
Event event_create(bool timing = true);
void event_destroy(Event event) noexcept;
void event_record(Event event, Stream stream);
void event_synchronize(Event event);
float event_elapsed_ms(Event start, Event end);

// Kernels on device pointers (count elements of dt), same functors as host_loops.h.
void launch_copy(void* dst, const void* src, std::size_t count, DataType dt, Stream stream);
// dst[i] = op(dst[i], src[i]); avg reduces as sum.
void launch_reduce(void* dst, const void* src, std::size_t count, DataType dt, ReduceOp op,
                   Stream stream);
// dst[i] = op(a[i], b[i]) (NCCL's reduce-copy); dst may be a, otherwise none overlap.
void launch_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt, ReduceOp op,
                        Stream stream);
void launch_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op, Stream stream);
// dst[i] = divide_by(dst[i], divisor); divisor > 0 (std::invalid_argument otherwise).
void launch_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor,
                   Stream stream);

// Round trips for the GPU tests: copy the host arrays (count elements each) to fresh
// device buffers, placed `*_misalign_elems` elements past a 256-byte boundary, run the
// kernel on the current device, wait, and copy dst back to the host.
void reduce_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt,
                      ReduceOp op, std::size_t dst_misalign_elems = 0,
                      std::size_t src_misalign_elems = 0);
void copy_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt,
                    std::size_t dst_misalign_elems = 0, std::size_t src_misalign_elems = 0);

}  // namespace collsim::cuda
