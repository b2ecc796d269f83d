#include "app/web/page.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/views/bench_plot.h"
#include "app/views/buffer_layout.h"
#include "app/views/numbers.h"
#include "app/views/panel_plan.h"
#include "app/views/palette.h"
#include "app/views/shading.h"
#include "app/web/frames.h"
#include "app/web/player_assets.h"
#include "app/storyboard/bench_plot_svg.h"
#include "app/storyboard/storyboard.h"
#include "sim/core/errors.h"

namespace collsim::html {
namespace {

using nlohmann::json;
namespace gui = collsim::gui;

// Points of a packet's way, from the edge of the sender's disc to the edge of the
// receiver's, on its lane: what the player interpolates between.
constexpr int kWaySamples = 16;

// Numbers in the file: 4 significant digits for coordinates (the page draws at most a few
// thousand pixels). Times to 7 significant digits (the shortest decimal that reads back as
// it): rounding is monotone, so "ended by t" compares the same way for the transfers and
// the cells' keys.
double coord(float v) { return std::round(static_cast<double>(v) * 1e4) / 1e4; }
double seven(double v) { return std::isfinite(v) && v != 0 ? std::stod(fmt::format("{:.7g}", v)) : v; }

// ---- columns (docs/web.md, "The data format") ----------------------------------------------
// A column of numbers is {"type": T, "base64": the values' bytes, little-endian}, T the
// narrowest of u8, i8, u16, i16, u32, i32 that holds every value (f64 beyond), or f32 / f64
// for times. A page of a million transfers is then ~4x smaller than as JSON numbers, and the
// player reads it with atob and a typed array view instead of parsing millions of numbers.
std::string base64(const std::vector<unsigned char>& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (n > 1 ? std::uint32_t{bytes[i + 1]} << 8 : 0) | (n > 2 ? bytes[i + 2] : 0);
    out += kDigits[(v >> 18) & 63], out += kDigits[(v >> 12) & 63];
    out += n > 1 ? kDigits[(v >> 6) & 63] : '=';
    out += n > 2 ? kDigits[v & 63] : '=';
  }
  return out;
}
template <class Out, class In>
void append_le(std::vector<unsigned char>& bytes, In v) {
  const Out x = static_cast<Out>(v);
  unsigned char raw[sizeof(Out)];
  std::memcpy(raw, &x, sizeof(Out));
  if constexpr (std::endian::native == std::endian::big) std::reverse(raw, raw + sizeof(Out));
  bytes.insert(bytes.end(), raw, raw + sizeof(Out));
}
template <class Out, class In>
json typed_column(const char* type, const std::vector<In>& v) {
  std::vector<unsigned char> bytes;
  bytes.reserve(v.size() * sizeof(Out));
  for (In x : v) append_le<Out>(bytes, x);
  return {{"type", type}, {"base64", base64(bytes)}};
}
// Integers: the narrowest type that holds them all.
template <class In>
json int_column(const std::vector<In>& v) {
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const double lo = v.empty() ? 0 : static_cast<double>(*lo_it), hi = v.empty() ? 0 : static_cast<double>(*hi_it);
  if (lo >= 0 && hi <= 0xff) return typed_column<std::uint8_t>("u8", v);
  if (lo >= -0x80 && hi <= 0x7f) return typed_column<std::int8_t>("i8", v);
  if (lo >= 0 && hi <= 0xffff) return typed_column<std::uint16_t>("u16", v);
  if (lo >= -0x8000 && hi <= 0x7fff) return typed_column<std::int16_t>("i16", v);
  if (lo >= 0 && hi <= 0xffffffffu) return typed_column<std::uint32_t>("u32", v);
  if (lo >= -2147483648.0 && hi <= 2147483647.0) return typed_column<std::int32_t>("i32", v);
  return typed_column<double>("f64", v);  // exact up to 2^53, as JavaScript's numbers
}
// 64-bit masks (JavaScript's numbers hold 53 bits): two u32 columns, the low and high words.
void mask_columns(json& to, const std::string& name, const std::vector<std::uint64_t>& masks) {
  std::vector<std::uint32_t> lo, hi;
  lo.reserve(masks.size()), hi.reserve(masks.size());
  for (std::uint64_t m : masks) lo.push_back(static_cast<std::uint32_t>(m)), hi.push_back(static_cast<std::uint32_t>(m >> 32));
  to[name + "_lo"] = typed_column<std::uint32_t>("u32", lo);
  to[name + "_hi"] = typed_column<std::uint32_t>("u32", hi);
}

// One clock's times, all in one type: f32 when it keeps every distinct time (to 7 digits)
// distinct, else f64. Every time of the clock (begins, ends, keys, step_done, start,
// finish) goes through the same rounding, which is monotone: a transfer that ended by a
// cell's key, or by a step's end, still has.
struct ClockTimes {
  bool f32 = true;
  explicit ClockTimes(const gui::ClockIndex& c) {
    std::vector<double> all;
    all.reserve(c.begin.size() + c.end.size() + c.change_keys.size() + c.step_done.size() + 2);
    for (const auto* v : {&c.begin, &c.end, &c.change_keys, &c.step_done})
      for (double x : *v) all.push_back(seven(x));
    all.push_back(seven(c.start)), all.push_back(seven(c.finish));
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (std::size_t i = 0; f32 && i < all.size(); ++i) {
      const bool fits = !std::isfinite(all[i]) || std::abs(all[i]) <= 3e38;
      f32 = fits && (i == 0 || static_cast<float>(all[i - 1]) != static_cast<float>(all[i]));
    }
  }
  double operator()(double v) const { return f32 ? static_cast<double>(static_cast<float>(seven(v))) : seven(v); }
  json column(const std::vector<double>& v) const {
    std::vector<double> r;
    r.reserve(v.size());
    for (double x : v) r.push_back((*this)(x));
    return f32 ? typed_column<float>("f32", r) : typed_column<double>("f64", r);
  }
  json number(double v) const { return std::isfinite(v) ? json((*this)(v)) : json(nullptr); }
};

json layout_json(const gui::ViewModel& vm) {
  const gui::Layout& l = vm.layout();
  json nodes = json::array();
  for (const gui::Vec2& p : l.nodes) nodes.push_back({coord(p.x), coord(p.y)});
  json links = json::array(), link_ways = json::array();
  for (std::size_t i = 0; i < l.links.size(); ++i) {
    const auto [a, b] = l.links[i];
    links.push_back({a, b, i < l.link_tree.size() ? l.link_tree[i] : -1});
    json pts = json::array();
    const std::vector<int> path{a, b};
    const int n = gui::is_straight(l, path) ? 1 : kWaySamples;
    for (int k = 0; k <= n; ++k) {
      const gui::Vec2 p = gui::point_along(l, path, static_cast<float>(k) / static_cast<float>(n));
      pts.push_back(coord(p.x)), pts.push_back(coord(p.y));
    }
    link_ways.push_back(std::move(pts));
  }
  json boxes = json::array();
  for (const gui::NodeBox& b : l.boxes) boxes.push_back({{"x0", coord(b.min.x)}, {"y0", coord(b.min.y)}, {"x1", coord(b.max.x)}, {"y1", coord(b.max.y)}, {"label", b.label}});
  json servers = json::array();
  for (bool s : l.is_server) servers.push_back(s);
  json wires = json::array();  // arranged by both: the topology's wires under the pattern
  for (const auto& [a, b] : l.wires) wires.push_back({a, b});
  return {{"kind", std::string(to_string(l.kind))},
          {"ranks", l.ranks},
          {"nodes", std::move(nodes)},
          {"hub_labels", l.hub_labels},
          {"servers", std::move(servers)},
          {"boxes", std::move(boxes)},
          {"rank_radius", coord(l.rank_radius)},
          {"packet_radius", coord(gui::packet_radius(l))},
          {"links", std::move(links)},
          {"link_ways", std::move(link_ways)},
          {"wires", std::move(wires)},
          {"link_totals", vm.link_totals()},
          {"arrangement", vm.arrangement().description}};
}

// Every transfer's facts (columnar), and its way: one sampled polyline per distinct path.
json transfers_json(const gui::ViewModel& vm) {
  const Schedule& s = vm.schedule();
  const gui::Layout& l = vm.layout();
  std::vector<int> src, dst, step, chunk, reduce, way;
  std::vector<std::uint64_t> bytes;
  std::map<std::vector<int>, int> ways;
  json way_points = json::array();
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    src.push_back(t.src), dst.push_back(t.dst), step.push_back(t.step), chunk.push_back(t.chunk);
    reduce.push_back(reduces(t.action) ? 1 : 0);
    bytes.push_back(s.bytes(t));
    const std::span<const int> p = vm.path_of(i);
    if (p.empty()) {
      way.push_back(-1);
      continue;
    }
    std::vector<int> nodes(p.begin(), p.end());
    auto [it, added] = ways.try_emplace(nodes, static_cast<int>(ways.size()));
    if (added) {
      json pts = json::array();
      for (int k = 0; k <= kWaySamples; ++k) {
        const float progress = static_cast<float>(k) / kWaySamples;
        const gui::Vec2 at = gui::point_along(l, nodes, gui::packet_way(l, nodes, progress), true);
        pts.push_back(coord(at.x)), pts.push_back(coord(at.y));
      }
      way_points.push_back(std::move(pts));
    }
    way.push_back(it->second);
  }
  return {{"src", int_column(src)}, {"dst", int_column(dst)}, {"step", int_column(step)}, {"chunk", int_column(chunk)},
          {"reduce", int_column(reduce)}, {"bytes", int_column(bytes)}, {"way", int_column(way)}, {"ways", std::move(way_points)}};
}

