// The timeline: a lane per rank (sends above, receives below), a bar per transfer on the
// current clock, the playhead shared with the other panels. Comparing, the second run's
// lanes follow the first's, each run under a header row, on the same axis and scale.
// Mouse wheel zooms around the cursor, dragging pans, a double click fits the whole run,
// clicking the ruler seeks. Rows off screen are never visited (a list clipper) and bars
// too small to see are folded (timeline_model.h), so a million transfers stay smooth.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include <fmt/format.h>

#include "app/desktop/app.h"

namespace collsim::gui {
namespace {

using Hover = TimelinePanel::Hover;

std::string tick_label(ClockKind clock, double t) {
  return clock == ClockKind::steps ? fmt::format("{}", static_cast<long long>(std::llround(t))) : format_duration_ns(t);
}

void draw_ruler(App& app, const TimeScale& s, ImVec2 p, float height) {
  ImDrawList* d = ImGui::GetWindowDrawList();
  const ClockKind clock = app.playback.clock;
  // Ticks far enough apart for their labels at any text size; a label that would run past
  // the ruler's end is left out (its tick stays).
  ImFont* f = app.fonts.small;
  const float label_w = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, clock == ClockKind::steps ? "8888" : "888.888 ms").x;
  const double step = nice_step(std::max(90.0f, label_w + f->FontSize) / std::max(s.px_per_unit(), 1e-12), clock == ClockKind::steps);
  d->AddRectFilled(ImVec2(s.x0, p.y), ImVec2(s.x0 + s.width, p.y + height), IM_COL32(40, 44, 54, 255));
  for (double t = std::ceil(s.t0 / step) * step; t <= s.t1; t += step) {
    const float x = s.x_of(t);
    const std::string text = tick_label(clock, t);
    d->AddLine(ImVec2(x, p.y + height * 0.55f), ImVec2(x, p.y + height), colors::text_dim);
    if (x + 3 + f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, text.c_str()).x <= s.x0 + s.width + 1)
      d->AddText(f, f->FontSize, ImVec2(x + 3, p.y + 1), colors::text_dim, text.c_str());
  }
}

std::string transfer_tooltip(const ViewModel& vm, bool comparing, std::uint32_t i) {
  const Schedule& s = vm.schedule();
  const Transfer& t = s.transfers[i];
  std::string text = comparing ? s.algorithm + ": " : "";
  text += fmt::format("#{}  rank {} → rank {}  chunk {}  {}  {}\nstep {}: {}", i, t.src, t.dst, t.chunk,
                                 to_string(t.action), format_bytes(static_cast<double>(s.bytes(t))), t.step + 1,
                                 s.step_labels[static_cast<std::size_t>(t.step)]);
  if (vm.has_clock(ClockKind::measured))
    text += fmt::format("\nmeasured  {} – {}", format_duration_ns(vm.clock(ClockKind::measured).begin[i]),
                        format_duration_ns(vm.clock(ClockKind::measured).end[i]));
  if (vm.has_clock(ClockKind::predicted))
    text += fmt::format("\npredicted {} – {}", format_duration_ns(vm.clock(ClockKind::predicted).begin[i]),
                        format_duration_ns(vm.clock(ClockKind::predicted).end[i]));
  else
    text += "\npredicted  — (no timing model in this trace)";
  return text;
}

// A bar: a reduce filled with the packet neutral, a copy outlined in it (as the scene's
// packets; colour is the lane's rank, not the bar's), the chunk number inside when it fits.
void draw_bars(ImDrawList* d, ImFont* f, const ViewModel& vm, const std::vector<LaneBar>& bars, float y0, float y1,
               Hover& hover) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  const ImU32 neutral = to_u32(palette::packet), ink = to_u32(palette::packet_ink);
  const float size = std::min(f->FontSize * 0.85f, y1 - y0);
  for (const LaneBar& b : bars) {
    // Plain rectangles (4 vertices each: thousands of bars stay cheap on a software
    // rasteriser); a one-pixel gap separates neighbours wide enough to have one.
    const ImVec2 lo(b.x0, y0), hi(b.x1 - (b.x1 - b.x0 > 4 ? 1.0f : 0.0f), y1);
    if (m.x >= b.x0 && m.x < std::max(b.x1, b.x0 + 2) && m.y >= y0 && m.y < y1) hover = {true, b, &vm};
    if (b.count != 1) {
      d->AddRectFilled(lo, hi, colors::folded);
      continue;
    }
    const Transfer& t = vm.schedule().transfers[b.first];
    const bool reduce = reduces(t.action);
    if (reduce) d->AddRectFilled(lo, hi, neutral);
    else d->AddRect(lo, hi, neutral, 0, 0, 1.0f);
    if (size < 8 || hi.x - lo.x < size * 1.2f) continue;  // no room for a number
    const std::string s = fmt::format("{}", t.chunk);
    const ImVec2 ts = f->CalcTextSizeA(size, FLT_MAX, 0, s.c_str());
    if (ts.x + 4 <= hi.x - lo.x)
      d->AddText(f, size, ImVec2((lo.x + hi.x - ts.x) / 2, (lo.y + hi.y - ts.y) / 2), reduce ? ink : neutral, s.c_str());
  }
}

