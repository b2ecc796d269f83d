#include "sim/core/types.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <utility>

namespace collsim {
namespace {

template <class E, std::size_t N>
std::optional<E> parse_from(std::string_view s, const std::array<std::pair<E, std::string_view>, N>& table) {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  return std::nullopt;
}

template <class E, std::size_t N>
std::string_view name_of(E e, const std::array<std::pair<E, std::string_view>, N>& table) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

constexpr std::array<std::pair<Collective, std::string_view>, 10> kCollectiveNames{{
    {Collective::all_reduce, "all_reduce"},
    {Collective::broadcast, "broadcast"},
    {Collective::reduce, "reduce"},
    {Collective::all_gather, "all_gather"},
    {Collective::gather, "gather"},
    {Collective::scatter, "scatter"},
    {Collective::reduce_scatter, "reduce_scatter"},
    {Collective::all_to_all, "all_to_all"},
    {Collective::barrier, "barrier"},
    {Collective::send_recv, "send_recv"},
}};

constexpr std::array<std::pair<DataType, std::string_view>, 6> kDataTypeNames{{
    {DataType::f32, "f32"},
    {DataType::f64, "f64"},
    {DataType::f16, "f16"},
    {DataType::bf16, "bf16"},
    {DataType::i32, "i32"},
    {DataType::i64, "i64"},
}};

constexpr std::array<std::pair<ReduceOp, std::string_view>, 5> kReduceOpNames{{
    {ReduceOp::sum, "sum"},
    {ReduceOp::prod, "prod"},
    {ReduceOp::min, "min"},
    {ReduceOp::max, "max"},
    {ReduceOp::avg, "avg"},
}};

}  // namespace

std::string_view to_string(Collective c) { return name_of(c, kCollectiveNames); }
std::string_view to_string(DataType t) { return name_of(t, kDataTypeNames); }
std::string_view to_string(ReduceOp op) { return name_of(op, kReduceOpNames); }
std::optional<Collective> parse_collective(std::string_view s) { return parse_from(s, kCollectiveNames); }
std::optional<DataType> parse_data_type(std::string_view s) { return parse_from(s, kDataTypeNames); }
std::optional<ReduceOp> parse_reduce_op(std::string_view s) { return parse_from(s, kReduceOpNames); }

bool collective_reduces(Collective c) {
  return c == Collective::all_reduce || c == Collective::reduce || c == Collective::reduce_scatter;
}

bool collective_has_root(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter || c == Collective::send_recv;
}

bool collective_supports_in_place(Collective c) {
  return c == Collective::all_reduce || c == Collective::broadcast || c == Collective::reduce ||
         c == Collective::all_gather || c == Collective::reduce_scatter;
}

namespace {
// send_recv `direct` is a single message root -> root+1, `to_previous` root -> root-1;
// every other layout is per rank.
bool is_pair_send(const CollectiveSpec& s, std::string_view algorithm) {
  return s.collective == Collective::send_recv && (algorithm == "direct" || algorithm == "to_previous");
}
}  // namespace

int send_recv_receiver(const CollectiveSpec& s, std::string_view algorithm) {
  if (s.ranks < 1) return 0;
  return algorithm == "to_previous" ? (s.root + s.ranks - 1) % s.ranks : (s.root + 1) % s.ranks;
}

std::uint64_t input_elements(const CollectiveSpec& s, std::string_view algorithm, int rank) {
  if (rank < 0 || rank >= s.ranks) return 0;
  if (is_pair_send(s, algorithm)) return rank == s.root ? s.count : 0;
  const std::uint64_t k = s.count, n = static_cast<std::uint64_t>(s.ranks);
  switch (s.collective) {
    case Collective::all_reduce:
    case Collective::reduce:
    case Collective::all_gather:
    case Collective::gather:
      return k;
    case Collective::broadcast:
      return rank == s.root ? k : 0;
    case Collective::scatter:
      return rank == s.root ? k * n : 0;
    case Collective::reduce_scatter:
    case Collective::all_to_all:
      return k * n;
    case Collective::barrier:
      return 0;
    case Collective::send_recv:
      return k;  // ring_shift
  }
  return 0;
}

std::uint64_t output_elements(const CollectiveSpec& s, std::string_view algorithm, int rank) {
  if (rank < 0 || rank >= s.ranks) return 0;
  if (is_pair_send(s, algorithm)) return rank == send_recv_receiver(s, algorithm) ? s.count : 0;
  const std::uint64_t k = s.count, n = static_cast<std::uint64_t>(s.ranks);
  switch (s.collective) {
    case Collective::all_reduce:
    case Collective::broadcast:
    case Collective::scatter:
    case Collective::reduce_scatter:
    case Collective::send_recv:
      return k;
    case Collective::reduce:
      return rank == s.root ? k : 0;
    case Collective::all_gather:
    case Collective::all_to_all:
      return k * n;
    case Collective::gather:
      return rank == s.root ? k * n : 0;
    case Collective::barrier:
      return 0;
  }
  return 0;
}

std::uint64_t algorithm_bytes(const CollectiveSpec& s) {
  const std::uint64_t elem = dtype_size(s.dtype), k = s.count, n = static_cast<std::uint64_t>(s.ranks);
  switch (s.collective) {
    case Collective::all_gather:
    case Collective::gather:
    case Collective::scatter:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
      return k * n * elem;
    case Collective::barrier:
      return 0;
    default:
      return k * elem;
  }
}

std::string_view to_string(BufferKind b) {
  switch (b) {
    case BufferKind::input: return "input";
    case BufferKind::output: return "output";
    case BufferKind::scratch: return "scratch";
  }
  return "?";
}

int largest_power_of_two(int n) { return n <= 0 ? 0 : static_cast<int>(std::bit_floor(static_cast<unsigned>(n))); }

double busbw_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case Collective::all_reduce:
      return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
    case Collective::gather:
    case Collective::scatter:
      return (n - 1) / n;
    default:
      return 1.0;
  }
}

std::string_view busbw_factor_formula(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "2(N-1)/N";
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
    case Collective::gather:
    case Collective::scatter:
      return "(N-1)/N";
    default:
      return "1";
  }
}

Bandwidth bandwidth(const CollectiveSpec& spec, double time_ns) {
  if (!(time_ns > 0) || spec.collective == Collective::barrier) return {};
  const double algbw = static_cast<double>(algorithm_bytes(spec)) / time_ns;  // bytes/ns = GB/s
  return {algbw, algbw * busbw_factor(spec.collective, spec.ranks)};
}

std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) || text.front() == '+' ||
      text.find_first_of("xX") != std::string_view::npos)
    return std::nullopt;
  const std::string copy(text);  // strtod needs the terminating zero
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  std::string_view suffix = text.substr(i);
  int shift = 0;
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix.front()))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: return std::nullopt;
    }
    suffix.remove_prefix(1);
    if (suffix == "i" || suffix == "iB" || suffix == "B") suffix = {};
    if (!suffix.empty()) return std::nullopt;
  }
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024.0) return fmt::format("{:.0f} B", bytes);
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", bytes, bytes == static_cast<double>(static_cast<long long>(bytes)) ? 0 : 2,
                     kUnits[unit]);
}

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.3f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

}  // namespace collsim
