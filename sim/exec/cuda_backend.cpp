// The CUDA backend (see cuda_backend.h): replays plan_cuda_launches on real streams and
// events through kernels/cuda_api.h. Everything that decides an order is in the plan;
// this file only allocates, issues and reads the clocks.
#include "sim/exec/cuda_backend.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "kernels/cuda_api.h"
#include "sim/core/errors.h"

namespace collsim {
namespace {

// Makes a device current only when it is not already: kernels must be launched and
// events recorded on the device that owns the stream.
class CurrentDevice {
 public:
  void use(int device) {
    if (device == current_) return;
    cuda::set_device(device);
    current_ = device;
  }

 private:
  int current_ = -1;
};

// Owns every CUDA resource of one run and frees it on every path. The streams are
// synchronised first, so nothing still in flight reads freed memory; errors are ignored
// there (a destructor cannot report them, and a failing run has already thrown).
class DeviceResources {
 public:
  DeviceResources() = default;
  DeviceResources(const DeviceResources&) = delete;
  DeviceResources& operator=(const DeviceResources&) = delete;
  ~DeviceResources() {
    // (Init-captures: clang 14, emscripten's, cannot capture a structured binding.)
    for (const auto& [device, stream] : streams_) try_on(device, [s = stream] { cuda::stream_synchronize(s); });
    for (const auto& [device, event] : events_) try_on(device, [e = event] { cuda::event_destroy(e); });
    for (const auto& [device, stream] : streams_) try_on(device, [s = stream] { cuda::stream_destroy(s); });
    for (const auto& [device, ptr] : memory_) try_on(device, [p = ptr] { cuda::device_free(p); });
    for (void* p : pinned_) cuda::host_free_pinned(p);
  }

  // Each on the current device, which the caller has set to `device`.
  std::byte* alloc(int device, std::size_t bytes) {
    void* p = cuda::device_alloc(bytes);
    if (p != nullptr) memory_.emplace_back(device, p);
    return static_cast<std::byte*>(p);
  }
  cuda::Stream stream(int device) { return streams_.emplace_back(device, cuda::stream_create()).second; }
  cuda::Event event(int device, bool timing) { return events_.emplace_back(device, cuda::event_create(timing)).second; }
  void* pinned(std::size_t bytes) {
    void* p = cuda::host_alloc_pinned(bytes);
    if (p != nullptr) pinned_.push_back(p);
    return p;
  }

 private:
  template <class F>
  static void try_on(int device, F&& f) noexcept {
    try {
      cuda::set_device(device);
      f();
    } catch (...) {  // see the class comment
    }
  }

  std::vector<std::pair<int, void*>> memory_;
  std::vector<void*> pinned_;
  std::vector<std::pair<int, cuda::Stream>> streams_;
  std::vector<std::pair<int, cuda::Event>> events_;
};

std::int64_t elapsed_ns(cuda::Event from, cuda::Event to) {
  return std::llround(static_cast<double>(cuda::event_elapsed_ms(from, to)) * 1e6);
}

// Which device may read which other device's memory directly (peer access enabled).
struct PeerAccess {
  std::vector<std::vector<bool>> can;  // can[reader][owner]
};

// One rank on its device: buffers (input, output, scratch storage; nullptr when
// empty), stream, events, and the pinned buffer its staged transfers go through.
struct RankOnDevice {
  int device = 0;          // the CUDA device
  std::size_t slot = 0;    // the plan's device index: origin_[slot], slots_[slot]
  std::array<std::byte*, 3> buffer{};
  cuda::Stream stream;
  cuda::Event pre_done, done;
  std::byte* staging = nullptr;
};

// Everything one schedule needs on the devices, created once and reused by every run().
class DeviceRun {
 public:
  DeviceRun(const Schedule& s, const DependencyGraph& deps, const CudaBackendOptions& o, int devices,
            const PeerAccess& peers)
      : s_(s), o_(o), esize_(dtype_size(s.spec.dtype)),
        plan_(plan_cuda_launches(s, deps, o.placement, devices, o.elision)) {
    mark_staged(peers);
    check_device_memory();
    create_ranks();
    create_events();
  }

