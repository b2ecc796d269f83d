// The CPU backend: a pool of worker threads (as many as hardware threads, not one per
// rank) runs each transfer as soon as every transfer it depends on has finished. There
// is no barrier between steps, so independent chunks overlap exactly as the derived
// dependency graph allows.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <span>
#include <thread>

#include <fmt/format.h>

#include "kernels/host_loops.h"
#include "sim/exec/backend.h"

namespace collsim {
namespace {

using Clock = std::chrono::steady_clock;

// The first byte of a named region, wherever in-place aliasing stores it (const or not).
template <class Buffers>
auto element_ptr(Buffers& bufs, const Schedule& s, const Region& named) {
  const Region r = storage_of(s, named);
  auto& rank = bufs[static_cast<std::size_t>(r.rank)];
  return rank.get(r.buffer).data() + r.offset * dtype_size(s.spec.dtype);
}

// A barrier token's "I have arrived": rank + 1, so that after a max-barrier every token
// is N exactly when rank N-1's signal reached it (the reference checks this).
void write_signal(const Schedule& s, const Region& token, std::byte* target) {
  if (s.spec.dtype != DataType::i32) throw std::logic_error("barrier tokens are i32 (see ScheduleBuilder)");
  const std::int32_t arrived = token.rank + 1;
  std::memcpy(target, &arrived, sizeof arrived);
}

}  // namespace

void run_transfer_on_host(const Schedule& s, const Transfer& t, std::vector<RankBuffers>& bufs) {
  std::byte* dst = element_ptr(bufs, s, t.destination());
  const std::byte* src = element_ptr(bufs, s, t.source());
  switch (t.action) {
    case Action::copy: host_copy(dst, src, t.count, s.spec.dtype); break;
    case Action::reduce: host_reduce(dst, src, t.count, s.spec.dtype, s.spec.op); break;
    case Action::reduce_copy:
      host_reduce_copy(dst, element_ptr(bufs, s, t.operand()), src, t.count, s.spec.dtype, s.spec.op);
      break;
  }
}

namespace {

constexpr std::uint32_t kNoForward = UINT32_MAX;

// Runs tasks 0..n-1 on `threads` workers; a task may start once its dependency count
// reaches zero. Finishing a task releases its dependants. With `forward` (per task, a
// dependant that may be fused to it, or kNoForward), a worker extends the task it takes
// into a chain while the next one waits for nothing but members of the chain (and
// `may_join` agrees), runs the chain as one, and releases what it releases, except the
// chain's own members.
class DagRunner {
 public:
  DagRunner(const DependencyGraph& deps, int threads, const std::vector<std::uint32_t>* forward = nullptr)
      : deps_(deps), dependants_(reverse(deps)), threads_(threads), forward_(forward) {}

  // task(chain, worker): chain is the tasks to run as one, in order (one unless fused).
  template <class Task, class MayJoin>
  void run(Task&& task, MayJoin&& may_join) {
    const std::size_t n = deps_.size();
    pending_ = std::vector<std::atomic<std::uint32_t>>(n);
    for (std::size_t t = 0; t < n; ++t) {
      pending_[t].store(static_cast<std::uint32_t>(deps_.dependencies_of(t).size()), std::memory_order_relaxed);
      if (pending_[t].load(std::memory_order_relaxed) == 0) ready_.push_back(static_cast<std::uint32_t>(t));
    }
    remaining_ = n;
    if (threads_ <= 1) {  // in the calling thread: also where there are none (the live page's WebAssembly)
      work(0, task, may_join);
      return;
    }
    std::vector<std::thread> pool;
    for (int w = 0; w < threads_; ++w) pool.emplace_back([this, w, &task, &may_join] { work(w, task, may_join); });
    for (std::thread& worker : pool) worker.join();
  }
  template <class Task>
  void run(Task&& task) {
    run(task, [](std::span<const std::uint32_t>, std::uint32_t) { return false; });
  }

