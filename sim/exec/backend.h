// Where a schedule's transfers really run. The CPU backend works on the host buffers
// directly; a CUDA backend copies them to devices, runs kernels, and copies back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/check/dependencies.h"
#include "sim/schedule/schedule.h"

namespace collsim {

// One rank's buffers in host memory, as raw bytes of the spec's data type.
struct RankBuffers {
  std::vector<std::byte> input, output, scratch;
  std::vector<std::byte>& get(BufferKind b) {
    return b == BufferKind::input ? input : b == BufferKind::output ? output : scratch;
  }
  const std::vector<std::byte>& get(BufferKind b) const { return const_cast<RankBuffers&>(*this).get(b); }
};

// Allocates every rank's buffers, sized by the schedule (outputs and scratch zeroed).
// In place, the inner buffer of an alias (storage_of) stays empty. `only_rank` >= 0 (an
// MPI process): that rank's buffers, and of every other rank only where its input lives
// (the reference computes the expected outputs from every rank's input).
std::vector<RankBuffers> allocate_buffers(const Schedule& s, int only_rank = -1);
// The bytes of rank `rank`'s buffer b as the schedule names it, wherever in-place
// aliasing stores them.
std::span<std::byte> buffer_view(const Schedule& s, std::vector<RankBuffers>& buffers, int rank, BufferKind b);
std::span<const std::byte> buffer_view(const Schedule& s, const std::vector<RankBuffers>& buffers, int rank,
                                       BufferKind b);
// Bytes allocate_buffers would take, to refuse absurd sizes before allocating.
double buffer_bytes(const Schedule& s);

// Measured on the backend, in ns since the run started.
struct TransferTiming {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  int worker = 0;  // CPU worker thread, or CUDA stream
};

// One process of a run across MPI processes (--backend mpi, mpi_backend.h): where it ran
// and how its clock relates to rank 0's, by the fastest of several ping-pongs at the
// start and at the end (its clock minus rank 0's; linear in between).
struct ProcessClock {
  int rank = 0;
  std::string host;
  std::int64_t pid = 0;
  double offset_start_ns = 0, offset_end_ns = 0;
  double uncertainty_ns = 0;  // half the fastest round trip (the larger of start and end)
  friend bool operator==(const ProcessClock&, const ProcessClock&) = default;
};

// What an execution says besides its times: kept whole by the trace (Trace::execution).
struct ExecutionFacts {
  int workers = 0;  // worker threads or streams the backend used
  // Across MPI processes only (empty otherwise): every process's clock, and the transfers
  // whose receive ended before their send began once the clocks are aligned.
  std::vector<ProcessClock> processes;
  std::uint64_t causality_violations = 0;
  std::string first_causality_violation;
  // CPU backend with fuse_forwarding: transfers run fused into an earlier one's chain.
  std::uint64_t fused_transfers = 0;
};

struct Execution : ExecutionFacts {
  std::vector<TransferTiming> timings;  // one per transfer, in schedule order (the trace's records)
  std::int64_t total_ns = 0;            // pre-operations through post-operations (the trace's summary)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string device_name() const = 0;
  // Runs the pre-operations, every transfer once the transfers it depends on are done,
  // then the post-operations, on `buffers`.
  virtual Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& buffers) = 0;
  // execute() `times` times in a row on the same buffers (a benchmark's iterations), one
  // Execution each. A device backend overrides it to move the buffers to the device once
  // before the first run and back once after the last, instead of around every run.
  virtual std::vector<Execution> execute_repeatedly(const Schedule& s, const DependencyGraph& deps,
                                                    std::vector<RankBuffers>& buffers, int times) {
    std::vector<Execution> runs;
    for (int i = 0; i < times; ++i) runs.push_back(execute(s, deps, buffers));
    return runs;
  }
};

struct CpuBackendOptions {
  int threads = 0;  // 0: one per hardware thread
  // Test hook: called on the worker just before transfer `index` runs (e.g. to delay it).
  std::function<void(std::size_t index)> before_transfer;
  // Polled before every transfer (the GUI's Cancel): once it returns true, the transfers
  // not yet started are skipped and execute() throws ExecutionStopped; the buffers are
  // then partial and must not be verified.
  std::function<bool()> should_stop;
  // Called on a worker after each transfer with how many are done (of `total`, the
  // schedule's): the CLI's progress line on a long run. Runs inside the timed run: keep it cheap.
  std::function<void(std::size_t done, std::size_t total)> after_transfer;
  // Fuse forwarding chains (NCCL's recvReduceSend): when a transfer's destination is read,
  // whole, by a dependant that waits for nothing else, the same worker runs both (and that
  // one's forward, ...) tile by tile, so each partial sum is read back from cache instead of
  // memory. Fused transfers overlap in time: their records span the whole chain.
  bool fuse_forwarding = false;
};

class ExecutionStopped : public std::runtime_error {
 public:
  ExecutionStopped() : std::runtime_error("the execution was stopped before its end") {}
};

std::unique_ptr<Backend> make_cpu_backend(CpuBackendOptions options = {});

// Applies one local operation on host buffers (shared by backends and the reference).
void run_local_op_on_host(const Schedule& s, const LocalOp& op, std::vector<RankBuffers>& buffers);
// The first byte of a named region in host buffers, wherever in-place aliasing stores it.
std::byte* region_data(const Schedule& s, std::vector<RankBuffers>& buffers, const Region& region);
// Runs one transfer on host buffers: the CPU backend's work, and the value history's (value_history.h).
void run_transfer_on_host(const Schedule& s, const Transfer& t, std::vector<RankBuffers>& buffers);

}  // namespace collsim
