// The GUI's view of one trace, in plain C++ (no ImGui, no OpenGL): built once, in the
// background, from a Trace; immutable afterwards. Panels ask it for a Frame — everything
// they draw at the playhead — and for the contribution state of the cells they show.
//
// Time runs on one of three clocks:
//   steps      one unit per step: step k (0-based) runs over [k, k+1); the teaching view.
//              Inside a step the transfers keep the timing model's order and proportions
//              (when the trace has predictions): those the model serialises on one link
//              run one after the other, the later ones queued at their sender until then;
//   measured   the backend's timestamps (ns);
//   predicted  the timing model's (ns), when the trace has them.
// On every clock, "done by t" means end <= t and "in flight" means begin < t < end.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/views/layout.h"
#include "sim/check/buffer_history.h"
#include "sim/exec/value_history.h"
#include "sim/trace/trace.h"

namespace collsim::gui {

// The buffer history is sim's (sim/check/buffer_history.h); the app's code names its parts
// as its own, as it did when the history lived here.
using collsim::BufferHistory;
using collsim::BufferRow;
using collsim::CellChange;
using collsim::RankSet;
using collsim::ranks_of;
using Cell = collsim::BufferCell;

enum class ClockKind : std::uint8_t { steps, measured, predicted };
inline constexpr ClockKind kAllClocks[] = {ClockKind::steps, ClockKind::measured, ClockKind::predicted};
std::string_view to_string(ClockKind c);
// The clock a scenario's or a phase's `clock` names; nullopt for none (empty) or another word.
std::optional<ClockKind> clock_named(std::string_view name);

// Transfers sorted by end time with the bytes done so far: "how much by t" is one binary search.
struct Tally {
  std::vector<double> end;    // sorted
  std::vector<double> bytes;  // bytes[i]: total of the first i + 1 entries
  void add(double at, double b) { end.push_back(at), bytes.push_back(b); }
  void finish();              // sorts by end and accumulates
  double done_by(double t) const;
};

// One clock's view of the transfers.
struct ClockIndex {
  ClockKind kind = ClockKind::steps;
  std::vector<double> begin, end;          // per transfer
  double start = 0, finish = 0;            // the range the playhead moves over
  double max_duration = 0;
  std::vector<std::uint32_t> by_begin;     // transfer indices sorted by begin
  std::vector<double> step_done;           // per step k: when steps 0..k have all ended
  std::vector<double> change_keys;         // BufferHistory::change_keys on this clock
  std::vector<Tally> sent, received;       // per rank (sends to other ranks only)
  std::vector<Tally> links;                // per layout link
  Tally total;                             // bytes on the wire
  std::vector<std::vector<std::uint32_t>> send_lane, recv_lane;  // per rank, sorted by begin
  // Transfers that travel together: the same sender and receiver, the same begin and end on
  // this clock (Bruck's slots of one message, the blocks a step sends one neighbour). The
  // scene and the page draw one packet for them, named by all their chunks. Per transfer:
  // the first transfer of its group (itself when alone); per group of two or more, by its
  // first: the label (packet_label).
  std::vector<std::uint32_t> together;
  std::unordered_map<std::uint32_t, std::string> group_labels;
};

// What a packet says: its chunk ("+3": a reduce adds chunk 3, "3": a copy), or, for transfers
// that travel together, all their chunks ("1,3,5,7"; more than four: "1,3,5…(9)").
std::string packet_label(const Schedule& s, std::span<const std::uint32_t> transfers);

struct InFlight {
  std::uint32_t transfer = 0;
  float progress = 0;  // 0..1 of the way
};

// What a frame shows of the run's progress at one playhead position, without the bytes:
// steps done, the transfers in flight and queued, the caption (ViewModel::frame_state; the
// web page's frame tables keep these, app/web/frames.h).
struct FrameState {
  ClockKind clock = ClockKind::steps;
  double t = 0;
  int steps_done = 0;       // steps whose every transfer has ended by t
  std::vector<InFlight> in_flight;
  // Steps clock: transfers of the step in progress that have not begun (waiting for a
  // link the model serialises them on, or for what they depend on), in begin order.
  std::vector<std::uint32_t> queued;
  std::string caption;
};

// Everything the panels draw at one playhead position: the state and the bytes so far.
struct Frame : FrameState {
  std::vector<std::uint32_t> highlighted;  // transfers whose destination cells light up
  std::vector<double> sent, received;      // per rank, bytes so far (in-flight ones pro rata)
  std::vector<double> link_bytes;          // per layout link
  double total_bytes = 0;
};

// Where the scene draws a packet: in flight along its lane, or queued beside its sender
// (in rows behind it, in the order they will leave).
// In unit layout coordinates; Layout::packet_radius is its size.
struct PacketSpot {
  std::uint32_t transfer = 0;
  Vec2 at;
  float progress = 0;  // in flight: 0..1 of its way
  bool queued = false;
};

// The captions the views share (the app's caption line, the storyboard's frames, the page).
std::string step_title(const Schedule& s, int k);  // "step 3/6: reduce-scatter 3/3: ..." (k 0-based)
std::string no_steps_caption();                  // "This schedule has no steps: nothing moves."
std::string start_caption(const Schedule& s);    // "Start: every rank holds only its own data. Next, step 1/6: ..."

class ViewModel {
 public:
  // Shows the buffer history the trace came with (Trace::history: recorded by its run's or
  // its import's one check), else records it, running the schedule checker (ScheduleError
  // if the schedule is broken). The scene is arranged in the algorithm's shape, or by the
  // trace's topology when its configuration says arrange = topology (TopologyConfig::arrange).
  explicit ViewModel(Trace trace);
  // The same with the cells' history given: a lesson phase's window of its collective's
  // (BufferHistory::window), whose schedule alone the checker cannot replay.
  ViewModel(Trace trace, BufferHistory history);

