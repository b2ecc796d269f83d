// The MPI backend (mpi_backend.h): this process's rank's side of every transfer, on
// non-blocking point-to-point, and the clock alignment that puts every side on rank 0's clock.
#include "sim/exec/mpi_backend.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "kernels/host_loops.h"
#include "sim/core/errors.h"

namespace collsim {
namespace {

using Clock = std::chrono::steady_clock;
std::int64_t now_ns() { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); }

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw MpiError(mpi_place().rank, call, code, std::string(text, static_cast<std::size_t>(length)));
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// ---- clocks ----------------------------------------------------------------------------------
// Rank 0 and each other process in turn: `rounds` ping-pongs, rank 0 keeping the fastest.
// Its clock minus rank 0's is t_r - (t_send + t_back) / 2, within half that round trip.
struct Offset {
  double offset_ns = 0, uncertainty_ns = 0;
  std::int64_t at_ns = 0;  // when, on the process's own clock
};

std::vector<Offset> measure_offsets(int rounds) {
  const MpiPlace& me = mpi_place();
  std::vector<Offset> out(static_cast<std::size_t>(me.size));
  constexpr int kTag = 0x7000;
  for (int r = 1; r < me.size; ++r) {
    if (me.rank == 0) {
      double best_rtt = std::numeric_limits<double>::infinity();
      for (int k = 0; k < rounds; ++k) {
        std::int64_t theirs = 0;
        const std::int64_t sent = now_ns();
        check_mpi(MPI_Send(nullptr, 0, MPI_BYTE, r, kTag, MPI_COMM_WORLD), "MPI_Send (clock)");
        check_mpi(MPI_Recv(&theirs, 1, MPI_INT64_T, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv (clock)");
        const std::int64_t back = now_ns();
        const double rtt = static_cast<double>(back - sent);
        if (rtt < best_rtt) {
          best_rtt = rtt;
          out[static_cast<std::size_t>(r)] = {static_cast<double>(theirs) - (static_cast<double>(sent) + static_cast<double>(back)) / 2,
                                              rtt / 2, theirs};
        }
      }
    } else if (me.rank == r) {
      for (int k = 0; k < rounds; ++k) {
        check_mpi(MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv (clock)");
        const std::int64_t mine = now_ns();
        check_mpi(MPI_Send(&mine, 1, MPI_INT64_T, 0, kTag, MPI_COMM_WORLD), "MPI_Send (clock)");
      }
    }
  }
  return out;  // meaningful on rank 0
}

// A time on process r's clock, on rank 0's: the offset drifts linearly from start to end.
struct Alignment {
  std::vector<Offset> start, end;
  double to_rank0(int r, std::int64_t t) const {
    const Offset& a = start[static_cast<std::size_t>(r)];
    const Offset& b = end[static_cast<std::size_t>(r)];
    const double span = static_cast<double>(b.at_ns - a.at_ns);
    const double f = span > 0 ? (static_cast<double>(t - a.at_ns) / span) : 0;
    return static_cast<double>(t) - (a.offset_ns + f * (b.offset_ns - a.offset_ns));
  }
};

// ---- one process's side of the transfers ---------------------------------------------------------
// What a process measured of one transfer's side: a send (begin, completed) or a receive
// (arrived, applied). Gathered to rank 0 as five int64 each.
enum SideKind : std::int64_t { kSend = 0, kReceive = 1 };
struct Side {
  std::int64_t transfer, kind, begin_ns, end_ns, worker;
};

// What goes over the wire: the region's elements (a barrier's tokens too, which
// Schedule::bytes counts as 0 for the bandwidth figures).
std::uint64_t wire_bytes(const Schedule& s, const Transfer& t) { return t.count * dtype_size(s.spec.dtype); }

// Test hook (tests/mpi): COLLSIM_TEST_DIE_RANK=R makes rank R kill itself mid-run.
void maybe_die() {
  const char* die = std::getenv("COLLSIM_TEST_DIE_RANK");
  if (die && std::atoi(die) == mpi_place().rank) std::raise(SIGKILL);
}

// Test hook (tests/mpi, tests/netlab): COLLSIM_TEST_STALL_RANK=R stops rank R (SIGSTOP) after
// its first receive, as a process that hangs: alive, holding its connections, sending nothing.
void maybe_stall() {
  const char* stall = std::getenv("COLLSIM_TEST_STALL_RANK");
  if (stall && std::atoi(stall) == mpi_place().rank) std::raise(SIGSTOP);
}

class Progress {
 public:
  Progress(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& bufs, int me, bool record,
           double stall_timeout_s)
      : s_(s), deps_(deps), dependants_(reverse(deps)), bufs_(bufs), me_(me), record_(record),
        stall_timeout_s_(stall_timeout_s) {}

  // Before the clock starts: the dependency counts, and every receive posted into its
  // staging buffer (allocated and touched here, not inside the timed run).
  void prepare() {
    const std::size_t n = s_.transfers.size();
    mine_.assign(n, 0);
    pending_.assign(n, 0);
    parts_left_.assign(n, 0);
    for (std::size_t t = 0; t < n; ++t) {
      const Transfer& x = s_.transfers[t];
      parts_left_[t] = (x.src == me_ ? 1 : 0) + (x.dst == me_ ? 1 : 0);
      mine_[t] = parts_left_[t] > 0;
    }
    for (std::size_t t = 0; t < n; ++t) {
      if (!mine_[t]) continue;
      for (std::uint32_t d : deps_.dependencies_of(t))
        if (mine_[d]) ++pending_[t];
    }
    post_receives();
  }

  std::vector<Side> run() {
    for (std::size_t t = 0; t < s_.transfers.size(); ++t)
      if (mine_[t] && pending_[t] == 0) start(t);
    while (open_ > 0) wait_some();
    return std::move(sides_);
  }

 private:
  // Every receive is posted at once into its own staging buffer, so that a send never
  // waits for its receiver to get round to it (and the order of sends cannot deadlock).
  void post_receives() {
    for (std::size_t t = 0; t < s_.transfers.size(); ++t) {
      const Transfer& x = s_.transfers[t];
      if (x.dst != me_) continue;
      auto& staging = staging_[t];
      staging.resize(static_cast<std::size_t>(wire_bytes(s_, x)));
      MPI_Request request;
      check_mpi(MPI_Irecv(staging.data(), static_cast<int>(staging.size()), MPI_BYTE, x.src, static_cast<int>(t),
                          MPI_COMM_WORLD, &request),
                "MPI_Irecv");
      track(request, t, kReceive);
    }
  }

  // All of transfer t's predecessors here are done: its send goes, and its receive (if
  // it has arrived) is applied.
  void start(std::size_t t) {
    const Transfer& x = s_.transfers[t];
    if (x.src == me_) {
      const std::byte* data = region_data(s_, bufs_, x.source());
      MPI_Request request;
      if (record_) began_[t] = now_ns();
      check_mpi(MPI_Isend(data, static_cast<int>(wire_bytes(s_, x)), MPI_BYTE, x.dst, static_cast<int>(t), MPI_COMM_WORLD, &request),
                "MPI_Isend");
      track(request, t, kSend);
    }
    if (x.dst == me_) {
      ready_to_apply_.insert(t);
      if (arrived_.count(t)) apply(t);
    }
  }

  void apply(std::size_t t) {
    const Transfer& x = s_.transfers[t];
    const std::int64_t begin = record_ ? now_ns() : 0;
    std::byte* target = region_data(s_, bufs_, x.destination());
    const auto& staging = staging_[t];
    switch (x.action) {
      case Action::copy: host_copy(target, staging.data(), x.count, s_.spec.dtype); break;
      case Action::reduce: host_reduce(target, staging.data(), x.count, s_.spec.dtype, s_.spec.op); break;
      case Action::reduce_copy:
        host_reduce_copy(target, region_data(s_, bufs_, x.operand()), staging.data(), x.count, s_.spec.dtype,
                         s_.spec.op);
        break;
    }
    if (record_) sides_.push_back({static_cast<std::int64_t>(t), kReceive, arrived_[t], now_ns(), begin});
    staging_.erase(t);
    if (++applied_ == 1 && std::getenv("COLLSIM_TEST_DIE_RANK")) maybe_die();  // mid-run: after its first receive
    if (applied_ == 1 && std::getenv("COLLSIM_TEST_STALL_RANK")) maybe_stall();
    part_done(t);
  }

  void part_done(std::size_t t) {
    if (--parts_left_[t] > 0) return;
    for (std::uint32_t d : dependants_.dependencies_of(t))
      if (mine_[d] && --pending_[d] == 0) start(d);
  }

  void track(MPI_Request request, std::size_t t, SideKind kind) {
    requests_.push_back(request);
    owners_.push_back({t, kind});
    ++open_;
  }

  void wait_some() {
    int count = 0;
    indices_.resize(requests_.size());
    if (stall_timeout_s_ > 0) {
      count = test_until_stalled();
    } else {
      check_mpi(MPI_Waitsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices_.data(),
                             MPI_STATUSES_IGNORE),
                "MPI_Waitsome");
    }
    if (count == MPI_UNDEFINED) throw std::logic_error("MPI backend: waiting with no request open");
    const std::int64_t at = record_ ? now_ns() : 0;
    for (int k = 0; k < count; ++k) {
      const auto [t, kind] = owners_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)])];
      --open_;
      if (kind == kSend) {
        if (record_) sides_.push_back({static_cast<std::int64_t>(t), kSend, began_[t], at, 0});
        part_done(t);
      } else {
        arrived_[t] = at;  // (also the "has arrived" mark when not recording)
        if (ready_to_apply_.count(t)) apply(t);
      }
    }
    compact();
  }

  // --timeout: MPI_Testsome until a request completes; after stall_timeout_s_ of none, says
  // what this rank waits for and aborts the job (the others may be blocked in MPI_Waitsome or
  // in a barrier: only MPI_Abort ends them).
  int test_until_stalled() {
    const auto since = std::chrono::steady_clock::now();
    for (;;) {
      int count = 0;
      check_mpi(MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, indices_.data(),
                             MPI_STATUSES_IGNORE),
                "MPI_Testsome");
      if (count != 0) return count;
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
      if (waited >= stall_timeout_s_) {
        std::fprintf(stderr, "collsim: error: %s\n", stalled_message(waited).c_str());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }

  // "rank 3: --timeout 2 s: none of its transfers moved for 2.0 s; it waits for transfer 6 (step 2,
  // rank 2 -> rank 3, 4 KiB) and 4 more; ...": the oldest receive still open, else the oldest send.
  std::string stalled_message(double waited) const {
    std::size_t oldest = s_.transfers.size(), open = 0;
    for (int pass = 0; pass < 2 && oldest == s_.transfers.size(); ++pass)
      for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        const auto [t, kind] = owners_[i];
        if (pass == 0) ++open;
        if ((pass == 0) == (kind == kReceive)) oldest = std::min(oldest, t);
      }
    std::string what = "nothing open";
    if (oldest < s_.transfers.size()) {
      const Transfer& x = s_.transfers[oldest];
      what = fmt::format("transfer {} (step {}, rank {} -> rank {}, {})", oldest, x.step + 1, x.src, x.dst,
                         format_bytes(static_cast<double>(wire_bytes(s_, x))));
    }
    return fmt::format("rank {}: --timeout {:g} s: none of its transfers moved for {:.1f} s; it waits for {}{}; aborting "
                       "the job (a rank stopped, or a link is down)",
                       me_, stall_timeout_s_, waited, what, open > 1 ? fmt::format(" and {} more", open - 1) : "");
  }

  // Drops the finished requests (MPI_REQUEST_NULL) once they are most of the list.
  void compact() {
    if (requests_.size() < 64 || static_cast<std::size_t>(open_) * 2 > requests_.size()) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i)
      if (requests_[i] != MPI_REQUEST_NULL) requests_[kept] = requests_[i], owners_[kept++] = owners_[i];
    requests_.resize(kept);
    owners_.resize(kept);
  }

  const Schedule& s_;
  const DependencyGraph& deps_;
  DependencyGraph dependants_;
  std::vector<RankBuffers>& bufs_;
  int me_;
  std::vector<char> mine_;
  std::vector<std::uint32_t> pending_;  // predecessors here not yet done
  std::vector<int> parts_left_;         // this process's sides of the transfer not yet done
  std::vector<MPI_Request> requests_;
  std::vector<std::pair<std::size_t, SideKind>> owners_;
  std::vector<int> indices_;
  int open_ = 0;
  std::unordered_map<std::size_t, std::vector<std::byte>> staging_;
  std::unordered_map<std::size_t, std::int64_t> arrived_, began_;
  std::unordered_set<std::size_t> ready_to_apply_;
  std::vector<Side> sides_;
  std::size_t applied_ = 0;
  bool record_;
  double stall_timeout_s_;
};