 private:
  template <class Task, class MayJoin>
  void work(int worker, Task& task, MayJoin& may_join) {
    std::vector<std::uint32_t> chain;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return !ready_.empty() || remaining_ == 0; });
        if (remaining_ == 0) return;
        chain.assign(1, ready_.front());
        ready_.pop_front();
      }
      // Only chain members are outstanding among the next one's dependencies (the all-gather's
      // copy also waits for the reduce-scatter's read of its destination, earlier in the
      // chain), so nothing else can release it: it is this worker's.
      while (forward_) {
        const std::uint32_t next = (*forward_)[chain.back()];
        if (next == kNoForward || pending_[next].load(std::memory_order_acquire) != dependencies_in(chain, next) ||
            !may_join(chain, next))
          break;
        chain.push_back(next);
      }
      task(std::span<const std::uint32_t>(chain), worker);
      const std::span<const std::uint32_t> members(chain);
      for (std::size_t i = 0; i < chain.size(); ++i) finish(chain[i], members.subspan(i + 1));
    }
  }

  // How many of `next`'s dependencies are members of `chain`.
  std::uint32_t dependencies_in(std::span<const std::uint32_t> chain, std::uint32_t next) const {
    std::uint32_t n = 0;
    for (std::uint32_t d : deps_.dependencies_of(next)) n += std::find(chain.begin(), chain.end(), d) != chain.end();
    return n;
  }

  // `claimed`: the members of t's chain after t, already run with it: not released again.
  void finish(std::uint32_t t, std::span<const std::uint32_t> claimed) {
    std::vector<std::uint32_t> released;
    for (std::uint32_t d : dependants_.dependencies_of(t))
      if (pending_[d].fetch_sub(1, std::memory_order_acq_rel) == 1 &&
          std::find(claimed.begin(), claimed.end(), d) == claimed.end())
        released.push_back(d);
    std::lock_guard lock(mutex_);
    ready_.insert(ready_.end(), released.begin(), released.end());
    --remaining_;
    if (remaining_ == 0 || released.size() > 1)
      cv_.notify_all();
    else if (released.size() == 1)
      cv_.notify_one();
  }

  const DependencyGraph& deps_;
  DependencyGraph dependants_;
  int threads_;
  const std::vector<std::uint32_t>* forward_;
  std::vector<std::atomic<std::uint32_t>> pending_;
  std::deque<std::uint32_t> ready_;
  std::size_t remaining_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
};

// Per transfer: the dependant that reads exactly its destination as its source (the
// forward of what it received), if any: the candidates for fusion.
std::vector<std::uint32_t> forwarding_dependants(const Schedule& s, const DependencyGraph& deps) {
  std::vector<std::uint32_t> forward(s.transfers.size(), kNoForward);
  const DependencyGraph dependants = reverse(deps);
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Region written = storage_of(s, s.transfers[t].destination());
    for (std::uint32_t d : dependants.dependencies_of(t))
      if (storage_of(s, s.transfers[d].source()) == written) {
        forward[t] = d;
        break;
      }
  }
  return forward;
}

bool overlap(const Region& a, const Region& b) {
  return a.rank == b.rank && a.buffer == b.buffer && a.offset < b.end() && b.offset < a.end();
}

// Whether `next` may run tile by tile with `chain`. Members run tile by tile in chain
// order (a topological order: each waits only for earlier members), which is the same as
// running them one after the other wherever two regions that one writes and the other
// touches are either the same region (same offsets and count, so the same tiles) or
// disjoint: the all-gather's copies land where the reduce-scatter read and wrote the chunk.
bool may_fuse(const Schedule& s, std::span<const std::uint32_t> chain, std::uint32_t next) {
  // The regions a transfer touches, the write first (no operand: the source twice).
  const auto touched = [&](const Transfer& t) {
    const Region src = storage_of(s, t.source());
    return std::array<Region, 3>{storage_of(s, t.destination()), src, t.has_operand() ? storage_of(s, t.operand()) : src};
  };
  const auto compatible = [](const Region& a, const Region& b) { return a == b || !overlap(a, b); };
  const std::array<Region, 3> x = touched(s.transfers[next]);
  for (std::uint32_t m : chain) {
    const std::array<Region, 3> y = touched(s.transfers[m]);
    for (const Region& r : y)
      if (!compatible(x[0], r)) return false;
    for (const Region& r : x)
      if (!compatible(r, y[0])) return false;
  }
  return true;
}

// Runs a chain of forwarding transfers (equal counts) tile by tile: every member's tile i
// before any member's tile i+1, so a tile just written is read back from cache.
void run_chain_on_host(const Schedule& s, std::span<const std::uint32_t> chain, std::vector<RankBuffers>& bufs) {
  constexpr std::uint64_t kTileBytes = 64 << 10;  // three such regions fit a core's L2
  const std::uint64_t count = s.transfers[chain.front()].count;
  const std::uint64_t tile = std::max<std::uint64_t>(1, kTileBytes / dtype_size(s.spec.dtype));
  for (std::uint64_t at = 0; at < count; at += tile)
    for (std::uint32_t m : chain) {
      Transfer piece = s.transfers[m];
      piece.src_offset += at;
      piece.dst_offset += at;
      piece.operand_offset += at;
      piece.count = std::min(tile, count - at);
      run_transfer_on_host(s, piece, bufs);
    }
}

