// kernels/cuda_api.h for builds without nvcc: reports no device, and every operation that
// would need one throws, so callers fail loudly instead of silently doing nothing.
#include <stdexcept>

#include "kernels/cuda_api.h"

namespace collsim::cuda {
namespace {

[[noreturn]] void unavailable(const char* what) {
  const std::string call = std::string("collsim::cuda::") + what;
  throw CudaError(call + ": collsim was built without CUDA", call, 0, "");
}

}  // namespace

bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
std::string device_name(int) { return {}; }

void set_device(int) { unavailable("set_device"); }
int current_device() { unavailable("current_device"); }
void device_synchronize() { unavailable("device_synchronize"); }
bool can_access_peer(int, int) { unavailable("can_access_peer"); }
void enable_peer_access(int) { unavailable("enable_peer_access"); }

void* device_alloc(std::size_t) { unavailable("device_alloc"); }
void device_free(void*) noexcept {}
MemoryInfo device_memory_info() { unavailable("device_memory_info"); }
void* host_alloc_pinned(std::size_t) { unavailable("host_alloc_pinned"); }
void host_free_pinned(void*) noexcept {}
void memcpy_sync(void*, const void*, std::size_t) { unavailable("memcpy_sync"); }
void memcpy_async(void*, const void*, std::size_t, Stream) { unavailable("memcpy_async"); }

Stream stream_create() { unavailable("stream_create"); }
void stream_destroy(Stream) noexcept {}
void stream_synchronize(Stream) { unavailable("stream_synchronize"); }
void stream_wait_event(Stream, Event) { unavailable("stream_wait_event"); }

Event event_create(bool) { unavailable("event_create"); }
void event_destroy(Event) noexcept {}
void event_record(Event, Stream) { unavailable("event_record"); }
void event_synchronize(Event) { unavailable("event_synchronize"); }
float event_elapsed_ms(Event, Event) { unavailable("event_elapsed_ms"); }

void launch_copy(void*, const void*, std::size_t, DataType, Stream) { unavailable("launch_copy"); }
void launch_reduce(void*, const void*, std::size_t, DataType, ReduceOp, Stream) {
  unavailable("launch_reduce");
}
void launch_reduce_copy(void*, const void*, const void*, std::size_t, DataType, ReduceOp, Stream) {
  unavailable("launch_reduce_copy");
}
void launch_fill_identity(void*, std::size_t, DataType, ReduceOp, Stream) {
  unavailable("launch_fill_identity");
}
void launch_divide(void*, std::size_t, DataType, std::int64_t, Stream) {
  unavailable("launch_divide");
}

void reduce_on_device(void*, const void*, std::size_t, DataType, ReduceOp, std::size_t,
                      std::size_t) {
  unavailable("reduce_on_device");
}
void copy_on_device(void*, const void*, std::size_t, DataType, std::size_t, std::size_t) {
  unavailable("copy_on_device");
}

}  // namespace collsim::cuda