// A frame table's list (frames.h, ListTrack) as one integer column: the number of keys K and
// of stored items I, then per key its state, its first item and its first entry, then the
// I items, then the entries (docs/web.md, "Frames").
json track_column(const ListTrack& l) {
  std::vector<std::int64_t> v{static_cast<std::int64_t>(l.keys.size()), static_cast<std::int64_t>(l.key_items.size())};
  v.reserve(2 + 3 * l.keys.size() + l.key_items.size() + l.entries.size());
  for (std::size_t k = 0; k < l.keys.size(); ++k) v.insert(v.end(), {l.keys[k], l.key_first[k], l.key_entry[k]});
  v.insert(v.end(), l.key_items.begin(), l.key_items.end());
  v.insert(v.end(), l.entries.begin(), l.entries.end());
  return int_column(v);
}

// A clock: the transfers' times, the steps' ends, the cells' keys, and its frame table
// (frames.h: every state ViewModel::frame takes on it), the table's times rounded as the
// rest. A table is eight columns, whatever its size: a lesson has hundreds of small ones.
// The transfers that travel together on a clock (ClockIndex::together): every member but
// the first of its group with that first, and each group's label by its first transfer, so
// that the player draws one packet per group with the app's words.
json groups_json(const gui::ClockIndex& c) {
  std::vector<std::uint32_t> member, first;
  for (std::uint32_t i = 0; i < c.together.size(); ++i)
    if (c.together[i] != i) member.push_back(i), first.push_back(c.together[i]);
  json labels = json::object();
  for (const auto& [leader, label] : c.group_labels) labels[std::to_string(leader)] = label;
  return {{"member", int_column(member)}, {"first", int_column(first)}, {"labels", std::move(labels)}};
}

