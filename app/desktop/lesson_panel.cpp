// A lesson's own panels: the phase list and the questions (the side panel), the program
// timeline (a lane per stream per rank, a bar per phase at its predicted times on its
// stream's lane, and the memory a rank holds), and the card that stands for a compute phase in place of the scene and buffers.
// Everything reads the Lesson (lesson.h); a click selects a phase through the App.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/desktop/app.h"
#include "app/views/numbers.h"

namespace collsim::gui {
namespace {

constexpr ImU32 kComputeColor = IM_COL32(92, 128, 186, 255);
constexpr ImU32 kCommunicationColor = IM_COL32(58, 166, 132, 255);
constexpr ImU32 kSelectedColor = IM_COL32(240, 190, 70, 255);
constexpr ImU32 kAnswerColor = IM_COL32(140, 220, 150, 255);
constexpr ImU32 kMemoryColor = IM_COL32(235, 235, 245, 220);

ImU32 phase_color(const Phase& phase) { return phase.kind == PhaseKind::compute ? kComputeColor : kCommunicationColor; }

// Times of one program in one unit, chosen by its length: "5.54 → 6.71 ms".
struct Unit {
  double ns = 1;
  const char* name = "ns";
};

Unit unit_for(double total_ns) {
  if (total_ns >= 1e9) return {1e9, "s"};
  if (total_ns >= 1e6) return {1e6, "ms"};
  if (total_ns >= 1e3) return {1e3, "µs"};
  return {};
}

std::string span_text(const Unit& u, double begin_ns, double end_ns) {
  return fmt::format("{:.4g} → {:.4g} {}", begin_ns / u.ns, end_ns / u.ns, u.name);
}

// The ranks that compute in a compute phase ("0-3", "4, 5"), or "none".
std::string busy_ranks(const Phase& phase) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < phase.compute_us.size(); ++r)
    if (phase.compute_us[r] > 0) ranks.push_back(static_cast<int>(r));
  if (ranks.empty()) return "none";
  const bool contiguous = ranks.back() - ranks.front() + 1 == static_cast<int>(ranks.size());
  if (contiguous && ranks.size() > 2) return fmt::format("{}-{}", ranks.front(), ranks.back());
  return fmt::format("{}", fmt::join(ranks, ", "));
}

void clipped_text(ImDrawList* d, ImFont* f, ImVec2 at, float right, ImU32 col, const std::string& text) {
  d->PushClipRect(ImVec2(at.x, at.y), ImVec2(right, at.y + f->FontSize * 1.3f), true);
  d->AddText(f, f->FontSize, at, col, text.c_str());
  d->PopClipRect();
}

}  // namespace

void LessonPanel::Draw(App& app) {
  const Lesson& l = *app.doc.lesson;
  const bool questions = !l.scenario.questions.empty();
  if (l.multi_phase()) DrawPhases(app, questions ? std::floor(ImGui::GetContentRegionAvail().y * 0.55f) : 0.0f);
  if (questions) DrawQuestions(app);
}

