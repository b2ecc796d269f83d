// The web page's data (app/web/page.h) against the view model: its frame tables
// (app/web/frames.h) hold, at every time, what ViewModel::frame computes — steps done, the
// step shown, the transfers in flight and queued, the caption — and the page's JSON carries
// them as the player reads them (docs/web.md, "Frames").
#include <doctest/doctest.h>

#include <array>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/views/lesson.h"
#include "app/views/loader.h"
#include "app/web/frames.h"
#include "app/web/page.h"
#include "sim/schedule/algorithm.h"

using namespace collsim;
using namespace collsim::gui;
using nlohmann::json;

namespace {

std::shared_ptr<ViewModel> run(Collective c, const std::string& algorithm, int ranks, std::uint64_t count, AlgorithmOptions o = {},
                               const TopologyConfig& topology = {}) {
  RunRequest r;
  r.spec.collective = c;
  r.spec.ranks = ranks;
  r.spec.count = count;
  r.algorithm = algorithm;
  r.options = resolve_options(r.spec, r.algorithm, o);
  LoadRequest q;
  q.run = r;
  q.topology = topology;
  Progress p;
  LoadResult loaded = load(q, p);
  REQUIRE_MESSAGE(loaded.model, loaded.error);
  return loaded.model;
}

std::vector<std::uint32_t> transfers_of(const std::vector<InFlight>& v) {
  std::vector<std::uint32_t> out;
  for (const InFlight& p : v) out.push_back(p.transfer);
  return out;
}

// Every event time, every midpoint between two, before the first and after the last, and
// random times over the clock: the times a frame is checked at.
std::vector<double> sample_times(const html::FrameTable& table, const ClockIndex& c) {
  std::vector<double> out;
  const std::vector<double>& e = table.times;
  for (std::size_t j = 0; j < e.size(); ++j) {
    out.push_back(e[j]);
    if (j + 1 < e.size()) out.push_back(e[j] + (e[j + 1] - e[j]) / 2), out.push_back(e[j] + (e[j + 1] - e[j]) / 7);
  }
  if (!e.empty()) out.push_back(e.front() - 1), out.push_back(e.back() + 1);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> at(c.start, c.finish);
  for (int i = 0; i < 200; ++i) out.push_back(at(rng));
  return out;
}

// A page's typed column (docs/web.md, "The data format") as doubles.
std::vector<double> column(const json& col) {
  static const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string& text = col.at("base64").get_ref<const std::string&>();
  std::vector<unsigned char> bytes;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : text) {
    if (ch == '=') break;
    acc = acc << 6 | static_cast<std::uint32_t>(digits.find(ch));
    bits += 6;
    if (bits >= 8) bits -= 8, bytes.push_back(static_cast<unsigned char>(acc >> bits & 0xff));
  }
  const std::string type = col.at("type");
  std::vector<double> out;
  auto read = [&]<class T>(T) {
    for (std::size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + i, sizeof(T));  // little-endian, as the machines this runs on
      out.push_back(static_cast<double>(v));
    }
  };
  if (type == "u8") read(std::uint8_t{});
  else if (type == "i8") read(std::int8_t{});
  else if (type == "u16") read(std::uint16_t{});
  else if (type == "i16") read(std::int16_t{});
  else if (type == "u32") read(std::uint32_t{});
  else if (type == "i32") read(std::int32_t{});
  else if (type == "f32") read(float{});
  else if (type == "f64") read(double{});
  else FAIL("unknown column type " << type);
  return out;
}

// The player's lookup (app/web/player.js: stateAt, listAt), on the page's columns: four
// numbers per run of states, two counts per state, and each list as one column (docs/web.md,
// "Frames").
struct PageTable {
  std::vector<double> times, runs, counts, flying, queued, spot_first, spot_at, spot_items;

