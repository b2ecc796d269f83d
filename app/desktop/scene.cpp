// The scene: ranks laid out as the view model places them (the algorithm's shape, or the
// topology's where the run chose it: layout.h), links coloured by the traffic they carried so
// far, and the packets in flight — in one neutral, a filled disc with a "+" for a reduce,
// an outlined square for a copy, the chunk number in them when there is room, their trail
// in the sender's colour (colour means rank, palette.h). Drawn on the window's draw list in screen coordinates, with an
// InvisibleButton over the canvas for hovering (imgui_demo's Canvas).
#include <algorithm>
#include <cfloat>
#include <vector>
#include <cmath>

#include <fmt/format.h>

#include "app/desktop/app.h"
#include "app/views/shading.h"

namespace collsim::gui {
namespace {

constexpr std::size_t kMaxPacketsDrawn = 6000;
constexpr std::size_t kMaxArrowsDrawn = 3000;
constexpr std::size_t kMaxLinkLabels = 24;
constexpr std::size_t kManyLinks = 128;   // beyond: links drawn coarse (draw_links)
constexpr std::size_t kTooManyLinks = 512;  // beyond: not drawn at all (the packets show each step's pairs)

// Unit layout coordinates to the canvas.
struct Canvas {
  ImVec2 centre;
  float scale = 1;
  ImVec2 at(Vec2 p) const { return ImVec2(centre.x + p.x * scale, centre.y + p.y * scale); }
};

// The scale and centre that fit the layout's nodes (and their discs) into [lo, hi].
Canvas fit(const Layout& l, ImVec2 lo, ImVec2 hi) {
  Vec2 a{1e9f, 1e9f}, b{-1e9f, -1e9f};
  for (const Vec2& n : l.nodes) a = {std::min(a.x, n.x), std::min(a.y, n.y)}, b = {std::max(b.x, n.x), std::max(b.y, n.y)};
  for (const NodeBox& box : l.boxes)
    a = {std::min(a.x, box.min.x), std::min(a.y, box.min.y)}, b = {std::max(b.x, box.max.x), std::max(b.y, box.max.y)};
  // The links' curves too (a tree's edge bent around a row of leaves), where the packets on
  // them pass half-way, in both directions' lanes.
  if (l.links.size() <= kTooManyLinks)
    for (const auto& [i, j] : l.links)
      for (const std::vector<int>& way : {std::vector<int>{i, j}, std::vector<int>{j, i}}) {
        if (is_straight(l, way, true)) continue;
        const Vec2 m = point_along(l, way, 0.5f, true);
        const float r = packet_radius(l);
        a = {std::min(a.x, m.x - r), std::min(a.y, m.y - r)}, b = {std::max(b.x, m.x + r), std::max(b.y, m.y + r)};
      }
  const float pad = l.rank_radius * 1.3f;
  if (l.nodes.empty()) a = {-1, -1}, b = {1, 1};
  a = {a.x - pad, a.y - pad}, b = {b.x + pad, b.y + pad};
  const float w = std::max(b.x - a.x, 0.4f), h = std::max(b.y - a.y, 0.4f);
  Canvas cv;
  cv.scale = std::max(10.0f, std::min((hi.x - lo.x) / w, (hi.y - lo.y) / h));
  const ImVec2 mid((lo.x + hi.x) / 2, (lo.y + hi.y) / 2);
  cv.centre = ImVec2(mid.x - (a.x + b.x) / 2 * cv.scale, mid.y - (a.y + b.y) / 2 * cv.scale);
  return cv;
}

void dashed_line(ImDrawList* d, ImVec2 a, ImVec2 b, ImU32 col, float width) {
  const float len = std::hypot(b.x - a.x, b.y - a.y), dash = 7;
  for (float f = 0; f < len; f += 2 * dash) {
    const float g = std::min(f + dash, len);
    d->AddLine(ImVec2(a.x + (b.x - a.x) * f / len, a.y + (b.y - a.y) * f / len),
               ImVec2(a.x + (b.x - a.x) * g / len, a.y + (b.y - a.y) * g / len), col, width);
  }
}

void centred_text(ImDrawList* d, ImFont* font, float size, ImVec2 c, ImU32 col, const char* text) {
  const ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, text);
  d->AddText(font, size, ImVec2(c.x - ts.x / 2, c.y - ts.y / 2), col, text);
}

// The largest total any link carries by the end: link heat is relative to it.
double busiest_link(const ViewModel& vm) {
  const std::vector<double>& totals = vm.link_totals();
  return totals.empty() ? 0.0 : *std::max_element(totals.begin(), totals.end());
}

void draw_boxes(ImDrawList* d, App& app, const Pane& run, const Canvas& cv) {
  ImFont* f = app.fonts.small;
  for (const NodeBox& b : run.model.layout().boxes) {
    d->AddRect(cv.at(b.min), cv.at(b.max), colors::grid, 8.0f, 0, 1.5f);
    const ImVec2 at(cv.at(b.min).x + 6, cv.at(b.min).y + 4), ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, b.label.c_str());
    d->AddText(f, f->FontSize, at, colors::text_dim, b.label.c_str());
    app.shapes.push_back({ShapeKind::label, b.label, {at.x, at.y, ts.x, ts.y}, std::nullopt, run.side});
  }
}