void LessonPanel::DrawPhases(App& app, float height) {
  const Lesson& l = *app.doc.lesson;
  const ProgramResult& p = l.program;
  const Unit unit = unit_for(p.total_ns);
  ImGui::Text("Phases (%zu)", l.phase_count());
  ImGui::SameLine();
  help_marker("Every phase of the lesson in program order, with its predicted begin and end (the earliest and latest "
              "rank). Click one to show it. → or PageDown at a phase's last step goes on to the next phase, ← or "
              "PageUp at its first step back to the previous one; Play goes on through them. Blue: compute; green: "
              "communication.");
  ImGui::TextDisabled("%s predicted, %s", format_duration_ns(p.total_ns).c_str(), std::string(program_verdict(p)).c_str());
  ImGui::BeginChild("phases", ImVec2(0, height), false);
  ImFont* small = app.fonts.small;
  const float row_h = ImGui::GetTextLineHeight() + small->FontSize + 6;
  const float pitch = row_h + ImGui::GetStyle().ItemSpacing.y;
  if (scrolled_in != &l) ImGui::SetScrollY(0), scrolled_in = &l, scrolled_to = 0;  // another lesson: from the top
  if (scrolled_to != app.doc.phase) {  // keep the shown phase in view when the keys move it
    const float y = pitch * static_cast<float>(app.doc.phase);
    if (y < ImGui::GetScrollY() || y + pitch > ImGui::GetScrollY() + ImGui::GetWindowHeight())
      ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() / 3));
    scrolled_to = app.doc.phase;
  }
  ImDrawList* d = ImGui::GetWindowDrawList();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(l.phase_count()), pitch);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const Phase& phase = l.phase(k);
      const PhaseRun& pr = l.run_of(k);
      ImGui::PushID(i);
      const ImVec2 at = ImGui::GetCursorScreenPos();
      const float right = at.x + ImGui::GetContentRegionAvail().x;
      if (ImGui::Selectable("##phase", k == app.doc.phase, 0, ImVec2(0, row_h))) app.select_phase(k);
      if (ImGui::IsItemHovered() && !phase.caption.empty())
        ImGui::SetTooltip("%s", narration(l, k, 0).phase.c_str());
      d->AddRectFilled(ImVec2(at.x + 1, at.y + 3), ImVec2(at.x + 5, at.y + row_h - 3), phase_color(phase));
      clipped_text(d, ImGui::GetFont(), ImVec2(at.x + 10, at.y + 2), right,  colors::text,
                   fmt::format("{}. {}", i + 1, phase.name));
      clipped_text(d, small, ImVec2(at.x + 10, at.y + ImGui::GetTextLineHeight() + 3), right, colors::text_dim,
                   fmt::format("{} · {}", phase_summary(l, k), span_text(unit, pr.begin(), pr.end())));
      ImGui::PopID();
    }
  ImGui::EndChild();
}