  // `runs` as four numbers per run (its first state, steps done, the step shown, the caption),
  // read from the page's four columns as the player reads them: the first states summed.
  explicit PageTable(const json& f)
      : times(column(f["times"])), counts(column(f["counts"])), flying(column(f["flying"])), queued(column(f["queued"])),
        spot_first(column(f["spots"]["first"])), spot_at(column(f["spots"]["at"])), spot_items(column(f["spots"]["items"])) {
    const json& r = f["runs"];
    const std::vector<double> first = column(r["first"]), done = column(r["done"]), step = column(r["step"]), caption = column(r["caption"]);
    double at = 0;
    for (std::size_t k = 0; k < first.size(); ++k) runs.insert(runs.end(), {at += first[k], done.at(k), step.at(k), caption.at(k)});
  }
  std::size_t state_at(double t) const {
    const auto j = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
    return j > 0 && times[j - 1] == t ? 2 * j - 1 : 2 * j;
  }
  // Field 1: steps done, 2: the step shown, 3: the caption, of the run state s is in.
  double run_field(std::size_t s, int field) const {
    std::size_t r = 0;
    while (4 * (r + 1) < runs.size() && runs[4 * (r + 1)] <= static_cast<double>(s)) ++r;
    return runs[4 * r + static_cast<std::size_t>(field)];
  }
  // State g's queued spots as the player reads them (spotsAt): transfer, x and y times 10^4.
  std::vector<std::array<double, 3>> spots_at(std::size_t g) const {
    std::size_t r = 0;
    while (r + 1 < spot_first.size() && spot_first[r + 1] <= static_cast<double>(g)) ++r;
    std::vector<std::array<double, 3>> out;
    for (auto i = static_cast<std::size_t>(spot_at[r]); i < static_cast<std::size_t>(spot_at[r + 1]); ++i)
      out.push_back({spot_items[3 * i], spot_items[3 * i + 1] / 1e4, spot_items[3 * i + 2] / 1e4});
    return out;
  }
  std::vector<std::uint32_t> list_at(int which, std::size_t g) const {
    const std::vector<double>& l = which ? queued : flying;
    const auto keys = static_cast<std::size_t>(l[0]), stored = static_cast<std::size_t>(l[1]);
    const std::size_t items0 = 2 + 3 * keys, entries0 = items0 + stored;
    std::size_t k = 0;
    while (k + 1 < keys && l[2 + 3 * (k + 1)] <= static_cast<double>(g)) ++k;
    const auto from = static_cast<std::size_t>(l[2 + 3 * k + 1]);
    const std::size_t to = k + 1 < keys ? static_cast<std::size_t>(l[2 + 3 * (k + 1) + 1]) : stored;
    std::vector<std::uint32_t> items;
    for (std::size_t i = from; i < to; ++i) items.push_back(static_cast<std::uint32_t>(l[items0 + i]));
    std::vector<bool> gone(items.size(), false);
    auto e = entries0 + static_cast<std::size_t>(l[2 + 3 * k + 2]);
    for (auto s = static_cast<std::size_t>(l[2 + 3 * k]) + 1; s <= g; ++s)
      for (auto n = static_cast<int>(counts[2 * s + static_cast<std::size_t>(which)]); n > 0; --n) {
        const double v = l[e++];
        if (v > 0) {
          items.push_back(static_cast<std::uint32_t>(v - 1)), gone.push_back(false);
        } else {
          for (std::size_t i = 0; i < items.size(); ++i)
            if (!gone[i] && items[i] == static_cast<std::uint32_t>(-v - 1)) gone[i] = true;
        }
      }
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!gone[i]) out.push_back(items[i]);
    return out;
  }
};

// The queued packets' places vm.packet_spots gives for f, and whether the page's are them (to
// the page's rounding).
bool same_spots(const ViewModel& vm, const Frame& f, const std::vector<std::array<double, 3>>& page) {
  std::vector<PacketSpot> all;
  vm.packet_spots(f, all);
  std::vector<PacketSpot> queued;
  for (const PacketSpot& p : all)
    if (p.queued) queued.push_back(p);
  if (queued.size() != page.size()) return false;
  for (std::size_t i = 0; i < queued.size(); ++i)
    if (page[i][0] != queued[i].transfer || std::abs(page[i][1] - queued[i].at.x) > 1e-4 || std::abs(page[i][2] - queued[i].at.y) > 1e-4)
      return false;
  return true;
}

