// See cuda_emulator.h.
#include "tests/cuda_emulator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda_api.h"
#include "kernels/host_loops.h"

namespace collsim::cuda {
namespace {

constexpr int kPinned = -1;  // the "device" of pinned host memory

[[noreturn]] void reject(const std::string& what) { throw std::runtime_error("emulated CUDA: " + what); }

struct Op {
  std::function<bool()> ready;
  std::function<void()> run;
};

struct StreamState {
  int device = 0;
  std::deque<Op> ops;
};

struct EventState {
  int device = 0;
  bool timing = true;
  std::uint64_t issued = 0;          // records issued so far
  std::vector<bool> done{true};      // per record number: has it run (record 0: never recorded)
  std::vector<double> time_ns{0.0};  // per record number: when it ran
};

struct Allocation {
  int device = 0;
  std::size_t bytes = 0;
};

struct State {
  emulator::Config config;
  emulator::Stats stats;
  std::mt19937_64 rng{1};
  int current = 0;
  double clock_ns = 0;
  std::map<const std::byte*, Allocation> allocations;
  std::set<std::pair<int, int>> peers;  // (reader, owner)
  std::vector<StreamState*> streams;  // in creation order, so a seed replays the same interleaving
};

State& state() {
  static State s;
  return s;
}

StreamState* raw(Stream s) { return static_cast<StreamState*>(s.handle); }
EventState* raw(Event e) { return static_cast<EventState*>(e.handle); }

// Runs one ready operation of a random stream; false when none is ready.
bool step() {
  State& st = state();
  std::vector<StreamState*> ready;
  for (StreamState* s : st.streams)
    if (!s->ops.empty() && s->ops.front().ready()) ready.push_back(s);
  if (ready.empty()) return false;
  StreamState* s = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(st.rng)];
  const Op op = std::move(s->ops.front());
  s->ops.pop_front();
  op.run();
  st.clock_ns += 1000;
  return true;
}

template <class Done>
void run_until(Done&& done) {
  while (!done())
    if (!step()) reject("deadlock: a stream waits for an event record that can never run");
}

void enqueue(Stream s, std::function<void()> run, std::function<bool()> ready = [] { return true; }) {
  raw(s)->ops.push_back({std::move(ready), std::move(run)});
}

// The device (or kPinned) that owns the memory at p.
int owner_of(const void* p) {
  const auto& allocs = state().allocations;
  const auto* b = static_cast<const std::byte*>(p);
  auto it = allocs.upper_bound(b);
  if (it != allocs.begin()) {
    --it;
    if (b < it->first + it->second.bytes) return it->second.device;
  }
  reject("a kernel was given a pointer that is neither device nor pinned host memory");
}

// What a real launch checks, plus what only a crash would show on a GPU: the stream's
// device is current, and the kernel may read and write the memory it was given.
void check_launch(Stream s, std::initializer_list<const void*> pointers, std::size_t count) {
  State& st = state();
  const int device = raw(s)->device;
  if (device != st.current)
    reject("kernel launched on a stream of device " + std::to_string(device) + " while device " +
           std::to_string(st.current) + " is current");
  if (count == 0) return;
  for (const void* p : pointers) {
    const int owner = owner_of(p);
    if (owner == kPinned) ++st.stats.host_touches;
    if (owner != kPinned && owner != device && !st.peers.count({device, owner}))
      reject("a kernel on device " + std::to_string(device) + " touches device " + std::to_string(owner) +
             "'s memory without peer access");
  }
  ++st.stats.kernels;
}

void* allocate(std::size_t bytes, int device) {
  if (bytes == 0) return nullptr;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) throw std::bad_alloc();
  state().allocations[static_cast<const std::byte*>(p)] = {device, bytes};
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  state().allocations.erase(static_cast<const std::byte*>(p));
  std::free(p);
}

}  // namespace

namespace emulator {

void reset(const Config& config) {
  State& st = state();
  run_until([&] {
    for (StreamState* s : st.streams)
      if (!s->ops.empty()) return false;
    return true;
  });
  st.config = config;
  st.stats = {};
  st.rng.seed(config.seed);
  st.current = 0;
  st.peers.clear();
}

const Stats& stats() { return state().stats; }

}  // namespace emulator

bool built_with_cuda() noexcept { return true; }
int device_count() noexcept { return state().config.devices; }
std::string device_name(int device) {
  return device >= 0 && device < device_count() ? "emulated GPU " + std::to_string(device) : "";
}