// Refused before anything moves, on every process alike (they build the same schedule).
void check_runnable(const Schedule& s) {
  const MpiPlace& me = mpi_place();
  // More processes than ranks (a lesson's collective on fewer ranks than the program): the
  // processes past the schedule's ranks sit it out, joining only its barriers and gathers.
  if (me.size < s.total_ranks)
    throw InputError(fmt::format("--backend mpi: the schedule has {} ranks{} but the job has {} process{}: launch it as "
                                 "mpirun -np {} collsim …",
                                 s.total_ranks, s.total_ranks != s.spec.ranks ? fmt::format(" ({} and {} servers)", s.spec.ranks, s.total_ranks - s.spec.ranks) : "",
                                 me.size, me.size == 1 ? "" : "es", s.total_ranks));
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  if (found && s.transfers.size() > static_cast<std::size_t>(*tag_ub))
    throw InputError(fmt::format("--backend mpi: {} transfers, but this MPI's tags go up to {} (one tag per transfer)",
                                 s.transfers.size(), *tag_ub));
  for (const Transfer& t : s.transfers)
    if (wire_bytes(s, t) > static_cast<std::uint64_t>(INT_MAX))
      throw InputError(fmt::format("--backend mpi: a transfer of {} bytes is more than one MPI message carries here "
                                   "(2 GiB): use --slices or a smaller --count",
                                   wire_bytes(s, t)));
}