json clock_json(const gui::ViewModel& vm, gui::ClockKind kind, CaptionTexts& texts) {
  const gui::ClockIndex& c = vm.clock(kind);
  const ClockTimes times(c);
  const FrameTable f = frame_table(vm, kind, texts);
  // Per run of states, four columns: its first state (as the difference from the run before's:
  // on the measured clock runs are a state or two long), steps done, the step shown, the
  // caption; per state: how many entries of the in-flight and of the queued list lead into it.
  std::vector<std::int64_t> first, counts;
  first.reserve(f.run_first.size());
  for (std::size_t r = 0; r < f.run_first.size(); ++r) first.push_back(std::int64_t{f.run_first[r]} - (r ? std::int64_t{f.run_first[r - 1]} : 0));
  json runs = {{"first", int_column(first)}, {"done", int_column(f.done)}, {"step", int_column(f.step)}, {"caption", int_column(f.caption)}};
  counts.reserve(2 * f.states());
  for (std::size_t s = 0; s < f.states(); ++s) counts.insert(counts.end(), {f.flying.count[s], f.queued.count[s]});
  // Where the queued packets wait, per run of states (frames.h): the runs' first states, each
  // run's first spot, and per spot its transfer and place (unit coordinates, times 10^4).
  std::vector<std::int64_t> spots;
  spots.reserve(3 * f.spots.size());
  for (const gui::PacketSpot& p : f.spots)
    spots.insert(spots.end(), {std::int64_t{p.transfer}, std::llround(coord(p.at.x) * 1e4), std::llround(coord(p.at.y) * 1e4)});
  json frames = {{"times", times.column(f.times)}, {"runs", std::move(runs)},           {"counts", int_column(counts)},
                 {"flying", track_column(f.flying)}, {"queued", track_column(f.queued)},
                 {"spots", {{"first", int_column(f.spot_run_first)}, {"at", int_column(f.spot_first)}, {"items", int_column(spots)}}}};
  return {{"begin", times.column(c.begin)},      {"end", times.column(c.end)},
          {"start", times.number(c.start)},      {"finish", times.number(c.finish)},
          {"step_done", times.column(c.step_done)}, {"keys", times.column(c.change_keys)},
          {"frames", std::move(frames)},         {"groups", groups_json(c)}};
}

