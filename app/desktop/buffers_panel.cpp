// The buffers: one row per rank buffer, one cell per piece of the finest partition, on
// the columns every row shares (buffer_layout.h: equal-width pieces; an overview and a
// detail area when the rows do not fit at a readable height). A cell shows which ranks' contributions it holds: up to 16 ranks, a stripe per rank at
// a fixed position (filled in that rank's colour once it is in, dark while missing);
// beyond, a fill shade; and a "3/4" count when there is room. Cells written in the
// current step get a white outline. With at most 16 elements per rank, the values view
// shows the numbers themselves (1 + 2 + 3 + 4 = 10).
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "app/desktop/app.h"
#include "app/views/shading.h"
#include "sim/trace/report.h"

namespace collsim::gui {
namespace {

struct CellLook {
  bool written = false;
  RankSet ranks;
  int target = 0;
};

CellLook look_of(const Pane& run, std::uint32_t cell) {
  const ViewModel& vm = run.model;
  const CellChange& st = vm.cell_state(run.clock, cell, run.t);
  CellLook look;
  look.written = st.written;
  if (st.written) look.ranks = ranks_of(st.contributions);
  look.target = vm.buffers().cells()[cell].target;
  return look;
}

void text_with_shadow(ImDrawList* d, ImFont* f, ImVec2 at, const char* text) {
  d->AddText(f, f->FontSize, ImVec2(at.x + 1, at.y + 1), IM_COL32(0, 0, 0, 220), text);
  d->AddText(f, f->FontSize, at, colors::text, text);
}

void draw_count(ImDrawList* d, ImFont* f, ImVec2 a, ImVec2 b, const CellLook& look) {
  if (!look.written || look.target <= 0) return;
  const std::string s = fmt::format("{}/{}", look.ranks.count, look.target);
  const ImVec2 ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, s.c_str());
  if (ts.x + 4 > b.x - a.x || ts.y > b.y - a.y) return;
  text_with_shadow(d, f, ImVec2((a.x + b.x - ts.x) / 2, (a.y + b.y - ts.y) / 2), s.c_str());
}

// Fill shade for many ranks: how much of the cell's final set it holds (shading.h).
ImU32 shade(const CellLook& look) {
  if (!look.written) return colors::empty_cell;
  return to_u32(shading::fill(look.ranks.count, look.target));
}

void draw_stripes(ImDrawList* d, ImVec2 a, ImVec2 b, const CellLook& look, std::uint64_t eventual) {
  const std::vector<palette::Rgb> stripes = shading::stripe_colours(eventual, look.ranks);
  const float w = (b.x - a.x) / static_cast<float>(std::max<std::size_t>(1, stripes.size()));
  for (std::size_t i = 0; i < stripes.size(); ++i)
    d->AddRectFilled(ImVec2(a.x + w * static_cast<float>(i), a.y), ImVec2(a.x + w * static_cast<float>(i + 1), b.y), to_u32(stripes[i]));
}

// Says which row it is first: in the overview most rows have no label.
std::string cell_tooltip_text(const Pane& run, std::uint32_t cell, const BufferRow& row) {
  const ViewModel& vm = run.model;
  const Cell& c = vm.buffers().cells()[cell];
  const CellChange& st = vm.cell_state(run.clock, cell, run.t);
  std::string s = fmt::format("rank {} {}, elements [{}, {}) of {}\n", row.rank, to_string(row.buffer), c.begin, c.end, row.elements);
  if (!st.written) return s + "nothing written here yet";
  const RankSet rs = ranks_of(st.contributions);
  s += fmt::format("holds {} of {} ranks' contributions: {}\n", rs.count, c.target, st.contributions.describe(c.begin, c.end));
  if (st.transfer == kInitialState) return s + "(since the start)";
  if (st.transfer == kFinalState) return s + "(written by a final local operation)";
  const Transfer& t = vm.schedule().transfers[st.transfer];
  return s + fmt::format("last written in step {} ({}):\n{}", t.step + 1,
                         vm.schedule().step_labels[static_cast<std::size_t>(t.step)], transfer_sentence(t));
}

}  // namespace

