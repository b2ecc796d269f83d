// The vocabulary of collsim: which collective, on how many ranks, with which elements.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/dtype.h"

namespace collsim {

enum class Collective : std::uint8_t {
  all_reduce, broadcast, reduce, all_gather, gather, scatter,
  reduce_scatter, all_to_all, barrier, send_recv,
};

inline constexpr Collective kAllCollectives[] = {
    Collective::all_reduce, Collective::broadcast,      Collective::reduce,
    Collective::all_gather, Collective::gather,         Collective::scatter,
    Collective::reduce_scatter, Collective::all_to_all, Collective::barrier,
    Collective::send_recv};

std::string_view to_string(Collective c);
std::string_view to_string(DataType t);
std::string_view to_string(ReduceOp op);
std::optional<Collective> parse_collective(std::string_view s);
std::optional<DataType> parse_data_type(std::string_view s);
std::optional<ReduceOp> parse_reduce_op(std::string_view s);

// Whether the collective combines values with a ReduceOp (and so sweeps every op).
bool collective_reduces(Collective c);
bool collective_has_root(Collective c);

// Every rank owns up to three buffers. Extra ranks (parameter servers) own only scratch.
// Here, below the schedule, so that every layer names and lists them the same way: the
// names are those of schedule files and traces, and parse back with kAllBufferKinds.
enum class BufferKind : std::uint8_t { input, output, scratch };
inline constexpr BufferKind kAllBufferKinds[] = {BufferKind::input, BufferKind::output, BufferKind::scratch};
std::string_view to_string(BufferKind b);

// What the user asks for. `count` is K of docs/design.md's buffer table: elements per block.
struct CollectiveSpec {
  Collective collective = Collective::all_reduce;
  int ranks = 4;
  std::uint64_t count = 0;
  DataType dtype = DataType::f32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  // NCCL's in-place layouts: the input IS (part of) the output buffer. See storage_of in
  // schedule.h; only all_reduce, broadcast, reduce, all_gather and reduce_scatter have one.
  bool in_place = false;
};

// Whether the collective has an in-place form (--in-place).
bool collective_supports_in_place(Collective c);

// Buffer sizes in elements, following docs/design.md's buffer table. Only send_recv's layout depends
// on the algorithm (`direct`: input on the root, output on root+1, nothing elsewhere;
// `to_previous`: the same towards root-1;
// `ring_shift`: every rank both), so the algorithm is part of the question. Ranks beyond
// spec.ranks (e.g. extra parameter servers) hold no input or output.
std::uint64_t input_elements(const CollectiveSpec& spec, std::string_view algorithm, int rank);
std::uint64_t output_elements(const CollectiveSpec& spec, std::string_view algorithm, int rank);
// The rank a pair send delivers to: root+1 (`direct`) or root-1 (`to_previous`), mod N.
int send_recv_receiver(const CollectiveSpec& spec, std::string_view algorithm);

// nccl-tests conventions. `algorithm_bytes` is the S of algbw = S / t: the bytes of one
// rank's larger buffer (all_gather: the whole result; reduce_scatter: the whole input).
std::uint64_t algorithm_bytes(const CollectiveSpec& spec);
double busbw_factor(Collective c, int ranks);
std::string_view busbw_factor_formula(Collective c);

// N' = 2^floor(lg n), the largest power of two <= n (0 for n <= 0): the ranks that run the
// power-of-two core of recursive doubling and halving (their fold-in, their closed forms).
int largest_power_of_two(int n);

// Summary figures in nccl-tests' definitions: algbw = algorithm_bytes / time, busbw =
// algbw * busbw_factor, both in GB/s (1e9 bytes/s, i.e. bytes/ns). nullopt when the time
// is not positive (nothing was timed: a rate would be infinite or negative) and for a
// barrier (zero-byte signals: no bandwidth to speak of). The one place every caller (run
// summaries, predictions, bench rows, lesson phases) gets them from, so they cannot drift.
struct Bandwidth {
  std::optional<double> algbw_gbps, busbw_gbps;
};
Bandwidth bandwidth(const CollectiveSpec& spec, double time_ns);

// "1M" -> 1048576. Suffixes K, M, G (powers of 1024), optional trailing "i"/"iB"/"B".
// Returns nullopt for anything else (negative, empty, overflow, junk).
std::optional<std::uint64_t> parse_count(std::string_view text);
// A decimal number, the whole of `text` ("2.5", "1e3", "-4"; not " 2", "+2", "0x10", "2 GB").
// (std::from_chars for double is missing from emscripten's libc++, which builds the live page.)
std::optional<double> parse_number(std::string_view text);
// 1536 -> "1.5 KiB"; exact below 1 KiB.
std::string format_bytes(double bytes);
// "123.4 us", "1.234 ms", "2.000 s".
std::string format_duration_ns(double ns);

}  // namespace collsim
