// The web page's frame tables: every state the view model's Frame takes on one clock,
// computed by the view model itself (ViewModel::frame_state, app/views/view_model.h: the
// state ViewModel::frame holds, without its byte sums), so that the player
// (app/web/player.js) looks a frame up by time instead of deriving it (docs/web.md, "Frames").
//
// A frame's state — steps done, the step shown (caption_step), the transfers in flight and
// those queued, the caption — changes only at event times: every transfer's begin and end on
// the clock, the steps' ends, the clock's start and finish (and, on the steps clock, every
// step boundary). With the m event times e_0 < ... < e_{m-1}, the states are numbered
//   2j      the open interval before e_j (after e_{j-1}; 0: before e_0),
//   2j + 1  the time e_j itself,
//   2m      after e_{m-1},
// each evaluated by ViewModel::frame_state at a time inside it (the interval's midpoint, the
// event time itself). Steps done, the step shown and the caption change seldom: they are kept as
// runs of states. The lists of transfers (in flight, queued) change at nearly every event:
// they are kept as changes from state to state, with the whole list stored now and then (a
// ListTrack), so that a large run's lists cost about two entries per transfer, not one per
// transfer per state.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/views/view_model.h"

namespace collsim::html {

// One list of transfer indices per state, in the order ViewModel::frame gives them.
// State s's list: take the last key state k <= s (keys[i] == k): its whole list,
// key_items[key_first[i] .. key_first[i + 1]); then for each state k + 1 .. s in turn,
// apply its count[] entries, read on from entries[key_entry[i]]: x + 1 appends transfer x,
// -(x + 1) removes it (the others keep their order). State 0 is always a key.
struct ListTrack {
  std::vector<std::uint32_t> count;    // per state: the entries that lead into it (0 at a key)
  std::vector<std::int64_t> entries;   // x + 1: append x; -(x + 1): remove x
  std::vector<std::uint32_t> keys;     // states whose whole list is stored, ascending
  std::vector<std::uint32_t> key_first;  // keys.size() + 1 offsets into key_items
  std::vector<std::uint32_t> key_items;
  std::vector<std::uint32_t> key_entry;  // per key: where the entries of the states after it start
  // State s's list, decoded as the player decodes it.
  std::vector<std::uint32_t> at(std::size_t s) const;
};

// The captions of one view's tables, each text once.
struct CaptionTexts {
  std::vector<std::string> texts;
  std::unordered_map<std::string, std::uint32_t> index;
  std::uint32_t add(const std::string& text);
};

struct FrameTable {
  gui::ClockKind clock = gui::ClockKind::steps;
  std::vector<double> times;          // the event times, ascending, distinct (exact: the page rounds them)
  // Runs of states with the same steps done, step shown and caption: each run's first state
  // (ascending from 0) and those three.
  std::vector<std::uint32_t> run_first;
  std::vector<std::int32_t> done;      // Frame::steps_done
  std::vector<std::int32_t> step;      // the step shown (caption_step)
  std::vector<std::uint32_t> caption;  // Frame::caption, an index into the CaptionTexts
  ListTrack flying;                    // per state: Frame::in_flight's transfers
  ListTrack queued;                    // per state: Frame::queued
  // Where the queued packets wait (ViewModel::queued_spots), per run of states with the same
  // spots: the run's first state (ascending from 0), and its spots from spot_first[r] to
  // spot_first[r + 1] (one more offset than runs). The player draws them where they are.
  std::vector<std::uint32_t> spot_run_first;
  std::vector<std::uint32_t> spot_first;
  std::vector<gui::PacketSpot> spots;

  std::size_t states() const { return 2 * times.size() + 1; }
  std::size_t state_at(double t) const;  // the state t falls in
  std::size_t run_of(std::size_t state) const;
};

// Clock c's table of vm (which has that clock); its captions are added to `texts`.
FrameTable frame_table(const gui::ViewModel& vm, gui::ClockKind c, CaptionTexts& texts);

}  // namespace collsim::html
