// The window's panels: their minimums, and which give way first (app/views/panel_plan.h).
#include <doctest/doctest.h>

#include "app/views/drawn_shapes.h"
#include "app/views/panel_plan.h"

namespace collsim::gui {
namespace {

constexpr PanelId kAll[] = {PanelId::lesson, PanelId::scene, PanelId::buffers, PanelId::numbers, PanelId::program, PanelId::timeline};

// Every shown panel that has not given way is at least its minimum, and the row and the
// band add up to the area.
void check_minimums(const MainAreaRequest& r, const PanelPlan& p) {
  for (PanelId id : kAll) {
    const PanelBox& b = p[id];
    if (!b.shown || b.collapsed) continue;
    CAPTURE(to_string(id));
    CHECK(b.width + 0.5f >= panel_minimum(id).width_em * r.em);
    CHECK(b.height + 0.5f >= panel_minimum(id).height_em * r.em);
  }
  float bottom = 0;
  for (PanelId id : {PanelId::program, PanelId::timeline})
    if (p[id].shown) bottom += p[id].height + r.gap;
  CHECK(p.main_h + bottom <= r.height + 0.5f);
  float row = p[PanelId::scene].width + (p[PanelId::lesson].shown ? p[PanelId::lesson].width + r.gap : 0);
  if (r.run) row += r.gap + p.right_w;
  CHECK(row <= r.width + 0.5f);
}

MainAreaRequest projector() {  // 1280x800 at --scale 1.5: the area under the toolbar, transport and caption
  MainAreaRequest r;
  r.width = 1256, r.height = 520, r.em = 24, r.gap = 12, r.header_h = 36;
  r.buffers_wanted = 400, r.timeline_wanted = 150;
  return r;
}

}  // namespace

TEST_CASE("panel plan: a single run at 1280x800, scale 1.5, keeps every panel at its minimum") {
  const MainAreaRequest r = projector();
  const PanelPlan p = plan_panels(r);
  CHECK(p.fits);
  check_minimums(r, p);
  for (PanelId id : {PanelId::scene, PanelId::buffers, PanelId::numbers, PanelId::timeline}) {
    CAPTURE(to_string(id));
    CHECK(p[id].shown);
    CHECK_FALSE(p[id].collapsed);
  }
  CHECK_FALSE(p[PanelId::lesson].shown);
  CHECK_FALSE(p[PanelId::program].shown);
  // The timeline takes what its lanes want, not a fixed share: the scene gets the rest.
  CHECK(p[PanelId::timeline].height == doctest::Approx(150));
  CHECK(p.main_h == doctest::Approx(520 - 12 - 150));
}

TEST_CASE("panel plan: a lesson of several phases gives way in order: program, then the side panel's width") {
  MainAreaRequest r = projector();
  r.lesson_panel = r.program = true;
  r.program_wanted = 200;
  PanelPlan p = plan_panels(r);
  check_minimums(r, p);
  CHECK(p.fits);
  CHECK_FALSE(p[PanelId::program].collapsed);  // 520 px hold the scene's 264, the program's 84 and the timeline's 144
  CHECK(p[PanelId::program].height == doctest::Approx(84));
  CHECK(p[PanelId::scene].width >= 20 * 24);
  r.height = 480;  // they do not: the program gives way first
  p = plan_panels(r);
  check_minimums(r, p);
  CHECK(p[PanelId::program].collapsed);
  CHECK_FALSE(p[PanelId::timeline].collapsed);
  // Narrower: the side panel becomes a strip before the scene goes under its minimum.
  r.width = 960;
  p = plan_panels(r);
  check_minimums(r, p);
  CHECK(p[PanelId::lesson].collapsed);
  CHECK(p[PanelId::lesson].width < 3 * 24);
  CHECK(p[PanelId::scene].width >= 20 * 24);
  // Wide and tall (1920x1080 at scale 1): nothing gives way.
  r.width = 1896, r.height = 800, r.em = 16, r.gap = 8, r.header_h = 24;
  p = plan_panels(r);
  check_minimums(r, p);
  for (PanelId id : kAll) {
    CAPTURE(to_string(id));
    CHECK_FALSE(p[id].collapsed);
  }
}

TEST_CASE("panel plan: short windows collapse the numbers before the buffers shrink, then the timeline") {
  MainAreaRequest r = projector();
  r.height = 420;
  PanelPlan p = plan_panels(r);
  check_minimums(r, p);
  CHECK(p.fits);
  CHECK(p[PanelId::numbers].collapsed);  // a 264-px row has no room for 5 + 6 em
  CHECK(p[PanelId::buffers].height >= 5 * 24);
  r.height = 330;  // the scene's 11 em and the timeline's 6 em do not both fit
  p = plan_panels(r);
  check_minimums(r, p);
  CHECK(p[PanelId::timeline].collapsed);
  CHECK(p[PanelId::timeline].height == doctest::Approx(r.header_h));
  CHECK(p.main_h >= 11 * 24);
  r.height = 200;  // nothing left to give way: reported, not hidden
  p = plan_panels(r);
  CHECK_FALSE(p.fits);
}

TEST_CASE("panel plan: the numbers' own toggle collapses them, a compute card has no timeline") {
  MainAreaRequest r = projector();
  r.numbers_open = false;
  PanelPlan p = plan_panels(r);
  CHECK(p[PanelId::numbers].collapsed);
  CHECK(p[PanelId::buffers].height == doctest::Approx(p.main_h - r.gap - r.header_h));
  r.run = false;
  r.lesson_panel = r.program = true;
  r.program_wanted = 100;
  p = plan_panels(r);
  check_minimums(r, p);
  CHECK_FALSE(p[PanelId::timeline].shown);
  CHECK_FALSE(p[PanelId::buffers].shown);
  CHECK(p[PanelId::program].shown);
}

}  // namespace collsim::gui

