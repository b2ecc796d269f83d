#include "app/web/frames.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "app/views/lesson.h"

namespace collsim::html {
namespace {

// A list's changes below this many entries since the last key are replayed; beyond (or
// beyond the list's own length, or this many states), the whole list is stored again:
// the stored lists then cost at most about as much as the changes, and a lookup replays a
// bounded number of them.
constexpr std::size_t kMinReplay = 256;
constexpr std::size_t kMaxReplayStates = 4096;

class TrackBuilder {
 public:
  explicit TrackBuilder(ListTrack& out) : out_(out) { out_.key_first.assign(1, 0); }

  void push(const std::vector<std::uint32_t>& now) {
    const auto g = static_cast<std::uint32_t>(out_.count.size());
    bool key = g == 0;
    delta_.clear();
    if (!key && now != last_) {
      // What the player does with the changes: drop, keep the others' order, append.
      const std::unordered_set<std::uint32_t> in_now(now.begin(), now.end()), in_last(last_.begin(), last_.end());
      applied_.clear();
      for (std::uint32_t x : last_) {
        if (in_now.count(x)) applied_.push_back(x);
        else delta_.push_back(-static_cast<std::int64_t>(x) - 1);
      }
      for (std::uint32_t x : now)
        if (!in_last.count(x)) applied_.push_back(x), delta_.push_back(static_cast<std::int64_t>(x) + 1);
      key = applied_ != now;  // the order changed otherwise: store the list
    }
    key = key || since_entries_ + delta_.size() > std::max(now.size(), kMinReplay) || since_states_ >= kMaxReplayStates;
    if (key) {
      out_.count.push_back(0);
      out_.keys.push_back(g);
      out_.key_items.insert(out_.key_items.end(), now.begin(), now.end());
      out_.key_first.push_back(static_cast<std::uint32_t>(out_.key_items.size()));
      out_.key_entry.push_back(static_cast<std::uint32_t>(out_.entries.size()));
      since_entries_ = since_states_ = 0;
    } else {
      out_.count.push_back(static_cast<std::uint32_t>(delta_.size()));
      out_.entries.insert(out_.entries.end(), delta_.begin(), delta_.end());
      since_entries_ += delta_.size();
      ++since_states_;
    }
    last_ = now;
  }

 private:
  ListTrack& out_;
  std::vector<std::uint32_t> last_, applied_;
  std::vector<std::int64_t> delta_;
  std::size_t since_entries_ = 0, since_states_ = 0;
};


}  // namespace

std::vector<std::uint32_t> ListTrack::at(std::size_t g) const {
  const auto k = static_cast<std::size_t>(std::upper_bound(keys.begin(), keys.end(), static_cast<std::uint32_t>(g)) - keys.begin()) - 1;
  std::vector<std::uint32_t> items(key_items.begin() + key_first[k], key_items.begin() + key_first[k + 1]);
  std::unordered_map<std::uint32_t, std::size_t> where;  // each transfer's place in items; removed ones are not there
  for (std::size_t i = 0; i < items.size(); ++i) where[items[i]] = i;
  std::size_t e = key_entry[k];
  for (std::size_t s = keys[k] + 1; s <= g; ++s)
    for (std::uint32_t n = count[s]; n > 0; --n, ++e) {
      const std::int64_t v = entries[e];
      if (v > 0) {
        where[static_cast<std::uint32_t>(v - 1)] = items.size();
        items.push_back(static_cast<std::uint32_t>(v - 1));
      } else {
        where.erase(static_cast<std::uint32_t>(-v - 1));
      }
    }
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (const auto it = where.find(items[i]); it != where.end() && it->second == i) out.push_back(items[i]);
  return out;
}

std::uint32_t CaptionTexts::add(const std::string& text) {
  const auto [it, added] = index.try_emplace(text, static_cast<std::uint32_t>(texts.size()));
  if (added) texts.push_back(text);
  return it->second;
}

std::size_t FrameTable::state_at(double t) const {
  const auto j = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
  return j > 0 && times[j - 1] == t ? 2 * j - 1 : 2 * j;
}

std::size_t FrameTable::run_of(std::size_t state) const {
  return static_cast<std::size_t>(std::upper_bound(run_first.begin(), run_first.end(), static_cast<std::uint32_t>(state)) -
                                  run_first.begin()) - 1;
}

FrameTable frame_table(const gui::ViewModel& vm, gui::ClockKind kind, CaptionTexts& texts) {
  const gui::ClockIndex& c = vm.clock(kind);
  FrameTable table;
  table.clock = kind;
  std::vector<double>& e = table.times;
  e.reserve(c.begin.size() + c.end.size() + c.step_done.size() + 2);
  const auto add = [&](double v) {
    if (std::isfinite(v)) e.push_back(v);
  };
  for (const auto* v : {&c.begin, &c.end, &c.step_done})
    for (double x : *v) add(x);
  add(c.start), add(c.finish);
  if (kind == gui::ClockKind::steps)
    for (int k = 0; k <= vm.step_count(); ++k) add(k);
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());

  TrackBuilder flying(table.flying), queued(table.queued);
  const std::size_t m = e.size(), states = 2 * m + 1;
  std::vector<std::uint32_t> in_flight;
  // The state alone (ViewModel::frame_state, swept: no byte sums), in a Frame so that caption_step
  // reads it as it reads the app's; its storage is reused from state to state.
  gui::Frame f;
  gui::FrameSweep sweep(vm, kind);  // the states' times ascend
  std::string last_caption;
  std::uint32_t caption = 0;
  std::vector<gui::PacketSpot> spots, last_spots;
  const auto same_spots = [](const std::vector<gui::PacketSpot>& a, const std::vector<gui::PacketSpot>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const gui::PacketSpot& x, const gui::PacketSpot& y) {
      return x.transfer == y.transfer && x.at == y.at;
    });
  };
  for (std::size_t s = 0; s < states; ++s) {
    const std::size_t j = s / 2;
    const double t = s % 2 == 1 ? e[j]
                     : m == 0   ? c.start
                     : j == 0   ? e[0] - 1
                     : j == m   ? e[m - 1] + 1
                                : e[j - 1] + (e[j] - e[j - 1]) / 2;
    sweep.state(t, f);
    const int step = gui::caption_step(f, vm.step_count());
    if (s == 0 || f.caption != last_caption) caption = texts.add(f.caption), last_caption = f.caption;
    if (s == 0 || f.steps_done != table.done.back() || step != table.step.back() || caption != table.caption.back()) {
      table.run_first.push_back(static_cast<std::uint32_t>(s));
      table.done.push_back(f.steps_done);
      table.step.push_back(step);
      table.caption.push_back(caption);
    }
    in_flight.clear();
    for (const gui::InFlight& p : f.in_flight) in_flight.push_back(p.transfer);
    flying.push(in_flight);
    queued.push(f.queued);
    spots.clear();
    vm.queued_spots(f, spots);
    if (s == 0 || !same_spots(spots, last_spots)) {
      table.spot_run_first.push_back(static_cast<std::uint32_t>(s));
      table.spot_first.push_back(static_cast<std::uint32_t>(table.spots.size()));
      table.spots.insert(table.spots.end(), spots.begin(), spots.end());
      std::swap(spots, last_spots);
    }
  }
  table.spot_first.push_back(static_cast<std::uint32_t>(table.spots.size()));
  return table;
}

}  // namespace collsim::html