void LessonPanel::DrawQuestions(App& app) {
  const Lesson& l = *app.doc.lesson;
  const std::vector<Question>& qs = l.scenario.questions;
  if (l.multi_phase()) ImGui::Separator();
  ImGui::Text("Questions (%zu)", qs.size());
  ImGui::SameLine();
  help_marker("The answers come from this run: change the ranks or the topology and run again, and they follow. "
              "A reveals the next hidden answer (and, once all are shown, hides them all again).");
  ImGui::SameLine();
  const bool all = app.reveals.count() == qs.size();
  if (ImGui::SmallButton(all ? "hide all" : "reveal all"))
    std::fill(app.reveals.shown.begin(), app.reveals.shown.end(), !all);
  ImGui::BeginChild("questions", ImVec2(0, 0), false);
  ImGui::PushTextWrapPos(0);
  for (std::size_t k = 0; k < qs.size(); ++k) {
    ImGui::PushID(static_cast<int>(k));
    ImGui::TextWrapped("%zu. %s", k + 1, l.questions[k].c_str());
    const bool shown = k < app.reveals.shown.size() && app.reveals.shown[k];
    if (shown) {
      const bool ok = k < l.answerable.size() && l.answerable[k];
      ImGui::PushStyleColor(ImGuiCol_Text, ok ? kAnswerColor : colors::error);
      ImGui::TextWrapped("%s", l.answers[k].c_str());
      ImGui::PopStyleColor();
    }
    if (ImGui::SmallButton(shown ? "hide the answer" : "show the answer")) app.reveals.toggle(k);
    ImGui::Spacing();
    ImGui::PopID();
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

namespace {

// A rank's row of the program timeline: a lane of bars per stream, then, when the lesson's
// phases allocate memory, a band for the memory line (three bars high: a 10 px ramp said
// nothing), and a gap.
struct RowShape {
  float bar_h = 5, memory_h = 0;
  std::size_t lanes = 2;
  float lane_y(std::size_t lane) const { return 2 + static_cast<float>(lane) * (bar_h + 1); }
  float memory_top() const { return lane_y(lanes) + 1; }
  float height() const { return memory_top() + memory_h + 3; }
};

bool has_memory(const ProgramResult& p) {
  return std::any_of(p.memory.begin(), p.memory.end(), [](const auto& line) { return !line.empty(); });
}

RowShape row_shape(const Lesson& l, float bar_h) {
  RowShape row;
  row.lanes = std::max<std::size_t>(l.lanes.lanes.size(), 1);
  row.bar_h = bar_h;
  row.memory_h = has_memory(l.program) ? std::max(3 * bar_h, 18.0f) : 0;
  return row;
}

}  // namespace

// Lanes tall enough for their names (Draw names them from 0.8 of a line of small text), as
// much of it as the panel plan gives (it keeps the timeline's minimum).
float ProgramTimelinePanel::DesiredHeight(const App& app) const {
  const RowShape row = row_shape(*app.doc.lesson, app.fonts.small->FontSize * 0.85f);
  return ImGui::GetTextLineHeight() + 4 + row.height() * static_cast<float>(std::max(app.doc.lesson->program.total_ranks, 1)) +
         2 * ImGui::GetStyle().WindowPadding.y;
}

namespace {

// Rank r's memory line (sim's ProgramResult::memory), a step line from the lane's bottom
// (nothing held) to its top (the largest peak of any rank), over the bars.
void draw_memory_line(ImDrawList* d, const TimeScale& scale, const ProgramResult& p, std::size_t r, double most,
                      float top, float bottom) {
  if (r >= p.memory.size() || p.memory[r].empty() || most <= 0) return;
  const auto y_of = [&](double bytes) { return bottom - static_cast<float>(bytes / most) * (bottom - top); };
  float x = scale.x0, y = bottom;
  for (const MemoryPoint& m : p.memory[r]) {
    const float nx = std::clamp(scale.x_of(m.time_ns), scale.x0, scale.x0 + scale.width);
    d->AddLine(ImVec2(x, y), ImVec2(nx, y), kMemoryColor, 1.5f);
    d->AddLine(ImVec2(nx, y), ImVec2(nx, y_of(m.bytes)), kMemoryColor, 1.5f);
    x = nx;
    y = y_of(m.bytes);
  }
  d->AddLine(ImVec2(x, y), ImVec2(scale.x0 + scale.width, y), kMemoryColor, 1.5f);
}

// A row's label column: the memory band's scale (the largest peak of any rank) beside it, and
// "r2" and each lane's stream ("compute", "comm", "default"; hover: what it is) when there is
// room for a line of small text per lane, else "rank 2" in the middle of the lanes.
void draw_row_labels(ImDrawList* d, ImFont* small, const Lesson& l, const RowShape& row, int r, ImVec2 at, float label_w,
                     bool lane_names, double most_memory) {
  const float right = at.x + label_w - 4;
  auto right_aligned = [&](const std::string& text, float y, ImU32 colour) {
    const float w = small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, text.c_str()).x;
    d->AddText(small, small->FontSize, ImVec2(right - w, y), colour, text.c_str());
    return ImVec2(right - w, y);
  };
  if (row.memory_h >= small->FontSize && most_memory > 0)
    right_aligned(format_bytes(most_memory), at.y + row.memory_top(), kMemoryColor);
  if (!lane_names) {  // the rank's name in the middle of its lanes
    d->AddText(small, small->FontSize, ImVec2(at.x + 8, at.y + (row.lane_y(row.lanes) - small->FontSize) / 2), colors::text,
               fmt::format("rank {}", r).c_str());
    return;
  }
  d->AddText(small, small->FontSize, ImVec2(at.x + 8, at.y + row.lane_y(0) + (row.bar_h - small->FontSize) / 2), colors::text,
             fmt::format("r{}", r).c_str());
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (std::size_t lane = 0; lane < row.lanes && lane < l.lanes.lanes.size(); ++lane) {
    const StreamLane& s = l.lanes.lanes[lane];
    const float y = at.y + row.lane_y(lane) + (row.bar_h - small->FontSize) / 2;
    const ImVec2 p = right_aligned(s.label, y, colors::text_dim);
    if (mouse.x >= p.x && mouse.x < right && mouse.y >= y && mouse.y < y + small->FontSize && ImGui::IsWindowHovered())
      ImGui::SetTooltip("%s", s.about.c_str());
  }
}

}  // namespace

void ProgramTimelinePanel::Draw(App& app) {
  const Lesson& l = *app.doc.lesson;
  const ProgramResult& p = l.program;
  const double lo = 0, hi = std::max(p.total_ns, 1.0);
  if (fitted_for != &l || fitted_total != p.total_ns) scale.t0 = lo, scale.t1 = hi, fitted_for = &l, fitted_total = p.total_ns;
  ImFont* small = app.fonts.small;
  const float label_w = ImGui::GetFontSize() * 6.0f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // The title in the label column, beside the ruler: every pixel of height goes to the lanes.
  ImGui::TextUnformatted("Program");
  ImGui::SameLine(0, 4);
  help_marker("The whole lesson, predicted: a lane per stream for each rank, named beside it (compute: the compute "
              "stream; comm: a collective's own stream, ProcessGroupNCCL's; default: CUDA's legacy default stream; "
              "and any stream the lesson names), a bar per phase on its stream's lane (blue: compute, green: "
              "communication). The shown phase is yellow, its span shaded across the lanes; the red line is the "
              "playhead within it. Where the lesson's phases allocate memory, a band under each rank's lanes plots the "
              "memory it holds, its top the largest peak of any rank (written beside it). Hover a lane's name for what "
              "it is; click a bar to show its phase. "
              "Mouse wheel: zoom; drag: pan; double click: the whole program.");
  scale.x0 = origin.x + label_w;
  scale.width = std::max(10.0f, ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ScrollbarSize);
  const float ruler_h = ImGui::GetTextLineHeight();
  ImDrawList* d = ImGui::GetWindowDrawList();
  d->AddRectFilled(ImVec2(scale.x0, origin.y), ImVec2(scale.x0 + scale.width, origin.y + ruler_h), IM_COL32(40, 44, 54, 255));
  // Ticks far enough apart for their labels at any text size; a label that would run past
  // the ruler's end is left out (its tick stays).
  const float tick_w = small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, "888.888 ms").x;
  const double step = nice_step(std::max(90.0f, tick_w + small->FontSize) / std::max(scale.px_per_unit(), 1e-12), false);
  for (double t = std::ceil(scale.t0 / step) * step; t <= scale.t1; t += step) {
    const float x = scale.x_of(t);
    const std::string text = format_duration_ns(t);
    d->AddLine(ImVec2(x, origin.y + ruler_h * 0.55f), ImVec2(x, origin.y + ruler_h), colors::text_dim);
    if (x + 3 + small->CalcTextSizeA(small->FontSize, FLT_MAX, 0, text.c_str()).x <= scale.x0 + scale.width)
      d->AddText(small, small->FontSize, ImVec2(x + 3, origin.y + 1), colors::text_dim, text.c_str());
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + ruler_h + 2));

  ImGui::BeginChild("program_lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
  d = ImGui::GetWindowDrawList();
  const int ranks = std::max(p.total_ranks, 1);
  const float fit = (ImGui::GetContentRegionAvail().y - 2) / static_cast<float>(ranks);
  // The bar height that fits every row, between 5 px and a line of small text.
  RowShape row = row_shape(l, small->FontSize * 1.1f);
  const float per_bar = row.height() / row.bar_h;  // a row is about this many bars high
  row = row_shape(l, std::clamp(fit / per_bar, 5.0f, small->FontSize * 1.1f));
  const float lane_h = row.height();
  const bool lane_names = row.bar_h >= small->FontSize * 0.8f;  // else the rank alone, and the help says the rest
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const std::size_t shown = app.doc.phase;
  const PhaseRun& shown_run = l.run_of(shown);
  int hovered = -1, hovered_rank = -1;
  double most_memory = 0;  // the memory lines share one scale: the largest peak of any rank
  for (const double peak : p.peak_memory_bytes) most_memory = std::max(most_memory, peak);
  // The shown phase's span, shaded across every lane: its boundaries.
  const float top = ImGui::GetWindowPos().y, bottom = top + ImGui::GetWindowSize().y;
  const float sx0 = std::max(scale.x_of(shown_run.begin()), scale.x0);
  const float sx1 = std::min(std::max(scale.x_of(shown_run.end()), sx0 + 2), scale.x0 + scale.width);
  if (sx1 > sx0) d->AddRectFilled(ImVec2(sx0, top), ImVec2(sx1, bottom), IM_COL32(240, 190, 70, 40));
  ImGuiListClipper clipper;
  clipper.Begin(ranks, lane_h);
  while (clipper.Step())
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const ImVec2 lp = ImGui::GetCursorScreenPos();
      ImGui::Dummy(ImVec2(1, lane_h));
      d->AddLine(ImVec2(lp.x, lp.y + lane_h - 1), ImVec2(scale.x0 + scale.width, lp.y + lane_h - 1), IM_COL32(50, 54, 64, 255));
      if (ranks <= 16) d->AddRectFilled(ImVec2(lp.x, lp.y + 2), ImVec2(lp.x + 4, lp.y + lane_h - 3), rank_color(r));
      draw_row_labels(d, small, l, row, r, lp, label_w, lane_names, most_memory);
      d->PushClipRect(ImVec2(scale.x0, lp.y), ImVec2(scale.x0 + scale.width, lp.y + lane_h), true);
      std::vector<float> last_x(row.lanes, -1e9f);  // per lane: the last pixel drawn (bars inside it are skipped)
      for (std::size_t k = 0; k < p.phases.size(); ++k) {
        const PhaseRun& pr = p.phases[k];
        const auto rank = static_cast<std::size_t>(r);
        if (rank >= pr.rank_begin_ns.size() || pr.rank_begin_ns[rank] < 0) continue;
        if (pr.rank_end_ns[rank] < scale.t0 || pr.rank_begin_ns[rank] > scale.t1) continue;  // culled
        const std::size_t lane = std::min(k < l.lanes.lane_of_phase.size() ? l.lanes.lane_of_phase[k] : 0, row.lanes - 1);
        const float x0 = scale.x_of(pr.rank_begin_ns[rank]);
        const float x1 = std::max(scale.x_of(pr.rank_end_ns[rank]), x0 + 1);
        const float y0 = lp.y + row.lane_y(lane), y1 = y0 + row.bar_h;
        const bool is_shown = k == shown;
        if (mouse.x >= x0 && mouse.x < std::max(x1, x0 + 3) && mouse.y >= y0 && mouse.y < y1) hovered = static_cast<int>(k), hovered_rank = r;
        if (x1 <= last_x[lane] && !is_shown) continue;  // folded into the pixel already drawn
        last_x[lane] = x1;
        d->AddRectFilled(ImVec2(x0, y0), ImVec2(x1 - (x1 - x0 > 4 ? 1.0f : 0.0f), y1),
                         is_shown ? kSelectedColor : phase_color(l.phase(k)));
        if (is_shown) d->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), colors::highlight);
      }
      if (row.memory_h > 0) {
        const float mtop = lp.y + row.memory_top(), mbottom = mtop + row.memory_h;
        d->AddRectFilled(ImVec2(scale.x0, mtop), ImVec2(scale.x0 + scale.width, mbottom), IM_COL32(30, 33, 41, 255));
        draw_memory_line(d, scale, p, static_cast<std::size_t>(r), most_memory, mtop + 1, mbottom - 1);
      }
      d->PopClipRect();
    }
  // The playhead within the shown phase, in program time (when its view has predictions).
  if (app.doc.model && app.doc.model->has_clock(ClockKind::predicted)) {
    const ViewModel& vm = *app.doc.model;
    const double position = app.playback.step_position(vm);
    const int k = static_cast<int>(std::floor(position));
    const double a = vm.step_time(ClockKind::predicted, k), b = vm.step_time(ClockKind::predicted, std::min(k + 1, vm.step_count()));
    const float x = scale.x_of(shown_run.begin() + a + (position - k) * (b - a));
    if (x >= scale.x0 && x <= scale.x0 + scale.width) d->AddLine(ImVec2(x, top), ImVec2(x, bottom), colors::playhead, 2.0f);
  }
  if (ImGui::IsWindowHovered()) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.MouseWheel != 0) scale = zoom(scale, scale.t_of(io.MousePos.x), std::pow(1.25, io.MouseWheel), lo, hi, std::max(1.0, hi * 1e-6));
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
      scale = pan(scale, -io.MouseDelta.x, lo, hi);
      ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseDelta.y);
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) scale.t0 = lo, scale.t1 = hi;
    if (hovered >= 0) {
      const auto k = static_cast<std::size_t>(hovered);
      const PhaseRun& pr = p.phases[k];
      const auto rank = static_cast<std::size_t>(hovered_rank);
      ImGui::SetTooltip("phase %d: %s\n%s\nrank %d: %s → %s (%s)\nclick to show it", hovered + 1, l.phase(k).name.c_str(),
                        phase_summary(l, k).c_str(), hovered_rank, format_duration_ns(pr.rank_begin_ns[rank]).c_str(),
                        format_duration_ns(pr.rank_end_ns[rank]).c_str(),
                        format_duration_ns(pr.rank_end_ns[rank] - pr.rank_begin_ns[rank]).c_str());
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetIO().MouseDragMaxDistanceSqr[0] < 16) app.select_phase(k);
    }
  }
  ImGui::PopStyleVar();
  ImGui::EndChild();
}