  void copy_in(const std::vector<RankBuffers>& host);
  void copy_out(std::vector<RankBuffers>& host);
  Execution run();

 private:
  const RankOnDevice& rank_at(int r) const { return ranks_[static_cast<std::size_t>(r)]; }
  cuda::Event origin(const RankOnDevice& rank) const { return origin_[rank.slot]; }
  cuda::Event slot_event(const RankOnDevice& rank, int slot) const {
    return slots_[rank.slot][static_cast<std::size_t>(slot)];
  }
  void mark_staged(const PeerAccess& peers);
  void check_device_memory();
  void create_ranks();
  void create_events();
  std::byte* at(const Region& named) const;
  void record_origins();
  void run_local_op(const LocalOp& op);
  void launch(std::size_t t);
  void wait_post(const CudaPostWait& p);
  cuda::Event completion(std::uint32_t t) const;
  Execution collect() const;

  const Schedule& s_;
  const CudaBackendOptions& o_;
  std::size_t esize_;
  CudaLaunchPlan plan_;
  std::vector<bool> staged_;  // per transfer: its source goes through the receiver's staging buffer
  DeviceResources res_;
  std::vector<RankOnDevice> ranks_;
  std::vector<std::vector<cuda::Event>> slots_;  // per device: the plan's completion-event slots
  std::vector<cuda::Event> origin_;             // per device: time 0 of a run
  std::vector<cuda::Event> begin_, end_;        // per transfer, when recording timings
  std::int32_t* tokens_ = nullptr;              // pinned: barrier signal r + 1 at [r]
  CurrentDevice current_;
};

// A transfer between two ranks is staged when the receiver's device may not read the
// sender's (no peer access), or always under the test hook.
void DeviceRun::mark_staged(const PeerAccess& peers) {
  staged_.assign(s_.transfers.size(), false);
  for (std::size_t t = 0; t < s_.transfers.size(); ++t) {
    const Transfer& tr = s_.transfers[t];
    if (tr.is_local()) continue;
    const auto reader = static_cast<std::size_t>(plan_.device_of_stream[static_cast<std::size_t>(tr.dst)]);
    const auto owner = static_cast<std::size_t>(plan_.device_of_stream[static_cast<std::size_t>(tr.src)]);
    staged_[t] = o_.stage_through_host || (reader != owner && !peers.can[reader][owner]);
  }
}

// Refuses (InputError, like the host's own check) before allocating what cannot fit.
void DeviceRun::check_device_memory() {
  std::vector<double> need(plan_.event_slots_per_device.size(), 0);
  for (int r = 0; r < s_.total_ranks; ++r)
    for (BufferKind b : kAllBufferKinds)
      need[static_cast<std::size_t>(plan_.device_of_stream[static_cast<std::size_t>(r)])] +=
          static_cast<double>(storage_elements(s_, r, b) * esize_);
  for (std::size_t d = 0; d < need.size(); ++d) {
    const int device = o_.device + static_cast<int>(d);
    current_.use(device);
    const double free_bytes = static_cast<double>(cuda::device_memory_info().free_bytes);
    if (need[d] > 0.95 * free_bytes)
      throw InputError(fmt::format("--count {} needs {} of buffers on CUDA device {} ({}), but only {} is free",
                                   s_.spec.count, format_bytes(need[d]), device, cuda::device_name(device),
                                   format_bytes(free_bytes)));
  }
}

void DeviceRun::create_ranks() {
  ranks_.resize(static_cast<std::size_t>(s_.total_ranks));
  std::vector<std::size_t> staging_bytes(ranks_.size(), 0);
  for (std::size_t t = 0; t < s_.transfers.size(); ++t)
    if (staged_[t]) {
      std::size_t& need = staging_bytes[static_cast<std::size_t>(s_.transfers[t].dst)];
      need = std::max<std::size_t>(need, s_.transfers[t].count * esize_);
    }
  for (int r = 0; r < s_.total_ranks; ++r) {
    RankOnDevice& rank = ranks_[static_cast<std::size_t>(r)];
    rank.slot = static_cast<std::size_t>(plan_.device_of_stream[static_cast<std::size_t>(r)]);
    rank.device = o_.device + static_cast<int>(rank.slot);
    current_.use(rank.device);
    for (BufferKind b : kAllBufferKinds)
      rank.buffer[static_cast<std::size_t>(b)] = res_.alloc(rank.device, storage_elements(s_, r, b) * esize_);
    rank.stream = res_.stream(rank.device);
    rank.done = res_.event(rank.device, true);
    if (plan_.records_pre_ops[static_cast<std::size_t>(r)]) rank.pre_done = res_.event(rank.device, false);
    rank.staging = static_cast<std::byte*>(res_.pinned(staging_bytes[static_cast<std::size_t>(r)]));
  }
}

void DeviceRun::create_events() {
  const std::size_t devices = plan_.event_slots_per_device.size();
  slots_.resize(devices);
  for (std::size_t d = 0; d < devices; ++d) {
    const int device = o_.device + static_cast<int>(d);
    current_.use(device);
    origin_.push_back(res_.event(device, true));
    for (int i = 0; i < plan_.event_slots_per_device[d]; ++i) slots_[d].push_back(res_.event(device, false));
  }
  if (o_.record_timings)
    for (const CudaLaunch& l : plan_.launches) {
      const int device = rank_at(l.stream).device;
      current_.use(device);
      begin_.push_back(res_.event(device, true));
      end_.push_back(res_.event(device, true));
    }
  const auto is_signal = [](const LocalOp& op) { return op.kind == LocalOpKind::signal; };
  if (std::any_of(s_.pre_ops.begin(), s_.pre_ops.end(), is_signal) ||
      std::any_of(s_.post_ops.begin(), s_.post_ops.end(), is_signal)) {
    tokens_ = static_cast<std::int32_t*>(res_.pinned(ranks_.size() * sizeof(std::int32_t)));
    for (std::size_t r = 0; r < ranks_.size(); ++r) tokens_[r] = static_cast<std::int32_t>(r + 1);
  }
}

std::byte* DeviceRun::at(const Region& named) const {
  const Region r = storage_of(s_, named);
  return ranks_[static_cast<std::size_t>(r.rank)].buffer[static_cast<std::size_t>(r.buffer)] + r.offset * esize_;
}

void DeviceRun::copy_in(const std::vector<RankBuffers>& host) {
  for (int r = 0; r < s_.total_ranks; ++r) {
    const RankOnDevice& rank = ranks_[static_cast<std::size_t>(r)];
    current_.use(rank.device);
    for (BufferKind b : kAllBufferKinds) {
      const std::vector<std::byte>& bytes = host[static_cast<std::size_t>(r)].get(b);
      cuda::memcpy_async(rank.buffer[static_cast<std::size_t>(b)], bytes.data(), bytes.size(), rank.stream);
    }
  }
  for (const RankOnDevice& rank : ranks_) cuda::stream_synchronize(rank.stream);
}

// Only what a run may write comes back: outputs, scratch, and in place the inputs (the
// outputs live in them); inputs out of place are never written.
void DeviceRun::copy_out(std::vector<RankBuffers>& host) {
  for (int r = 0; r < s_.total_ranks; ++r) {
    const RankOnDevice& rank = ranks_[static_cast<std::size_t>(r)];
    current_.use(rank.device);
    for (BufferKind b : kAllBufferKinds) {
      if (b == BufferKind::input && !s_.spec.in_place) continue;
      std::vector<std::byte>& bytes = host[static_cast<std::size_t>(r)].get(b);
      cuda::memcpy_async(bytes.data(), rank.buffer[static_cast<std::size_t>(b)], bytes.size(), rank.stream);
    }
  }
  for (const RankOnDevice& rank : ranks_) cuda::stream_synchronize(rank.stream);
}

// Time 0: one event per device on the device's first stream; the device's other streams
// wait on it, so nothing measured starts before it. (Events of different devices cannot
// be compared; each device's origin is recorded right after the host saw all streams
// idle, so the devices' clocks agree to within a launch latency.)
void DeviceRun::record_origins() {
  std::vector<bool> recorded(origin_.size(), false);
  for (const RankOnDevice& rank : ranks_) {
    current_.use(rank.device);
    if (recorded[rank.slot]) {
      cuda::stream_wait_event(rank.stream, origin(rank));
    } else {
      cuda::event_record(origin(rank), rank.stream);
      recorded[rank.slot] = true;
    }
  }
}

void DeviceRun::run_local_op(const LocalOp& op) {
  const RankOnDevice& r = rank_at(op.target.rank);
  current_.use(r.device);
  std::byte* target = at(op.target);
  const std::uint64_t n = op.target.count;
  const DataType dt = s_.spec.dtype;
  switch (op.kind) {
    case LocalOpKind::copy: cuda::launch_copy(target, at(op.source), n, dt, r.stream); break;
    case LocalOpKind::fill_identity: cuda::launch_fill_identity(target, n, dt, s_.spec.op, r.stream); break;
    case LocalOpKind::divide: cuda::launch_divide(target, n, dt, s_.average_divisor, r.stream); break;
    case LocalOpKind::signal:
      if (dt != DataType::i32) throw std::logic_error("barrier tokens are i32 (see ScheduleBuilder)");
      cuda::memcpy_async(target, tokens_ + op.target.rank, sizeof(std::int32_t), r.stream);
      break;
  }
}

cuda::Event DeviceRun::completion(std::uint32_t t) const {
  const CudaLaunch& l = plan_.launches[t];
  return slot_event(rank_at(l.stream), l.record_slot);
}

// One transfer: its waits, then a kernel on the receiver's stream reading the sender's
// memory (or the receiver's pinned staging copy of it), between its timing events.
void DeviceRun::launch(std::size_t t) {
  const CudaLaunch& l = plan_.launches[t];
  const RankOnDevice& r = rank_at(l.stream);
  current_.use(r.device);
  for (int s : l.wait_pre_ops) cuda::stream_wait_event(r.stream, rank_at(s).pre_done);
  for (std::uint32_t i : l.wait_for) cuda::stream_wait_event(r.stream, completion(i));
  if (o_.record_timings) cuda::event_record(begin_[t], r.stream);
  const Transfer& tr = s_.transfers[t];
  std::byte* dst = at(tr.destination());
  const std::byte* src = at(tr.source());
  if (staged_[t]) {  // device -> pinned host on this stream; the kernel then reads the host copy
    cuda::memcpy_async(r.staging, src, tr.count * esize_, r.stream);
    src = r.staging;
  }
  switch (tr.action) {
    case Action::copy: cuda::launch_copy(dst, src, tr.count, s_.spec.dtype, r.stream); break;
    case Action::reduce: cuda::launch_reduce(dst, src, tr.count, s_.spec.dtype, s_.spec.op, r.stream); break;
    case Action::reduce_copy:  // the operand is the receiver's, on this stream's device
      cuda::launch_reduce_copy(dst, at(tr.operand()), src, tr.count, s_.spec.dtype, s_.spec.op, r.stream);
      break;
  }
  if (o_.record_timings) cuda::event_record(end_[t], r.stream);
  if (l.record_slot >= 0) cuda::event_record(slot_event(r, l.record_slot), r.stream);
}

void DeviceRun::wait_post(const CudaPostWait& p) {
  const RankOnDevice& r = rank_at(p.stream);
  current_.use(r.device);
  for (std::uint32_t i : p.wait_for) cuda::stream_wait_event(r.stream, completion(i));
}

Execution DeviceRun::run() {
  record_origins();
  for (const LocalOp& op : s_.pre_ops) run_local_op(op);
  for (std::size_t r = 0; r < ranks_.size(); ++r)
    if (plan_.records_pre_ops[r]) {
      current_.use(ranks_[r].device);
      cuda::event_record(ranks_[r].pre_done, ranks_[r].stream);
    }
  for (std::size_t t = 0; t < plan_.launches.size(); ++t) launch(t);
  for (const CudaPostWait& p : plan_.post_waits) wait_post(p);
  for (const LocalOp& op : s_.post_ops) run_local_op(op);
  for (const RankOnDevice& rank : ranks_) {
    current_.use(rank.device);
    cuda::event_record(rank.done, rank.stream);
  }
  // The only host-side wait of a run: the end, before the clocks are read.
  for (const RankOnDevice& rank : ranks_) cuda::stream_synchronize(rank.stream);
  return collect();
}

Execution DeviceRun::collect() const {
  Execution ex;
  ex.workers = s_.total_ranks;
  ex.timings.resize(s_.transfers.size());
  for (std::size_t t = 0; t < plan_.launches.size(); ++t) {
    const int stream = plan_.launches[t].stream;
    TransferTiming& timing = ex.timings[t];
    timing.worker = stream;
    if (!o_.record_timings) continue;
    timing.begin_ns = elapsed_ns(origin(rank_at(stream)), begin_[t]);
    timing.end_ns = elapsed_ns(origin(rank_at(stream)), end_[t]);
  }
  for (const RankOnDevice& r : ranks_) ex.total_ns = std::max(ex.total_ns, elapsed_ns(origin(r), r.done));
  return ex;
}

// Devices 0..D-1 for the devices placement, the chosen device for streams.
int devices_to_use(const CudaBackendOptions& o, int available) {
  if (o.placement == CudaPlacement::streams) return 1;
  return o.max_devices > 0 ? std::min(o.max_devices, available) : available;
}

// Enables peer access wherever the driver allows it (unless staging is forced), and
// says which pairs will be staged through pinned host memory instead.
PeerAccess enable_peer_access(int devices, bool force_staging) {
  PeerAccess p;
  p.can.assign(static_cast<std::size_t>(devices), std::vector<bool>(static_cast<std::size_t>(devices), false));
  for (int reader = 0; reader < devices; ++reader)
    for (int owner = 0; owner < devices; ++owner) {
      if (reader == owner || force_staging || !cuda::can_access_peer(reader, owner)) continue;
      cuda::set_device(reader);
      cuda::enable_peer_access(owner);
      p.can[static_cast<std::size_t>(reader)][static_cast<std::size_t>(owner)] = true;
    }
  return p;
}

std::string describe_peers(const PeerAccess& p) {
  std::string direct, staged;
  for (std::size_t reader = 0; reader < p.can.size(); ++reader)
    for (std::size_t owner = 0; owner < p.can.size(); ++owner) {
      if (reader == owner) continue;
      std::string& list = p.can[reader][owner] ? direct : staged;
      list += fmt::format("{}{}<-{}", list.empty() ? "" : " ", reader, owner);
    }
  std::string out;
  if (!direct.empty()) out += "; peer access " + direct;
  if (!staged.empty()) out += "; staged through pinned host memory " + staged;
  return out;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(CudaBackendOptions o) : options_(o) {
    const int available = cuda::device_count();
    if (available == 0)
      throw InputError(cuda::built_with_cuda() ? "no CUDA device found" : "collsim was built without CUDA");
    if (options_.placement == CudaPlacement::devices) options_.device = 0;
    if (options_.device < 0 || options_.device >= available)
      throw InputError(fmt::format("CUDA device {} does not exist ({} found)", options_.device, available));
    devices_ = devices_to_use(options_, available);
    peers_ = options_.placement == CudaPlacement::devices ? enable_peer_access(devices_, options_.stage_through_host)
                                                          : PeerAccess{{{false}}};
    description_ = describe();
  }

  std::string name() const override { return "cuda"; }
  std::string device_name() const override { return description_; }

  Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& buffers) override {
    return execute_repeatedly(s, deps, buffers, 1).front();
  }

