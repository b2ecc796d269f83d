#include "sim/exec/value_history.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "kernels/reduce_functors.h"
#include "sim/exec/backend.h"
#include "sim/exec/reference.h"

namespace collsim {
namespace {

std::size_t slot(int rank, BufferKind b) { return static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b); }

// `count` elements of real storage region `r` as doubles.
std::vector<double> read_values(const Schedule& s, const std::vector<RankBuffers>& bufs, const Region& r) {
  return dispatch_dtype(s.spec.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<std::byte>& bytes = bufs[static_cast<std::size_t>(r.rank)].get(r.buffer);
    std::vector<double> out(r.count);
    for (std::uint64_t i = 0; i < r.count; ++i) {
      T x;
      std::memcpy(&x, bytes.data() + (r.offset + i) * sizeof(T), sizeof(T));
      if constexpr (is_half_v<T>)
        out[i] = static_cast<double>(to_float(x));
      else
        out[i] = static_cast<double>(x);
    }
    return out;
  });
}

std::vector<std::vector<double>> snapshot_all(const Schedule& s, const std::vector<RankBuffers>& bufs) {
  std::vector<std::vector<double>> all(static_cast<std::size_t>(s.total_ranks) * 3);
  for (int r = 0; r < s.total_ranks; ++r)
    for (BufferKind b : kAllBufferKinds) {
      const std::uint64_t n = bufs[static_cast<std::size_t>(r)].get(b).size() / dtype_size(s.spec.dtype);
      all[slot(r, b)] = read_values(s, bufs, {r, b, 0, n});
    }
  return all;
}

}  // namespace

ValueHistory ValueHistory::record(const Schedule& s, std::uint64_t seed, std::span<const double> given) {
  ValueHistory h;
  h.total_ranks_ = s.total_ranks;
  std::vector<RankBuffers> bufs = allocate_buffers(s);
  fill_inputs(s, seed, bufs, given);
  for (const LocalOp& op : s.pre_ops) run_local_op_on_host(s, op, bufs);
  h.initial_ = snapshot_all(s, bufs);
  h.destination_.reserve(s.transfers.size());
  h.written_.reserve(s.transfers.size());
  for (const Transfer& t : s.transfers) {
    run_transfer_on_host(s, t, bufs);
    h.destination_.push_back(storage_of(s, t.destination()));
    h.written_.push_back(read_values(s, bufs, h.destination_.back()));
  }
  for (const LocalOp& op : s.post_ops) run_local_op_on_host(s, op, bufs);
  h.final_ = snapshot_all(s, bufs);
  return h;
}

const std::vector<double>* ValueHistory::snapshot(const std::vector<std::vector<double>>& all, int rank,
                                                  BufferKind b) const {
  if (rank < 0 || rank >= total_ranks_) return nullptr;
  return &all[slot(rank, b)];
}

std::optional<double> ValueHistory::written_by(std::size_t transfer, std::uint64_t element) const {
  if (transfer >= written_.size()) return std::nullopt;
  const Region& d = destination_[transfer];
  if (element < d.offset || element >= d.end()) return std::nullopt;
  return written_[transfer][element - d.offset];
}

std::optional<double> ValueHistory::value(int rank, BufferKind buffer, std::uint64_t element, std::size_t done,
                                          bool with_final) const {
  const std::vector<double>* initial = snapshot(initial_, rank, buffer);
  if (!initial || element >= initial->size()) return std::nullopt;
  if (with_final && done >= written_.size()) return (*snapshot(final_, rank, buffer))[element];
  for (std::size_t t = std::min(done, written_.size()); t-- > 0;) {
    const Region& d = destination_[t];
    if (d.rank == rank && d.buffer == buffer && element >= d.offset && element < d.end())
      return written_[t][element - d.offset];
  }
  return (*initial)[element];
}

std::string ValueHistory::differs_from_run(const Schedule& s, const std::vector<RankBuffers>& buffers) const {
  for (int r = 0; r < s.spec.ranks && r < total_ranks_; ++r) {
    const Region all{r, BufferKind::output, 0, s.buffer_elements(r, BufferKind::output)};
    const Region output = storage_of(s, all);
    const std::vector<double> held = read_values(s, buffers, output);
    const std::vector<double>& replayed = *snapshot(final_, output.rank, output.buffer);
    for (std::uint64_t e = 0; e < held.size(); ++e) {
      const double want = replayed.at(output.offset + e), got = held[e];
      if (want == got || (std::isnan(want) && std::isnan(got))) continue;
      return fmt::format("rank {} output element {}: the run holds {}, the value history {}", r, e, got, want);
    }
  }
  return "";
}

bool records_values(const Schedule& s) {
  if (s.spec.collective == Collective::barrier) return false;
  for (int r = 0; r < s.total_ranks; ++r)
    for (const BufferKind b : kAllBufferKinds)
      if (storage_elements(s, r, b) > kMaxValueElements) return false;
  return true;
}

std::shared_ptr<const ValueHistory> values_or_record(std::shared_ptr<const ValueHistory> recorded, const Schedule& s,
                                                     std::uint64_t seed, std::span<const double> given) {
  if (recorded || !records_values(s)) return recorded;
  return std::make_shared<const ValueHistory>(ValueHistory::record(s, seed, given));
}

}  // namespace collsim