// Points along `path` from fraction f0 to f1 of the way, as the packets travel it.
// `on_lane`: a packet's own lane (point_along), for what travels one direction.
// `coarse`: one point per 24 pixels, at most 6 (the many links of an all-pairs pattern:
// 2 016 chords at 64 ranks, where smoothness is lost in the crowd and vertices are not).
void sample_path(const Layout& l, const std::vector<int>& path, const Canvas& cv, float f0, float f1,
                 std::vector<ImVec2>& out, bool on_lane = false, bool coarse = false) {
  out.clear();
  const bool straight = is_straight(l, path, on_lane);
  // About one point per 6 pixels of the way: smooth curves, few vertices with many ranks.
  const ImVec2 a = cv.at(l.nodes[static_cast<std::size_t>(path.front())]), b = cv.at(l.nodes[static_cast<std::size_t>(path.back())]);
  const float px = std::hypot(b.x - a.x, b.y - a.y) * (f1 - f0) * 1.3f;
  const int n = straight ? 1 : coarse ? std::clamp(static_cast<int>(px / 24), 2, 6) : std::clamp(static_cast<int>(px / 6), 2, 32);
  for (int i = 0; i <= n; ++i)
    out.push_back(cv.at(point_along(l, path, f0 + (f1 - f0) * static_cast<float>(i) / static_cast<float>(n), on_lane)));
}

void draw_links(ImDrawList* d, const App& app, const Pane& run, const Canvas& cv, float rank_px) {
  const ViewModel& vm = run.model;
  const Layout& l = vm.layout();
  const double busiest = busiest_link(vm);
  const float max_w = std::clamp(rank_px * 0.5f, 2.0f, 9.0f);
  // A topology's few links carry their bytes so far (the timing model's routes).
  const bool labels = l.topology && l.links.size() <= kMaxLinkLabels;
  // Hundreds of links (all pairs beyond 16 ranks): coarse curves without anti-aliasing's
  // fringe; llvmpipe's time goes with the vertices and the overdraw at the circle's centre.
  const bool many = l.links.size() > kManyLinks;
  // Thousands (all pairs of 64 ranks: 2 016) are a grey disc that says nothing and costs
  // llvmpipe 15 ms a frame in overdraw: left out, and the scene's first line says so.
  if (l.links.size() > kTooManyLinks) return;
  const ImDrawListFlags flags = d->Flags;
  if (many) d->Flags &= ~ImDrawListFlags_AntiAliasedLines;
  std::vector<ImVec2> pts;
  for (std::size_t i = 0; i < l.links.size(); ++i) {
    const float heat = app.toggles.link_heat && busiest > 0 ? static_cast<float>(run.now.link_bytes[i] / busiest) : 0.0f;
    const bool second_tree = i < l.link_tree.size() && l.link_tree[i] > 0;
    const ImU32 col = app.toggles.link_heat ? heat_color(heat) : second_tree ? colors::second_tree : colors::grid;
    sample_path(l, {l.links[i].first, l.links[i].second}, cv, 0.0f, 1.0f, pts, false, many);
    if (second_tree)  // another style: dashed, so that both trees read at once
      for (std::size_t j = 0; j + 1 < pts.size(); ++j) dashed_line(d, pts[j], pts[j + 1], col, 1.5f + (max_w - 1.5f) * heat);
    else
      d->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, 0, (many ? 1.0f : 1.5f) + (max_w - 1.5f) * heat);
    if (labels && run.now.link_bytes[i] > 0)
      centred_text(d, app.fonts.small, app.fonts.small->FontSize, pts[pts.size() / 2], colors::text_dim,
                   format_bytes(run.now.link_bytes[i]).c_str());
  }
  d->Flags = flags;
}

