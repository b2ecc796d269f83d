// "busbw against size": the run's busbw curve on its topology, its own size marked, drawn
// from the views' plot (app/views/bench_plot.h), the geometry the storyboard's busbw.svg is
// written from: here the same slide, scaled to the window, drawn with ImGui's draw list.
#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "app/desktop/app.h"
#include "app/desktop/style.h"

namespace collsim::gui {
namespace {

// The slide (user units, 1280 x 800) placed in the window: a screen point for a slide point.
struct Place {
  ImVec2 origin;
  float scale = 1;
  ImVec2 at(float x, float y) const { return ImVec2(origin.x + x * scale, origin.y + y * scale); }
};

// A polyline, dashed as `dash` (drawn, skipped; in slide units) when given.
void polyline(ImDrawList* dl, const Place& pl, const std::vector<ImVec2>& points, ImU32 colour, float width,
              const float* dash) {
  if (points.size() < 2) return;
  if (!dash) {
    std::vector<ImVec2> screen;
    for (const ImVec2& p : points) screen.push_back(pl.at(p.x, p.y));
    dl->AddPolyline(screen.data(), static_cast<int>(screen.size()), colour, ImDrawFlags_None, width * pl.scale);
    return;
  }
  float left = dash[0];  // of the current dash or gap
  bool drawing = true;
  for (std::size_t i = 1; i < points.size(); ++i) {
    ImVec2 a = points[i - 1];
    const ImVec2 b = points[i];
    float length = std::hypot(b.x - a.x, b.y - a.y);
    while (length > 0) {
      const float step = std::min(left, length);
      const ImVec2 c(a.x + (b.x - a.x) * step / length, a.y + (b.y - a.y) * step / length);
      if (drawing) dl->AddLine(pl.at(a.x, a.y), pl.at(c.x, c.y), colour, width * pl.scale);
      left -= step;
      length -= step;
      a = c;
      if (left <= 0) {
        drawing = !drawing;
        left = dash[drawing ? 0 : 1];
      }
    }
  }
}

void marker(ImDrawList* dl, const Place& pl, PlotMarker shape, float x, float y, float r, ImU32 colour, bool hollow) {
  const ImVec2 c = pl.at(x, y);
  const float rs = r * pl.scale;
  const std::vector<PlotOffset> outline = marker_outline(shape);
  if (outline.empty()) {
    dl->AddCircleFilled(c, rs, hollow ? colors::background : colour);
    dl->AddCircle(c, rs, colour, 0, 2 * pl.scale);
    return;
  }
  std::vector<ImVec2> points;
  for (const PlotOffset& o : outline) points.emplace_back(c.x + o.dx * rs, c.y + o.dy * rs);
  // A cross is not convex: its filled arms as two rectangles, its outline as drawn.
  if (shape == PlotMarker::cross && !hollow) {
    dl->AddRectFilled(ImVec2(c.x - 0.35f * rs, c.y - 1.1f * rs), ImVec2(c.x + 0.35f * rs, c.y + 1.1f * rs), colour);
    dl->AddRectFilled(ImVec2(c.x - 1.1f * rs, c.y - 0.35f * rs), ImVec2(c.x + 1.1f * rs, c.y + 0.35f * rs), colour);
  } else if (shape != PlotMarker::cross) {
    dl->AddConvexPolyFilled(points.data(), static_cast<int>(points.size()), hollow ? colors::background : colour);
  }
  dl->AddPolyline(points.data(), static_cast<int>(points.size()), colour, ImDrawFlags_Closed, 2 * pl.scale);
}

// A label at its baseline point, anchored as the SVG anchors it; `upwards`: rotated -90 degrees
// about (x, y), as the busbw axis's title.
void text(ImDrawList* dl, const Place& pl, ImFont* font, const PlotLabel& l, bool upwards = false) {
  if (l.text.empty()) return;
  const float size = l.size * pl.scale;
  const float width = font->CalcTextSizeA(size, FLT_MAX, 0, l.text.c_str()).x;
  const ImVec2 base = pl.at(l.x, l.y);
  const float shift = l.anchor == PlotAnchor::start ? 0 : l.anchor == PlotAnchor::middle ? width / 2 : width;
  if (l.boxed)
    dl->AddRectFilled(pl.at(l.box_x, l.box_y), pl.at(l.box_x + l.box_w, l.box_y + l.box_h),
                      to_u32(palette::background, 0.88f), 4 * pl.scale);
  const int first = dl->VtxBuffer.Size;
  const ImVec2 top_left(base.x - shift, base.y - size * 0.78f);  // the baseline is about 0.78 em below the top
  const ImU32 colour = to_u32(l.colour);
  // Text to be turned upright is laid out level first, partly outside the window, where
  // ImGui would leave out its glyphs: laid out unclipped, and turned into the window below.
  if (upwards) dl->PushClipRect(ImVec2(-1e5f, -1e5f), ImVec2(1e5f, 1e5f), false);
  dl->AddText(font, size, top_left, colour, l.text.c_str());
  if (l.bold) dl->AddText(font, size, ImVec2(top_left.x + 0.6f * pl.scale, top_left.y), colour, l.text.c_str());
  if (upwards) dl->PopClipRect();
  if (!upwards) return;
  for (int i = first; i < dl->VtxBuffer.Size; ++i) {  // rotate the glyphs' vertices about the anchor
    ImVec2& v = dl->VtxBuffer[i].pos;
    const ImVec2 d(v.x - base.x, v.y - base.y);
    v = ImVec2(base.x + d.y, base.y - d.x);
  }
}

void draw_plot(ImDrawList* dl, const Place& pl, ImFont* font, const BenchPlot& p) {
  dl->AddRectFilled(pl.at(0, 0), pl.at(p.width, p.height), colors::background);
  text(dl, pl, font, p.title);
  for (const PlotLabel& l : p.subtitle) text(dl, pl, font, l);
  dl->AddRectFilled(pl.at(p.left, p.top), pl.at(p.right, p.bottom), to_u32(palette::panel));
  for (const PlotTick& t : p.x_ticks)
    dl->AddLine(pl.at(t.at, p.top), pl.at(t.at, p.bottom), to_u32(palette::grid, t.label.empty() ? 0.45f : 1.0f),
                (t.label.empty() ? 0.8f : 1.2f) * pl.scale);
  for (const PlotTick& t : p.y_ticks)
    dl->AddLine(pl.at(p.left, t.at), pl.at(p.right, t.at), to_u32(palette::grid, t.label.empty() ? 0.45f : 1.0f),
                (t.label.empty() ? 0.8f : 1.2f) * pl.scale);
  for (const PlotLabel& l : p.tick_labels) text(dl, pl, font, l);
  dl->AddRect(pl.at(p.left, p.top), pl.at(p.right, p.bottom), to_u32(palette::text_dim), 0, 0, 1.5f * pl.scale);
  text(dl, pl, font, p.x_title);
  text(dl, pl, font, p.y_title, true);
  for (const PlotSeries& s : p.series) {
    const bool predicted = s.kind == PlotSeriesKind::predicted;
    for (const auto& run : s.runs) {
      std::vector<ImVec2> points;
      for (const PlotPoint& pt : run) points.emplace_back(pt.x, pt.y);
      polyline(dl, pl, points, to_u32(s.colour), predicted ? p.line_width - 0.5f : p.line_width, s.dashed ? kSeriesDash : nullptr);
    }
    for (const auto& run : s.runs)
      for (const PlotPoint& pt : run)
        marker(dl, pl, s.marker, pt.x, pt.y, predicted ? p.marker_size - 1.5f : p.marker_size, to_u32(s.colour), predicted);
  }
  for (const PlotCrossover& c : p.crossovers) {
    polyline(dl, pl, {ImVec2(c.x, p.top), ImVec2(c.x, p.bottom)}, to_u32(palette::text_dim), 2.5f,
             c.clock == SweepClock::predicted ? kCrossoverDash : nullptr);
    for (const PlotLabel& l : c.labels) text(dl, pl, font, l);
  }
  text(dl, pl, font, p.unlabelled);
  if (p.marked) {
    dl->AddLine(pl.at(p.mark_x, p.top), pl.at(p.mark_x, p.bottom), to_u32(palette::text), 2 * pl.scale);
    text(dl, pl, font, p.mark_label);
  }
  text(dl, pl, font, p.empty);
  for (const PlotLegendEntry& e : p.legend) {
    polyline(dl, pl, {ImVec2(e.x, e.y), ImVec2(e.x + 44, e.y)}, to_u32(e.colour), e.markers ? p.line_width : 2.5f,
             e.dashed ? kSeriesDash : nullptr);
    if (e.markers)
      marker(dl, pl, e.marker, e.x + 22, e.y, e.hollow ? p.marker_size - 1.5f : p.marker_size, to_u32(e.colour), e.hollow);
    for (const PlotLabel& l : e.labels) text(dl, pl, font, l);
  }
  for (const PlotLabel& n : p.notes) text(dl, pl, font, n);
}

}  // namespace

void SizeCurveWindow::Draw(App& app) {
  if (!open || !app.doc.model) return;
  const ViewModel* vm = app.doc.model.get();
  if (vm != of) {  // another run: its own curve (a few hundred predictions of small schedules)
    cached = size_curve_plot(vm->trace());
    of = vm;
  }
  const ImGuiViewport* view = ImGui::GetMainViewport();
  // Nearly the whole window: the slide scaled down stays readable on a projector (1280 x 800);
  // a line when there is no curve, only why.
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(cached.plot ? ImVec2(view->Size.x * 0.96f, view->Size.y * 0.92f)
                                       : ImVec2(std::min(view->Size.x * 0.9f, em * 40), em * 5),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(view->Pos.x + view->Size.x * 0.5f, view->Pos.y + view->Size.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  if (!ImGui::Begin("busbw against size (predicted on this topology)###size_curve", &open, ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  if (!cached.plot) {
    ImGui::TextWrapped("No curve for this run: %s.", cached.none.c_str());
  } else {
    const BenchPlot& p = *cached.plot;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    Place pl;
    pl.scale = std::max(0.1f, std::min(avail.x / p.width, avail.y / p.height));
    const ImVec2 cursor = ImGui::GetCursorScreenPos();
    pl.origin = ImVec2(cursor.x + (avail.x - p.width * pl.scale) / 2, cursor.y);
    draw_plot(ImGui::GetWindowDrawList(), pl, app.fonts.regular, p);
    ImGui::Dummy(ImVec2(avail.x, p.height * pl.scale));
  }
  ImGui::End();
}

}  // namespace collsim::gui