// An empty message each way with every rank this one sends to or receives from, before the
// timed run: Open MPI opens a TCP connection on a pair's first message (a handshake of
// milliseconds between hosts), which would otherwise land in the first step's times. NCCL
// connects its peers when the communicator is set up, likewise outside any collective.
void connect_peers(const Schedule& s, int me) {
  constexpr int kTag = 0x7001;  // the run's own messages, tagged by transfer index, start after the barrier
  std::vector<int> peers;
  for (const Transfer& t : s.transfers) {
    if (t.is_local()) continue;
    if (t.src == me) peers.push_back(t.dst);
    if (t.dst == me) peers.push_back(t.src);
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  std::vector<MPI_Request> requests(peers.size() * 2);
  for (std::size_t k = 0; k < peers.size(); ++k) {
    check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, peers[k], kTag, MPI_COMM_WORLD, &requests[2 * k]), "MPI_Irecv (connect)");
    check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, peers[k], kTag, MPI_COMM_WORLD, &requests[2 * k + 1]), "MPI_Isend (connect)");
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall (connect)");
}

class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(MpiBackendOptions o) : options_(o) {}
  std::string name() const override { return "mpi"; }
  std::string device_name() const override {
    return fmt::format("{} processes, one per rank ({})", mpi_place().size, mpi_library_version());
  }

  Execution execute(const Schedule& s, const DependencyGraph& deps, std::vector<RankBuffers>& bufs) override {
    check_runnable(s);
    const MpiPlace& me = mpi_place();
    Alignment clocks;
    if (options_.record) clocks.start = measure_offsets(options_.ping_pongs);
    Progress progress(s, deps, bufs, me.rank, options_.record, options_.stall_timeout_s);
    progress.prepare();
    connect_peers(s, me.rank);
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const std::int64_t start = now_ns();
    for (const LocalOp& op : s.pre_ops)
      if (op.target.rank == me.rank) run_local_op_on_host(s, op, bufs);
    std::vector<Side> sides = progress.run();
    for (const LocalOp& op : s.post_ops)
      if (op.target.rank == me.rank) run_local_op_on_host(s, op, bufs);
    const std::int64_t finish = now_ns();
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (!options_.record) return unrecorded(s, finish - start);
    clocks.end = measure_offsets(options_.ping_pongs);
    return gather(s, sides, start, finish, clocks);
  }

  // Recording off (bench --timings off): no per-transfer times, no clock alignment; the
  // run's time is the longest process's, start to finish, on every process.
  static Execution unrecorded(const Schedule& s, std::int64_t mine_ns) {
    Execution ex;
    ex.workers = mpi_place().size;
    ex.timings.resize(s.transfers.size());
    check_mpi(MPI_Allreduce(&mine_ns, &ex.total_ns, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return ex;
  }

 private:
  // Every process's sides and times to rank 0, merged there on its clock.
  Execution gather(const Schedule& s, const std::vector<Side>& sides, std::int64_t start, std::int64_t finish,
                   const Alignment& clocks) const {
    const MpiPlace& me = mpi_place();
    std::vector<std::int64_t> flat;
    flat.reserve(sides.size() * 5 + 2);
    flat.push_back(start), flat.push_back(finish);
    for (const Side& d : sides) flat.insert(flat.end(), {d.transfer, d.kind, d.begin_ns, d.end_ns, d.worker});
    const int mine = static_cast<int>(flat.size());
    std::vector<int> counts(static_cast<std::size_t>(me.size)), displs(counts.size());
    check_mpi(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<std::int64_t> all;
    if (me.rank == 0) {
      for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
      all.resize(static_cast<std::size_t>(displs.back() + counts.back()));
    }
    check_mpi(MPI_Gatherv(flat.data(), mine, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0,
                          MPI_COMM_WORLD),
              "MPI_Gatherv");
    const std::vector<std::string> hosts = mpi_gather_text(fmt::format("{}\n{}", me.host, me.pid));
    Execution ex;
    ex.workers = me.size;
    if (me.rank != 0) return ex;  // only rank 0 reports the run
    return merge(s, all, counts, displs, clocks, hosts);
  }

  static Execution merge(const Schedule& s, const std::vector<std::int64_t>& all, const std::vector<int>& counts,
                         const std::vector<int>& displs, const Alignment& clocks, const std::vector<std::string>& hosts) {
    const int size = s.total_ranks;  // the processes past it sat the run out
    Execution ex;
    ex.workers = size;
    ex.timings.resize(s.transfers.size());
    std::vector<double> send_begin(s.transfers.size()), applied(s.transfers.size());
    double first = std::numeric_limits<double>::infinity(), last = -first;
    for (int r = 0; r < size; ++r) {
      const std::int64_t* p = all.data() + displs[static_cast<std::size_t>(r)];
      first = std::min(first, clocks.to_rank0(r, p[0]));
      last = std::max(last, clocks.to_rank0(r, p[1]));
      for (int k = 2; k + 4 < counts[static_cast<std::size_t>(r)]; k += 5) {
        const auto t = static_cast<std::size_t>(p[k]);
        if (p[k + 1] == kSend)
          send_begin[t] = clocks.to_rank0(r, p[k + 2]);
        else
          applied[t] = clocks.to_rank0(r, p[k + 3]);
      }
    }
    for (std::size_t t = 0; t < s.transfers.size(); ++t) {
      ex.timings[t] = {static_cast<std::int64_t>(send_begin[t] - first), static_cast<std::int64_t>(applied[t] - first),
                       s.transfers[t].dst};
      if (applied[t] < send_begin[t] && ex.causality_violations++ == 0)
        ex.first_causality_violation = fmt::format(
            "transfer {} (rank {} -> {}): its receive was applied {:.0f} ns before its send began, on the aligned clocks",
            t, s.transfers[t].src, s.transfers[t].dst, send_begin[t] - applied[t]);
    }
    ex.total_ns = static_cast<std::int64_t>(last - first);
    for (int r = 0; r < size; ++r) {
      const std::string& h = hosts[static_cast<std::size_t>(r)];
      const auto newline = h.find('\n');
      const Offset& a = clocks.start[static_cast<std::size_t>(r)];
      const Offset& b = clocks.end[static_cast<std::size_t>(r)];
      ex.processes.push_back({r, h.substr(0, newline), newline == std::string::npos ? 0 : std::atoll(h.c_str() + newline + 1),
                              a.offset_ns, b.offset_ns, std::max(a.uncertainty_ns, b.uncertainty_ns)});
    }
    return ex;
  }

  MpiBackendOptions options_;
};

}  // namespace

std::string why_no_mpi() { return ""; }

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  const std::string library(version, static_cast<std::size_t>(length));
  return library.substr(0, library.find_first_of(",\n"));
}