// Arranged by both: the topology's wires under the pattern, thin and dotted, with no traffic
// of their own (the pattern's links carry the packets and the heat).
void draw_wires(ImDrawList* d, const Pane& run, const Canvas& cv) {
  const Layout& l = run.model.layout();
  for (const auto& [a, b] : l.wires)
    dashed_line(d, cv.at(l.nodes[static_cast<std::size_t>(a)]), cv.at(l.nodes[static_cast<std::size_t>(b)]),
                colors::wire, 1.2f);
}

Box box_around(ImVec2 c, float half_w, float half_h) { return {c.x - half_w, c.y - half_h, 2 * half_w, 2 * half_h}; }

// A hub (a switch, the network) as a box wide enough for its name, the name in it.
void draw_hubs(ImDrawList* d, App& app, const Pane& run, const Canvas& cv, float rank_px) {
  const Layout& l = run.model.layout();
  ImFont* f = app.fonts.small;
  for (int h = 0; h < l.hub_count(); ++h) {
    const ImVec2 c = cv.at(l.nodes[static_cast<std::size_t>(l.ranks + h)]);
    const std::string& name = l.hub_labels[static_cast<std::size_t>(h)];
    const ImVec2 ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, name.c_str());
    const float w = std::max({rank_px * 1.6f, 34.0f, ts.x / 2 + 8}), hh = std::max({rank_px * 0.8f, 14.0f, ts.y / 2 + 4});
    d->AddRectFilled(ImVec2(c.x - w, c.y - hh), ImVec2(c.x + w, c.y + hh), IM_COL32(58, 64, 78, 255), 6.0f);
    d->AddRect(ImVec2(c.x - w, c.y - hh), ImVec2(c.x + w, c.y + hh), colors::text_dim, 6.0f, 0, 1.5f);
    centred_text(d, f, f->FontSize, c, colors::text, name.c_str());
    const Box hub = box_around(c, w, hh);
    app.shapes.push_back({ShapeKind::hub, name, hub, std::nullopt, run.side});
    app.shapes.push_back({ShapeKind::label, name, box_around(c, ts.x / 2, ts.y / 2), hub, run.side});
  }
}

// An arrow along a path, for the transfers of the step just done (nothing is moving).
void draw_arrow(ImDrawList* d, const std::vector<ImVec2>& pts, ImU32 col, float head) {
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) d->AddLine(pts[i], pts[i + 1], col, 2.0f);
  const ImVec2 a = pts[pts.size() - 2], b = pts.back();
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len < 1) return;
  const ImVec2 u((b.x - a.x) / len, (b.y - a.y) / len), n(-u.y, u.x);
  d->AddTriangleFilled(b, ImVec2(b.x - u.x * head + n.x * head * 0.5f, b.y - u.y * head + n.y * head * 0.5f),
                       ImVec2(b.x - u.x * head - n.x * head * 0.5f, b.y - u.y * head - n.y * head * 0.5f), col);
}

void draw_recent_arrows(ImDrawList* d, const Pane& run, const Canvas& cv, float rank_px) {
  const ViewModel& vm = run.model;
  if (!run.now.in_flight.empty()) return;
  std::size_t drawn = 0;
  std::vector<ImVec2> pts;
  for (std::uint32_t i : run.now.highlighted) {
    const auto path = vm.path_of(i);
    if (path.size() < 2 || ++drawn > kMaxArrowsDrawn) continue;
    const std::vector<int> nodes(path.begin(), path.end());
    // From the edge of the sender's disc to the edge of the receiver's.
    const float total = std::max(1.0f, std::hypot(cv.at(vm.layout().nodes[static_cast<std::size_t>(nodes.front())]).x -
                                                      cv.at(vm.layout().nodes[static_cast<std::size_t>(nodes.back())]).x,
                                                  cv.at(vm.layout().nodes[static_cast<std::size_t>(nodes.front())]).y -
                                                      cv.at(vm.layout().nodes[static_cast<std::size_t>(nodes.back())]).y));
    const float trim = std::min(0.3f, rank_px * 1.2f / total);
    sample_path(vm.layout(), nodes, cv, trim, 1.0f - trim, pts, true);  // on its lane: both directions show
    const int sender = vm.schedule().transfers[i].src;  // the sender's colour: colour means rank
    draw_arrow(d, pts, to_u32(shading::rank_fill(sender, vm.layout().ranks), 0.7f), std::max(8.0f, rank_px * 0.5f));
  }
}

// The "+" of a reduce, in a disc of radius r at c.
void draw_plus(ImDrawList* d, ImVec2 c, float r, ImU32 ink, float width) {
  d->AddLine(ImVec2(c.x - r * 0.55f, c.y), ImVec2(c.x + r * 0.55f, c.y), ink, width);
  d->AddLine(ImVec2(c.x, c.y - r * 0.55f), ImVec2(c.x, c.y + r * 0.55f), ink, width);
}