  const Trace& trace() const { return trace_; }
  const Schedule& schedule() const { return trace_.schedule; }
  const Layout& layout() const { return layout_; }
  const BufferHistory& buffers() const { return *history_; }
  // The numbers every element holds, in the run's type (recorded for buffers of at most
  // kMaxValueElements elements and a trace of a whole schedule); null otherwise.
  const ValueHistory* values() const { return values_.get(); }
  int step_count() const { return trace_.schedule.step_count(); }
  std::size_t transfer_count() const { return trace_.schedule.transfers.size(); }

  // The arrangement: by the algorithm's pattern, by the topology, or both (the pattern with
  // the topology's switches and wires inside it), the last two when the trace has a topology.
  bool has_topology() const { return topology_.has_value(); }
  Arrangement arranged() const { return arranged_; }
  bool arranged_by_topology() const { return arranged_ == Arrangement::topology; }
  // What the run's file or flags chose ([topology] arrange, --arrange), which the view
  // starts with; the algorithm's pattern without a topology to arrange by.
  Arrangement file_arrangement() const;
  const LayoutChoice& arrangement() const { return choice_; }
  // Re-lays out the scene (positions, routes, link traffic); cheap next to building the model.
  void arrange(Arrangement a);

  // What transfer i's packet says on clock c: its group's label when it travels with others
  // (ClockIndex::together), else its own chunk (packet_label).
  std::string packet_text(ClockKind c, std::uint32_t i) const;

  // The nodes and the layout links transfer i travels over (empty when local).
  std::span<const int> path_of(std::size_t i) const;
  std::span<const std::uint32_t> links_of(std::size_t i) const;

  bool has_clock(ClockKind c) const { return available_[static_cast<std::size_t>(c)]; }
  const ClockIndex& clock(ClockKind c) const { return clocks_[static_cast<std::size_t>(c)]; }