void BuffersPanel::MarkHighlighted(const Pane& run) {
  const ViewModel& vm = run.model;
  const BufferHistory& h = vm.buffers();
  if (lit.size() != h.cells().size()) lit.assign(h.cells().size(), 0), lit_cells.clear();
  for (std::uint32_t c : lit_cells) lit[c] = 0;
  lit_cells.clear();
  for (std::uint32_t i : run.now.highlighted) {
    const Region dst = storage_of(vm.schedule(), vm.schedule().transfers[i].destination());
    const int row = h.row_of(dst.rank, dst.buffer);
    if (row < 0) continue;
    const auto [first, last] = h.cells_in(row, dst.offset, dst.end());
    for (std::uint32_t c = first; c < last; ++c)
      if (!lit[c]) lit[c] = 1, lit_cells.push_back(c);
  }
}

namespace {

// Elements sit within the piece they belong to (the pieces are equal-width, not the
// elements), so that they line up with the other rows' dividers.
void draw_values(ImDrawList* d, const App& app, const Pane& run, const BufferRow& row, std::uint32_t cell,
                 const BuffersPanel::RowGeometry& g, ImVec2 a, ImVec2 b) {
  const ViewModel& vm = run.model;
  const Cell& c = vm.buffers().cells()[cell];
  const CellChange& st = vm.cell_state(run.clock, cell, run.t);
  ImFont* f = app.fonts.regular;
  ImFont* small = app.fonts.small;
  const std::uint32_t p0 = g.columns->first_piece[cell], p1 = g.columns->end_piece[cell];
  auto x_of = [&](std::uint64_t e) {
    const double pos = g.columns->piece_position(e, row.elements, p0, p1);
    return g.x0 + g.width * static_cast<float>(pos / std::max<std::uint32_t>(1, g.columns->pieces()));
  };
  for (std::uint64_t e = c.begin; e < c.end; ++e) {
    const float ex0 = e == c.begin ? a.x : x_of(e), ex1 = e + 1 == c.end ? b.x : x_of(e + 1);
    d->AddLine(ImVec2(ex0, a.y + 6), ImVec2(ex0, b.y - 6), IM_COL32(0, 0, 0, 90));
    const ElementValue v = element_value(vm.trace(), vm.values(), row, st, e, app.toggles.value_source);
    if (!v.written) continue;
    const ImVec2 ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, v.short_value.c_str());
    const float mid = (ex0 + ex1) / 2;
    if (ts.x + 2 <= ex1 - ex0) text_with_shadow(d, f, ImVec2(mid - ts.x / 2, a.y + 3), v.short_value.c_str());
    const std::size_t eq = v.expression.find(" = ");
    const std::string sum = eq == std::string::npos ? std::string() : v.expression.substr(0, eq);
    const ImVec2 ss = small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, sum.c_str());
    if (!sum.empty() && ss.x + 2 <= ex1 - ex0) text_with_shadow(d, small, ImVec2(mid - ss.x / 2, b.y - ss.y - 3), sum.c_str());
  }
}

}  // namespace

std::vector<std::uint32_t> BuffersPanel::VisibleRows(const App& app, const ViewModel& vm) const {
  std::vector<std::uint32_t> rows;
  const auto all = vm.buffers().rows();
  for (std::uint32_t i = 0; i < all.size(); ++i)
    if (app.shows_inputs() || !all[i].optional) rows.push_back(i);
  return rows;
}

namespace {
float row_gap(const App& app) { return app.stage ? 2.0f : 4.0f; }

bool values_possible(const ViewModel& vm) {
  for (const BufferRow& r : vm.buffers().rows())
    if (r.elements > kMaxValueElements) return false;
  return true;
}
}  // namespace