// The visible range and its limits on the current clock; comparing, both runs'.
TimelineRange range_of(const App& app) { return timeline_range(app.runs(), app.playback.clock); }

void lane_labels(ImDrawList* d, const App& app, const ViewModel& vm, int r, ImVec2 lp, float lane_h, float bar_h, float x0) {
  ImFont* f = app.fonts.small;
  if (vm.schedule().total_ranks <= 16) d->AddRectFilled(ImVec2(lp.x, lp.y + 2), ImVec2(lp.x + 4, lp.y + lane_h - 3), rank_color(r));
  d->AddText(f, f->FontSize, ImVec2(lp.x + 8, lp.y + (lane_h - f->FontSize) / 2), colors::text, fmt::format("rank {}", r).c_str());
  const float tiny = std::min(f->FontSize * 0.85f, bar_h + 2);
  if (tiny < 8) return;  // too small to read
  const float tag_x = x0 - f->CalcTextSizeA(tiny, FLT_MAX, 0, "send").x - 4;
  d->AddText(f, tiny, ImVec2(tag_x, lp.y + 2 + (bar_h - tiny) / 2), colors::text_dim, "send");
  d->AddText(f, tiny, ImVec2(tag_x, lp.y + bar_h + 4 + (bar_h - tiny) / 2), colors::text_dim, "recv");
}

// A run's header row, comparing: its algorithm, steps and predicted time across the row.
void header_row(ImDrawList* d, const App& app, const TimelineRow& row, ImVec2 lp, float lane_h, float right) {
  ImFont* f = app.fonts.small;
  d->AddRectFilled(ImVec2(lp.x, lp.y + 1), ImVec2(right, lp.y + lane_h - 1), IM_COL32(46, 52, 66, 255));
  const std::string text = fmt::format("{} ({})", run_header(*row.run), row.side == 0 ? "left" : "right");
  d->AddText(f, f->FontSize, ImVec2(lp.x + 6, lp.y + (lane_h - f->FontSize) / 2), colors::text, text.c_str());
}

void bar_tooltip(const App& app, const Hover& hover) {
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(8, 6));
  ImGui::BeginTooltip();
  if (hover.bar.count == 1)
    ImGui::TextUnformatted(transfer_tooltip(*hover.run, app.doc.compare != nullptr, hover.bar.first).c_str());
  else
    ImGui::Text("%u transfers here, too small to see at this zoom: zoom in (mouse wheel)", hover.bar.count);
  ImGui::EndTooltip();
  ImGui::PopStyleVar();
}

}  // namespace

void TimelinePanel::DrawHeader(App& app) {
  const TimelineRange r = range_of(app);
  ImGui::TextUnformatted("Timeline");
  if (app.doc.compare) ImGui::SameLine(), ImGui::TextDisabled("of both runs");
  ImGui::SameLine();
  help_marker("A lane per rank: its sends on top, its receives below; one bar per transfer, its chunk number "
              "inside when wide enough (filled: reduce, outlined: copy; colour marks the lane's rank only). Grey bars fold transfers too small to see: zoom in. Mouse wheel: zoom; "
              "drag: pan; double click: the whole run; click the ruler: move the playhead. Comparing, the second "
              "run's lanes follow the first's, each under a header, on one axis; on the steps clock each run is on "
              "its own steps.");
  ImGui::SameLine();
  ImGui::TextDisabled("clock: %s", std::string(to_string(app.playback.clock)).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("fit")) scale.t0 = r.lo, scale.t1 = r.hi;
}

void TimelinePanel::DrawRuler(App& app, ImVec2 p, float height) {
  draw_ruler(app, scale, p, height);
  ImGui::SetCursorScreenPos(ImVec2(scale.x0, p.y));
  ImGui::InvisibleButton("##ruler", ImVec2(scale.width, height));
  if (ImGui::IsItemActive()) {  // click or drag: move the playhead
    app.playback.playing = false;
    app.playback.seek_time(app.runs(), scale.t_of(ImGui::GetIO().MousePos.x));
  }
  ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + height + 2));
}

