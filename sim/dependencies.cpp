#include "sim/dependencies.h"

#include <algorithm>

#include "sim/interval_map.h"

namespace collsim {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// What has touched a piece of a buffer since its last write.
struct Access {
  std::uint32_t last_writer = kNone;
  std::vector<std::uint32_t> readers;
};

class AccessTracker {
 public:
  explicit AccessTracker(const Schedule& s) : maps_(static_cast<std::size_t>(s.total_ranks) * 3) {
    for (int r = 0; r < s.total_ranks; ++r)
      for (BufferKind b : {BufferKind::input, BufferKind::output, BufferKind::scratch})
        map(r, b) = IntervalMap<Access>(s.buffer_elements(r, b));
  }

  IntervalMap<Access>& map(int rank, BufferKind b) {
    return maps_[static_cast<std::size_t>(rank) * 3 + static_cast<std::size_t>(b)];
  }

 private:
  std::vector<IntervalMap<Access>> maps_;
};

}  // namespace

DependencyGraph derive_dependencies(const Schedule& s, const HazardObserver& observe) {
  AccessTracker tracker(s);
  DependencyGraph g;
  g.offsets.reserve(s.transfers.size() + 1);
  g.deps.reserve(s.transfers.size() * 2);
  std::vector<std::uint32_t> found;
  auto note = [&](std::uint32_t earlier, std::uint32_t later, Hazard h) {
    if (earlier == kNone) return;
    found.push_back(earlier);
    if (observe) observe(earlier, later, h);
  };

  for (std::uint32_t t = 0; t < s.transfers.size(); ++t) {
    const Transfer& x = s.transfers[t];
    found.clear();
    const Region src = x.source(), dst = x.destination();
    tracker.map(src.rank, src.buffer).visit(src.offset, src.end(), [&](auto, auto, Access& a) {
      note(a.last_writer, t, Hazard::read_after_write);
      a.readers.push_back(t);
    });
    tracker.map(dst.rank, dst.buffer).visit(dst.offset, dst.end(), [&](auto, auto, Access& a) {
      note(a.last_writer, t, Hazard::write_after_write);
      for (std::uint32_t r : a.readers) note(r, t, Hazard::write_after_read);
      a.last_writer = t;
      a.readers.clear();
    });
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    g.deps.insert(g.deps.end(), found.begin(), found.end());
    g.offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  return g;
}

DependencyGraph reverse(const DependencyGraph& g) {
  DependencyGraph r;
  const std::size_t n = g.size();
  std::vector<std::uint32_t> counts(n + 1, 0);
  for (std::uint32_t d : g.deps) ++counts[d + 1];
  for (std::size_t i = 0; i < n; ++i) counts[i + 1] += counts[i];
  r.offsets = counts;
  r.deps.resize(g.deps.size());
  for (std::size_t t = 0; t < n; ++t)
    for (std::uint32_t d : g.dependencies_of(t)) r.deps[counts[d]++] = static_cast<std::uint32_t>(t);
  return r;
}

}  // namespace collsim