// Local operations of one phase are independent (one per rank and region): run them
// in parallel as a graph without edges.
void run_local_ops(const Schedule& s, const std::vector<LocalOp>& ops, std::vector<RankBuffers>& bufs, int threads) {
  if (ops.empty()) return;
  DependencyGraph none;
  none.offsets.assign(ops.size() + 1, 0);
  DagRunner(none, threads).run([&](std::span<const std::uint32_t> one, int) { run_local_op_on_host(s, ops[one.front()], bufs); });
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(CpuBackendOptions o) : options_(std::move(o)) {
    if (options_.threads <= 0) options_.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  std::string name() const override { return "cpu"; }
  std::string device_name() const override { return fmt::format("host CPU ({} worker thread{})", options_.threads, options_.threads == 1 ? "" : "s"); }

  Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& bufs) override {
    Execution ex;
    ex.workers = options_.threads;
    ex.timings.resize(s.transfers.size());
    const auto start = Clock::now();
    const auto since_start = [&] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    };
    run_local_ops(s, s.pre_ops, bufs, options_.threads);
    std::atomic<bool> stopped{false};
    std::atomic<std::size_t> done{0};
    std::atomic<std::uint64_t> fused{0};
    const std::vector<std::uint32_t> forward =
        options_.fuse_forwarding ? forwarding_dependants(s, deps) : std::vector<std::uint32_t>{};
    DagRunner runner(deps, options_.threads, options_.fuse_forwarding ? &forward : nullptr);
    runner.run(
        [&](std::span<const std::uint32_t> chain, int worker) {
          // A stopped run still drains the graph (its dependants must be released), doing nothing.
          if (stopped.load(std::memory_order_relaxed) || (options_.should_stop && options_.should_stop())) {
            stopped.store(true, std::memory_order_relaxed);
            return;
          }
          if (options_.before_transfer)
            for (std::uint32_t i : chain) options_.before_transfer(i);
          const std::int64_t begin = since_start();
          if (chain.size() == 1)
            run_transfer_on_host(s, s.transfers[chain.front()], bufs);
          else
            run_chain_on_host(s, chain, bufs);
          const std::int64_t end = since_start();
          fused.fetch_add(chain.size() - 1, std::memory_order_relaxed);
          for (std::uint32_t i : chain) {
            ex.timings[i] = {begin, end, worker};
            if (options_.after_transfer)
              options_.after_transfer(done.fetch_add(1, std::memory_order_relaxed) + 1, s.transfers.size());
          }
        },
        [&](std::span<const std::uint32_t> chain, std::uint32_t next) {
          return s.transfers[next].count == s.transfers[chain.front()].count && may_fuse(s, chain, next);
        });
    ex.fused_transfers = fused.load();
    if (stopped.load()) throw ExecutionStopped();
    run_local_ops(s, s.post_ops, bufs, options_.threads);
    ex.total_ns = since_start();
    return ex;
  }

 private:
  CpuBackendOptions options_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuBackendOptions options) {
  return std::make_unique<CpuBackend>(std::move(options));
}

std::byte* region_data(const Schedule& s, std::vector<RankBuffers>& bufs, const Region& region) {
  return element_ptr(bufs, s, region);
}

void run_local_op_on_host(const Schedule& s, const LocalOp& op, std::vector<RankBuffers>& bufs) {
  std::byte* target = element_ptr(bufs, s, op.target);
  switch (op.kind) {
    case LocalOpKind::copy:
      host_copy(target, element_ptr(bufs, s, op.source), op.target.count, s.spec.dtype);
      break;
    case LocalOpKind::fill_identity:
      host_fill_identity(target, op.target.count, s.spec.dtype, s.spec.op);
      break;
    case LocalOpKind::divide:
      host_divide(target, op.target.count, s.spec.dtype, s.average_divisor);
      break;
    case LocalOpKind::signal:
      write_signal(s, op.target, target);
      break;
  }
}

std::span<std::byte> buffer_view(const Schedule& s, std::vector<RankBuffers>& bufs, int rank, BufferKind b) {
  const std::uint64_t n = s.buffer_elements(rank, b);
  return {n == 0 ? nullptr : element_ptr(bufs, s, {rank, b, 0, n}), static_cast<std::size_t>(n * dtype_size(s.spec.dtype))};
}

std::span<const std::byte> buffer_view(const Schedule& s, const std::vector<RankBuffers>& bufs, int rank,
                                       BufferKind b) {
  const std::uint64_t n = s.buffer_elements(rank, b);
  return {n == 0 ? nullptr : element_ptr(bufs, s, {rank, b, 0, n}), static_cast<std::size_t>(n * dtype_size(s.spec.dtype))};
}

std::vector<RankBuffers> allocate_buffers(const Schedule& s, int only_rank) {
  std::vector<RankBuffers> bufs(static_cast<std::size_t>(s.total_ranks));
  const std::size_t elem = dtype_size(s.spec.dtype);
  for (int r = 0; r < s.total_ranks; ++r) {
    const std::uint64_t inputs = s.buffer_elements(r, BufferKind::input);
    const BufferKind input_storage = storage_of(s, Region{r, BufferKind::input, 0, inputs}).buffer;
    for (BufferKind b : kAllBufferKinds)
      if (only_rank < 0 || r == only_rank || (inputs > 0 && b == input_storage))
        bufs[static_cast<std::size_t>(r)].get(b).resize(storage_elements(s, r, b) * elem);
  }
  return bufs;
}

double buffer_bytes(const Schedule& s) {
  double elements = 0;
  for (int r = 0; r < s.total_ranks; ++r)
    for (BufferKind b : kAllBufferKinds)
      elements += static_cast<double>(storage_elements(s, r, b));
  return elements * static_cast<double>(dtype_size(s.spec.dtype));
}

}  // namespace collsim