void TimelinePanel::DrawLanes(App& app, float ruler_top, float ruler_h) {
  const std::vector<TimelineRow> rows = timeline_rows(app.runs());
  const ClockKind clock = app.playback.clock;
  ImGui::BeginChild("lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));  // lanes touch: the clipper's height is exact
  ImDrawList* d = ImGui::GetWindowDrawList();
  // Lanes share the height when they fit, down to 7-pixel bars (4 when comparing: twice the
  // lanes in a shorter panel); beyond, the list scrolls.
  const float fit = (ImGui::GetContentRegionAvail().y - 2) / static_cast<float>(std::max<std::size_t>(1, rows.size()));
  const float bar_h = std::clamp((fit - 7) / 2, app.doc.compare ? 4.0f : 7.0f, app.fonts.small->FontSize * 1.3f);
  const float lane_h = bar_h * 2 + 7;
  Hover hover;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()), lane_h);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const TimelineRow& row = rows[static_cast<std::size_t>(i)];
      const ImVec2 lp = ImGui::GetCursorScreenPos();
      ImGui::Dummy(ImVec2(1, lane_h));
      if (row.header()) {
        header_row(d, app, row, lp, lane_h, scale.x0 + scale.width);
        continue;
      }
      const ViewModel& vm = *row.run;
      d->AddLine(ImVec2(lp.x, lp.y + lane_h - 1), ImVec2(scale.x0 + scale.width, lp.y + lane_h - 1), IM_COL32(50, 54, 64, 255));
      lane_labels(d, app, vm, row.rank, lp, lane_h, bar_h, scale.x0);
      d->PushClipRect(ImVec2(scale.x0, lp.y), ImVec2(scale.x0 + scale.width, lp.y + lane_h), true);
      lane_bars(vm, clock, row.rank, true, scale, 3.0f, bars);
      draw_bars(d, app.fonts.small, vm, bars, lp.y + 2, lp.y + 2 + bar_h, hover);
      lane_bars(vm, clock, row.rank, false, scale, 3.0f, bars);
      draw_bars(d, app.fonts.small, vm, bars, lp.y + bar_h + 4, lp.y + 4 + 2 * bar_h, hover);
      d->PopClipRect();
    }
  const float px = scale.x_of(app.playback.t);  // the playhead, across the lanes and the ruler
  if (px >= scale.x0 && px <= scale.x0 + scale.width) {
    d->AddLine(ImVec2(px, ImGui::GetWindowPos().y), ImVec2(px, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y), colors::playhead, 2.0f);
    ImGui::GetForegroundDrawList()->AddLine(ImVec2(px, ruler_top), ImVec2(px, ruler_top + ruler_h), colors::playhead, 2.0f);
  }
  HandleInput(app, hover);
  ImGui::PopStyleVar();
  ImGui::EndChild();
}

void TimelinePanel::HandleInput(App& app, const Hover& hover) {
  if (!ImGui::IsWindowHovered()) return;
  const TimelineRange r = range_of(app);
  const ImGuiIO& io = ImGui::GetIO();
  if (io.MouseWheel != 0) scale = zoom(scale, scale.t_of(io.MousePos.x), std::pow(1.25, io.MouseWheel), r.lo, r.hi, r.min_span);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    scale = pan(scale, -io.MouseDelta.x, r.lo, r.hi);
    ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);
  }
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) scale.t0 = r.lo, scale.t1 = r.hi;
  if (hover.any) bar_tooltip(app, hover);
}

float TimelinePanel::DesiredHeight(const App& app) const {
  const float small = app.fonts.small->FontSize;
  const float lane_h = small * 1.3f * 2 + 7;  // DrawLanes' largest lanes
  const auto lanes = static_cast<float>(timeline_rows(app.runs()).size());
  return ImGui::GetFrameHeightWithSpacing() + small * 1.6f + 2 + lanes * lane_h + 2 * ImGui::GetStyle().WindowPadding.y + 4;
}

void TimelinePanel::Draw(App& app) {
  const ViewModel& vm = *app.doc.model;
  const TimelineRange r = range_of(app);
  if (fitted_for != &vm || fitted_compare != app.doc.compare.get() || fitted_clock != app.playback.clock) {
    scale.t0 = r.lo, scale.t1 = r.hi;  // a new trace, comparison or clock: the whole run
    fitted_for = &vm, fitted_compare = app.doc.compare.get(), fitted_clock = app.playback.clock;
  }
  DrawHeader(app);
  const float label_w = ImGui::GetFontSize() * 6.0f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  scale.x0 = p.x + label_w;
  scale.width = std::max(10.0f, ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ScrollbarSize);
  if (app.toggles.follow_playhead && app.playback.playing && (app.playback.t < scale.t0 || app.playback.t > scale.t1))
    scale = pan(scale, static_cast<float>((app.playback.t - scale.t0) * scale.px_per_unit()) - scale.width * 0.1f, r.lo, r.hi);
  const float ruler_h = app.fonts.small->FontSize * 1.6f;
  DrawRuler(app, p, ruler_h);
  DrawLanes(app, p.y, ruler_h);
}

}  // namespace collsim::gui