json buffers_json(const gui::ViewModel& vm) {
  const gui::BufferHistory& h = vm.buffers();
  json rows = json::array();
  std::vector<std::uint32_t> all;
  for (std::uint32_t r = 0; r < h.rows().size(); ++r) {
    const gui::BufferRow& row = h.rows()[r];
    all.push_back(r);
    rows.push_back({{"rank", row.rank}, {"buffer", std::string(to_string(row.buffer))}, {"elements", row.elements},
                    {"first", row.first_cell}, {"count", row.cell_count}, {"optional", row.optional}});
  }
  // Every row on the same equal-width pieces (the app's buffer_layout.h): each cell's
  // left and right edge as a fraction of the row's width.
  const gui::BufferColumns cols = gui::buffer_columns(h, all);
  std::vector<std::uint32_t> x0, x1;
  std::vector<std::uint64_t> begin, end, eventual;
  std::vector<std::uint32_t> first, count;
  std::vector<int> target;
  for (std::uint32_t c = 0; c < h.cells().size(); ++c) {
    const gui::Cell& cell = h.cells()[c];
    x0.push_back(cols.first_piece[c]), x1.push_back(cols.end_piece[c]);
    begin.push_back(cell.begin), end.push_back(cell.end);
    first.push_back(cell.first_change), count.push_back(cell.change_count), target.push_back(cell.target);
    eventual.push_back(gui::shading::eventual_ranks(vm, c));
  }
  std::vector<int> written, holds;
  std::vector<std::uint64_t> mask;
  std::vector<std::int64_t> writer;
  for (const gui::CellChange& ch : h.changes()) {
    const gui::RankSet set = ch.written ? gui::ranks_of(ch.contributions) : gui::RankSet{};
    written.push_back(ch.written ? 1 : 0), holds.push_back(set.count);
    mask.push_back(set.mask);
    writer.push_back(ch.transfer >= kInitialState ? -1 : static_cast<std::int64_t>(ch.transfer));
  }
  json cells = {{"begin", int_column(begin)}, {"end", int_column(end)}, {"pieces", std::max<std::uint32_t>(cols.pieces(), 1)},
                {"x0", int_column(x0)}, {"x1", int_column(x1)}, {"first", int_column(first)}, {"count", int_column(count)},
                {"target", int_column(target)}};
  mask_columns(cells, "eventual", eventual);
  json changes = {{"written", int_column(written)}, {"holds", int_column(holds)}, {"writer", int_column(writer)}};
  mask_columns(changes, "mask", mask);
  return {{"rows", std::move(rows)}, {"cells", std::move(cells)}, {"changes", std::move(changes)}};
}

json palette_json() {
  json ranks = json::array(), ramp = json::array();
  for (const gui::palette::Rgb& c : gui::palette::kRanks) ranks.push_back(gui::palette::hex(c));
  for (const gui::palette::Rgb& c : gui::shading::fill_ramp(65)) ramp.push_back(gui::palette::hex(c));
  return {{"ranks", std::move(ranks)}, {"ramp", std::move(ramp)}, {"stripes_up_to", gui::shading::kMaxStripeRanks},
          {"packet", gui::palette::hex(gui::palette::packet)}, {"packet_ink", gui::palette::hex(gui::palette::packet_ink)},
          {"empty", gui::palette::hex(gui::palette::empty_cell)}, {"missing", gui::palette::hex(gui::palette::missing_slot)},
          {"grid", gui::palette::hex(gui::palette::grid)}, {"hub", gui::palette::hex(gui::palette::hub)},
          {"second_tree", gui::palette::hex(gui::palette::second_tree)}, {"wire", gui::palette::hex(gui::palette::wire)}};
}



}  // namespace