float BuffersPanel::RowHeight(const App& app, const ViewModel& vm) const {
  const bool values = app.toggles.values && values_possible(vm);
  if (values) return ImGui::GetTextLineHeight() * 2.6f;
  // On the stage, compact: the label's text and no more (16 px at least), so that every
  // rank's row fits.
  return app.stage ? std::max(ImGui::GetTextLineHeight() * 0.9f, 16.0f) : std::max(ImGui::GetTextLineHeight() * 1.5f, 20.0f);
}

float BuffersPanel::DesiredHeight(const App& app, const ViewModel& vm) const { return DesiredHeight(app, vm, app.shows_inputs()); }

float BuffersPanel::DesiredHeight(const App& app, const ViewModel& vm, bool inputs) const {
  const ImGuiStyle& st = ImGui::GetStyle();
  std::size_t rows = 0;
  for (const BufferRow& r : vm.buffers().rows()) rows += inputs || !r.optional;
  return ImGui::GetFrameHeightWithSpacing() + static_cast<float>(rows) * (RowHeight(app, vm) + row_gap(app)) + st.WindowPadding.y * 2 + 4;
}

namespace {

// Beyond the stripe limit: the shade's ramp, "holds none … all its ranks" (shading::fill).
void shade_legend() {
  const std::vector<palette::Rgb> ramp = shading::fill_ramp(8);
  const float s = ImGui::GetTextLineHeight();
  const float legend_w = ImGui::CalcTextSize("holds none  all its ranks").x + s * 0.6f * static_cast<float>(ramp.size()) + 30;
  const float line_end = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (line_end - ImGui::GetItemRectMax().x <= legend_w) return;  // only when it fits on the line
  ImGui::SameLine(0, 14);
  ImGui::TextDisabled("holds none");
  ImGui::SameLine(0, 6);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  for (std::size_t i = 0; i < ramp.size(); ++i)
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x + s * 0.6f * static_cast<float>(i), p.y + 2),
                                              ImVec2(p.x + s * 0.6f * static_cast<float>(i + 1), p.y + s - 2), to_u32(ramp[i]));
  ImGui::Dummy(ImVec2(s * 0.6f * static_cast<float>(ramp.size()), s));
  ImGui::SameLine(0, 6);
  ImGui::TextDisabled("all its ranks");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("beyond 16 ranks a cell is one shade: lighter as it holds more of the ranks it will hold");
}

void rank_legend(int ranks) {
  if (!shading::stripes(ranks)) return shade_legend();
  const float legend_w = static_cast<float>(ranks) * ImGui::GetTextLineHeight() * 1.6f + 14;
  const float line_end = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (line_end - ImGui::GetItemRectMax().x <= legend_w) return;  // only when it fits on the line
  for (int r = 0; r < ranks; ++r) {
    ImGui::SameLine(0, r == 0 ? 14.0f : 4.0f);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float s = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + s * 0.8f, p.y + s - 2), rank_color(r), 2);
    ImGui::Dummy(ImVec2(s * 0.8f, s));
    ImGui::SameLine(0, 2);
    ImGui::TextDisabled("%d", r);
  }
}

std::string row_name(const App& app, const BufferRow& row) {
  if (!app.shows_inputs() && row.buffer == BufferKind::output) return fmt::format("rank {}", row.rank);
  const char* kind = row.buffer == BufferKind::output ? "out" : row.buffer == BufferKind::scratch ? "scr" : "in";
  return fmt::format("rank {} {}", row.rank, kind);
}