  std::vector<Execution> execute_repeatedly(const Schedule& s, const DependencyGraph& deps,
                                            std::vector<RankBuffers>& buffers, int times) override {
    std::vector<Execution> runs;
    if (times <= 0) return runs;
    DeviceRun run(s, deps, options_, devices_, peers_);
    run.copy_in(buffers);
    for (int i = 0; i < times; ++i) runs.push_back(run.run());
    run.copy_out(buffers);
    return runs;
  }

 private:
  std::string describe() const {
    std::string out;
    if (options_.placement == CudaPlacement::streams) {
      out = fmt::format("CUDA device {} ({}), one stream per rank", options_.device, cuda::device_name(options_.device));
    } else {
      std::string names;
      for (int d = 0; d < devices_; ++d) names += fmt::format("{}{}: {}", d == 0 ? "" : ", ", d, cuda::device_name(d));
      out = fmt::format("{} CUDA device{} ({}), rank r on device r mod {}{}", devices_, devices_ == 1 ? "" : "s",
                        names, devices_, describe_peers(peers_));
    }
    if (options_.stage_through_host) out += "; every transfer between ranks staged through pinned host memory (test mode)";
    if (!options_.record_timings) out += "; transfer timings off";
    return out;
  }

  CudaBackendOptions options_;
  int devices_ = 1;
  PeerAccess peers_;
  std::string description_;
};

// Best-of-trials rate of `copy` (2 * bytes moved per call) on `stream`, timed by events.
template <class Copy>
double copy_rate_gbps(cuda::Stream stream, cuda::Event start, cuda::Event stop, std::uint64_t bytes, int iterations,
                      int trials, Copy&& copy) {
  copy();  // warm-up: first-touch and lazy module loading stay out of the measurement
  cuda::stream_synchronize(stream);
  double best = 0;
  for (int trial = 0; trial < trials; ++trial) {
    cuda::event_record(start, stream);
    for (int i = 0; i < iterations; ++i) copy();
    cuda::event_record(stop, stream);
    cuda::event_synchronize(stop);
    const double seconds = static_cast<double>(cuda::event_elapsed_ms(start, stop)) * 1e-3;
    if (seconds > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) * iterations / seconds / 1e9);
  }
  return best;
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(CudaBackendOptions options) { return std::make_unique<CudaBackend>(options); }

DeviceCopyRate measure_device_copy_rate(int device, std::uint64_t bytes, int iterations, int trials) {
  DeviceCopyRate rate{device, cuda::device_name(device), bytes / 16 * 16, std::max(1, iterations), std::max(1, trials), 0, 0};
  cuda::set_device(device);
  DeviceResources res;
  std::byte* a = res.alloc(device, rate.bytes);
  std::byte* b = res.alloc(device, rate.bytes);
  const cuda::Stream stream = res.stream(device);
  const cuda::Event start = res.event(device, true), stop = res.event(device, true);
  const std::uint64_t floats = rate.bytes / sizeof(float);
  rate.memcpy_gbps = copy_rate_gbps(stream, start, stop, rate.bytes, rate.iterations, rate.trials,
                                    [&] { cuda::memcpy_async(b, a, rate.bytes, stream); });
  rate.kernel_gbps = copy_rate_gbps(stream, start, stop, rate.bytes, rate.iterations, rate.trials,
                                    [&] { cuda::launch_copy(b, a, floats, DataType::f32, stream); });
  return rate;
}

}  // namespace collsim