namespace {

// The program timeline's lanes, one per stream (sim's stream_lanes): its short name and what it is.
json lanes_json(const StreamLanes& lanes) {
  json out = json::array();
  for (const StreamLane& lane : lanes.lanes) out.push_back({{"stream", lane.stream}, {"label", lane.label}, {"about", lane.about}});
  return out;
}

// The memory each rank holds (ProgramResult::memory), per rank [[µs, bytes], ...] from that
// time on (empty when no phase allocates on it), and the plot's top: the largest peak of any
// rank, in bytes and as the page writes it.
json memory_json(const ProgramResult& p) {
  json ranks = json::array();
  for (const std::vector<MemoryPoint>& line : p.memory) {
    json points = json::array();
    for (const MemoryPoint& m : line) points.push_back({m.time_ns / 1000, m.bytes});
    ranks.push_back(std::move(points));
  }
  double top = 0;
  for (const double peak : p.peak_memory_bytes) top = std::max(top, peak);
  return {{"ranks", std::move(ranks)}, {"top_bytes", top}, {"top_text", top > 0 ? format_bytes(top) : ""}};
}

void check_size(const gui::ViewModel& vm, const std::string& source) {
  const Schedule& s = vm.schedule();
  if (s.transfers.size() > kMaxTransfers || vm.buffers().cells().size() > kMaxCells)
    throw InputError(fmt::format("{}: {} transfers and {} buffer cells are more than a page can play (at most {} and {}): "
                                 "try fewer ranks or slices",
                                 source, s.transfers.size(), vm.buffers().cells().size(), kMaxTransfers, kMaxCells));
}

// One view: what the scene, the buffers, the timeline and the caption of one run read.
json view_json(const gui::ViewModel& vm, const PageText& text) {
  const Schedule& s = vm.schedule();
  json clocks = json::object();
  // Every clock's captions, each text once; the measured clock's last, so that the other
  // clocks' (the same on every run of one schedule) come first and always alike.
  CaptionTexts texts;
  for (gui::ClockKind k : {gui::ClockKind::steps, gui::ClockKind::predicted, gui::ClockKind::measured})
    if (vm.has_clock(k)) clocks[std::string(gui::to_string(k))] = clock_json(vm, k, texts);
  const Trace& t = vm.trace();
  // The run's headline figures, worded by the app's numbers panel (numbers.h): the
  // prediction first, then the simulation's own measured time.
  json numbers = json::array();
  for (const gui::NumbersLine& l : gui::headline_numbers(t))
    numbers.push_back({{"kind", std::string(gui::to_string(l.kind))}, {"head", l.head}, {"figures", l.figures},
                       {"about", l.about}, {"note", l.note}});
  return {{"collective", std::string(to_string(s.spec.collective))},
          {"algorithm", s.algorithm},
          {"ranks", s.spec.ranks},
          {"total_ranks", s.total_ranks},
          {"count", s.spec.count},
          {"dtype", std::string(to_string(s.spec.dtype))},
          {"steps", s.step_count()},
          {"verified", t.verification.ok},
          {"verdict", std::string(gui::run_verdict(t))},
          {"predicted_on", t.predicted ? t.predicted->topology : ""},
          {"numbers", std::move(numbers)},
          {"numbers_line", {{"predicted", gui::stage_predicted_words(t, true)}, {"measured", gui::stage_measured_words(t, true)}}},
          {"captions", {{"texts", std::move(texts.texts)}, {"file", text.step_captions}}},
          {"layout", layout_json(vm)},
          {"transfers", transfers_json(vm)},
          {"clocks", std::move(clocks)},
          {"buffers", buffers_json(vm)}};
}

json page_json(std::string title, std::string description, std::string source, std::string clock) {
  return {{"format", "collsim-page"}, {"version", 5}, {"title", std::move(title)}, {"description", std::move(description)},
          {"source", std::move(source)}, {"clock", std::move(clock)}, {"palette", palette_json()},
          // The stage's threshold, the app's own (panel_plan.h): the player's media query reads it.
          {"stage", {{"width_em", gui::kStageWidthEm}, {"height_em", gui::kStageHeightEm}}}};
}

}  // namespace

std::string script_safe(std::string text) {
  for (std::size_t at = 0; (at = text.find("</", at)) != std::string::npos; at += 3) text.replace(at, 2, "<\\/");
  return text;
}

std::string page_data(const gui::ViewModel& vm, const PageText& text) {
  check_size(vm, text.source);
  json questions = json::array();
  for (const PageText::Question& q : text.questions) questions.push_back({{"text", q.text}, {"answer", q.answer}});
  json data = page_json(text.title, text.description, text.source, text.clock);
  data["views"] = json::array({view_json(vm, text)});
  data["phases"] = json::array({{{"name", ""}, {"kind", "collective"}, {"view", 0}, {"summary", ""}}});
  data["questions"] = std::move(questions);
  // The run's busbw against size (the storyboard's busbw.svg, the app's window), when it has one.
  if (const gui::SizeCurvePlot curve = gui::size_curve_plot(vm.trace()); curve.plot)
    data["size_curve"] = {{"caption", fmt::format("busbw against size, predicted on this topology; this run: {}",
                                                  format_bytes(static_cast<double>(curve.run_bytes)))},
                          {"svg", storyboard::bench_plot_svg(*curve.plot)}};
  return data.dump();
}

