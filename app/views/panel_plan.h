// How the window's main area is shared between the panels, in plain C++ (no ImGui): every
// panel has a usable minimum, in ems so that it grows with the text (--scale), and when
// the window is too small for all of them the less important panels give way — collapse to
// a header line or a narrow strip — instead of every panel shrinking below its minimum.
//
// Importance, most first: the scene, the buffers, the timeline, the numbers, the lesson's
// side panel (phases and questions), the lesson's program timeline. The app draws the
// panels at the sizes planned here and records the rectangles ImGui gave them
// (App::panels), which the layout tests hold to these minimums.
#pragma once
#include <cstdint>
#include <string_view>

namespace collsim::gui {

// about: the stage's About button (the title and the lesson's longer words); no panel of its own.
enum class PanelId : int { lesson, scene, buffers, numbers, program, timeline, about, count };
std::string_view to_string(PanelId id);

// A panel's usable minimum, in ems (the font size in pixels).
struct PanelMinimum {
  float width_em, height_em;
};
// The table of minimums (docs/gui.md, "A layout that fits"). A width of 0: the panel spans
// the window's width, which is checked by its own minimum elsewhere (none for now).
PanelMinimum panel_minimum(PanelId id);

// What the main area holds, and what the panels would like.
struct MainAreaRequest {
  float width = 0, height = 0;  // px: the area under the toolbar, the transport and the caption
  float em = 16;                // the font size, px
  float gap = 8;                // the spacing between panels, px
  float header_h = 24;          // a collapsed panel's height (a header line), px
  bool lesson_panel = false;    // a lesson with phases or questions: the side panel
  bool program = false;         // a lesson of several phases: the program timeline
  bool numbers_open = true;     // the numbers panel's own toggle
  bool run = true;              // a run is shown (false: a lesson's compute card, no timeline)
  float buffers_wanted = 0;     // px the buffers' rows would like
  float program_wanted = 0;     // px the program's lanes would like
  float timeline_wanted = 0;    // px the timeline's lanes would like (0: no preference)
};

struct PanelBox {
  float width = 0, height = 0;
  bool shown = false;      // false: not part of this view at all
  bool collapsed = false;  // given way: a header line (or, for the lesson panel, a narrow strip)
};

struct PanelPlan {
  PanelBox box[static_cast<int>(PanelId::count)];
  float main_h = 0;      // the row of the side panel, the scene and the buffers/numbers column
  float right_w = 0;     // the buffers and numbers column
  bool fits = true;      // every shown, not collapsed panel got at least its minimum
  PanelBox& operator[](PanelId id) { return box[static_cast<int>(id)]; }
  const PanelBox& operator[](PanelId id) const { return box[static_cast<int>(id)]; }
};

// The single view's plan: [lesson | scene | buffers over numbers] over [program] over [timeline].
PanelPlan plan_panels(const MainAreaRequest& r);

// The stage: a classroom's layout (docs/gui.md, "The stage"). The scene, the algorithm in
// its shape, takes the window's whole height under the caption; beside it a column of every
// rank's buffers in compact rows (the outputs at least, the inputs when they fit), the
// lesson's program (when it fits) and at its foot the numbers on a line, led by the
// prediction. The toolbar keeps one row, with buttons that open what gave way (the timeline,
// the phases and questions, the lesson's longer words, every figure) over the window.
// Give-way order in the column: the program's room for its lanes' names goes before the
// input rows do (a streams lesson's point is its named lanes), the input rows before the
// program's minimum, then the program; the output rows and the scene never.
//
// Used in presenter mode and wherever the window is small for its text: narrower than
// kStageWidthEm or shorter than kStageHeightEm ems (1280x800 at --scale 1.5 is 53 x 33;
// 1920x1080 at --scale 2 is 60 x 34; at scale 1 both are workbenches). The View menu and
// --stage choose it at any size.
enum class StageChoice : std::uint8_t { automatic, on, off };
inline constexpr float kStageWidthEm = 64, kStageHeightEm = 40;
bool wants_stage(StageChoice choice, bool presenting, float window_w, float window_h, float em);

struct StageRequest {
  float width = 0, height = 0;  // px: the area under the caption, above the bar
  float em = 16, gap = 8;
  bool program = false;         // a lesson of several phases
  float outputs_wanted = 0;     // px the buffers panel wants with its output rows only
  float all_rows_wanted = 0;    // ... with the inputs too (= outputs_wanted when there are none)
  float numbers_h = 0;          // px the numbers' line takes at the column's foot
  float program_wanted = 0;     // px the program wants: its lanes tall enough for their names
};
struct StagePlan {
  float scene_w = 0, right_w = 0;
  float buffers_h = 0;
  float program_h = 0;         // 0: the program gave way (a button in the toolbar)
  float numbers_h = 0;         // the numbers' line, at the column's foot
  bool inputs = false;         // the input rows fit
};
StagePlan plan_stage(const StageRequest& r);

}  // namespace collsim::gui
