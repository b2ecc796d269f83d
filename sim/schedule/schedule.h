// A Schedule is plain data: the ordered chunk transfers of one collective algorithm,
// grouped into teaching steps, plus the local operations before and after them.
// Nothing here executes; the checker proves a schedule right, the engine runs it.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/types.h"

namespace collsim {

// A contiguous run of elements in one rank's buffer.
struct Region {
  int rank = 0;
  BufferKind buffer = BufferKind::output;
  std::uint64_t offset = 0;  // elements
  std::uint64_t count = 0;   // elements
  std::uint64_t end() const { return offset + count; }
  friend bool operator==(const Region&, const Region&) = default;
};

// copy: dst = src. reduce: dst = op(dst, src). reduce_copy: dst = op(operand, src), where
// the operand is a region of the receiver (its input, say): NCCL's recvReduceCopy, which
// reads the local chunk and the received one and writes the sum straight to the output, so
// nothing has to be copied into the output first.
enum class Action : std::uint8_t { copy, reduce, reduce_copy };
std::string_view to_string(Action a);
// Whether the transfer combines values (reduce or reduce_copy) rather than overwriting them.
inline bool reduces(Action a) { return a != Action::copy; }

// The most channels a schedule may use: NCCL's MAXCHANNELS (32 in src/include/devcomm.h of
// the NCCL 2.x releases MSCCL is built on), which bounds MSCCL's nchannels too.
inline constexpr int kMaxChannels = 32;

// One chunk moving from one rank to another (or within one rank when src == dst).
// The receiver executes it (a pull): it reads the sender's region and writes its own.
struct Transfer {
  int step = 0;
  int src = 0;
  int dst = 0;
  int chunk = 0;  // which piece of the data this is, for colouring and the step table
  BufferKind src_buffer = BufferKind::input;
  BufferKind dst_buffer = BufferKind::output;
  Action action = Action::copy;
  // The channel it travels on (MSCCL's `chan`; 0 for every built-in algorithm): the
  // timing model gives each channel its own share of every link (timing_model.h).
  std::uint16_t channel = 0;
  // reduce_copy only: the receiver's region combined with the source (the first operand).
  BufferKind operand_buffer = BufferKind::input;
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint64_t count = 0;
  std::uint64_t operand_offset = 0;

  Region source() const { return {src, src_buffer, src_offset, count}; }
  Region destination() const { return {dst, dst_buffer, dst_offset, count}; }
  Region operand() const { return {dst, operand_buffer, operand_offset, count}; }
  bool has_operand() const { return action == Action::reduce_copy; }
  bool is_local() const { return src == dst; }
};

// Work one rank does on its own buffers before or after the transfers.
enum class LocalOpKind : std::uint8_t {
  copy,           // target = source (same rank), e.g. input -> output before a ring
  fill_identity,  // target = the op's identity (0 for sum), so every later write can reduce
  divide,         // target /= the schedule's averaging divisor (avg)
  signal,         // barrier: target (one token) = "rank r has arrived" (the i32 value r + 1)
};
std::string_view to_string(LocalOpKind k);

struct LocalOp {
  LocalOpKind kind = LocalOpKind::copy;
  Region target;
  Region source;  // copy only; same rank and count as target
};

struct Schedule {
  CollectiveSpec spec;
  std::string algorithm;
  int total_ranks = 0;                       // spec.ranks plus any extra server ranks
  std::vector<std::uint64_t> scratch_count;  // elements, per rank (size total_ranks)
  std::vector<LocalOp> pre_ops;
  std::vector<Transfer> transfers;        // ordered by step
  std::vector<std::string> step_labels;   // one per step; "local" when every transfer is local
  // The algorithm's stage of each step ("reduce-scatter", "all-gather"; "" for an algorithm
  // of one stage), so that lesson captions can name "the reduce-scatter's last step" at any
  // N (sim/lesson/captions.h). Either empty (no stages) or one per step.
  std::vector<std::string> step_stages;
  std::vector<LocalOp> post_ops;
  std::int64_t average_divisor = 1;       // what `divide` post-ops divide by
  // Channels the transfers are spread over (every transfer's channel is below it): NCCL's
  // and MSCCL's parallel lanes, each with 1/channels of every link's bandwidth.
  int channels = 1;
  // Built under KeepSendersBelow (schedule_builder.h): only ranks 0..senders_kept-1's
  // transfers are here, one period of a symmetric schedule (sim/model/symmetric_model.h), the
  // rest of it by symmetry; a step's transfers and bytes are total_ranks / senders_kept times
  // these. 0: every rank's transfers.
  int senders_kept = 0;

