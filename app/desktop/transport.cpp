// Transport: |◀◀ |◀ ▶/❚❚ ▶| ▶▶| drawn as shapes (no font glyphs needed), the scrubber,
// speed, loop, the clock; and the keyboard: space, ← →, Home, End, PageUp/PageDown (what
// a presentation clicker sends; in a lesson they go on to the next or previous phase at a
// phase's end or start), A (reveal the next answer), F11 full screen. In a lesson, play
// goes on through the phases and loop loops the whole lesson (lesson_tick).
#include <algorithm>
#include <cmath>

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include "app/desktop/app.h"

namespace collsim::gui {
namespace {

enum class Icon { first, back, play, pause, forward, last };

void triangle(ImDrawList* d, ImVec2 c, float h, bool right, ImU32 col) {
  const float w = h * 0.9f, s = right ? 1.0f : -1.0f;
  d->AddTriangleFilled(ImVec2(c.x - s * w / 2, c.y - h / 2), ImVec2(c.x + s * w / 2, c.y), ImVec2(c.x - s * w / 2, c.y + h / 2), col);
}

void bar(ImDrawList* d, ImVec2 c, float h, ImU32 col) {
  d->AddRectFilled(ImVec2(c.x - h * 0.09f, c.y - h / 2), ImVec2(c.x + h * 0.09f, c.y + h / 2), col);
}

void draw_icon(ImDrawList* d, ImVec2 c, float h, Icon icon, ImU32 col) {
  const float u = h * 0.42f;
  switch (icon) {
    case Icon::first: bar(d, {c.x - u * 1.05f, c.y}, h, col), triangle(d, {c.x - u * 0.25f, c.y}, h, false, col),
                      triangle(d, {c.x + u * 0.6f, c.y}, h, false, col); break;
    case Icon::back: bar(d, {c.x - u * 0.55f, c.y}, h, col), triangle(d, {c.x + u * 0.3f, c.y}, h, false, col); break;
    case Icon::play: triangle(d, {c.x + u * 0.1f, c.y}, h * 1.15f, true, col); break;
    case Icon::pause: bar(d, {c.x - u * 0.45f, c.y}, h, col), bar(d, {c.x + u * 0.45f, c.y}, h, col); break;
    case Icon::forward: triangle(d, {c.x - u * 0.3f, c.y}, h, true, col), bar(d, {c.x + u * 0.55f, c.y}, h, col); break;
    case Icon::last: triangle(d, {c.x - u * 0.6f, c.y}, h, true, col), triangle(d, {c.x + u * 0.25f, c.y}, h, true, col),
                     bar(d, {c.x + u * 1.05f, c.y}, h, col); break;
  }
}

bool icon_button(const char* id, Icon icon, const char* tooltip) {
  const float size = ImGui::GetFrameHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const bool pressed = ImGui::InvisibleButton(id, ImVec2(size * 1.25f, size));
  const ImGuiCol bg = ImGui::IsItemActive() ? ImGuiCol_ButtonActive : ImGui::IsItemHovered() ? ImGuiCol_ButtonHovered : ImGuiCol_Button;
  ImDrawList* d = ImGui::GetWindowDrawList();
  d->AddRectFilled(p, ImVec2(p.x + size * 1.25f, p.y + size), ImGui::GetColorU32(bg), ImGui::GetStyle().FrameRounding);
  draw_icon(d, ImVec2(p.x + size * 0.625f, p.y + size / 2), size * 0.46f, icon, colors::text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  return pressed;
}

std::string position_text(const App& app) {
  const Runs runs = app.runs();
  if (app.playback.clock == ClockKind::steps) return fmt::format("step {:.2f} / {}", app.playback.t, runs.step_count());
  return fmt::format("{} / {}", format_duration_ns(app.playback.t), format_duration_ns(runs.finish(app.playback.clock)));
}

// Comparing, the scrubber covers both runs: from the earlier start to the later finish.
// The position is written after the slider, where its thumb cannot cover it.
void scrubber(App& app, float width) {
  const Runs runs = app.runs();
  double t = app.playback.t;
  const double lo = runs.start(app.playback.clock), hi = std::max(runs.finish(app.playback.clock), lo + 1e-9);
  const std::string where = position_text(app);
  const float text_w = ImGui::CalcTextSize(where.c_str()).x, spacing = ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 4, width - text_w - spacing));
  if (ImGui::SliderScalar("##scrub", ImGuiDataType_Double, &t, &lo, &hi, "", ImGuiSliderFlags_NoRoundToFormat)) {
    app.playback.playing = false;
    app.playback.seek_time(runs, t);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("drag to move the playhead: %s", where.c_str());
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", where.c_str());
}

// The clock as a combo: a clock a trace does not have is disabled, with a tooltip that says why.
void clock_choice(App& app) {
  const Runs runs = app.runs();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  if (ImGui::BeginCombo("##clock", std::string(to_string(app.playback.clock)).c_str())) {
    for (ClockKind k : kAllClocks) {
      const bool has = runs.has_clock(k);
      if (ImGui::Selectable(std::string(to_string(k)).c_str(), app.playback.clock == k, has ? 0 : ImGuiSelectableFlags_Disabled))
        app.playback.set_clock(runs, k);
      if (!has && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(k == ClockKind::predicted ? "this trace has no predicted times (no timing model ran)"
                                                    : "this trace has no measured times");
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("steps: one unit per step; measured: the backend's times; predicted: the timing model's on the topology");
}

// The View menu: playing (speed, loop), the arrangement, the scene's and panels' toggles, the scale.
void view_menu(App& app) {
  ViewToggles& v = app.toggles;
  if (ImGui::Button("View")) ImGui::OpenPopup("view");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("speed %.2f×%s; the arrangement, the toggles, the UI scale, presenter mode",
                                                app.playback.speed, app.playback.loop ? ", loop" : "");
  if (!ImGui::BeginPopup("view")) return;
  Playback& p = app.playback;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderFloat("speed", &p.speed, 0.1f, 8.0f, "%.2f×", ImGuiSliderFlags_Logarithmic);
  ImGui::Checkbox("loop", &p.loop);
  if (app.doc.lesson && app.doc.lesson->phase_count() > 1 && ImGui::IsItemHovered())
    ImGui::SetTooltip("at the lesson's end, play on from its first phase");
  ImGui::Separator();
  const ViewModel& vm = *app.doc.model;
  if (!vm.has_topology()) ImGui::BeginDisabled();
  // The scene's arrangement (layout.h): the algorithm's shape, the topology's wires, or both.
  int arranged = static_cast<int>(vm.arranged());
  ImGui::TextUnformatted("arrange by:");
  ImGui::SameLine();
  bool chosen = ImGui::RadioButton("algorithm", &arranged, static_cast<int>(Arrangement::algorithm));
  ImGui::SameLine();
  chosen |= ImGui::RadioButton("topology", &arranged, static_cast<int>(Arrangement::topology));
  ImGui::SameLine();
  chosen |= ImGui::RadioButton("both", &arranged, static_cast<int>(Arrangement::both));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the algorithm's shape with the topology's switches and wires inside it");
  if (chosen) app.requested_arrangement = static_cast<Arrangement>(arranged);
  if (!vm.has_topology()) ImGui::EndDisabled();
  ImGui::Checkbox("link heat (traffic so far)", &v.link_heat);
  ImGui::Checkbox("bytes next to each rank", &v.rank_bytes);
  ImGui::Checkbox("legend", &v.legend);
  ImGui::Checkbox("timeline follows the playhead", &v.follow_playhead);
  ImGui::Checkbox("lesson text under the caption", &v.about);
  int stage = static_cast<int>(v.stage);  // the stage layout (panel_plan.h)
  ImGui::TextUnformatted("stage layout:");
  ImGui::SameLine();
  ImGui::RadioButton("auto", &stage, static_cast<int>(StageChoice::automatic));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the stage when presenting or when the window is small for its text");
  ImGui::SameLine();
  ImGui::RadioButton("on", &stage, static_cast<int>(StageChoice::on));
  ImGui::SameLine();
  ImGui::RadioButton("off", &stage, static_cast<int>(StageChoice::off));
  v.stage = static_cast<StageChoice>(stage);
  if (ImGui::MenuItem("Presenter mode", "F5")) app.set_presenting(true);
  float scale = v.ui_scale;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::SliderFloat("UI scale", &scale, 0.75f, 2.5f, "%.2f×")) v.ui_scale = scale;
  if (ImGui::IsItemDeactivatedAfterEdit()) app.requested_scale = v.ui_scale;
  if (ImGui::MenuItem("Full screen", "F11") && app.toggle_fullscreen) app.toggle_fullscreen();
  ImGui::Separator();
  ImGui::TextDisabled("font: %s", app.fonts.source.c_str());
  ImGui::EndPopup();
}

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); }

}  // namespace

void TransportPanel::HandleKeys(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || !app.has_document()) return;
  // A lecture's slides on PageDown/PageUp (a clicker's keys); else they step as the arrows do.
  if (app.lecture && pressed(ImGuiKey_PageDown)) app.go_to_slide(app.slide + 1);
  else if (app.lecture && pressed(ImGuiKey_PageUp)) app.go_to_slide(app.slide > 0 ? app.slide - 1 : 0);
  else if (pressed(ImGuiKey_RightArrow) || pressed(ImGuiKey_PageDown)) app.step_forward();
  else if (pressed(ImGuiKey_LeftArrow) || pressed(ImGuiKey_PageUp)) app.step_back();
  if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) app.set_presenting(!app.presenting);
  if (app.presenting && !app.loading() && pressed(ImGuiKey_Escape)) app.set_presenting(false);
  if (pressed(ImGuiKey_A) && !io.KeyCtrl) app.reveal_next();
  // 1.86's key API has no F11: the GLFW backend indexes KeysDown by GLFW key code.
  if (ImGui::IsKeyPressed(GLFW_KEY_F11, false) && app.toggle_fullscreen) app.toggle_fullscreen();
  if (pressed(ImGuiKey_Space)) app.toggle_play();  // a lesson's compute phase too: it plays on to the next phase
  if (!app.doc.model) return;
  const Runs runs = app.runs();
  Playback& p = app.playback;
  if (pressed(ImGuiKey_Home)) p.home(runs);
  if (pressed(ImGuiKey_End)) p.end(runs);
}