// Every clock of vm: the table's state at every sampled time is vm.frame's; the page's JSON
// holds the same table (its times rounded as the clock's), and read as the player reads it
// gives vm.frame's state between its (rounded) event times and the exact events' at them.
// Returns the captions seen, each once.
std::vector<std::string> check_tables(const ViewModel& vm) {
  const json page = json::parse(html::page_data(vm, html::PageText{}));
  const json& view = page["views"][0];
  std::vector<std::string> seen;
  for (ClockKind kind : kAllClocks) {
    if (!vm.has_clock(kind)) {
      CHECK_FALSE(view["clocks"].contains(std::string(to_string(kind))));
      continue;
    }
    CAPTURE(to_string(kind));
    html::CaptionTexts texts;
    const html::FrameTable table = html::frame_table(vm, kind, texts);
    REQUIRE(!table.run_first.empty());
    CHECK(table.run_first.front() == 0);
    CHECK(table.flying.count.size() == table.states());
    for (double t : sample_times(table, vm.clock(kind))) {
      CAPTURE(t);
      const Frame f = vm.frame(kind, t);
      const std::size_t s = table.state_at(t), r = table.run_of(s);
      REQUIRE(s < table.states());
      CHECK(table.done[r] == f.steps_done);
      CHECK(table.step[r] == caption_step(f, vm.step_count()));
      CHECK(table.flying.at(s) == transfers_of(f.in_flight));
      CHECK(table.queued.at(s) == f.queued);
      CHECK(texts.texts.at(table.caption[r]) == f.caption);
      if (std::find(seen.begin(), seen.end(), f.caption) == seen.end()) seen.push_back(f.caption);
    }

    // The page: the same table, its captions among the view's texts.
    const json& frames = view["clocks"][std::string(to_string(kind))]["frames"];
    const PageTable pt(frames);
    const std::vector<std::string> page_texts = view["captions"]["texts"];  // every clock's, each once
    const auto page_caption = [&](std::size_t s) { return page_texts.at(static_cast<std::size_t>(pt.run_field(s, 3))); };
    REQUIRE(pt.runs.size() == 4 * table.run_first.size());
    for (std::size_t r = 0; r < table.run_first.size(); ++r) {
      CHECK(pt.runs[4 * r] == table.run_first[r]);
      CHECK(pt.runs[4 * r + 1] == table.done[r]);
      CHECK(pt.runs[4 * r + 2] == table.step[r]);
      CHECK(page_texts.at(static_cast<std::size_t>(pt.runs[4 * r + 3])) == texts.texts.at(table.caption[r]));
    }
    REQUIRE(pt.counts.size() == 2 * table.states());
    REQUIRE(pt.times.size() == table.times.size());
    for (std::size_t j = 0; j < pt.times.size(); ++j) CHECK(pt.times[j] == doctest::Approx(table.times[j]).epsilon(1e-6));
    for (std::size_t j = 0; j < pt.times.size(); ++j) {
      // At the (rounded) event time the exact event's state; between two, what vm.frame says there.
      const std::size_t s = pt.state_at(pt.times[j]);
      const Frame at = vm.frame(kind, table.times[j]);
      CHECK(pt.run_field(s, 1) == at.steps_done);
      CHECK(page_caption(s) == at.caption);
      CHECK(pt.list_at(0, s) == transfers_of(at.in_flight));
      CHECK(pt.list_at(1, s) == at.queued);
      CHECK(same_spots(vm, at, pt.spots_at(s)));
      if (j + 1 == pt.times.size() || pt.times[j + 1] <= pt.times[j]) continue;
      const double mid = pt.times[j] + (pt.times[j + 1] - pt.times[j]) / 2;
      const std::size_t h = pt.state_at(mid);
      const Frame between = vm.frame(kind, mid);
      CHECK(pt.run_field(h, 1) == between.steps_done);
      CHECK(pt.run_field(h, 2) == caption_step(between, vm.step_count()));
      CHECK(page_caption(h) == between.caption);
      CHECK(pt.list_at(0, h) == transfers_of(between.in_flight));
      CHECK(pt.list_at(1, h) == between.queued);
      CHECK(same_spots(vm, between, pt.spots_at(h)));
    }
  }
  return seen;
}

bool any_contains(const std::vector<std::string>& v, const std::string& part) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("frame tables: a ring all-reduce on 4 ranks, every clock, equals the view model's frames") {
  const auto vm = run(Collective::all_reduce, "ring", 4, 1 << 12);
  REQUIRE(vm->has_clock(ClockKind::measured));
  REQUIRE(vm->has_clock(ClockKind::predicted));
  const std::vector<std::string> captions = check_tables(*vm);
  CHECK(any_contains(captions, "Start: every rank holds only its own data"));
  CHECK(any_contains(captions, "In step 3/6"));
  CHECK(any_contains(captions, "After step 3/6"));
  CHECK(any_contains(captions, "Done: all 6 steps have run"));
}

TEST_CASE("frame tables: a pipelined ring (4 slices) overlaps its steps on the measured and predicted clocks, as the view model says") {
  AlgorithmOptions o;
  o.slices = 4;
  const auto vm = run(Collective::all_reduce, "ring", 8, 1 << 12, o);
  const std::vector<std::string> captions = check_tables(*vm);
  CHECK(any_contains(captions, "overlap (pipelined). Earliest: step"));
  // Large enough that the lists are replayed from more than one stored list.
  html::CaptionTexts texts;
  const html::FrameTable predicted = html::frame_table(*vm, ClockKind::predicted, texts);
  CHECK(predicted.flying.keys.size() > 1);
  CHECK(!predicted.flying.entries.empty());
}

TEST_CASE("frame tables: a parameter server's queued pushes are the view model's, on every clock") {
  const auto vm = run(Collective::all_reduce, "parameter_server", 4, 1 << 12);
  check_tables(*vm);
  html::CaptionTexts texts;
  const html::FrameTable steps = html::frame_table(*vm, ClockKind::steps, texts);
  bool queued = false;
  for (std::size_t s = 0; s < steps.states(); ++s) queued = queued || !steps.queued.at(s).empty();
  CHECK(queued);
  CHECK_FALSE(steps.spots.empty());  // and where they wait, the view model's places
}