std::string lesson_page_data(const gui::Lesson& l, const std::string& source) {
  const Scenario& sc = l.scenario;
  json data = page_json(sc.title, l.description, source, sc.clock);
  // One view per distinct view model (phases of one collective may share one).
  std::vector<const gui::ViewModel*> seen;
  json views = json::array(), phases = json::array();
  for (std::size_t k = 0; k < l.phase_count(); ++k) {
    const Phase& phase = l.phase(k);
    const PhaseRun& run = l.run_of(k);
    json p = {{"name", phase.name},
              {"kind", phase.kind == PhaseKind::compute ? "compute" : "collective"},
              {"summary", gui::phase_summary(l, k)},
              {"begin_us", run.begin() / 1000},
              {"end_us", run.end() / 1000},
              {"clock", phase.clock},
              {"lane", k < l.lanes.lane_of_phase.size() ? l.lanes.lane_of_phase[k] : 0},
              {"rank_begin_us", json::array()},
              {"rank_end_us", json::array()}};
    for (std::size_t r = 0; r < run.rank_begin_ns.size(); ++r) {
      p["rank_begin_us"].push_back(run.rank_begin_ns[r] < 0 ? json(nullptr) : json(run.rank_begin_ns[r] / 1000));
      p["rank_end_us"].push_back(run.rank_end_ns[r] < 0 ? json(nullptr) : json(run.rank_end_ns[r] / 1000));
    }
    // The narration: the lesson's caption, the phase's, and each step's (0: before the first).
    const gui::ViewModel* vm = l.views[k].get();
    const int steps = vm ? vm->step_count() : 0;
    json step_words = json::array();
    for (int step = 0; step <= steps; ++step) step_words.push_back(gui::narration(l, k, step).step);
    const gui::Narration first = gui::narration(l, k, 0);
    p["narration"] = {{"lesson", first.lesson}, {"phase", first.phase}, {"steps", std::move(step_words)}};
    if (vm) {
      auto it = std::find(seen.begin(), seen.end(), vm);
      if (it == seen.end()) {
        check_size(*vm, source);
        views.push_back(view_json(*vm, PageText{}));
        seen.push_back(vm);
        it = seen.end() - 1;
      }
      p["view"] = it - seen.begin();
    } else {
      p["view"] = -1;
      p["compute_us"] = phase.compute_us;
    }
    phases.push_back(std::move(p));
  }
  json questions = json::array();
  for (std::size_t q = 0; q < l.questions.size(); ++q)
    questions.push_back({{"text", l.questions[q]}, {"answer", q < l.answers.size() ? l.answers[q] : ""}});
  data["views"] = std::move(views);
  data["phases"] = std::move(phases);
  data["questions"] = std::move(questions);
  data["program"] = {{"total_us", l.program.total_ns / 1000}, {"ranks", l.program.total_ranks}, {"verified", l.program.verified()},
                     {"verdict", std::string(gui::program_verdict(l.program))},
                     {"lanes", lanes_json(l.lanes)}, {"memory", memory_json(l.program)}};
  return data.dump();
}

namespace {

std::string page_around(const std::string& title, const std::string& data) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"collsim html\">\n<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n{}\n"
      "<script id=\"collsim-data\" type=\"application/json\">{}</script>\n<script>\n{}</script>\n</body>\n</html>\n",
      storyboard::xml_escape(title), kPlayerCss, kPlayerHtml, script_safe(data), kPlayerJs);
}

}  // namespace

std::string make_page(const gui::ViewModel& vm, const PageText& text) {
  const std::string title = text.title.empty() ? fmt::format("{} with {} on {} ranks", to_string(vm.schedule().spec.collective),
                                                             vm.schedule().algorithm, vm.schedule().spec.ranks)
                                               : text.title;
  return page_around(title, page_data(vm, text));
}

std::string make_lesson_page(const gui::Lesson& l, const std::string& source) {
  return page_around(l.scenario.title.empty() ? source : l.scenario.title, lesson_page_data(l, source));
}

}  // namespace collsim::html
