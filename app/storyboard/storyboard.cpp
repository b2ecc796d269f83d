#include "app/storyboard/storyboard.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "app/storyboard/bench_plot_svg.h"
#include "app/views/bench_plot.h"
#include "app/views/palette.h"
#include "app/views/shading.h"
#include "sim/lesson/captions.h"
#include "sim/core/errors.h"

namespace collsim::storyboard {
namespace {

namespace pal = gui::palette;
namespace shading = gui::shading;
using gui::Vec2;

// A 16:9 slide: the scene on the left, the buffers on the right, the caption on top.
constexpr float kWidth = 1280, kHeight = 720;
constexpr float kSceneLeft = 12, kSceneRight = 624, kTop = 122, kBottom = 676;
constexpr float kBuffersLeft = 648, kBuffersRight = 1264;
constexpr float kLabelWidth = 112;
constexpr std::size_t kCaptionWrap = 118;  // characters per caption line at 15 px
constexpr int kMaxCaptionLines = 3;
constexpr const char* kFont = "DejaVu Sans, Verdana, Arial, sans-serif";

std::string num(float v) { return fmt::format("{:.1f}", v); }
std::string color(pal::Rgb c) { return pal::hex(c); }

void text(std::string& o, float x, float y, std::string_view s, float size, pal::Rgb fill,
          std::string_view extra = "") {
  fmt::format_to(std::back_inserter(o), "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\"{}{}>{}</text>\n", num(x),
                 num(y), num(size), color(fill), extra.empty() ? "" : " ", extra, xml_escape(s));
}

void rect(std::string& o, float x, float y, float w, float h, std::string_view fill, std::string_view extra = "") {
  fmt::format_to(std::back_inserter(o), "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}{}/>\n",
                 num(x), num(y), num(std::max(w, 0.0f)), num(std::max(h, 0.0f)), fill, extra.empty() ? "" : " ", extra);
}

// Words split into lines of at most `width` characters (a long word stays whole).
std::vector<std::string> wrap(std::string_view s, std::size_t width) {
  std::vector<std::string> lines(1);
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t space = s.find(' ', i);
    const std::string_view word = s.substr(i, space == std::string_view::npos ? std::string_view::npos : space - i);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back().append(lines.back().empty() ? "" : " ").append(word);
    if (space == std::string_view::npos) break;
    i = space + 1;
  }
  return lines;
}

// --- the scene -------------------------------------------------------------------------

struct Canvas {
  float cx = 0, cy = 0, scale = 1;
  Vec2 at(Vec2 p) const { return {cx + p.x * scale, cy + p.y * scale}; }
};

Canvas scene_canvas() {
  const float w = kSceneRight - kSceneLeft, h = kBottom - kTop;
  return {kSceneLeft + w / 2, kTop + h / 2, (std::min(w, h) / 2 - 40) / 0.82f};
}

// Points along `path` from fraction f0 to f1, sampled from gui::point_along, so arrows
// follow the GUI's own routes (arcs around a ring, curves through a hub).
// `on_lane`: a packet's own lane (gui::point_along), so that the two directions between
// two ranks do not draw over each other.
std::vector<Vec2> sample(const gui::Layout& l, const std::vector<int>& path, const Canvas& cv, float f0, float f1,
                         bool on_lane = false) {
  constexpr int kSamples = 24;
  std::vector<Vec2> pts;
  for (int i = 0; i <= kSamples; ++i)
    pts.push_back(cv.at(gui::point_along(l, path, f0 + (f1 - f0) * static_cast<float>(i) / kSamples, on_lane)));
  return pts;
}

// The fraction of the way at which a route leaves the disc of `radius` px around its
// start (or, `from_end`, enters the one around its end): where an arrow starts or ends.
float edge_fraction(const gui::Layout& l, const std::vector<int>& path, const Canvas& cv, float radius, bool from_end) {
  const Vec2 c = cv.at(l.nodes[static_cast<std::size_t>(from_end ? path.back() : path.front())]);
  for (float f = 0; f < 0.45f; f += 0.005f) {
    const Vec2 p = cv.at(gui::point_along(l, path, from_end ? 1 - f : f));
    if (std::hypot(p.x - c.x, p.y - c.y) > radius) return from_end ? 1 - f : f;
  }
  return from_end ? 0.55f : 0.45f;
}

std::string polyline(const std::vector<Vec2>& pts) {
  std::string d;
  for (std::size_t i = 0; i < pts.size(); ++i)
    d += fmt::format("{}{} {}", i == 0 ? "M" : " L", num(pts[i].x), num(pts[i].y));
  return d;
}

void draw_links(std::string& o, const gui::Layout& l, const Canvas& cv) {
  o += "<g class=\"links\">\n";
  for (const auto& [a, b] : l.wires) {  // arranged by both: the topology's wires, dotted, under the pattern
    const Vec2 p = cv.at(l.nodes[static_cast<std::size_t>(a)]), q = cv.at(l.nodes[static_cast<std::size_t>(b)]);
    fmt::format_to(std::back_inserter(o),
                   "<line class=\"wire\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.2\" "
                   "stroke-dasharray=\"4 5\"/>\n",
                   num(p.x), num(p.y), num(q.x), num(q.y), color(pal::wire));
  }
  for (std::size_t i = 0; i < l.links.size(); ++i) {
    const auto [a, b] = l.links[i];
    const bool second_tree = i < l.link_tree.size() && l.link_tree[i] > 0;  // dashed: both trees read at once
    const Vec2 p = cv.at(l.nodes[static_cast<std::size_t>(a)]), q = cv.at(l.nodes[static_cast<std::size_t>(b)]);
    std::string d = fmt::format("M{} {} L{} {}", num(p.x), num(p.y), num(q.x), num(q.y));
    if (!gui::is_straight(l, {a, b}) && !gui::is_ring_arc(l, a, b)) d = polyline(sample(l, {a, b}, cv, 0, 1));  // bent
    if (gui::is_ring_arc(l, a, b)) {  // the short way round the ring's circle
      const Vec2 ua = l.nodes[static_cast<std::size_t>(a)], ub = l.nodes[static_cast<std::size_t>(b)];
      float delta = std::atan2(ub.y, ub.x) - std::atan2(ua.y, ua.x);
      if (delta > std::numbers::pi_v<float>) delta -= 2 * std::numbers::pi_v<float>;
      if (delta < -std::numbers::pi_v<float>) delta += 2 * std::numbers::pi_v<float>;
      const float r = l.ring_radius * cv.scale;
      d = fmt::format("M{} {} A{} {} 0 0 {} {} {}", num(p.x), num(p.y), num(r), num(r), delta > 0 ? 1 : 0, num(q.x),
                      num(q.y));
    }
    fmt::format_to(std::back_inserter(o),
                   "<path class=\"link\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", d,
                   color(second_tree ? pal::second_tree : pal::grid), second_tree ? " stroke-dasharray=\"7 7\"" : "");
  }
  o += "</g>\n";
}

void draw_boxes_and_hubs(std::string& o, const gui::Layout& l, const Canvas& cv, float rank_px) {
  for (const gui::NodeBox& b : l.boxes) {
    const Vec2 a = cv.at(b.min), z = cv.at(b.max);
    rect(o, a.x, a.y, z.x - a.x, z.y - a.y, "none",
         fmt::format("rx=\"8\" stroke=\"{}\" stroke-width=\"1.5\"", color(pal::grid)));
    text(o, a.x + 6, a.y + 14, b.label, 12, pal::text_dim);
  }
  for (int h = 0; h < l.hub_count(); ++h) {
    const Vec2 c = cv.at(l.nodes[static_cast<std::size_t>(l.ranks + h)]);
    const float w = std::max(rank_px * 1.6f, 34.0f), hh = std::max(rank_px * 0.8f, 14.0f);
    rect(o, c.x - w, c.y - hh, 2 * w, 2 * hh, color(pal::hub),
         fmt::format("rx=\"6\" stroke=\"{}\" stroke-width=\"1.5\"", color(pal::text_dim)));
    text(o, c.x, c.y + 4, l.hub_labels[static_cast<std::size_t>(h)], 12, pal::text, "text-anchor=\"middle\"");
  }
}

void draw_ranks(std::string& o, const gui::Layout& l, const Canvas& cv, float rank_px) {
  for (int r = 0; r < l.ranks; ++r) {
    const Vec2 c = cv.at(l.nodes[static_cast<std::size_t>(r)]);
    const std::string fill = color(shading::rank_fill(r, l.ranks));
    fmt::format_to(std::back_inserter(o), "<g class=\"rank\" data-rank=\"{}\"><title>rank {}{}</title>", r, r,
                   l.is_server[static_cast<std::size_t>(r)] ? " (parameter server)" : "");
    if (l.is_server[static_cast<std::size_t>(r)]) {
      const float s = rank_px * 1.15f;
      rect(o, c.x - s, c.y - s, 2 * s, 2 * s, fill,
           fmt::format("rx=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"", num(s * 0.25f), color(pal::server)));
    } else {
      fmt::format_to(std::back_inserter(o),
                     "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"#0f0f12\" stroke-width=\"1.5\"/>\n",
                     num(c.x), num(c.y), num(rank_px), fill);
    }
    if (rank_px >= 7)
      text(o, c.x, c.y + std::min(16.0f, rank_px) * 0.36f, std::to_string(r), std::min(16.0f, rank_px * 1.05f),
           {15, 15, 18}, "text-anchor=\"middle\" font-weight=\"bold\"");
    o += "</g>\n";
  }
}

// A packet, in the neutral (colour means rank, palette.h): a filled disc for a reduce (it
// adds into the receiver), "+" and its chunk number in it; an outlined square for a copy
// (it overwrites), its chunk number in it; the transfer's facts as data attributes.
void draw_packet(std::string& o, const Schedule& s, std::uint32_t i, Vec2 at, float r) {
  const Transfer& t = s.transfers[i];
  std::string label = fmt::format("{}{}", reduces(t.action) ? "+" : "", t.chunk);
  const float size = std::min(13.0f, r * 1.15f);
  const auto fits = [&] { return static_cast<float>(label.size()) * size * 0.62f <= r * 1.8f; };
  if (!fits() && label[0] == '+') label.erase(0, 1);  // the filled disc says reduce
  const bool number = size >= 8 && fits();
  fmt::format_to(
      std::back_inserter(o),
      "<g class=\"packet\" data-transfer=\"{}\" data-src=\"{}\" data-dst=\"{}\" data-chunk=\"{}\" data-action=\"{}\">"
      "<title>rank {} -&gt; rank {}, chunk {}, {} ({} elements)</title>",
      i, t.src, t.dst, t.chunk, to_string(t.action), t.src, t.dst, t.chunk, to_string(t.action), t.count);
  const bool reduce = reduces(t.action);
  if (reduce) {
    fmt::format_to(std::back_inserter(o), "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                   num(at.x), num(at.y), num(r), color(pal::packet), color(pal::packet_ink));
    const float p = r * 0.55f;
    if (!number)
      fmt::format_to(std::back_inserter(o), "<path d=\"M{} {} H{} M{} {} V{}\" stroke=\"{}\" stroke-width=\"2\"/>",
                     num(at.x - p), num(at.y), num(at.x + p), num(at.x), num(at.y - p), num(at.y + p),
                     color(pal::packet_ink));
  } else {
    rect(o, at.x - r, at.y - r, 2 * r, 2 * r, color(pal::packet_hollow),
         fmt::format("rx=\"{}\" stroke=\"{}\" stroke-width=\"{}\"", num(r * 0.3f), color(pal::packet),
                     num(std::max(1.5f, r * 0.18f))));
  }
  if (number)
    text(o, at.x, at.y + size * 0.36f, label, size, reduce ? pal::packet_ink : pal::packet,
         "text-anchor=\"middle\" font-weight=\"bold\"");
  o += "</g>\n";
}

void draw_arrow(std::string& o, const std::vector<Vec2>& pts, pal::Rgb c, float head) {
  fmt::format_to(std::back_inserter(o),
                 "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-opacity=\"0.65\" stroke-width=\"2.5\"/>\n",
                 polyline(pts), color(c));
  const Vec2 a = pts[pts.size() - 2], b = pts.back();
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 0.5f) return;
  const Vec2 u{(b.x - a.x) / len, (b.y - a.y) / len}, n{-u.y, u.x};
  fmt::format_to(std::back_inserter(o), "<polygon points=\"{},{} {},{} {},{}\" fill=\"{}\" fill-opacity=\"0.8\"/>\n",
                 num(b.x), num(b.y), num(b.x - u.x * head + n.x * head * 0.5f),
                 num(b.y - u.y * head + n.y * head * 0.5f), num(b.x - u.x * head - n.x * head * 0.5f),
                 num(b.y - u.y * head - n.y * head * 0.5f), color(c));
}

// The transfers of step k (0-based), in schedule order (Schedule::step_first).
std::pair<std::uint32_t, std::uint32_t> step_range(const Schedule& s, int k) {
  return {static_cast<std::uint32_t>(s.step_first(k)), static_cast<std::uint32_t>(s.step_first(k + 1))};
}

// Arrows and packets of one step: each packet half-way along its route.
void draw_step(std::string& arrows, std::string& packets, const gui::ViewModel& vm, const Canvas& cv, float rank_px,
               int k) {
  const Schedule& s = vm.schedule();
  const gui::Layout& l = vm.layout();
  const auto [first, last] = step_range(s, k);
  std::vector<int> placed(static_cast<std::size_t>(s.total_ranks), 0);  // local packets so far, per rank
  const float r = std::clamp(rank_px * 0.42f, 4.0f, 11.0f);
  for (std::uint32_t i = first; i < last; ++i) {
    const Transfer& t = s.transfers[i];
    const auto span = vm.path_of(i);
    const std::size_t d = static_cast<std::size_t>(t.dst);
    if (span.size() < 2) {  // local: beside its rank, outwards, fanned out when there are several
      const int slot = placed[d]++;
      const Vec2 p = l.nodes[d];
      const float len = std::max(std::hypot(p.x, p.y), 1e-3f), angle = 0.5f * static_cast<float>(slot);
      const Vec2 out{p.x / len * std::cos(angle) - p.y / len * std::sin(angle),
                     p.x / len * std::sin(angle) + p.y / len * std::cos(angle)};
      const Vec2 c = cv.at(p);
      draw_packet(packets, s, i, {c.x + out.x * (rank_px + r + 4), c.y + out.y * (rank_px + r + 4)}, r);
      continue;
    }
    const std::vector<int> path(span.begin(), span.end());
    const float gap = rank_px * (l.is_server[d] ? 1.4f : 1.0f) + 5;
    draw_arrow(arrows,
               sample(l, path, cv, edge_fraction(l, path, cv, gap, false), edge_fraction(l, path, cv, gap, true), true),
               shading::rank_fill(t.src, s.total_ranks), std::clamp(rank_px * 0.45f, 8.0f, 14.0f));  // the sender's colour
    draw_packet(packets, s, i, cv.at(gui::point_along(l, path, 0.5f, true)), r);
  }
}

void draw_scene(std::string& o, const gui::ViewModel& vm, int frame) {
  const gui::Layout& l = vm.layout();
  const Canvas cv = scene_canvas();
  const float rank_px = std::max(3.0f, l.rank_radius * cv.scale);
  text(o, kSceneLeft + 4, kTop - 6, fmt::format("arranged by {}", vm.arrangement().description), 12, pal::text_dim);
  draw_links(o, l, cv);
  draw_boxes_and_hubs(o, l, cv, rank_px);
  std::string arrows, packets;
  if (frame > 0) draw_step(arrows, packets, vm, cv, rank_px, frame - 1);
  o += arrows;  // the ranks over the arrows, the packets over everything
  draw_ranks(o, l, cv, rank_px);
  o += packets;
}

// --- the buffers -----------------------------------------------------------------------

std::string holds_text(const gui::RankSet& set) {
  std::string s;
  for (int q = 0; q < 64; ++q)
    if (set.has(q)) s += fmt::format("{}{}", s.empty() ? "" : " ", q);
  return s;
}

struct RowBox {
  float x0, width, y, height;
  std::uint64_t widest;
  float x_of(std::uint64_t e) const { return x0 + width * static_cast<float>(e) / static_cast<float>(widest); }
};

void draw_cell(std::string& o, const gui::ViewModel& vm, const gui::BufferRow& row, std::uint32_t c, const RowBox& g,
               bool lit, double t) {
  const gui::BufferHistory& h = vm.buffers();
  const gui::Cell& cell = h.cells()[c];
  const gui::CellChange& st = vm.cell_state(gui::ClockKind::steps, c, t);
  const gui::RankSet have = st.written ? gui::ranks_of(st.contributions) : gui::RankSet{};
  const float gap = g.x_of(cell.end) - g.x_of(cell.begin) > 4 ? 1.0f : 0.0f;
  const float x = g.x_of(cell.begin) + gap, w = g.x_of(cell.end) - g.x_of(cell.begin) - 2 * gap;
  fmt::format_to(
      std::back_inserter(o),
      "<g class=\"cell\" data-rank=\"{}\" data-buffer=\"{}\" data-cell=\"{}\" data-begin=\"{}\" data-end=\"{}\" "
      "data-holds=\"{}\"><title>rank {} {}[{},{}): {}</title>",
      row.rank, to_string(row.buffer), c - row.first_cell, cell.begin, cell.end, holds_text(have), row.rank,
      to_string(row.buffer), cell.begin, cell.end,
      st.written ? fmt::format("holds {} of {} ranks' contributions", have.count, cell.target) : "empty");
  if (!st.written) {
    rect(o, x, g.y, w, g.height, color(pal::empty_cell));
  } else if (shading::stripes(vm.schedule().total_ranks)) {
    const std::vector<pal::Rgb> stripes = shading::stripe_colours(shading::eventual_ranks(vm, c), have);
    const float sw = w / static_cast<float>(std::max<std::size_t>(1, stripes.size()));
    for (std::size_t i = 0; i < stripes.size(); ++i) rect(o, x + sw * static_cast<float>(i), g.y, sw, g.height, color(stripes[i]));
  } else {
    rect(o, x, g.y, w, g.height, color(shading::fill(have.count, cell.target)));
  }
  if (st.written && cell.target > 0 && w >= 30 && g.height >= 14)
    text(
        o, x + w / 2, g.y + g.height / 2 + 4, fmt::format("{}/{}", have.count, cell.target), 11, pal::text,
        "text-anchor=\"middle\" stroke=\"#000000\" stroke-opacity=\"0.6\" stroke-width=\"2.5\" paint-order=\"stroke\"");
  if (lit)
    rect(o, x - 1, g.y - 1, w + 2, g.height + 2, "none",
         fmt::format("stroke=\"{}\" stroke-width=\"2.5\" rx=\"2\"", color(pal::highlight)));
  o += "</g>\n";
}

// Cells written by step k (0-based): the ones outlined in white.
std::vector<bool> written_cells(const gui::ViewModel& vm, int k) {
  const gui::BufferHistory& h = vm.buffers();
  std::vector<bool> lit(h.cells().size(), false);
  if (k < 0) return lit;
  const auto [first, last] = step_range(vm.schedule(), k);
  for (std::uint32_t i = first; i < last; ++i) {
    const Region dst = storage_of(vm.schedule(), vm.schedule().transfers[i].destination());
    const int row = h.row_of(dst.rank, dst.buffer);
    if (row < 0) continue;
    const auto [a, b] = h.cells_in(row, dst.offset, dst.end());
    for (std::uint32_t c = a; c < b; ++c) lit[c] = true;
  }
  return lit;
}

void draw_rank_legend(std::string& o, int ranks, float y) {
  if (!shading::stripes(ranks)) {  // the shade's ramp (shading::fill), lighter holds more
    float x = kBuffersLeft + 70;
    text(o, x, y, "shade: holds none", 12, pal::text_dim);
    x += 122;
    o += "<g class=\"shade-legend\">";
    for (const pal::Rgb& c : shading::fill_ramp(8)) rect(o, x, y - 10, 10, 11, color(c)), x += 10;
    o += "</g>\n";
    text(o, x + 6, y, "all of its ranks", 12, pal::text_dim);
    return;
  }
  float x = kBuffersLeft + 70;
  for (int r = 0; r < ranks; ++r) {
    rect(o, x, y - 10, 11, 11, color(pal::rank(r)), "rx=\"2\"");
    text(o, x + 14, y, std::to_string(r), 12, pal::text_dim);
    x += 22 + (r >= 10 ? 7 : 0);
  }
}

// The rows drawn: every buffer but the inputs of ranks that have others (they never change).
std::vector<const gui::BufferRow*> shown_rows(const gui::BufferHistory& h) {
  std::vector<const gui::BufferRow*> rows;
  for (const gui::BufferRow& r : h.rows())
    if (!r.optional) rows.push_back(&r);
  return rows;
}

void draw_buffers(std::string& o, const gui::ViewModel& vm, int frame) {
  const gui::BufferHistory& h = vm.buffers();
  text(o, kBuffersLeft, kTop - 6, "Buffers", 15, pal::text, "font-weight=\"bold\"");
  draw_rank_legend(o, vm.schedule().total_ranks, kTop - 6);
  const std::vector<const gui::BufferRow*> rows = shown_rows(h);
  std::uint64_t widest = 1;
  for (const gui::BufferRow* r : rows) widest = std::max(widest, r->elements);
  const float n = static_cast<float>(std::max<std::size_t>(rows.size(), 1));
  const float pitch = std::min(34.0f, (kBottom - kTop - 8) / n), row_h = std::max(2.0f, pitch * 0.78f);
  const std::vector<bool> lit = written_cells(vm, frame - 1);
  const bool labels = pitch >= 9;
  o += "<g class=\"buffers\">\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const gui::BufferRow& row = *rows[i];
    const float y = kTop + 4 + pitch * static_cast<float>(i);
    if (shading::stripes(vm.schedule().total_ranks)) rect(o, kBuffersLeft, y, 4, row_h, color(pal::rank(row.rank)));
    if (labels)
      text(o, kBuffersLeft + 9, y + row_h / 2 + 4,
           row.buffer == BufferKind::output ? fmt::format("rank {}", row.rank)
                                            : fmt::format("rank {} {}", row.rank, to_string(row.buffer)),
           std::min(13.0f, pitch * 0.6f), pal::text);
    const RowBox g{kBuffersLeft + kLabelWidth, kBuffersRight - kBuffersLeft - kLabelWidth, y, row_h, widest};
    for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c)
      draw_cell(o, vm, row, c, g, lit[c], frame);
  }
  o += "</g>\n";
}

// --- header and footer -------------------------------------------------------------------

std::string run_line(const gui::ViewModel& vm) {
  const CollectiveSpec& spec = vm.schedule().spec;
  return fmt::format("{} with {} on {} ranks, count {}, {}, {}", to_string(spec.collective), vm.schedule().algorithm,
                     spec.ranks, spec.count, to_string(spec.dtype), to_string(spec.op));
}

std::string title_of(const gui::ViewModel& vm) {
  return vm.trace().scenario_title.empty() ? run_line(vm) : vm.trace().scenario_title;
}

// What the top of a frame says: the title, where the frame is ("3 / 6"), the caption.
struct Heading {
  std::string title, counter, caption;
};

void draw_header(std::string& o, const Heading& h) {
  text(o, 24, 30, h.title, 21, pal::text, "font-weight=\"bold\"");
  text(o, kWidth - 24, 30, h.counter, 15, pal::text_dim, "text-anchor=\"end\"");
  std::vector<std::string> lines = wrap(h.caption, kCaptionWrap);
  if (lines.size() > kMaxCaptionLines) lines.resize(kMaxCaptionLines), lines.back() += " …";
  o += "<g class=\"caption\">\n";
  for (std::size_t i = 0; i < lines.size(); ++i) text(o, 24, 54 + 19 * static_cast<float>(i), lines[i], 15, pal::text);
  o += "</g>\n";
}

void draw_footer(std::string& o) {
  const float y = kHeight - 16;
  float x = 24;
  fmt::format_to(std::back_inserter(o),  // reduce: filled neutral with "+"; copy: outlined neutral
                 "<circle cx=\"{0}\" cy=\"{1}\" r=\"6\" fill=\"{2}\" stroke=\"{7}\"/>"
                 "<path d=\"M{3} {1} H{4} M{0} {5} V{6}\" stroke=\"{7}\" stroke-width=\"1.5\"/>",
                 num(x + 6), num(y - 4), color(pal::packet), num(x + 3), num(x + 9), num(y - 7), num(y - 1),
                 color(pal::packet_ink));
  text(o, x + 16, y, "reduce (adds into the receiver)", 12, pal::text_dim);
  x += 220;
  rect(o, x, y - 10, 12, 12, color(pal::packet_hollow), fmt::format("rx=\"2\" stroke=\"{}\" stroke-width=\"1.5\"", color(pal::packet)));
  text(o, x + 18, y, "copy (overwrites)", 12, pal::text_dim);
  x += 140;
  text(o, x, y,
       "number = chunk, colour = rank (arrow: sender). Cells: a stripe per rank, filled once its data arrives; "
       "white outline: written now.",
       12, pal::text_dim);
}

// "0→1 chunk 3 (reduce)" for the first few transfers of a step.
std::string step_summary(const Schedule& s, int k) {
  const auto [first, last] = step_range(s, k);
  const std::uint32_t n = last - first, shown = std::min<std::uint32_t>(n, 4);
  std::string list;
  for (std::uint32_t i = first; i < first + shown; ++i) {
    const Transfer& t = s.transfers[i];
    list += fmt::format("{}{}→{} chunk {} ({})", i == first ? "" : ", ", t.src, t.dst, t.chunk, to_string(t.action));
  }
  if (shown < n) list += fmt::format(" and {} more", n - shown);
  return fmt::format("{} transfer{}: {}.", n, n == 1 ? "" : "s", list);
}

// The frames' names sort in order: step-00 (the start), step-01, ...
int digits(int steps) { return std::max(2, static_cast<int>(std::to_string(steps).size())); }

std::string js_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '<':
        out += "\\u003c";
        break;  // never "</script>" inside the script
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

// The start of every frame's SVG, its background drawn.
std::string svg_open(const std::string& svg_title) {
  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"{2}\">\n"
      "<title>{3}</title>\n",
      kWidth, kHeight, kFont, xml_escape(svg_title));
  rect(o, 0, 0, kWidth, kHeight, color(pal::background));
  return o;
}