namespace collsim::gui {

TEST_CASE("stage: chosen when presenting or when the window is small for its text, or by hand") {
  CHECK(wants_stage(StageChoice::automatic, false, 1280, 800, 24));   // 53 x 33 ems: a projector at --scale 1.5
  CHECK(wants_stage(StageChoice::automatic, false, 1920, 1080, 32));  // 60 x 34 ems: scale 2
  CHECK_FALSE(wants_stage(StageChoice::automatic, false, 1280, 800, 16));   // 80 x 50: a workbench
  CHECK_FALSE(wants_stage(StageChoice::automatic, false, 1920, 1080, 16));
  CHECK(wants_stage(StageChoice::automatic, true, 1920, 1080, 16));  // presenting
  CHECK(wants_stage(StageChoice::on, false, 1920, 1080, 16));
  CHECK_FALSE(wants_stage(StageChoice::off, true, 1280, 800, 24));
}

TEST_CASE("stage: the scene takes the rest of the width, the column the buffers, the program and the numbers") {
  StageRequest r;
  r.width = 1256, r.height = 560, r.em = 24, r.gap = 12;
  r.outputs_wanted = 160, r.all_rows_wanted = 280, r.numbers_h = 58;
  StagePlan p = plan_stage(r);
  CHECK(p.right_w >= 16 * 24);  // the buffers' minimum
  CHECK(p.scene_w + r.gap + p.right_w == doctest::Approx(r.width));
  CHECK(p.scene_w >= 0.65f * r.width);
  CHECK(p.inputs);
  CHECK(p.numbers_h == 58);
  CHECK(p.program_h == 0);  // no program: the buffers take the column
  CHECK(p.buffers_h + r.gap + p.numbers_h == doctest::Approx(r.height));

  SUBCASE("a lesson's program under the rows, when its minimum fits") {
    r.program = true;
    p = plan_stage(r);
    CHECK(p.inputs);
    CHECK(p.buffers_h == 280);
    CHECK(p.program_h == doctest::Approx(560 - 58 - 12 - 280 - 12));
    CHECK(p.program_h >= panel_minimum(PanelId::program).height_em * r.em);
  }
  SUBCASE("the input rows give way to the program's lane names") {
    r.program = true;
    r.program_wanted = 200;  // with the inputs' 280 px there is room for 186
    p = plan_stage(r);
    CHECK_FALSE(p.inputs);
    CHECK(p.buffers_h == 160);
    CHECK(p.program_h >= 200);
  }
  SUBCASE("a program without room for its names keeps its minimum under the input rows") {
    r.program = true;
    r.program_wanted = 400;  // no room for its names even without the inputs
    p = plan_stage(r);
    CHECK(p.inputs);
    CHECK(p.program_h >= panel_minimum(PanelId::program).height_em * r.em);
  }
  SUBCASE("the program gives way when its minimum does not fit under the output rows") {
    r.program = true;
    r.program_wanted = 400, r.outputs_wanted = 400, r.all_rows_wanted = 420;
    p = plan_stage(r);
    CHECK(p.program_h == 0);
    CHECK(p.inputs);  // the rows take the column, the inputs with them
    CHECK(p.buffers_h == doctest::Approx(560 - 58 - 12));
  }
  SUBCASE("then the input rows; the output rows stay") {
    r.all_rows_wanted = 600;
    p = plan_stage(r);
    CHECK_FALSE(p.inputs);
    CHECK(p.buffers_h >= r.outputs_wanted);
  }
}

TEST_CASE("drawn shapes: a label over another label, a disc, a packet or a hub it is not in is found") {
  const Box hub{100, 100, 80, 30};
  std::vector<DrawnShape> shapes{
      {ShapeKind::disc, "rank 0", {0, 0, 36, 36}},
      {ShapeKind::hub, "switch", hub},
      {ShapeKind::label, "switch", {110, 105, 60, 20}, hub},     // in its hub: fine
      {ShapeKind::label, "bytes of rank 0", {40, 0, 50, 36}},    // beside the disc: fine
      {ShapeKind::row, "rank 0 out", {0, 0, 300, 20}},           // rows are no obstacle
  };
  CHECK(overlapping_labels(shapes).empty());
  CHECK(cut_texts(shapes).empty());
  shapes.push_back({ShapeKind::packet, "+2", {60, 10, 24, 24}});
  shapes.push_back({ShapeKind::label, "network", {150, 110, 60, 20}, Box{150, 100, 50, 40}});  // wider than its box
  const std::vector<std::string> over = overlapping_labels(shapes), cut = cut_texts(shapes);
  REQUIRE(over.size() == 3);
  CHECK(over[0] == "'switch' over label 'network'");
  CHECK(over[1] == "'bytes of rank 0' over packet '+2'");
  CHECK(over[2] == "'network' over hub 'switch'");
  REQUIRE(cut.size() == 1);
  CHECK(cut[0] == "'network' cut by its box");
  // Touching edges do not overlap; the other side's shapes are not in the way.
  CHECK_FALSE(overlap(Box{0, 0, 10, 10}, Box{10, 0, 10, 10}));
  shapes.back().side = 1;
  CHECK(overlapping_labels(shapes).size() == 1);
}

}  // namespace collsim::gui