void TransportPanel::Draw(App& app) {
  clipped = 0;
  const bool phases = app.doc.lesson && app.doc.lesson->phase_count() > 1;
  const char* play = phases ? "play / pause (space): on through the lesson's phases" : "play / pause (space)";
  if (!app.doc.model) {  // a compute phase of a lesson: the way on and back, and playing on
    if (icon_button("##back", Icon::back, "the previous phase (← or PageUp)")) app.step_back();
    ImGui::SameLine(0, 4);
    if (icon_button("##play", app.playback.playing ? Icon::pause : Icon::play, play)) app.toggle_play();
    ImGui::SameLine(0, 4);
    if (icon_button("##forward", Icon::forward, "the next phase (→ or PageDown)")) app.step_forward();
    ImGui::SameLine();
    ImGui::PushFont(app.fonts.large);
    ImGui::AlignTextToFramePadding();
    ImGui::Text("Phase %zu/%zu · compute", app.doc.phase + 1, app.doc.lesson->phase_count());
    ImGui::PopFont();
    return;
  }
  const Runs runs = app.runs();
  Playback& p = app.playback;
  const char* back = phases ? "step back; at the phase's start, the previous phase (← or PageUp)" : "step back (← or PageUp)";
  const char* forward = phases ? "step forward; at the phase's end, the next phase (→ or PageDown)" : "step forward (→ or PageDown)";
  if (icon_button("##first", Icon::first, "to the start (Home)")) p.home(runs);
  ImGui::SameLine(0, 4);
  if (icon_button("##back", Icon::back, back)) app.step_back();
  ImGui::SameLine(0, 4);
  if (icon_button("##play", p.playing ? Icon::pause : Icon::play, play)) app.toggle_play();
  ImGui::SameLine(0, 4);
  if (icon_button("##forward", Icon::forward, forward)) app.step_forward();
  ImGui::SameLine(0, 4);
  if (icon_button("##last", Icon::last, "to the end (End)")) p.end(runs);
  if (!app.doc.model) return;  // a button went on to a compute phase: its transport is drawn next frame
  ImGui::SameLine();
  ImGui::PushFont(app.fonts.large);
  ImGui::AlignTextToFramePadding();
  if (phases) {
    ImGui::Text("Phase %zu/%zu ·", app.doc.phase + 1, app.doc.lesson->phase_count());
    ImGui::SameLine();
  }
  // The step in progress while packets fly; the last one done at rest. Comparing: each run's.
  const auto shown = [](const Frame& f, const ViewModel& m) {
    return caption_step(f, m.step_count());
  };
  if (app.doc.compare)
    ImGui::Text("Step %d/%d · %d/%d", shown(app.now, runs.a()), runs.a().step_count(), shown(app.compare_now, *runs.b()),
                runs.b()->step_count());
  else
    ImGui::Text("Step %d/%d", shown(app.now, runs.a()), runs.a().step_count());
  ImGui::PopFont();
  ImGui::SameLine();
  // The scrubber takes the rest of the row, less the group on its right; when the row has
  // no room for both, the group goes under it.
  const float rest = ImGui::GetContentRegionAvail().x, spacing = ImGui::GetStyle().ItemSpacing.x;
  const bool one_row = right_w > 0 && rest >= ImGui::GetFontSize() * 12 + spacing + right_w;
  scrubber(app, one_row ? rest - right_w - spacing : rest);
  clipped += past_right_edge() ? 1 : 0;
  if (one_row) ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("clock");
  ImGui::SameLine(0, 4);
  clock_choice(app);
  ImGui::SameLine();
  view_menu(app);
  ImGui::EndGroup();
  right_w = ImGui::GetItemRectSize().x;
  clipped += past_right_edge() ? 1 : 0;
}

}  // namespace collsim::gui