// A frame of a collective's step: the scene and the buffers after `frame` steps of the
// view model's collective, under `heading`.
std::string step_svg(const gui::ViewModel& vm, int frame, const Heading& heading, const std::string& svg_title) {
  std::string o = svg_open(svg_title);
  rect(o, kSceneLeft - 4, kTop - 24, kSceneRight - kSceneLeft + 8, kBottom - kTop + 30, color(pal::panel), "rx=\"6\"");
  rect(o, kBuffersLeft - 8, kTop - 24, kBuffersRight - kBuffersLeft + 14, kBottom - kTop + 30, color(pal::panel),
       "rx=\"6\"");
  draw_header(o, heading);
  draw_scene(o, vm, frame);
  draw_buffers(o, vm, frame);
  draw_footer(o);
  return o + "</svg>\n";
}

// `lesson`: the counter numbers frames from 1 ("frame 3 / 8"); else frame k is step k
// ("step 0 / 6" is the start).
std::string index_page(const std::string& title, const std::string& run, const std::string& description,
                       const std::string& contents, const std::vector<Frame>& frames, bool lesson) {
  std::string list, links;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    list += fmt::format("{}\n  {{file: {}, caption: {}}}", i == 0 ? "" : ",", js_string(frames[i].file),
                        js_string(frames[i].caption));
    links += fmt::format("    <li><a href=\"{0}\">{0}</a>: {1}</li>\n", xml_escape(frames[i].file),
                         xml_escape(frames[i].caption));
  }
  return fmt::format(
      R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — collsim storyboard</title>
<style>
  body {{ background: {bg}; color: {fg}; font-family: {font}; margin: 0 auto; max-width: 1300px; padding: 12px; }}
  h1 {{ font-size: 1.3em; margin: 4px 0; }}
  p.run {{ color: {dim}; margin: 2px 0 8px; }}
  details p {{ white-space: pre-line; }}
  #frame {{ width: 100%; height: auto; display: block; border-radius: 6px; }}
  nav {{ display: flex; gap: 8px; align-items: center; margin: 8px 0; }}
  button {{ background: #38425a; color: {fg}; border: 1px solid #556; border-radius: 4px; padding: 6px 14px; font-size: 1em; cursor: pointer; }}
  button:disabled {{ opacity: 0.4; cursor: default; }}
  #counter {{ min-width: 5em; text-align: center; }}
  #caption {{ font-size: 1.05em; }}
  details {{ color: {dim}; margin-top: 10px; }}
  a {{ color: #56b4e9; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p class="run">{run}</p>
<nav>
  <button id="first" title="first (Home)" aria-label="first"><svg viewBox="0 0 24 24" width="18" height="18"><rect x="4" y="5" width="3" height="14" fill="currentColor"/><path d="M20 5v14L8 12z" fill="currentColor"/></svg></button>
  <button id="prev" title="previous (←)">◀ previous</button>
  <span id="counter"></span>
  <button id="next" title="next (→ or space)">next ▶</button>
  <button id="last" title="last (End)" aria-label="last"><svg viewBox="0 0 24 24" width="18" height="18"><path d="M4 5v14l12-7z" fill="currentColor"/><rect x="17" y="5" width="3" height="14" fill="currentColor"/></svg></button>
</nav>
<img id="frame" src="{first}" alt="">
<p id="caption"></p>
{description}{contents}<details>
  <summary>All {count} frames</summary>
  <ol start="0">
{links}  </ol>
</details>
<script>
// Plays the frames: buttons, arrow keys, and #N in the address to link to frame N.
const frames = [{list}
];
let current = 0;
function show(i) {{
  current = Math.max(0, Math.min(frames.length - 1, i));
  document.getElementById("frame").src = frames[current].file;
  document.getElementById("frame").alt = frames[current].caption;
  document.getElementById("caption").textContent = frames[current].caption;
  document.getElementById("counter").textContent = {counter};
  document.getElementById("prev").disabled = document.getElementById("first").disabled = current === 0;
  document.getElementById("next").disabled = document.getElementById("last").disabled = current === frames.length - 1;
  history.replaceState(null, "", "#" + current);
}}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(current - 1);
document.getElementById("next").onclick = () => show(current + 1);
document.getElementById("last").onclick = () => show(frames.length - 1);
document.addEventListener("keydown", (e) => {{
  if (e.key === "ArrowRight" || e.key === "PageDown" || e.key === " ") show(current + 1);
  else if (e.key === "ArrowLeft" || e.key === "PageUp") show(current - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(frames.length - 1);
  else return;
  e.preventDefault();
}});
window.addEventListener("hashchange", () => show(parseInt(location.hash.slice(1), 10) || 0));
show(parseInt(location.hash.slice(1), 10) || 0);
</script>
</body>
</html>
)HTML",
      fmt::arg("title", xml_escape(title)), fmt::arg("run", xml_escape(run)), fmt::arg("contents", contents),
      fmt::arg("bg", color(pal::background)), fmt::arg("fg", color(pal::text)), fmt::arg("dim", color(pal::text_dim)),
      fmt::arg("font", kFont), fmt::arg("first", xml_escape(frames.empty() ? "" : frames[0].file)),
      fmt::arg("description",
               description.empty()
                   ? ""
                   : fmt::format("<details open>\n  <summary>About this lesson</summary>\n  <p>{}</p>\n</details>\n",
                                 xml_escape(description))),
      fmt::arg("count", frames.size()), fmt::arg("links", links), fmt::arg("list", list),
      fmt::arg("counter", lesson ? R"("frame " + (current + 1) + " / " + frames.length)" : R"("step " + current + " / " + (frames.length - 1))"));
}


}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 (except tab and newline).
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

void check_drawable(const Schedule& s, const std::string& source) {
  if (s.total_ranks > kMaxRanks)
    throw InputError(
        fmt::format("{}: {} ranks are too many to draw legibly (a storyboard draws at most {}); use fewer --ranks",
                    source, s.total_ranks, kMaxRanks));
  if (s.step_count() > kMaxSteps)
    throw InputError(
        fmt::format("{}: {} steps would make {} SVG files (at most {} steps); use fewer --ranks or --slices", source,
                    s.step_count(), s.step_count() + 1, kMaxSteps));
}

std::string frame_file(const gui::ViewModel& vm, int frame) {
  return fmt::format("step-{:0{}}.svg", frame, digits(vm.step_count()));
}

std::string frame_caption(const gui::ViewModel& vm, int frame) {
  const Schedule& s = vm.schedule();
  const int steps = s.step_count();
  if (frame == 0)
    return steps == 0 ? gui::no_steps_caption() : gui::start_caption(s) + ".";
  const std::string what = fmt::format("Step {}/{}: {}. {}", frame, steps,
                                       s.step_labels[static_cast<std::size_t>(frame - 1)], step_summary(s, frame - 1));
  return frame == steps ? what + " Done: every output holds its result." : what;
}

std::string frame_svg(const gui::ViewModel& vm, int frame) {
  return step_svg(vm, frame,
                  {title_of(vm), fmt::format("{} / {}", frame, vm.step_count()), frame_caption(vm, frame)},
                  fmt::format("{}: {} of {}", title_of(vm), frame, vm.step_count()));
}

namespace {

// busbw.svg: the run's busbw against size, when sim's size_curve gives one.
std::optional<Frame> size_curve_frame(const gui::ViewModel& vm) {
  const gui::SizeCurvePlot curve = gui::size_curve_plot(vm.trace());
  if (!curve.plot) return std::nullopt;
  return Frame{"busbw.svg",
               fmt::format("busbw against size, predicted on this topology; this run: {}",
                           format_bytes(static_cast<double>(curve.run_bytes))),
               bench_plot_svg(*curve.plot)};
}

// The curve under the player, folded: a reader opens it to see where this run's size sits.
std::string size_curve_section(const Frame& f) {
  return fmt::format("<details class=\"size-curve\">\n  <summary>{}</summary>\n  <img src=\"{}\" alt=\"{}\" "
                     "style=\"width: 100%; height: auto;\">\n</details>\n",
                     xml_escape(f.caption), xml_escape(f.file), xml_escape(f.caption));
}

}  // namespace

std::string index_html(const gui::ViewModel& vm, const std::vector<Frame>& frames) {
  return index_page(title_of(vm), run_line(vm), vm.trace().scenario_description, "", frames, false);
}


Storyboard make_storyboard(const gui::ViewModel& vm) { return make_storyboard(vm, {}); }

Storyboard make_storyboard(const gui::ViewModel& vm, std::span<const std::string> captions) {
  check_drawable(vm.schedule(), "storyboard");
  const std::size_t frames = static_cast<std::size_t>(vm.step_count()) + 1;
  if (vm.buffers().cells().size() * frames > kMaxCellsDrawn)
    throw InputError(fmt::format(
        "storyboard: {} buffer cells in each of {} frames are too many to draw; use fewer --ranks or --slices",
        vm.buffers().cells().size(), frames));
  Storyboard b;
  for (int k = 0; k <= vm.step_count(); ++k) {
    const std::size_t i = static_cast<std::size_t>(k);
    if (i >= captions.size() || captions[i].empty()) {
      b.frames.push_back({frame_file(vm, k), frame_caption(vm, k), frame_svg(vm, k)});
      continue;
    }
    // The step and its label (as the app's caption line), then the file's words for it.
    const std::string caption = k == 0 ? captions[i]
                                       : fmt::format("Step {}/{}: {}. {}", k, vm.step_count(),
                                                     vm.schedule().step_labels[static_cast<std::size_t>(k - 1)], captions[i]);
    b.frames.push_back({frame_file(vm, k), caption,
                        step_svg(vm, k, {title_of(vm), fmt::format("{} / {}", k, vm.step_count()), caption},
                                 fmt::format("{}: {} of {}", title_of(vm), k, vm.step_count()))});
  }
  b.size_curve = size_curve_frame(vm);
  b.index_html = index_page(title_of(vm), run_line(vm), vm.trace().scenario_description,
                            b.size_curve ? size_curve_section(*b.size_curve) : "", b.frames, false);
  return b;
}

// --- lessons ---------------------------------------------------------------------------------

namespace {

std::string lesson_title(const Scenario& s) {
  return s.title.empty() ? std::filesystem::path(s.source).filename().string() : s.title;
}

// A compute phase as a card: one bar per rank, as long as its compute time.
std::string compute_svg(const Scenario& s, const ProgramResult& p, const LessonFacts& f, std::size_t k) {
  const Phase& phase = s.phases[k];
  const PhaseRun& pr = p.phases[k];
  const std::string counter = fmt::format("phase {}/{}", k + 1, s.phases.size());
  std::string o = svg_open(fmt::format("{}: {} ({})", lesson_title(s), phase.name, counter));
  rect(o, kSceneLeft - 4, kTop - 24, kBuffersRight - kSceneLeft + 10, kBottom - kTop + 30, color(pal::panel),
       "rx=\"6\"");
  const std::string caption = shown_caption(s, f, k, Schedule{}, 0);
  draw_header(o, {lesson_title(s), counter, caption.empty() ? phase.name : phase.name + ": " + caption});
  text(o, kSceneLeft + 4, kTop - 6,
       "compute: timed only (no data moves); each rank is busy for its time on its compute stream", 12, pal::text_dim);
  const int ranks = p.total_ranks;
  double longest = 0;
  for (double us : phase.compute_us) longest = std::max(longest, us);
  const float row_h = std::min(36.0f, (kBottom - kTop - 10) / static_cast<float>(std::max(ranks, 1)));
  const float bar_left = kSceneLeft + 90, bar_width = kBuffersRight - bar_left - 260;
  o += "<g class=\"compute\">\n";
  for (int r = 0; r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const double us = i < phase.compute_us.size() ? phase.compute_us[i] : 0.0;
    const float y = kTop + 10 + row_h * static_cast<float>(r);
    fmt::format_to(std::back_inserter(o), "<g class=\"rank\" data-rank=\"{}\" data-us=\"{}\">", r, us);
    text(o, kSceneLeft + 8, y + row_h * 0.65f, fmt::format("rank {}", r), std::min(14.0f, row_h * 0.7f), pal::text);
    const float w = longest > 0 ? bar_width * static_cast<float>(us / longest) : 0;
    if (us > 0) rect(o, bar_left, y + row_h * 0.15f, std::max(w, 2.0f), row_h * 0.7f, color(pal::rank(r)), "rx=\"3\"");
    const std::string when = pr.rank_begin_ns.size() > i && pr.rank_begin_ns[i] >= 0
                                 ? fmt::format(" (predicted {:.1f} → {:.1f} µs)", pr.rank_begin_ns[i] / 1000,
                                               pr.rank_end_ns[i] / 1000)
                                 : "";
    text(o, bar_left + w + 8, y + row_h * 0.65f, us > 0 ? fmt::format("{:.1f} µs{}", us, when) : std::string("idle"),
         std::min(13.0f, row_h * 0.65f), pal::text_dim);
    o += "</g>\n";
  }
  o += "</g>\n";
  return o + "</svg>\n";
}

}  // namespace

Storyboard make_lesson_storyboard(const Scenario& s, const ProgramResult& p, const LessonFacts& f,
                                  std::span<const gui::ViewModel* const> views) {
  if (views.size() != s.phases.size() || p.phases.size() != s.phases.size())
    throw std::logic_error("make_lesson_storyboard: one view (or nullptr) per phase");
  if (p.total_ranks > kMaxRanks)
    throw InputError(fmt::format("{}: {} ranks are too many to draw legibly (a storyboard draws at most {}); use fewer "
                                 "--ranks",
                                 s.source, p.total_ranks, kMaxRanks));
  int most_steps = 0;
  std::size_t frames = 0, cells = 0;
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const int steps = views[k] ? p.phases[k].schedule.step_count() : 1;
    most_steps = std::max(most_steps, steps);
    frames += static_cast<std::size_t>(steps);
    if (views[k]) cells += views[k]->buffers().cells().size() * static_cast<std::size_t>(steps);
  }
  if (frames > static_cast<std::size_t>(kMaxSteps))
    throw InputError(fmt::format("{}: {} frames (steps and compute phases) would make as many SVG files (at most {})",
                                 s.source, frames, kMaxSteps));
  if (cells > kMaxCellsDrawn)
    throw InputError(fmt::format("{}: {} buffer cells over all frames are too many to draw; use fewer --ranks",
                                 s.source, cells));

  const int phase_digits = digits(static_cast<int>(s.phases.size())), step_digits = digits(most_steps);
  const std::string title = lesson_title(s);
  Storyboard b;
  std::string contents = "<details open>\n  <summary>Phases</summary>\n  <ol>\n";
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const Phase& phase = s.phases[k];
    const PhaseRun& pr = p.phases[k];
    const std::string caption = shown_caption(s, f, k, pr.schedule, 0);
    const std::string kind = views[k] ? fmt::format("{} with {}, {} step{}", to_string(pr.schedule.spec.collective),
                                                    pr.schedule.algorithm, pr.schedule.step_count(),
                                                    pr.schedule.step_count() == 1 ? "" : "s")
                                      : std::string("compute");
    contents += fmt::format("    <li><a href=\"#{}\">{}</a> ({}){}</li>\n", b.frames.size(), xml_escape(phase.name),
                            xml_escape(kind), caption.empty() ? "" : ": " + xml_escape(caption));
    if (!views[k]) {
      b.frames.push_back({fmt::format("phase-{:0{}}-compute.svg", k + 1, phase_digits),
                          fmt::format("{}: {}", phase.name, caption.empty() ? "compute" : caption),
                          compute_svg(s, p, f, k)});
      continue;
    }
    // The phase's step j is step offset + j of its collective, whose view model draws it.
    const int offset = phase.first_step > 0 ? phase.first_step - 1 : 0;
    const int steps = pr.schedule.step_count();
    for (int j = 1; j <= steps; ++j) {
      const std::string counter = fmt::format("phase {}/{} · step {}/{}", k + 1, s.phases.size(), j, steps);
      // The phase's name and the step, its label, then the file's own words for it (as the
      // app's caption line over its narration); without them, the step's label alone.
      const std::string shown = shown_caption(s, f, k, pr.schedule, j);
      const std::size_t at = static_cast<std::size_t>(j - 1);  // (the phase's own schedule: its steps only)
      const std::string label = at < pr.schedule.step_labels.size() ? pr.schedule.step_labels[at] : std::string();
      const bool words = !shown.empty() && !label.empty() && shown != label;
      const std::string text = words ? fmt::format("{}, step {}/{}: {}. {}", phase.name, j, steps, label, shown)
                                     : fmt::format("{}, step {}/{}: {}", phase.name, j, steps, shown.empty() ? label : shown);
      b.frames.push_back({fmt::format("phase-{:0{}}-step-{:0{}}.svg", k + 1, phase_digits, j, step_digits), text,
                          step_svg(*views[k], offset + j, {title, counter, text},
                                   fmt::format("{}: {} ({})", title, phase.name, counter))});
    }
  }
  contents += "  </ol>\n</details>\n";
  const std::string run =
      fmt::format("{} phase{} on {} ranks{}", s.phases.size(), s.phases.size() == 1 ? "" : "s", p.total_ranks,
                  p.predicted ? fmt::format(", predicted {}", format_duration_ns(p.total_ns)) : "");
  b.index_html = index_page(title, run, lesson_description(s, f), contents, b.frames, true);
  return b;
}

}  // namespace collsim::storyboard