namespace {

json lesson_data(const std::string& file) {
  LoadRequest q;
  q.file = std::filesystem::path(COLLSIM_SOURCE_DIR) / "scenarios" / "lessons" / file;
  Progress p;
  const LoadResult loaded = load(q, p);
  REQUIRE_MESSAGE(loaded.lesson, loaded.error);
  return json::parse(html::lesson_page_data(*loaded.lesson, file));
}

}  // namespace

TEST_CASE("lesson page: the program's lanes are the lesson's streams, each phase on its own") {
  const json d = lesson_data("18_streams.toml");
  const json& lanes = d["program"]["lanes"];
  REQUIRE(lanes.size() == 3);
  CHECK(lanes[0]["label"] == "compute");
  CHECK(lanes[1]["label"] == "comm");
  CHECK(lanes[2]["label"] == "default");
  CHECK(lanes[2]["about"].get<std::string>().find("legacy default stream") != std::string::npos);
  const json& phases = d["phases"];
  REQUIRE(phases.size() == 38);
  CHECK(phases[1]["lane"] == 0);   // v1: the all-reduce on the compute stream (async_op=False)
  CHECK(phases[8]["lane"] == 1);   // v2: on its own (async_op=True)
  CHECK(phases[32]["lane"] == 2);  // v5: on the legacy default stream
  CHECK(d["program"]["memory"]["top_bytes"] == 0);  // nothing allocates: no memory band
}

TEST_CASE("lesson page: FSDP's memory plot peaks at the lesson's own answer") {
  const json d = lesson_data("13_fsdp_resnet34.toml");
  const json& memory = d["program"]["memory"];
  const double top = memory["top_bytes"].get<double>();
  REQUIRE(top > 0);
  CHECK(memory["top_text"] == format_bytes(top));
  // Each rank's line: time-ordered points, never above the top, and one of them reaches it.
  double highest = 0;
  for (const json& line : memory["ranks"]) {
    double last_us = -1;
    for (const json& point : line) {
      CHECK(point[0].get<double>() >= last_us);
      last_us = point[0].get<double>();
      CHECK(point[1].get<double>() <= top);
      highest = std::max(highest, point[1].get<double>());
    }
  }
  CHECK(highest == top);
  // The largest of the lesson's peak-memory answers (step C: no limit_all_gathers) is the plot's top.
  bool answered = false;
  for (const json& q : d["questions"]) answered = answered || q["answer"].get<std::string>().starts_with(format_bytes(top));
  CHECK(answered);
}

TEST_CASE("page: blocks that travel together are one packet, with the view model's words") {
  // Bruck's all-to-all on 8 ranks without predictions: every transfer spans its step, so a
  // round's blocks for one neighbour travel together (ViewModel's ClockIndex::together).
  RunRequest r;
  r.spec.collective = Collective::all_to_all;
  r.spec.ranks = 8;
  r.spec.count = 8;
  r.algorithm = "bruck";
  Trace t;
  t.request = r;
  t.schedule = build_schedule(r.spec, r.algorithm, r.options);
  const ViewModel vm(t);
  const json d = json::parse(html::page_data(vm, html::PageText{}));
  const json& labels = d["views"][0]["clocks"]["steps"]["groups"]["labels"];
  const ClockIndex& c = vm.clock(ClockKind::steps);
  REQUIRE(labels.size() == c.group_labels.size());
  int round1 = 0, round2 = 0;
  for (const auto& [first, label] : c.group_labels) {
    CHECK(labels[std::to_string(first)] == label);
    round1 += label == "1,3,5,7";
    round2 += label == "2,6";
  }
  CHECK(round1 == 8);
  CHECK(round2 == 8);
}

TEST_CASE("page: arranged by both, the page carries the switches and the wires the view model placed") {
  TopologyConfig pcie_both;
  pcie_both.kind = TopologyKind::pcie_tree;
  pcie_both.arrange = Arrangement::both;
  const std::shared_ptr<ViewModel> vm = run(Collective::all_reduce, "ring", 8, 64, {}, pcie_both);
  const Layout& l = vm->layout();
  const json d = json::parse(html::page_data(*vm, html::PageText{}));
  const json& layout = d["views"][0]["layout"];
  REQUIRE(layout["wires"].size() == l.wires.size());
  CHECK(l.wires.size() == 10);
  for (std::size_t i = 0; i < l.wires.size(); ++i) CHECK(layout["wires"][i] == json::array({l.wires[i].first, l.wires[i].second}));
  CHECK(layout["hub_labels"] == json(l.hub_labels));
  CHECK(layout["nodes"].size() == l.nodes.size());
  CHECK(layout["arrangement"] == "the algorithm's pattern (ring) on the pcie_tree topology's wires");
  CHECK(d["palette"].contains("wire"));
}
