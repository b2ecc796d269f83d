// The numbers themselves: what every element holds after each transfer, in the run's type,
// rounded (f16, bf16) or wrapped (i32, i64) exactly as the backends compute it. The buffer
// history (check/buffer_history.h) says whose contributions a cell holds; this says which
// number that is, so that a view can show that the order of the additions changes the last
// bits, and a lesson can ask for an element's value after a step.
//
// Recorded by replaying the schedule on the host, one transfer after the other in schedule
// order, with the CPU backend's own loops (run_transfer_on_host): the dependencies the
// backends obey are derived from the regions and order every read and write of one place
// as the list does (accumulations into one region in the order listed), so this order gives
// the result of every backend bit for bit.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "sim/schedule/schedule.h"

namespace collsim {

struct RankBuffers;

// The values view shows the numbers of buffers of at most this many elements.
inline constexpr std::uint64_t kMaxValueElements = 16;

class ValueHistory {
 public:
  // Replays `s` on inputs made by fill_inputs(seed, given). Allocates the run's buffers
  // once, plus one value per element each transfer writes: meant for the small counts a
  // view shows or a question asks about.
  static ValueHistory record(const Schedule& s, std::uint64_t seed, std::span<const double> given = {});

  // The value of element `element` of (rank, buffer) in real storage (storage_of) once the
  // pre-operations and transfers [0, done) have run, and the post-operations when
  // `with_final`. nullopt outside the buffer.
  std::optional<double> value(int rank, BufferKind buffer, std::uint64_t element, std::size_t done,
                              bool with_final) const;
  // The value transfer `transfer` left at `element` of its destination (real storage),
  // nullopt when that element is not in its destination.
  std::optional<double> written_by(std::size_t transfer, std::uint64_t element) const;
  std::size_t transfer_count() const { return written_.size(); }
  // "" when every output element of ranks 0..spec.ranks-1 after the post-operations equals
  // the run's own `buffers` bit for bit (NaN matching NaN), else where the first differs:
  // the numbers a view shows are the run's.
  std::string differs_from_run(const Schedule& s, const std::vector<RankBuffers>& buffers) const;

 private:
  // Per rank * 3 + buffer (real storage): the values after the pre-operations, and after
  // the post-operations.
  std::vector<std::vector<double>> initial_, final_;
  std::vector<Region> destination_;         // per transfer, in real storage
  std::vector<std::vector<double>> written_;  // per transfer: its destination's values after it
  int total_ranks_ = 0;
  const std::vector<double>* snapshot(const std::vector<std::vector<double>>& all, int rank, BufferKind b) const;
};

// Whether a run's values are recorded for the views: every buffer of every rank holds at
// most kMaxValueElements elements (the values view's limit), and it is not a barrier (no data).
bool records_values(const Schedule& s);
// `recorded` when there is one, else recorded now when records_values(s); null otherwise.
// (A pipeline run records them while it is checked: run_pipeline with record_history.)
std::shared_ptr<const ValueHistory> values_or_record(std::shared_ptr<const ValueHistory> recorded, const Schedule& s,
                                                     std::uint64_t seed, std::span<const double> given = {});

}  // namespace collsim