// A packet's words in it (the view model's packet_text: "+3" in a reduce adds chunk 3,
// "1,3,5,7" four blocks travelling together), when they fit its half width w.
void draw_packet_label(ImDrawList* d, ImFont* f, ImVec2 at, float w, float r, ImU32 ink, bool reduce, std::string s) {
  const float size = std::min(f->FontSize, r * 1.15f);
  ImVec2 ts = f->CalcTextSizeA(size, FLT_MAX, 0, s.c_str());
  if (ts.x > w * 1.8f && s[0] == '+') s.erase(0, 1), ts = f->CalcTextSizeA(size, FLT_MAX, 0, s.c_str());  // the shape says reduce
  if (size >= 8 && ts.x <= w * 1.8f) {
    d->AddText(f, size, ImVec2(at.x - ts.x / 2, at.y - ts.y / 2), ink, s.c_str());
  } else if (reduce && r >= 5) {  // no room for the number: the "+" alone
    draw_plus(d, at, r, ink, 2.0f);
  }
}

// A reduce is filled (it adds into the receiver), a copy outlined (it overwrites): a disc
// and a square for one chunk, a pill as wide as its words for blocks travelling together;
// `alpha` < 1: queued, not yet on its way.
// A packet's half width: its radius, or a pill's as wide as its words.
float packet_half_width(const App& app, float r, bool several, const std::string& words) {
  ImFont* f = app.fonts.small;
  return several ? std::max(r, f->CalcTextSizeA(std::min(f->FontSize, r * 1.15f), FLT_MAX, 0, words.c_str()).x * 0.5f + r * 0.45f) : r;
}

void draw_packet_shape(ImDrawList* d, const App& app, ImVec2 at, float r, bool reduce, bool several, const std::string& words,
                       float alpha) {
  const ImU32 neutral = to_u32(palette::packet, alpha), ink = to_u32(palette::packet_ink, alpha),
              hollow = to_u32(palette::packet_hollow, alpha);
  ImFont* f = app.fonts.small;
  const float w = packet_half_width(app, r, several, words);
  const ImVec2 lo(at.x - w, at.y - r), hi(at.x + w, at.y + r);
  if (reduce) {
    if (several) {
      d->AddRectFilled(lo, hi, neutral, r);
      d->AddRect(lo, hi, ink, r, 0, 1.5f);
    } else {
      d->AddCircleFilled(at, r, neutral);
      d->AddCircle(at, r, ink, 0, 1.5f);
    }
    draw_packet_label(d, f, at, w, r, ink, true, words);
  } else {
    d->AddRectFilled(lo, hi, hollow, r * 0.3f);
    d->AddRect(lo, hi, neutral, r * 0.3f, 0, std::max(1.5f, r * 0.18f));
    draw_packet_label(d, f, at, w, r, neutral, false, words);
  }
}

// The packets where the view model puts them (ViewModel::packet_spots): in flight along
// their lanes with a trail in the sender's colour behind, queued ones faded beside their
// senders.
// A packet drawn: where, how large, and its words.
struct PacketMark {
  const PacketSpot* spot;
  ImVec2 at;
  float r, half_w;
  bool several;
  std::string words;
};

// Where the packets go this frame: radius `r` (queued ones smaller), recorded in app.shapes
// so that the labels keep off them.
std::vector<PacketMark> place_packets(App& app, const Pane& run, const Canvas& cv, const std::vector<PacketSpot>& spots, float r) {
  const ViewModel& vm = run.model;
  std::vector<PacketMark> marks;
  marks.reserve(spots.size());
  for (const PacketSpot& p : spots) {
    const bool several = vm.clock(run.now.clock).group_labels.contains(p.transfer);  // the first of a group
    PacketMark m{&p, cv.at(p.at), r, 0, several, vm.packet_text(run.now.clock, p.transfer)};  // queued: faded, not smaller
    m.half_w = packet_half_width(app, m.r, several, m.words);
    app.shapes.push_back({ShapeKind::packet, m.words, box_around(m.at, m.half_w, m.r), std::nullopt, run.side});
    marks.push_back(std::move(m));
  }
  return marks;
}