bool launched_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

const MpiPlace& mpi_place() {
  static const MpiPlace place = [] {
    MpiPlace p;
    p.launched = launched_by_mpi_launcher();  // before MPI_Init: Open MPI's singleton sets the same variables
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      std::atexit(finalize_at_exit);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    // Errors come back as codes (check_mpi names the call), not as an abort without a word.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char host[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(host, &length);
    p.host.assign(host, static_cast<std::size_t>(length));
    p.pid = static_cast<std::int64_t>(::getpid());
    return p;
  }();
  return place;
}

std::uint64_t mpi_sum(std::uint64_t local) {
  std::uint64_t total = 0;
  check_mpi(MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return total;
}

double mpi_max(double local) {
  double most = 0;
  check_mpi(MPI_Allreduce(&local, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return most;
}

std::vector<std::string> mpi_gather_text(const std::string& mine) {
  const MpiPlace& me = mpi_place();
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(me.rank == 0 ? static_cast<std::size_t>(me.size) : 0), displs(lengths.size());
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::string all;
  if (me.rank == 0) {
    for (std::size_t r = 1; r < lengths.size(); ++r) displs[r] = displs[r - 1] + lengths[r - 1];
    all.resize(static_cast<std::size_t>(displs.back() + lengths.back()));
  }
  check_mpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

std::string mpi_share(const std::string& from_rank0) {
  int length = mpi_place().rank == 0 ? static_cast<int>(from_rank0.size()) : 0;
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string text = mpi_place().rank == 0 ? from_rank0 : std::string(static_cast<std::size_t>(length), '\0');
  check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return text;
}

void mpi_stop_all_if(const std::string& rank0_problem) {
  const std::string problem = mpi_share(rank0_problem);
  if (problem.empty()) return;
  if (mpi_place().rank == 0) throw InputError(problem);
  throw MpiStopped{};
}

void mpi_collect_bytes(std::span<const std::byte> mine, const CollectedBytes& on_rank0) {
  constexpr std::uint64_t kPiece = 1ull << 30;  // under MPI's int count
  const MpiPlace& me = mpi_place();
  if (me.rank != 0) {
    std::uint64_t size = mine.size();
    check_mpi(MPI_Send(&size, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD), "MPI_Send");
    for (std::uint64_t at = 0; at < size; at += kPiece)
      check_mpi(MPI_Send(mine.data() + at, static_cast<int>(std::min(kPiece, size - at)), MPI_BYTE, 0, 0, MPI_COMM_WORLD),
                "MPI_Send");
    return;
  }
  on_rank0(0, mine);
  std::vector<std::byte> theirs;
  for (int r = 1; r < me.size; ++r) {
    std::uint64_t size = 0;
    check_mpi(MPI_Recv(&size, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    theirs.resize(size);
    for (std::uint64_t at = 0; at < size; at += kPiece)
      check_mpi(MPI_Recv(theirs.data() + at, static_cast<int>(std::min(kPiece, size - at)), MPI_BYTE, r, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv");
    on_rank0(r, theirs);
  }
}

std::vector<double> mpi_ping_pong_ns(int a, int b, std::size_t bytes, int repeats) {
  const int me = mpi_place().rank;
  if (me != a && me != b) return {};
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("mpi_ping_pong_ns: over MPI's int count");
  constexpr int kTag = 7301;
  const int peer = me == a ? b : a, count = static_cast<int>(bytes);
  std::vector<std::byte> buffer(bytes);
  std::vector<double> one_way;
  for (int k = 0; k <= repeats; ++k) {  // k = 0: untimed, to open the connection
    const auto start = std::chrono::steady_clock::now();
    if (me == a) {
      check_mpi(MPI_Send(buffer.data(), count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD), "MPI_Send (ping)");
      check_mpi(MPI_Recv(buffer.data(), count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv (pong)");
    } else {
      check_mpi(MPI_Recv(buffer.data(), count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv (ping)");
      check_mpi(MPI_Send(buffer.data(), count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD), "MPI_Send (pong)");
    }
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (k > 0 && me == a) one_way.push_back(ns / 2);
  }
  return one_way;
}

void mpi_idle_barrier() {
  MPI_Request request;
  check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test (barrier)");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::unique_ptr<Backend> make_mpi_backend(MpiBackendOptions options) { return std::make_unique<MpiBackend>(options); }

namespace {

std::optional<MPI_Datatype> mpi_type(DataType t) {
  switch (t) {
    case DataType::f32: return MPI_FLOAT;
    case DataType::f64: return MPI_DOUBLE;
    case DataType::i32: return MPI_INT32_T;
    case DataType::i64: return MPI_INT64_T;
    default: return std::nullopt;  // f16, bf16: MPI has no standard type for them
  }
}

std::optional<MPI_Op> mpi_op(ReduceOp o) {
  switch (o) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    default: return std::nullopt;  // avg: MPI has no averaging op
  }
}

const char* native_call(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "MPI_Allreduce";
    case Collective::broadcast: return "MPI_Bcast";
    case Collective::reduce: return "MPI_Reduce";
    case Collective::all_gather: return "MPI_Allgather";
    case Collective::gather: return "MPI_Gather";
    case Collective::scatter: return "MPI_Scatter";
    case Collective::reduce_scatter: return "MPI_Reduce_scatter_block";
    case Collective::all_to_all: return "MPI_Alltoall";
    case Collective::barrier: return "MPI_Barrier";
    default: return "";
  }
}

}  // namespace

NativeMpiTime time_native_collective(const Schedule& s, std::vector<RankBuffers>& bufs, int warmup, int iterations) {
  const CollectiveSpec& spec = s.spec;
  NativeMpiTime out{native_call(spec.collective), "", 0, 0};
  const auto type = mpi_type(spec.dtype);
  const auto op = mpi_op(spec.op);
  const bool reduces = collective_reduces(spec.collective);
  if (out.call.empty()) out.unsupported = "no MPI collective does this";
  else if (spec.in_place) out.unsupported = "in place is not compared";
  else if (!type) out.unsupported = fmt::format("MPI has no {} type", to_string(spec.dtype));
  else if (reduces && !op) out.unsupported = fmt::format("MPI has no {} op", to_string(spec.op));
  if (!out.unsupported.empty()) return out;
  const int me = mpi_place().rank;
  std::byte* in = buffer_view(s, bufs, me, BufferKind::input).data();
  std::byte* result = buffer_view(s, bufs, me, BufferKind::output).data();
  const int k = static_cast<int>(spec.count);  // the block K of the buffer conventions
  const int root = spec.root;
  const std::size_t block_bytes = spec.count * dtype_size(spec.dtype);
  const auto once = [&] {
    switch (spec.collective) {
      case Collective::all_reduce: return MPI_Allreduce(in, result, k, *type, *op, MPI_COMM_WORLD);
      case Collective::broadcast:
        if (me == root) std::memcpy(result, in, block_bytes);
        return MPI_Bcast(result, k, *type, root, MPI_COMM_WORLD);
      case Collective::reduce: return MPI_Reduce(in, result, k, *type, *op, root, MPI_COMM_WORLD);
      case Collective::all_gather: return MPI_Allgather(in, k, *type, result, k, *type, MPI_COMM_WORLD);
      case Collective::gather: return MPI_Gather(in, k, *type, result, k, *type, root, MPI_COMM_WORLD);
      case Collective::scatter: return MPI_Scatter(in, k, *type, result, k, *type, root, MPI_COMM_WORLD);
      case Collective::reduce_scatter: return MPI_Reduce_scatter_block(in, result, k, *type, *op, MPI_COMM_WORLD);
      case Collective::all_to_all: return MPI_Alltoall(in, k, *type, result, k, *type, MPI_COMM_WORLD);
      default: return MPI_Barrier(MPI_COMM_WORLD);
    }
  };
  double total = 0, best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < warmup + iterations; ++i) {
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const std::int64_t begin = now_ns();
    check_mpi(once(), out.call.c_str());
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double us = static_cast<double>(now_ns() - begin) / 1e3;
    if (i < warmup) continue;
    total += us;
    best = std::min(best, us);
  }
  if (me == 0 && iterations > 0) out.mean_us = total / iterations, out.best_us = best;
  return out;
}

}  // namespace collsim