void set_device(int device) {
  if (device < 0 || device >= device_count()) reject("cudaSetDevice(" + std::to_string(device) + "): no such device");
  state().current = device;
}
int current_device() { return state().current; }
void device_synchronize() {
  run_until([] {
    for (StreamState* s : state().streams)
      if (s->device == state().current && !s->ops.empty()) return false;
    return true;
  });
}
bool can_access_peer(int device, int peer) { return device != peer && state().config.peer_allowed(device, peer); }
void enable_peer_access(int peer) {
  if (!can_access_peer(state().current, peer)) reject("cudaDeviceEnablePeerAccess: not allowed");
  state().peers.insert({state().current, peer});
}

void* device_alloc(std::size_t bytes) { return allocate(bytes, state().current); }
void device_free(void* ptr) noexcept { release(ptr); }
MemoryInfo device_memory_info() { return {64ull << 30, 80ull << 30}; }
void* host_alloc_pinned(std::size_t bytes) { return allocate(bytes, kPinned); }
void host_free_pinned(void* ptr) noexcept { release(ptr); }

void memcpy_sync(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}
void memcpy_async(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (bytes == 0) return;
  ++state().stats.async_copies;
  enqueue(stream, [=] { std::memcpy(dst, src, bytes); });
}

Stream stream_create() {
  auto* s = new StreamState{state().current, {}};
  state().streams.push_back(s);
  return Stream{s};
}
void stream_destroy(Stream stream) noexcept {
  StreamState* s = raw(stream);
  if (s == nullptr) return;
  try {
    run_until([&] { return s->ops.empty(); });  // pending work still completes, as in CUDA
  } catch (...) {
  }
  auto& all = state().streams;
  all.erase(std::find(all.begin(), all.end(), s));
  delete s;
}
void stream_synchronize(Stream stream) { run_until([&] { return raw(stream)->ops.empty(); }); }

void stream_wait_event(Stream stream, Event event) {
  ++state().stats.waits;
  EventState* e = raw(event);
  const std::uint64_t record = e->issued;  // the latest record, as issued now
  enqueue(stream, [] {}, [e, record] { return e->done[record]; });
}

Event event_create(bool timing) { return Event{new EventState{state().current, timing}}; }
void event_destroy(Event event) noexcept { delete raw(event); }
void event_record(Event event, Stream stream) {
  EventState* e = raw(event);
  if (e->device != raw(stream)->device) reject("cudaEventRecord: event and stream belong to different devices");
  ++state().stats.records;
  const std::uint64_t record = ++e->issued;
  e->done.push_back(false);
  e->time_ns.push_back(0);
  enqueue(stream, [e, record] {
    e->done[record] = true;
    e->time_ns[record] = state().clock_ns;
  });
}
void event_synchronize(Event event) {
  EventState* e = raw(event);
  run_until([e] { return e->done[e->issued]; });
}
float event_elapsed_ms(Event start, Event end) {
  const EventState* a = raw(start);
  const EventState* b = raw(end);
  if (!a->timing || !b->timing) reject("cudaEventElapsedTime: an event was created without timing");
  if (a->device != b->device) reject("cudaEventElapsedTime: events of different devices");
  if (a->issued == 0 || b->issued == 0 || !a->done[a->issued] || !b->done[b->issued])
    reject("cudaEventElapsedTime: an event has not been recorded or has not completed");
  return static_cast<float>((b->time_ns[b->issued] - a->time_ns[a->issued]) / 1e6);
}

void launch_copy(void* dst, const void* src, std::size_t count, DataType dt, Stream stream) {
  check_launch(stream, {dst, src}, count);
  enqueue(stream, [=] { host_copy(dst, src, count, dt); });
}
void launch_reduce(void* dst, const void* src, std::size_t count, DataType dt, ReduceOp op, Stream stream) {
  check_launch(stream, {dst, src}, count);
  enqueue(stream, [=] { host_reduce(dst, src, count, dt, op); });
}
void launch_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt, ReduceOp op,
                        Stream stream) {
  check_launch(stream, {dst, a, b}, count);
  enqueue(stream, [=] { host_reduce_copy(dst, a, b, count, dt, op); });
}
void launch_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op, Stream stream) {
  check_launch(stream, {dst}, count);
  enqueue(stream, [=] { host_fill_identity(dst, count, dt, op); });
}
void launch_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor, Stream stream) {
  if (divisor <= 0) throw std::invalid_argument("launch_divide: divisor must be positive");
  check_launch(stream, {dst}, count);
  enqueue(stream, [=] { host_divide(dst, count, dt, divisor); });
}

void reduce_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt, ReduceOp op, std::size_t,
                      std::size_t) {
  host_reduce(dst_host, src_host, count, dt, op);
}
void copy_on_device(void* dst_host, const void* src_host, std::size_t count, DataType dt, std::size_t, std::size_t) {
  host_copy(dst_host, src_host, count, dt);
}

}  // namespace collsim::cuda