void draw_packets(ImDrawList* d, const App& app, const Pane& run, const Canvas& cv, const std::vector<PacketMark>& marks) {
  const ViewModel& vm = run.model;
  const Layout& l = vm.layout();
  std::vector<ImVec2> trail;
  std::vector<int> nodes;
  for (const PacketMark& m : marks) {
    const PacketSpot& p = *m.spot;
    const Transfer& t = vm.schedule().transfers[p.transfer];
    const ImVec2 at = m.at;
    const float r = m.r;
    if (!p.queued) {
      const auto path = vm.path_of(p.transfer);
      nodes.assign(path.begin(), path.end());
      trail.clear();
      constexpr int kTrailPoints = 12;
      const float from = std::max(0.0f, p.progress - 0.35f);
      for (int i = 0; i <= kTrailPoints; ++i)
        trail.push_back(cv.at(point_along(l, nodes, packet_way(l, nodes, from + (p.progress - from) * static_cast<float>(i) / kTrailPoints), true)));
      trail.back() = at;
      d->AddPolyline(trail.data(), static_cast<int>(trail.size()), to_u32(shading::rank_fill(t.src, l.ranks), 0.55f), 0,
                     std::max(1.5f, r * 0.4f));
    }
    draw_packet_shape(d, app, at, r, reduces(t.action), m.several, m.words, p.queued ? 0.5f : 1.0f);
  }
}

void draw_rank(ImDrawList* d, App& app, const Pane& run, ImVec2 c, int rank, float rank_px) {
  const Layout& l = run.model.layout();
  const bool server = l.is_server[static_cast<std::size_t>(rank)];
  const ImU32 fill = to_u32(shading::rank_fill(rank, l.ranks));
  const char* label_text = nullptr;
  const std::string label = fmt::format("{}", rank);
  if (server) {
    const float s = rank_px * 1.15f;
    d->AddRectFilled(ImVec2(c.x - s, c.y - s), ImVec2(c.x + s, c.y + s), fill, s * 0.25f);
    d->AddRect(ImVec2(c.x - s, c.y - s), ImVec2(c.x + s, c.y + s), colors::server, s * 0.25f, 0, 2.5f);
  } else {
    // Few segments and no outline for small discs: with many ranks, triangles are what a
    // software rasteriser pays for.
    d->AddCircleFilled(c, rank_px, fill, std::clamp(static_cast<int>(rank_px * 0.8f), 12, 40));
    if (rank_px >= 10) d->AddCircle(c, rank_px, IM_COL32(15, 15, 18, 255), 0, 1.5f);
  }
  label_text = label.c_str();
  const float half = server ? rank_px * 1.15f : rank_px;
  app.shapes.push_back({ShapeKind::disc, fmt::format("rank {}", rank), box_around(c, half, half), std::nullopt, run.side, rank});
  if (rank_px >= 7) centred_text(d, app.fonts.regular, std::min(app.fonts.regular->FontSize, rank_px * 1.1f), c, IM_COL32(15, 15, 18, 255), label_text);
}

// Whether `b` may take its place: inside the scene, over no disc, hub, packet or label of
// this side drawn so far (app.shapes).
bool free_place(const App& app, const Box& b, const Box& scene, int side) {
  if (!contains(scene, b)) return false;
  for (const DrawnShape& s : app.shapes)
    if (s.side == side && s.kind != ShapeKind::row && s.kind != ShapeKind::caption && overlap(s.box, b)) return false;
  return true;
}

// "↑ 3 MiB  ↓ 1 MiB" beside the rank: away from the centre when that place is free, else
// the first free place turning from there (a queued push, another label, a switch in the
// way), recorded so that the next label avoids it. Where no place is free (ranks packed
// close) the rank goes without: its tooltip and the buffers panel still say it.
void draw_rank_bytes(ImDrawList* d, App& app, const Pane& run, const Canvas& cv, int rank, float rank_px, const Box& scene) {
  const Layout& l = run.model.layout();
  // Outwards from the centre of the rank's node box (two-level), or of the scene.
  Vec2 p = l.nodes[static_cast<std::size_t>(rank)];
  const ImVec2 c = cv.at(p);
  if (l.ranks_per_node > 0 && !l.boxes.empty()) {
    const NodeBox& b = l.boxes[static_cast<std::size_t>(rank / l.ranks_per_node)];
    p = {p.x - (b.min.x + b.max.x) / 2, p.y - (b.min.y + b.max.y) / 2};
  }
  const float len = std::hypot(p.x, p.y);
  const bool server = l.is_server[static_cast<std::size_t>(rank)];
  Vec2 dir = len > 0.05f ? Vec2{p.x / len, p.y / len} : Vec2{0, 1};
  if (server && len < 0.5f) dir = {0, 1};
  const std::string text = fmt::format("{}↑{}\n↓{}", server ? "server\n" : "", format_bytes(run.now.sent[static_cast<std::size_t>(rank)]),
                                       format_bytes(run.now.received[static_cast<std::size_t>(rank)]));
  ImFont* f = app.fonts.small;
  const ImVec2 ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, text.c_str());
  const float gap = rank_px * (server ? 1.3f : 1.0f) + 6;
  const auto place = [&](float angle) {  // the label's box, turned `angle` from outwards
    const float ca = std::cos(angle), sa = std::sin(angle);
    const Vec2 u{dir.x * ca - dir.y * sa, dir.x * sa + dir.y * ca};
    // As far out as the box's own half extent along u: it clears the disc in every direction.
    const float reach = gap + std::abs(u.x) * ts.x / 2 + std::abs(u.y) * ts.y / 2;
    return box_around(ImVec2(c.x + u.x * reach, c.y + u.y * reach), ts.x / 2, ts.y / 2);
  };
  constexpr float kTurns[] = {0, 0.6f, -0.6f, 1.2f, -1.2f, 1.8f, -1.8f, 2.5f, -2.5f, 3.1416f};
  std::optional<Box> free;
  for (float turn : kTurns)
    if (const Box b = place(turn); free_place(app, b, scene, run.side)) {
      free = b;
      break;
    }
  if (!free) return;
  const Box at = *free;
  d->AddText(f, f->FontSize, ImVec2(at.x, at.y), colors::text_dim, text.c_str());
  app.shapes.push_back({ShapeKind::label, fmt::format("bytes of rank {}", rank), at, scene, run.side, rank});
}