void ComputeCard::Draw(App& app) {
  const Lesson& l = *app.doc.lesson;
  const std::size_t k = app.doc.phase;
  const Phase& phase = l.phase(k);
  const PhaseRun& pr = l.run_of(k);
  ImGui::PushFont(app.fonts.large);
  ImGui::Text("%s", phase.name.c_str());
  ImGui::PopFont();
  ImGui::TextDisabled("compute on ranks %s, predicted %s → %s", busy_ranks(phase).c_str(), format_duration_ns(pr.begin()).c_str(),
                      format_duration_ns(pr.end()).c_str());
  if (!phase.reads.empty() || !phase.writes.empty())
    ImGui::TextDisabled("reads %s; writes %s", phase.reads.empty() ? "nothing" : fmt::format("{}", fmt::join(phase.reads, ", ")).c_str(),
                        phase.writes.empty() ? "nothing" : fmt::format("{}", fmt::join(phase.writes, ", ")).c_str());
  ImGui::Spacing();
  double most = 0;
  for (std::size_t r = 0; r < pr.rank_begin_ns.size(); ++r)
    if (pr.rank_begin_ns[r] >= 0) most = std::max(most, pr.rank_end_ns[r] - pr.rank_begin_ns[r]);
  const float label_w = ImGui::GetFontSize() * 4.5f, text_w = ImGui::GetFontSize() * 17;
  const float bar_w = std::max(20.0f, ImGui::GetContentRegionAvail().x - label_w - text_w);
  const float row_h = std::max(ImGui::GetTextLineHeight() * 1.4f, 16.0f);
  ImDrawList* d = ImGui::GetWindowDrawList();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(pr.rank_begin_ns.size()), row_h + ImGui::GetStyle().ItemSpacing.y);
  while (clipper.Step())
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const auto rank = static_cast<std::size_t>(r);
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::Dummy(ImVec2(1, row_h));
      if (r < 16) d->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + 4, at.y + row_h - 2), rank_color(r));
      d->AddText(ImVec2(at.x + 8, at.y + (row_h - ImGui::GetFontSize()) / 2), colors::text, fmt::format("rank {}", r).c_str());
      const double ns = pr.rank_begin_ns[rank] >= 0 ? pr.rank_end_ns[rank] - pr.rank_begin_ns[rank] : 0.0;
      const float w = most > 0 ? bar_w * static_cast<float>(ns / most) : 0.0f;
      const float x = at.x + label_w;
      d->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(x + bar_w, at.y + row_h - 2), colors::empty_cell);
      if (w > 0) d->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(x + w, at.y + row_h - 2), kComputeColor);
      const std::string text = ns > 0 ? fmt::format("{}  ({} → {})", format_duration_ns(ns), format_duration_ns(pr.rank_begin_ns[rank]),
                                                    format_duration_ns(pr.rank_end_ns[rank]))
                                      : std::string("idle");
      d->AddText(ImVec2(x + bar_w + 8, at.y + (row_h - ImGui::GetFontSize()) / 2), ns > 0 ? colors::text : colors::text_dim,
                 text.c_str());
    }
}

}  // namespace collsim::gui
