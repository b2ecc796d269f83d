// The MPI backend (--backend mpi, docs/distributed.md): the same schedule across processes
// and nodes, one process per rank, started by `mpirun -np N collsim run --backend mpi …`.
//
// Each process executes its rank's side of every transfer it sends or receives, from the
// same derived dependencies as the CPU backend and with no barrier between steps: a send
// starts once the transfers that touch this rank and come before it are done here; a
// receive lands in a staging buffer and is applied (the same host copy and reduce) once
// the transfers before it are done here. Non-blocking point-to-point (MPI_Isend/MPI_Irecv,
// one message per transfer, tag = transfer index, progress by MPI_Testsome/MPI_Waitsome);
// docs/design.md says why not one-sided.
//
// Times: each process measures its own sides on its own monotonic clock; offsets to rank
// 0's clock come from the fastest of several ping-pongs per process at the start and at
// the end (drift corrected linearly in between), and rank 0 gathers every side into one
// Execution on its clock: a transfer begins when its send starts and ends when its receive
// has been applied. Plain C++ here: only mpi_backend.cpp includes <mpi.h>.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/exec/backend.h"

namespace collsim {

// "" when this build has the MPI backend; otherwise why not (for --backend mpi's message).
std::string why_no_mpi();
// The MPI library's name and version, "Open MPI v4.1.4" (its first line, up to a comma).
std::string mpi_library_version();

// A failed MPI call on one process (the communicator returns errors: MPI_ERRORS_RETURN),
// as a sentence ("rank 2: MPI_Waitsome failed: ...") and as its fields.
struct MpiError : std::runtime_error {
  MpiError(int rank, std::string call, int code, std::string text)
      : std::runtime_error("rank " + std::to_string(rank) + ": " + call + " failed: " + text),
        rank(rank),
        call(std::move(call)),
        code(code),
        text(std::move(text)) {}
  int rank = 0;       // the process's rank in MPI_COMM_WORLD
  std::string call;   // "MPI_Waitsome"
  int code = 0;       // the MPI error code
  std::string text;   // MPI_Error_string's text
};

// This process's place in the MPI job. The first call starts MPI (finalised at exit);
// `launched` says a launcher (mpirun, mpiexec, srun) started it: without one the job is
// this process alone.
struct MpiPlace {
  int rank = 0;
  int size = 1;
  bool launched = false;
  std::string host;
  std::int64_t pid = 0;
};
const MpiPlace& mpi_place();
// Whether a launcher started this process (its environment says so), without starting MPI.
bool launched_by_mpi_launcher();

// Collectives the front end needs around a run; every process calls them, in the same order.
std::uint64_t mpi_sum(std::uint64_t local);
double mpi_max(double local);
// Rank 0's text on every process (e.g. the error rank 0 found in an output path).
std::string mpi_share(const std::string& from_rank0);
// Rank 0's problem ("": none) on every process, so that a bad input stops the job with one
// message, not one per process: rank 0 throws it as an InputError, the others MpiStopped.
struct MpiStopped {};
void mpi_stop_all_if(const std::string& rank0_problem);
// Every process's text, in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> mpi_gather_text(const std::string& mine);
// Rank 0 gets every process's `mine`, in rank order, one process's at a time (so it holds
// one other buffer, not all of them: --dump), and hands each to `on_rank0(rank, bytes)`;
// the others only send. Any size (sent in pieces under MPI's int count).
using CollectedBytes = std::function<void(int rank, std::span<const std::byte> bytes)>;
void mpi_collect_bytes(std::span<const std::byte> mine, const CollectedBytes& on_rank0);

// Ping-pongs of `bytes` between ranks `a` and `b` (a != b): `repeats` round trips after one
// untimed, each timed on a's clock; a gets each one-way time (half the round trip), in ns, the
// others nothing. Only a and b take part; the others return at once (collsim calibrate).
std::vector<double> mpi_ping_pong_ns(int a, int b, std::size_t bytes, int repeats);

// A barrier whose waiting processes sleep (MPI_Ibarrier tested every 5 ms) instead of
// polling the network at full speed as MPI_Barrier does: while two processes measure, the
// others wait here without taking their cores (calibrate).
void mpi_idle_barrier();

// The MPI library's own collective for `s`'s spec (bench --backend mpi's anchor row): the
// call on this process's rank's buffers, as the buffer conventions lay them out (every
// process calls it, in step). `unsupported` says why there is none (a type or op MPI
// lacks, in place, send_recv); otherwise `warmup` untimed and `iterations` timed calls,
// each between barriers, timed on rank 0's clock (0 elsewhere).
struct NativeMpiTime {
  std::string call;         // "MPI_Allreduce"
  std::string unsupported;  // non-empty: not run, and why
  double mean_us = 0, best_us = 0;
};
NativeMpiTime time_native_collective(const Schedule& s, std::vector<RankBuffers>& buffers, int warmup, int iterations);

struct MpiBackendOptions {
  int ping_pongs = 16;  // per process, at the start and at the end, for the clock offsets
  // --timeout: a process that has waited this long (s) with none of its transfers moving
  // prints which rank it is and which transfer it waits for (the oldest open receive, or send)
  // and aborts the job (MPI_Abort, exit status 3). 0: wait as long as it takes.
  double stall_timeout_s = 0;
  // Off (bench --timings off): no per-transfer times and no clock alignment, to measure
  // what recording costs; Execution::timings are then all 0.
  bool record = true;
};
std::unique_ptr<Backend> make_mpi_backend(MpiBackendOptions options = {});

}  // namespace collsim