// The legend's pieces, laid out left to right and wrapped at `width`: the reduce and copy
// symbols, what the numbers and colours mean, and the link heat's ramp. With `d` null it
// only measures; returns the height it takes. A short scene gets the short words.
float legend(ImDrawList* d, const App& app, const Pane& run, ImVec2 origin, float width, bool short_words) {
  ImFont* f = app.fonts.small;
  const float fs = f->FontSize, r = fs * 0.45f, line_h = fs * 1.35f, gap = fs * (short_words ? 0.7f : 1.0f);
  const ImU32 neutral = to_u32(palette::packet), ink = to_u32(palette::packet_ink);
  enum class Mark { reduce, copy, none, ramp };
  struct Piece {
    Mark mark;
    const char* text;
  };
  const bool stripes = shading::stripes(run.model.layout().ranks);
  std::vector<Piece> pieces{{Mark::reduce, short_words ? "reduce" : "reduce (adds into the receiver)"},
                            {Mark::copy, short_words ? "copy" : "copy (overwrites)"}};
  if (short_words) {
    pieces.push_back({Mark::none, "number: chunk"});
    if (stripes) pieces.push_back({Mark::none, "colour: rank"});
  } else {
    pieces.push_back({Mark::none, stripes ? "number = chunk, colour = rank (trail: sender);" : "number = chunk;"});
  }
  if (app.toggles.link_heat) pieces.push_back({Mark::ramp, short_words ? "link traffic" : "link shade = traffic so far: none"});
  const float ramp_w = 84 + f->CalcTextSizeA(fs, FLT_MAX, 0, "busiest").x;
  float x = 0, y = 0;
  for (const Piece& piece : pieces) {
    const float mark_w = piece.mark == Mark::reduce || piece.mark == Mark::copy ? 2 * r + 4 : 0;
    const float text_w = f->CalcTextSizeA(fs, FLT_MAX, 0, piece.text).x;
    const float w = mark_w + text_w + (piece.mark == Mark::ramp ? fs * 0.3f + ramp_w : 0);
    if (x > 0 && x + w > width) x = 0, y += line_h;  // wrap
    const ImVec2 at(origin.x + x, origin.y + y);
    if (d) {
      const ImVec2 c(at.x + r, at.y + fs / 2);
      if (piece.mark == Mark::reduce) {  // filled, with a "+"
        d->AddCircleFilled(c, r, neutral, 16);
        draw_plus(d, c, r, ink, 1.5f);
      } else if (piece.mark == Mark::copy) {  // outlined
        d->AddRectFilled(ImVec2(at.x, c.y - r), ImVec2(at.x + 2 * r, c.y + r), to_u32(palette::packet_hollow), 2);
        d->AddRect(ImVec2(at.x, c.y - r), ImVec2(at.x + 2 * r, c.y + r), neutral, 2, 0, 1.5f);
      }
      d->AddText(f, fs, ImVec2(at.x + mark_w, at.y), colors::text_dim, piece.text);
      if (piece.mark == Mark::ramp) {  // the heat ramp is a scale of traffic on the links, not anyone's colour
        const float rx = at.x + text_w + fs * 0.3f;
        for (int i = 0; i < 20; ++i)
          d->AddRectFilled(ImVec2(rx + i * 4.0f, at.y + 3), ImVec2(rx + i * 4.0f + 4, at.y + fs - 2), heat_color(static_cast<float>(i) / 19));
        d->AddText(f, fs, ImVec2(rx + 84, at.y), colors::text_dim, "busiest");
      }
    }
    x += w + gap;
  }
  return y + line_h;
}

