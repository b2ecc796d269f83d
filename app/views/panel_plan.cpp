#include "app/views/panel_plan.h"

#include <algorithm>
#include <cmath>

namespace collsim::gui {

std::string_view to_string(PanelId id) {
  switch (id) {
    case PanelId::lesson: return "lesson";
    case PanelId::scene: return "scene";
    case PanelId::buffers: return "buffers";
    case PanelId::numbers: return "numbers";
    case PanelId::program: return "program";
    case PanelId::timeline: return "timeline";
    case PanelId::about: return "about";
    case PanelId::count: break;
  }
  return "?";
}

PanelMinimum panel_minimum(PanelId id) {
  switch (id) {
    case PanelId::lesson: return {13, 8};     // a phase row or a question, its button, readable
    case PanelId::scene: return {20, 11};     // 16 ranks on a circle with their labels
    case PanelId::buffers: return {16, 5};    // the header and two readable rows (or the overview)
    case PanelId::numbers: return {16, 6};    // the header and four lines of figures
    case PanelId::program: return {0, 3.5f};  // the ruler and a lane pair per rank at their thinnest
    case PanelId::timeline: return {0, 6};    // the header, the ruler and a few lanes
    case PanelId::about: return {0, 0};       // a button
    case PanelId::count: break;
  }
  return {0, 0};
}

namespace {

float min_w(PanelId id, float em) { return panel_minimum(id).width_em * em; }
float min_h(PanelId id, float em) { return panel_minimum(id).height_em * em; }

// The bottom band: the program timeline (a lesson of several phases) over the transfers'
// timeline; the program and then the timeline collapse to a header line when the main row
// would be shorter than its minimum.
void plan_bottom(const MainAreaRequest& r, PanelPlan& p) {
  const float em = r.em, gap = r.gap;
  PanelBox& program = p[PanelId::program];
  PanelBox& timeline = p[PanelId::timeline];
  program.shown = r.program;
  timeline.shown = r.run;
  if (!program.shown && !timeline.shown) {
    p.main_h = r.height;
    return;
  }
  const float main_min = min_h(PanelId::scene, em);
  float wanted = r.height * (r.program ? 0.44f : 0.30f);
  if (!r.program && r.timeline_wanted > 0) wanted = std::min(wanted, std::max(min_h(PanelId::timeline, em), r.timeline_wanted));
  const float room = r.height - gap - main_min;  // the most the band may take
  const auto needs = [&] {
    float h = 0;
    if (timeline.shown) h += timeline.collapsed ? r.header_h : min_h(PanelId::timeline, em);
    if (program.shown) h += (program.collapsed ? r.header_h : min_h(PanelId::program, em)) + (timeline.shown ? gap : 0);
    return h;
  };
  if (room < needs() && program.shown) program.collapsed = true;
  if (room < needs() && timeline.shown) timeline.collapsed = true;
  float bottom = std::clamp(wanted, needs(), std::max(room, needs()));
  if ((!program.shown || program.collapsed) && (!timeline.shown || timeline.collapsed))
    bottom = needs();  // nothing in it grows: the main row takes the rest
  p.main_h = std::floor(r.height - gap - bottom);
  if (program.shown && timeline.shown) {
    program.height = program.collapsed ? r.header_h
                                       : std::max(min_h(PanelId::program, em), std::min(r.program_wanted, (bottom - gap) * 0.55f));
    if (!program.collapsed && !timeline.collapsed)  // the timeline keeps its minimum
      program.height = std::min(program.height, bottom - gap - min_h(PanelId::timeline, em));
    timeline.height = bottom - gap - program.height;
  } else if (program.shown) {
    program.height = bottom;
  } else {
    timeline.height = bottom;
  }
  program.height = std::floor(program.height), timeline.height = std::floor(timeline.height);
  program.width = timeline.width = r.width;
}

// The main row: the lesson's side panel (a narrow strip when there is no room for it),
// the scene, and the column of the buffers over the numbers (or a compute card).
void plan_row(const MainAreaRequest& r, PanelPlan& p) {
  const float em = r.em, gap = r.gap;
  const float scene_min = min_w(PanelId::scene, em), right_min = min_w(PanelId::buffers, em);
  const float run_min = r.run ? scene_min + gap + right_min : scene_min;
  PanelBox& lesson = p[PanelId::lesson];
  lesson.shown = r.lesson_panel;
  float rest = r.width;
  if (lesson.shown) {
    const float wanted = std::clamp(r.width * 0.22f, em * 14, em * 24);
    const float room = r.width - gap - run_min;
    if (room >= wanted) {
      lesson.width = wanted;
    } else if (room >= min_w(PanelId::lesson, em)) {
      lesson.width = room;
    } else {
      lesson.collapsed = true;
      lesson.width = em * 2.2f;
    }
    lesson.width = std::floor(lesson.width);
    lesson.height = p.main_h;
    rest = r.width - lesson.width - gap;
  }
  PanelBox& scene = p[PanelId::scene];
  scene.shown = true;  // the scene, or a compute phase's card in its place
  scene.height = p.main_h;
  if (!r.run) {
    scene.width = rest;
    return;
  }
  scene.width = std::floor(std::clamp(rest * 0.52f, std::min(scene_min, rest), std::max(rest - gap - right_min, scene_min)));
  p.right_w = rest - scene.width - gap;
  PanelBox& buffers = p[PanelId::buffers];
  PanelBox& numbers = p[PanelId::numbers];
  buffers.shown = numbers.shown = true;
  buffers.width = numbers.width = p.right_w;
  const float main = p.main_h;
  buffers.height = std::clamp(r.buffers_wanted, main * 0.3f, main * 0.7f);
  numbers.collapsed = !r.numbers_open;
  if (!numbers.collapsed && main - buffers.height - gap < min_h(PanelId::numbers, em)) {
    buffers.height = std::max(min_h(PanelId::buffers, em), main - gap - min_h(PanelId::numbers, em));
    numbers.collapsed = main - buffers.height - gap < min_h(PanelId::numbers, em);
  }
  if (numbers.collapsed) buffers.height = main - gap - r.header_h;
  buffers.height = std::floor(buffers.height);
  numbers.height = main - buffers.height - gap;
}

}  // namespace

PanelPlan plan_panels(const MainAreaRequest& r) {
  PanelPlan p;
  plan_bottom(r, p);
  plan_row(r, p);
  for (int i = 0; i < static_cast<int>(PanelId::count); ++i) {
    const PanelBox& b = p.box[i];
    const PanelMinimum m = panel_minimum(static_cast<PanelId>(i));
    if (b.shown && !b.collapsed && (b.width + 0.5f < m.width_em * r.em || b.height + 0.5f < m.height_em * r.em)) p.fits = false;
  }
  return p;
}

bool wants_stage(StageChoice choice, bool presenting, float window_w, float window_h, float em) {
  if (choice != StageChoice::automatic) return choice == StageChoice::on;
  return presenting || window_w < kStageWidthEm * em || window_h < kStageHeightEm * em;
}

StagePlan plan_stage(const StageRequest& r) {
  StagePlan p;
  const float em = r.em, gap = r.gap;
  // The column: wide enough for "rank 7 out" and cells a chunk can be read in, at most a
  // third of the width; the scene takes the rest (and never less than its minimum).
  p.right_w = std::floor(std::clamp(r.width * 0.3f, min_w(PanelId::buffers, em), em * 24));
  p.right_w = std::max(0.0f, std::min(p.right_w, r.width - gap - min_w(PanelId::scene, em)));
  p.scene_w = r.width - gap - p.right_w;
  // The numbers at the foot; the input rows when every row fits above them; the program
  // under the rows when its minimum does.
  p.numbers_h = std::ceil(r.numbers_h);
  const float column = r.height - p.numbers_h - gap;
  p.inputs = r.all_rows_wanted <= column;
  p.buffers_h = column;  // without a program: the rows at the top, the room under them empty
  if (!r.program) return p;
  // The program with its lanes' names (a streams lesson's point) before the input rows; the
  // input rows before a program without names; a program under its minimum gives way.
  const float named = std::max(r.program_wanted, min_h(PanelId::program, em)), least = min_h(PanelId::program, em);
  const auto fits = [&](float rows, float program) { return rows + gap + program <= column; };
  float rows = 0;
  if (fits(r.all_rows_wanted, named)) rows = r.all_rows_wanted, p.inputs = true;
  else if (fits(r.outputs_wanted, named)) rows = r.outputs_wanted, p.inputs = false;
  else if (fits(r.all_rows_wanted, least)) rows = r.all_rows_wanted, p.inputs = true;
  else if (fits(r.outputs_wanted, least)) rows = r.outputs_wanted, p.inputs = false;
  else return p;
  p.buffers_h = std::floor(rows);
  p.program_h = column - p.buffers_h - gap;
  return p;
}

}  // namespace collsim::gui