void cell_tooltip(const Pane& run, std::uint32_t cell, const BufferRow& row) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
  ImGui::TextUnformatted(cell_tooltip_text(run, cell, row).c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace

void BuffersPanel::DrawHeader(App& app, const Pane& run) {
  const ViewModel& vm = run.model;
  const bool can_show_values = values_possible(vm);
  ImGui::TextUnformatted("Buffers");
  ImGui::SameLine();
  help_marker("One row per rank buffer (output; scratch for servers; inputs on request). Each cell is a piece of "
              "the buffer that the schedule moves as one. Stripes: which ranks' data the cell already holds, in "
              "rank colours, at fixed positions (beyond 16 ranks, one shade: lighter holds more); \"3/4\": how "
              "many of the ranks it will hold. A white outline: written in this step. When the rows do not fit: an "
              "overview of every row on top, and the rows around the one hovered there below it, readable (the "
              "wheel scrolls them).");
  ImGui::SameLine();
  if (app.toggles.inputs && !app.shows_inputs()) {  // asked for, but the stage has no room for them
    bool shown = false;
    ImGui::BeginDisabled();
    ImGui::Checkbox("inputs", &shown);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("no room for the input rows on the stage: every rank's output and the lesson's program come "
                        "first (a larger window, or View → stage layout: off)");
  } else {
    ImGui::Checkbox("inputs", &app.toggles.inputs);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("show every rank's input buffer too (it never changes)");
  }
  ImGui::SameLine();
  if (!can_show_values) ImGui::BeginDisabled();
  ImGui::Checkbox("values", &app.toggles.values);
  if (!can_show_values) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(can_show_values ? "show the numbers in every element" : "only for at most 16 elements per buffer (try count 4)");
  if (app.toggles.values && can_show_values) {
    ImGui::SameLine();
    int src = static_cast<int>(app.toggles.value_source);
    ImGui::RadioButton("rank q holds q+1", &src, 0);
    ImGui::SameLine();
    ImGui::RadioButton("the run's inputs", &src, 1);
    app.toggles.value_source = static_cast<ValueSource>(src);
  }
  rank_legend(vm.schedule().total_ranks);
}

void BuffersPanel::UpdateColumns(const BufferHistory& h, const std::vector<std::uint32_t>& visible) {
  if (columns_for == &h && columns_cells == h.cells().size() && columns_rows == visible) return;
  columns = buffer_columns(h, visible);
  columns_for = &h;
  columns_cells = h.cells().size();
  columns_rows = visible;
}

namespace {

// The label column: as wide as the widest label, so that none runs into the cells.
float label_width(const App& app, const BufferHistory& h, const std::vector<std::uint32_t>& visible) {
  float w = 0;
  for (std::uint32_t r : visible) w = std::max(w, ImGui::CalcTextSize(row_name(app, h.rows()[r]).c_str()).x);
  return w + 14;  // the rank colour mark and a margin
}

void row_tooltip(const App& app, const BufferRow& row) {
  const std::string s = fmt::format("{}: rank {}'s {} buffer, {} elements", row_name(app, row), row.rank, to_string(row.buffer), row.elements);
  ImGui::SetTooltip("%s", s.c_str());
}

bool mouse_in(ImVec2 a, ImVec2 b) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  return m.x >= a.x && m.x < b.x && m.y >= a.y && m.y < b.y;
}

}  // namespace