void rank_tooltip(const Pane& run, int rank) {
  const ViewModel& vm = run.model;
  const std::size_t r = static_cast<std::size_t>(rank);
  ImGui::BeginTooltip();
  ImGui::Text("rank %d%s", rank, vm.layout().is_server[r] ? " (parameter server)" : "");
  ImGui::Text("sent so far %s of %s", format_bytes(run.now.sent[r]).c_str(), format_bytes(static_cast<double>(vm.total_sent()[r])).c_str());
  ImGui::Text("received so far %s of %s", format_bytes(run.now.received[r]).c_str(),
              format_bytes(static_cast<double>(vm.total_received()[r])).c_str());
  ImGui::EndTooltip();
}

// The smallest distance between two ranks' centres on the canvas, in pixels.
float closest_ranks_px(const Layout& l, const Canvas& cv) {
  float best = FLT_MAX;
  for (int a = 0; a < l.ranks; ++a)
    for (int b = a + 1; b < l.ranks; ++b) {
      const ImVec2 p = cv.at(l.nodes[static_cast<std::size_t>(a)]), q = cv.at(l.nodes[static_cast<std::size_t>(b)]);
      best = std::min(best, std::hypot(p.x - q.x, p.y - q.y));
    }
  return best;
}

// Comparing: which run this side shows, how far it is, and its own caption.
void heading(const App& app, const Pane& run) {
  const ViewModel& vm = run.model;
  const int steps = vm.step_count();
  const int shown = caption_step(run.now, steps);
  const bool phases = app.doc.lesson && app.doc.lesson->multi_phase();
  const std::string title = phases ? fmt::format("{} · {}", app.side_title(run.side), vm.schedule().algorithm) : vm.schedule().algorithm;
  // The figures first to stay: where the side is too narrow (presenting side by side), the
  // title ends in "…" before the prediction and the step do.
  std::string figures = vm.trace().predicted ? fmt::format("predicted {} · ", format_duration_ns(vm.trace().predicted->time_ns)) : "";
  figures += fmt::format("step {}/{}{}", shown, steps, run.now.steps_done >= steps ? " (done)" : "");
  ImGui::PushFont(app.fonts.large);
  ImFont* f = app.fonts.large;
  const float room = ImGui::GetContentRegionAvail().x, figures_w = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, ("   " + figures).c_str()).x;
  const std::string line = room > figures_w + f->FontSize * 4 ? fit_line(f, f->FontSize, title, room - figures_w) + "   " + figures
                                                              : fit_line(f, f->FontSize, title + "   " + figures, room);
  ImGui::TextColored(run.side == 0 ? ImVec4(0.55f, 0.8f, 1.0f, 1.0f) : ImVec4(1.0f, 0.75f, 0.45f, 1.0f), "%s", line.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.side_title(run.side).c_str());
  ImGui::PopFont();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(run.now.caption.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void ScenePanel::Draw(App& app, const Pane& run) {
  if (app.doc.compare) heading(app, run);
  const ViewModel& vm = run.model;
  const Layout& l = vm.layout();
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), size = ImGui::GetContentRegionAvail();
  ImGui::InvisibleButton("##scene", ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* d = ImGui::GetWindowDrawList();
  // A short scene (side by side, a projector) gets the legend's short words.
  const bool short_legend = size.y < ImGui::GetFontSize() * 16;
  const float legend_w = size.x - 12;
  const float legend_h = app.toggles.legend ? legend(nullptr, app, run, ImVec2(), legend_w, short_legend) + 4 : 0.0f;
  // The labels need room around the ranks: not in a short scene (side by side, a small window).
  // (Not on a hypercube grid beyond 8 ranks: its inner ranks have no outside to put them.)
  bool labels = app.toggles.rank_bytes && l.ranks <= (l.kind == LayoutKind::hypercube ? 8 : 16) &&
                size.y > app.fonts.small->FontSize * 22;
  const float top = app.fonts.small->FontSize * 1.4f;  // the "arranged by" line
  const float em = ImGui::GetFontSize();
  // Discs and packets grow with the text (--scale) where there is room: a disc 1.5 ems
  // across, a packet one em, but never wider than 0.42 of the closest pair's distance.
  const auto fitted = [&](bool with_labels, float grow) {  // room for the "↑ sent ↓ received" labels outside the outermost ranks
    const float mx = (with_labels ? app.fonts.small->FontSize * 5.0f : 12.0f) + grow,
                my = (with_labels ? app.fonts.small->FontSize * 2.8f : 12.0f) + grow;
    return fit(l, ImVec2(p0.x + mx, p0.y + top + my), ImVec2(p0.x + size.x - mx, p0.y + size.y - legend_h - my));
  };
  Canvas cv = fitted(labels, 0);
  // Ranks closer than a label's width (a node's GPUs in a row, a tree's leaves) would crowd
  // their labels, each nearer another rank than its own: none, and the room they took.
  // (Tried at half a label's width: the double binary tree's leaf labels then sat between
  // two leaves, whose they were unclear.)
  const float closest = l.ranks <= 64 ? closest_ranks_px(l, cv) : 0.0f;  // one rank: FLT_MAX
  if (labels && closest < app.fonts.small->FontSize * 5.2f) labels = false, cv = fitted(false, 0);
  float rank_px = std::max(2.0f, l.rank_radius * cv.scale);
  if (const float wanted = std::min(0.75f * em, 0.42f * closest); wanted > rank_px) {
    cv = fitted(labels, (wanted - rank_px) * 1.3f);  // the larger discs stay inside the scene
    rank_px = std::max(rank_px, std::min(0.75f * em, 0.42f * closest_ranks_px(l, cv)));
  }
  const float packet_r = std::max(std::clamp(packet_radius(l) * cv.scale, 2.5f, 14.0f), std::min(0.5f * em, rank_px * 0.7f));
  const Box scene{p0.x, p0.y, size.x, size.y};

  d->PushClipRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), true);
  std::string arranged = fmt::format("arranged by {}{}", vm.arrangement().description,
                                     l.links.size() > kTooManyLinks ? fmt::format("; its {} links not drawn", l.links.size()) : "");
  if (app.stage && app.doc.lesson && app.doc.lesson->multi_phase())  // the stage has no phase line above: the scene names its phase
    arranged = fmt::format("Phase {}/{}: {} · {}", app.doc.phase + 1, app.doc.lesson->phase_count(),
                           app.doc.lesson->phase(app.doc.phase).name, arranged);
  arranged = fit_line(app.fonts.small, app.fonts.small->FontSize, arranged, size.x - 8);
  const ImVec2 arranged_size = app.fonts.small->CalcTextSizeA(app.fonts.small->FontSize, FLT_MAX, 0, arranged.c_str());
  d->AddText(app.fonts.small, app.fonts.small->FontSize, ImVec2(p0.x + 4, p0.y + 2), app.stage ? colors::text : colors::text_dim,
             arranged.c_str());
  app.shapes.push_back({ShapeKind::label, arranged, {p0.x + 4, p0.y + 2, arranged_size.x, arranged_size.y}, scene, run.side});
  if (app.toggles.legend)  // its words as one label: nothing may cover them
    app.shapes.push_back({ShapeKind::label, "legend", {p0.x + 6, p0.y + size.y - legend_h, legend_w, legend_h - 4}, scene, run.side});
  draw_boxes(d, app, run, cv);
  draw_wires(d, run, cv);
  draw_links(d, app, run, cv, rank_px);
  draw_hubs(d, app, run, cv, rank_px);
  draw_recent_arrows(d, run, cv, rank_px);
  int hovered_rank = -1;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < l.ranks; ++r) {
    const ImVec2 c = cv.at(l.nodes[static_cast<std::size_t>(r)]);
    draw_rank(d, app, run, c, r, rank_px);
    if (hovered && std::hypot(mouse.x - c.x, mouse.y - c.y) <= std::max(rank_px, 5.0f)) hovered_rank = r;
  }
  // The packets' places first, so that the labels keep off them; the packets drawn on top.
  std::vector<PacketSpot> spots;
  vm.packet_spots(run.now, spots, kMaxPacketsDrawn);
  const std::vector<PacketMark> marks = place_packets(app, run, cv, spots, packet_r);
  if (labels)
    for (int r = 0; r < l.ranks; ++r) draw_rank_bytes(d, app, run, cv, r, rank_px, scene);
  draw_packets(d, app, run, cv, marks);
  if (app.toggles.legend) legend(d, app, run, ImVec2(p0.x + 6, p0.y + size.y - legend_h), legend_w, short_legend);
  d->PopClipRect();
  if (hovered_rank >= 0) rank_tooltip(run, hovered_rank);
}

}  // namespace collsim::gui