  int step_count() const { return static_cast<int>(step_labels.size()); }
  // The index of step k's first transfer (0 <= k <= step_count(); k = step_count() gives
  // transfers.size()): step k's transfers are [step_first(k), step_first(k + 1)), as the
  // transfers are ordered by step. Every view takes a step's transfers from here.
  std::size_t step_first(int k) const;
  // step_first(k) for k = 0..step_count(), for views that hand the whole table on (the page).
  std::vector<std::size_t> step_firsts() const;
  // The stage of step `step` (0-based); "" when the schedule has no stages.
  std::string_view stage_of(int step) const {
    return step >= 0 && static_cast<std::size_t>(step) < step_stages.size() ? std::string_view(step_stages[static_cast<std::size_t>(step)])
                                                                                : std::string_view();
  }
  // The size of the buffer as the schedule names it (docs/design.md's buffer table, or scratch).
  std::uint64_t buffer_elements(int rank, BufferKind b) const;
  // Payload bytes. A barrier's tokens are zero-byte signals: the engine moves one i32
  // element to make them real, but they count as 0 bytes (busbw, the timing model).
  std::uint64_t bytes(const Transfer& t) const {
    return spec.collective == Collective::barrier ? 0 : t.count * dtype_size(spec.dtype);
  }
};

// In-place collectives (spec.in_place, NCCL's layouts) keep one buffer where docs/design.md's
// table has two: all_reduce, broadcast, reduce: the input IS the output; all_gather: the
// input is block r of the output; reduce_scatter: the output is block r of the input.
// Schedules keep naming BufferKind::input and ::output; these functions are the one
// place that says where a region really lives. The checker, the dependency derivation,
// the backends, allocation, the reference and --dump all go through them.
struct Alias {
  BufferKind inner;      // the buffer that has no storage of its own
  BufferKind outer;      // the buffer that holds it
  std::uint64_t offset;  // inner[i] is outer[offset + i]
};
// None when out of place, or when the rank holds only one of the two buffers (reduce's
// non-roots, broadcast's non-roots).
std::optional<Alias> in_place_alias(const Schedule& s, int rank);
// The region of real storage that `r` names: `r` itself, or the same elements of the
// outer buffer of an alias.
Region storage_of(const Schedule& s, const Region& r);
// Elements of real storage behind (rank, b): 0 for the inner buffer of an alias.
std::uint64_t storage_elements(const Schedule& s, int rank, BufferKind b);
// Inputs are read-only, except where an in-place output lives inside one.
bool may_write(const Schedule& s, const Region& r);

// Whether every output starts empty: out of place, and no pre-operation writes an output
// (the ring's reduce-copies fill the outputs as they go; a pre-copy would fill them first).
bool outputs_start_empty(const Schedule& s);

// Communication steps: steps whose transfers are not all local.
int communication_steps(const Schedule& s);
// Bytes each rank sends to other ranks (local transfers are not sends).
std::vector<std::uint64_t> bytes_sent_per_rank(const Schedule& s);
// The schedule's header without its transfers, steps or operations: spec, algorithm, total
// ranks, channels, scratch and the average's divisor (what a part of it, or a batch of a
// streamed one, keeps of the whole).
Schedule schedule_header(const Schedule& s);
std::vector<std::uint64_t> bytes_received_per_rank(const Schedule& s);

// What the reports say of a schedule's size: counted once, from the whole schedule
// (schedule_totals) or step by step as a streamed model generates it (add_step), where the
// transfers are never all held at once.
struct ScheduleTotals {
  std::uint64_t transfers = 0;
  int steps = 0;
  int communication_steps = 0;                  // steps whose transfers are not all local
  std::vector<std::uint64_t> bytes_sent;         // per rank (total_ranks), to other ranks
  std::vector<std::uint64_t> bytes_received;     // per rank
  std::vector<std::uint64_t> step_transfers, step_bytes;  // per step: its transfers, their bytes (local ones too)
  // Counts one finished step (transfers of one step number, as ScheduleBuilder hands them on).
  void add_step(const Schedule& header, std::span<const Transfer> step);
};
ScheduleTotals schedule_totals(const Schedule& s);

}  // namespace collsim