void BuffersPanel::Draw(App& app, const Pane& run) {
  const ViewModel& vm = run.model;
  const BufferHistory& h = vm.buffers();
  MarkHighlighted(run);
  DrawHeader(app, run);
  const bool values = app.toggles.values && values_possible(vm);
  const std::vector<std::uint32_t> visible = VisibleRows(app, vm);
  UpdateColumns(h, visible);
  const float label_w = label_width(app, h, visible);
  ImGui::BeginChild("rows", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImDrawList* d = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int n = static_cast<int>(visible.size());
  const RowsPlan plan = plan_rows(n, avail.y, RowHeight(app, vm), row_gap(app), app.fonts.small->FontSize);
  const RowStyle style = values ? RowStyle::values : RowStyle::readable;
  // One item covers the panel, so that the window reports the mouse over it (tooltips).
  ImGui::InvisibleButton("##rows", ImVec2(std::max(avail.x, 1.0f), std::max(avail.y, 1.0f)));
  const bool hovered_panel = ImGui::IsItemHovered();
  Hover hover;
  if (!plan.split) {
    hover = DrawRows(app, run, d, visible, 0, n, p, avail.x, label_w, plan, style);
  } else {
    const Hover over = DrawOverview(app, run, d, visible, p, avail.x, label_w, plan);
    if (hovered_panel && over.row >= 0) detail_top = detail_first(n, plan.detail_rows, over.row);
    const float detail_y = p.y + plan.overview_height + plan.gap;
    d->AddLine(ImVec2(p.x, detail_y), ImVec2(p.x + avail.x, detail_y), colors::grid);
    if (hovered_panel && ImGui::GetIO().MousePos.y >= detail_y && ImGui::GetIO().MouseWheel != 0)
      detail_top -= static_cast<int>(std::round(ImGui::GetIO().MouseWheel * 3));  // the wheel scrolls the detail rows
    detail_top = std::clamp(detail_top, 0, std::max(0, n - plan.detail_rows));
    const Hover detail = DrawRows(app, run, d, visible, detail_top, std::min(n, detail_top + plan.detail_rows),
                                  ImVec2(p.x, detail_y + plan.gap), avail.x, label_w, plan, style);
    hover = over.row >= 0 ? over : detail;
  }
  if (hovered_panel && hover.row >= 0) {
    const BufferRow& row = h.rows()[visible[static_cast<std::size_t>(hover.row)]];
    if (hover.cell >= 0) {
      cell_tooltip(run, static_cast<std::uint32_t>(hover.cell), row);
    } else {
      row_tooltip(app, row);
    }
  }
  ImGui::EndChild();
}

BuffersPanel::Hover BuffersPanel::DrawRows(App& app, const Pane& run, ImDrawList* d,
                                           const std::vector<std::uint32_t>& visible, int first, int last, ImVec2 at,
                                           float width, float label_w, const RowsPlan& plan, RowStyle style) {
  const BufferHistory& h = run.model.buffers();
  const bool stripes = shading::stripes(run.model.schedule().total_ranks);
  const float row_h = plan.row_height, pitch = plan.row_height + plan.gap;
  Hover hover;
  for (int i = first; i < last; ++i) {
    const BufferRow& row = h.rows()[visible[static_cast<std::size_t>(i)]];
    const float y = at.y + pitch * static_cast<float>(i - first);
    if (stripes) d->AddRectFilled(ImVec2(at.x, y + 3), ImVec2(at.x + 4, y + row_h), rank_color(row.rank));
    d->AddText(ImVec2(at.x + 8, y + (row_h - ImGui::GetTextLineHeight()) / 2), colors::text, row_name(app, row).c_str());
    const std::int64_t cell = DrawRow(app, run, d, row, {at.x + label_w, width - label_w - 4, y + 2, row_h, &columns}, style);
    if (mouse_in(ImVec2(at.x, y), ImVec2(at.x + width, y + pitch))) hover = {i, cell};
    DrawnShape shape{ShapeKind::row, row_name(app, row), {at.x, y + 2, width, row_h}};
    shape.side = run.side, shape.rank = row.rank, shape.output = row.buffer == BufferKind::output;
    app.shapes.push_back(std::move(shape));
  }
  return hover;
}

BuffersPanel::Hover BuffersPanel::DrawOverview(const App& app, const Pane& run, ImDrawList* d,
                                               const std::vector<std::uint32_t>& visible, ImVec2 at, float width,
                                               float label_w, const RowsPlan& plan) {
  const BufferHistory& h = run.model.buffers();
  ImFont* f = app.fonts.small;
  const float pitch = plan.overview_pitch;
  const float row_h = pitch >= 3 ? pitch - 1 : pitch;  // a pixel between rows where there is room
  const int n = static_cast<int>(visible.size());
  Hover hover;
  for (int i = 0; i < n; ++i) {
    const BufferRow& row = h.rows()[visible[static_cast<std::size_t>(i)]];
    const float y = at.y + pitch * static_cast<float>(i);
    // Labels on every k-th row only, k * pitch >= the text's height: they never overlap.
    if (i % plan.label_stride == 0) d->AddText(f, f->FontSize, ImVec2(at.x + 8, y), colors::text_dim, row_name(app, row).c_str());
    const std::int64_t cell = DrawRow(app, run, d, row, {at.x + label_w, width - label_w - 4, y, row_h, &columns}, RowStyle::thin);
    if (mouse_in(ImVec2(at.x, y), ImVec2(at.x + width, y + pitch))) hover = {i, cell};
  }
  // Which rows the detail area shows.
  const int last = std::min(n, detail_top + plan.detail_rows);
  d->AddRect(ImVec2(at.x + label_w - 3, at.y + pitch * static_cast<float>(detail_top) - 1),
             ImVec2(at.x + width - 1, at.y + pitch * static_cast<float>(last) + 1), colors::text_dim);
  return hover;
}

std::int64_t BuffersPanel::DrawRow(const App& app, const Pane& run, ImDrawList* d, const BufferRow& row,
                                   const RowGeometry& g, RowStyle style) {
  const ViewModel& vm = run.model;
  const float mx = ImGui::GetIO().MousePos.x, my = ImGui::GetIO().MousePos.y;
  const bool mouse_in_row = my >= g.y0 && my < g.y0 + g.height;
  const bool thin = style == RowStyle::thin;
  std::int64_t hovered = -1;
  const bool fold = static_cast<float>(g.columns->pieces()) > g.width / 3;  // pieces narrower than 3 px
  const bool stripes = shading::stripes(vm.schedule().total_ranks);
  float last_x = -1e9f;
  for (std::uint32_t c = row.first_cell; c < row.first_cell + row.cell_count; ++c) {
    const std::uint32_t p0 = g.columns->first_piece[c], p1 = g.columns->end_piece[c];
    float x0 = g.x_of(p0), x1 = g.x_of(p1);
    if (fold) {  // draw one cell per 2-pixel column, skip the rest
      if (x1 < last_x + 2) continue;
      x0 = std::max(x0, last_x);
      x1 = std::max(x1, x0 + 2);
    }
    last_x = x1;
    const float inset = fold ? 0.0f : 1.0f;
    const ImVec2 a(x0 + inset, g.y0), b(x1 - inset, g.y0 + g.height);
    const CellLook look = look_of(run, c);
    if (!look.written) {
      d->AddRectFilled(a, b, colors::empty_cell);
    } else if (stripes && !fold) {
      draw_stripes(d, a, b, look, shading::eventual_ranks(vm, c));
    } else {
      d->AddRectFilled(a, b, shade(look));
    }
    // One cell over several pieces: faint dividers where the other rows have theirs.
    if (!fold && !thin)
      for (std::uint32_t q = p0 + 1; q < p1; ++q) d->AddLine(ImVec2(g.x_of(q), a.y + 3), ImVec2(g.x_of(q), b.y - 3), IM_COL32(0, 0, 0, 70));
    if (style == RowStyle::values) {
      draw_values(d, app, run, row, c, g, a, b);
    } else if (!fold && !thin) {
      draw_count(d, app.fonts.small, a, b, look);
    }
    if (lit[c]) {
      if (!thin) {
        d->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), colors::highlight, 2.0f, 0, 2.5f);
      } else if (g.height >= 2) {
        d->AddRect(a, b, colors::highlight);
      }
    }
    if (mouse_in_row && mx >= x0 && mx < x1) hovered = c;
  }
  return hovered;
}

}  // namespace collsim::gui