  // Queries on clock c.
  int steps_done(ClockKind c, double t) const;
  double step_time(ClockKind c, int k) const;  // when k steps are done (k = 0: the start)
  void in_flight(ClockKind c, double t, std::vector<InFlight>& out) const;
  const CellChange& cell_state(ClockKind c, std::uint32_t cell, double t) const;
  std::string caption(ClockKind c, double t, int steps_done, const std::vector<InFlight>& flying) const;
  // The frame at t: its state (frame_state) and the bytes sent so far per rank and per link.
  Frame frame(ClockKind c, double t) const;
  // The frame's state alone, without summing the bytes: what frame(c, t) holds in its
  // FrameState part. The second form reuses `out`'s storage (a caller asking at many times).
  FrameState frame_state(ClockKind c, double t) const;
  void frame_state(ClockKind c, double t, FrameState& out) const;
  // (FrameSweep gives the same states at many ascending times, faster.)
  // Where the frame's packets are (in flight, then queued); at most `limit` of them. The
  // pieces of one message travelling together (one way, one place) are one packet.
  void packet_spots(const Frame& f, std::vector<PacketSpot>& out, std::size_t limit = SIZE_MAX) const;
  // Its queued part alone, from the state (where queued packets wait depends on the state's
  // in-flight and queued transfers only): what the web page's frame tables keep per state.
  void queued_spots(const FrameState& f, std::vector<PacketSpot>& out) const { place_queued(f, out, SIZE_MAX); }

  // Bytes each drawn link carries over the whole run (Layout::links): on a topology the
  // timing model's (sim's link_bytes, summed over a physical link's directions).
  const std::vector<double>& link_totals() const { return link_totals_; }

  // Steps in which some transfer goes to another rank (sim's communication_steps, counted once).
  int communication_steps() const { return communication_steps_; }
  // Bytes each rank sends/receives over the whole run (the schedule's totals).
  const std::vector<std::uint64_t>& total_sent() const { return total_sent_; }
  const std::vector<std::uint64_t>& total_received() const { return total_received_; }

 private:
  friend class FrameSweep;
  // The rest of frame_state once f.steps_done and f.in_flight are set: what is queued, the caption.
  void queued_and_caption(ClockKind c, double t, FrameState& f) const;
  void build();
  LayoutChoice layout_choice(Arrangement a) const;  // a's layout choice (topology_ set unless algorithm)
  void build_paths();
  void sum_link_bytes();
  void place_in_flight(const Frame& f, std::vector<PacketSpot>& out, std::size_t limit) const;
  void place_queued(const FrameState& f, std::vector<PacketSpot>& out, std::size_t limit) const;
  void fill_link_tallies(ClockIndex& c) const;
  ClockIndex build_clock(ClockKind c, std::vector<double> begin, std::vector<double> end) const;

  Trace trace_;
  std::optional<LayoutChoice> topology_;
  LayoutChoice choice_;
  Arrangement arranged_ = Arrangement::algorithm;
  Layout layout_;
  std::shared_ptr<const BufferHistory> history_;  // shared with the trace's run: never copied
  std::shared_ptr<const ValueHistory> values_;
  std::vector<std::uint32_t> path_first_{0}, link_first_{0};
  std::vector<int> path_nodes_;
  std::vector<std::uint32_t> path_links_;
  ClockIndex clocks_[3];
  bool available_[3] = {true, false, false};
  std::vector<std::uint64_t> total_sent_, total_received_;
  std::vector<double> link_totals_;
  int communication_steps_ = 0;
};

// ViewModel::frame_state at non-decreasing times, one after the other (the web page's frame
// tables ask at millions): the transfers in flight are kept from one time to the next — those
// begun (begin < t) less those ended (end <= t), in by_begin order, the set in_flight
// searches for — and the rest is frame_state's own code. A time below the last starts over.
class FrameSweep {
 public:
  FrameSweep(const ViewModel& vm, ClockKind c);
  void state(double t, FrameState& out);

 private:
  void reset();
  const ViewModel& vm_;
  ClockKind kind_;
  bool exact_ = true;                     // every begin and end finite (else: frame_state itself)
  std::vector<std::uint32_t> by_end_;     // transfers sorted by end
  std::vector<std::uint32_t> place_;      // per transfer, its place in by_begin
  std::vector<std::uint8_t> ended_;       // per transfer: end <= the last t
  std::vector<std::uint32_t> flying_;     // places in by_begin of those in flight, ascending
  std::size_t begun_ = 0, done_ = 0;      // how far along by_begin and by_end_
  double last_ = 0;
  bool started_ = false;
};

}  // namespace collsim::gui
