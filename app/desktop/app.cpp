#include "app/desktop/app.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "app/desktop/headless.h"
#include "app/views/numbers.h"
#include "sim/core/errors.h"

namespace collsim::gui {

std::string_view to_string(LoadOutcome o) {
  switch (o) {
    case LoadOutcome::none: return "none";
    case LoadOutcome::loaded: return "loaded";
    case LoadOutcome::failed: return "failed";
    case LoadOutcome::cancelled: return "cancelled";
  }
  return "?";
}

App::App(Fonts f) : fonts(std::move(f)) {}

void App::start(LoadRequest request) {
  if (!loader.start(std::move(request))) error = "a run is still in progress: wait for it or cancel it (Escape)";
}

namespace {

// A panel that gave way, open over the window: the popup "panel" its button opened.
void draw_panel_popup(ImVec2 size, const std::function<void()>& draw) {
  if (!ImGui::BeginPopup("panel")) return;
  ImGui::BeginChild("content", size, false);
  draw();
  ImGui::EndChild();
  ImGui::EndPopup();
}

// compared_phase, its error kept as text (the window shows it in its banner).
std::optional<std::size_t> phase_named(const std::string& what, std::string& problem) {
  try {
    return compared_phase(what);
  } catch (const InputError& e) {
    problem = e.what();
    return std::size_t{0};
  }
}

}  // namespace

void App::open(const std::filesystem::path& file, const std::string& compare, std::size_t phase) {
  if (is_lecture_file(file)) return open_lecture(file);  // its slides name the files to open
  open_request(LoadRequest{file, std::nullopt, {}, "", "", "", nullptr}, compare, phase);
}

void App::open_run(const RunRequest& request, const TopologyConfig& topology, std::shared_ptr<const Scenario> scenario,
                   const std::string& compare, std::size_t phase) {
  const std::string title = scenario ? scenario->title : "", description = scenario ? scenario->description : "";
  open_request(LoadRequest{{}, request, topology, title, description, "", std::move(scenario)}, compare, phase);
}

void App::open_request(LoadRequest r, const std::string& compare, std::size_t phase) {
  std::string problem;
  pending_compare_phase = phase_named(compare, problem);
  if (!problem.empty()) {
    error = problem;
    last_load = LoadOutcome::failed;
    pending_compare_phase.reset();
    return;
  }
  r.compare = pending_compare_phase ? "" : compare;
  r.phase = opened_phase = phase;
  start(std::move(r));
}

void App::run(const RunRequest& request, const TopologyConfig& topology) {
  // A re-run keeps the scenario's title and description: it is the same lesson, edited
  // (and a scenario's phases, captions and questions go with it: rerun_scenario).
  LoadRequest r{{}, request, topology, doc.title, doc.description, editor.compare, nullptr};
  if (doc.lesson) r.lesson = std::make_shared<const Scenario>(doc.lesson->scenario);
  r.phase = opened_phase = doc.phase;  // a lesson compares the phase shown
  std::string problem;
  pending_compare_phase = phase_named(r.compare, problem);  // another phase: shown beside it once loaded
  if (pending_compare_phase) r.compare.clear();
  start(std::move(r));
}

void App::run_editor() {
  std::string problem;
  std::optional<RunRequest> r = editor.request(problem);
  std::optional<TopologyConfig> t = r ? editor.topology_config(problem) : std::nullopt;
  if (!r || !t) {
    error = problem;
    last_load = LoadOutcome::failed;
    return;
  }
  run(*r, *t);
}

void App::set_compare(const std::string& what) {
  std::string problem;
  if (const std::optional<std::size_t> k = phase_named(what, problem)) {
    if (!problem.empty()) error = problem;
    else compare_with_phase(*k);
    return;
  }
  if (doc.compare_phase) doc.compare.reset(), doc.compare_phase.reset();  // an algorithm runs the shown phase
  editor.compare = what;
  if (!what.empty()) return run_editor();
  doc.compare.reset();  // nothing to run: the single view at once
  if (doc.model) playback.seek_time(runs(), playback.t);
}

bool App::compare_with_phase(std::size_t k) {
  const Lesson* l = doc.lesson.get();
  std::string collective;
  if (l)
    for (std::size_t j = 0; j < l->phase_count(); ++j)
      if (l->views[j]) collective += fmt::format("{}{}", collective.empty() ? "" : ", ", j + 1);
  if (!l || !l->multi_phase()) {
    error = fmt::format("compare with phase:{}: {} is not a lesson of several phases", k + 1, doc.source);
  } else if (k >= l->phase_count() || !l->views[k]) {
    error = fmt::format("compare with phase:{}: {} has collective phases {}", k + 1, doc.source, collective);
  } else if (k == doc.phase || !doc.model) {
    error = fmt::format("compare with phase:{}: show another collective phase first (the one shown is {})", k + 1, doc.phase + 1);
  } else {
    doc.compare = l->views[k];
    doc.compare_phase = k;
    editor.compare = phase_comparison(k);
    toggles.inputs = false;  // side by side, rows are scarce
    if (!runs().has_clock(playback.clock)) playback.clock = ClockKind::steps;
    playback.seek_time(runs(), playback.t);
    refresh_frame();
    return true;
  }
  last_load = LoadOutcome::failed;
  return false;
}

std::string App::side_title(int side) const {
  const ViewModel& vm = side == 0 ? *doc.model : *doc.compare;
  const std::string& algorithm = vm.schedule().algorithm;
  if (!doc.lesson || !doc.lesson->multi_phase()) return algorithm;
  const std::size_t k = side == 1 && doc.compare_phase ? *doc.compare_phase : doc.phase;
  const std::string phase = fmt::format("phase {}: {}", k + 1, doc.lesson->phase(k).name);
  if (side == 1 && !doc.compare_phase) return fmt::format("{}, with {}", phase, algorithm);
  return phase;
}

void App::cancel_load() {
  if (!loader.cancel()) return;
  last_load = LoadOutcome::cancelled;
  status = "cancelled: still showing the previous run";
}

Pane App::pane(int side) const {
  const ViewModel& vm = side == 0 ? *doc.model : *doc.compare;
  return {vm, side == 0 ? now : compare_now, playback.clock, time_on(vm, playback.clock, playback.t), side};
}

void App::poll() {
  std::optional<LoadResult> r = loader.take();
  if (!r) return;
  if (!r->model && !r->lesson) {
    error = r->error;
    last_load = r->cancelled ? LoadOutcome::cancelled : LoadOutcome::failed;
    return;
  }
  error.clear();
  last_load = LoadOutcome::loaded;
  // A re-run of the same lesson keeps the phase shown and the answers revealed (their
  // values are the new run's).
  const bool same_lesson = doc.lesson && r->lesson && doc.lesson->scenario.source == r->lesson->scenario.source &&
                           doc.lesson->scenario.questions.size() == r->lesson->scenario.questions.size();
  const std::size_t phase = same_lesson ? doc.phase : 0;
  doc.model = std::move(r->model);
  doc.compare = std::move(r->compare);
  doc.compare_phase.reset();
  doc.lesson = std::move(r->lesson);
  doc.phase = 0;
  if (!same_lesson) reveals.reset(doc.lesson ? doc.lesson->scenario.questions.size() : 0);
  doc.source = r->source;
  doc.title = r->title;
  doc.description = r->description;
  doc.note = r->note;
  doc.request = r->request;
  doc.topology = r->topology;
  editor.load(doc.request, doc.topology);
  if (doc.lesson && doc.lesson->multi_phase()) editor.ranks = doc.lesson->scenario.ranks;  // every phase's
  editor.compare = doc.compare ? doc.compare->trace().request.algorithm : "";
  if (doc.model) toggles.inputs = doc.model->schedule().total_ranks <= 8 && !doc.compare;  // side by side, rows are scarce
  // The scenario's clock when it names one (a new document), else the one the viewer had.
  std::optional<ClockKind> wanted;
  if (doc.lesson && !same_lesson) {
    const Scenario& sc = doc.lesson->scenario;
    wanted = clock_named(!sc.phases.empty() && !sc.phases[0].clock.empty() ? sc.phases[0].clock : sc.clock);
  }
  const ClockKind clock = wanted.value_or(playback.clock);
  playback = Playback{};
  playback.clock = clock;
  if (doc.compare && doc.lesson && doc.lesson->multi_phase()) {  // the phase compared with another algorithm
    show_phase(r->compared_phase);
    playback.clock = runs().has_clock(clock) ? clock : ClockKind::steps;
    playback.home(runs());
  } else if (doc.lesson && phase > 0 && phase < doc.lesson->phase_count()) {
    select_phase(phase);
  } else if (doc.model) {
    playback.clock = runs().has_clock(clock) ? clock : ClockKind::steps;
    playback.home(runs());
  }
  if (std::exchange(slide_pending, false)) PlaceSlide();
  if (const std::optional<std::size_t> k = std::exchange(pending_compare_phase, std::nullopt)) {
    if (opened_phase != doc.phase) select_phase(opened_phase);  // the phase it is compared from
    compare_with_phase(*k);
  }
  if (on_first_load) std::exchange(on_first_load, nullptr)(*this);
}

void App::show_phase(std::size_t k) {
  std::shared_ptr<ViewModel> next = doc.lesson->views.at(k);
  // The arrangement chosen in the View menu goes on to the next phase.
  if (next && doc.model && next != doc.model) next->arrange(doc.model->arranged());
  doc.phase = k;
  doc.model = std::move(next);
}

void App::refresh_frame() {
  if (doc.model) now = playback.frame(*doc.model);
  if (doc.model && doc.compare) compare_now = playback.frame(*doc.compare);
}

void App::select_phase(std::size_t k, bool at_end) {
  if (!doc.lesson || k >= doc.lesson->phase_count() || doc.compare) return;
  show_phase(k);
  enter_phase(*doc.lesson, k, playback, at_end);
  refresh_frame();  // the panels drawn after this in the frame see the new phase
}

void App::move_in_lesson(const std::function<void(const Lesson&, std::size_t&, Playback&)>& move) {
  std::size_t k = doc.phase;
  move(*doc.lesson, k, playback);
  if (k != doc.phase) show_phase(k);
}

void App::step_forward() {
  if (doc.lesson && doc.lesson->phase_count() > 1 && !doc.compare) {
    move_in_lesson([](const Lesson& l, std::size_t& k, Playback& p) { lesson_step_forward(l, k, p); });
  } else if (doc.model) {
    playback.step_forward(runs());
  }
  refresh_frame();
}

void App::step_back() {
  if (doc.lesson && doc.lesson->phase_count() > 1 && !doc.compare) {
    move_in_lesson([](const Lesson& l, std::size_t& k, Playback& p) { lesson_step_back(l, k, p); });
  } else if (doc.model) {
    playback.step_back(runs());
  }
  refresh_frame();
}

void App::toggle_play() {
  if (plays_through()) {
    move_in_lesson(lesson_toggle_play);
  } else if (doc.model) {
    playback.toggle_play(runs());
  }
  refresh_frame();
}

void App::reveal_next() {
  if (doc.lesson) reveals.next();
}

void App::draw(double dt) {
  poll();
  if (loading() && !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    cancel_load();
  if (doc.model && requested_arrangement) {
    doc.model->arrange(*requested_arrangement);
    if (doc.compare) doc.compare->arrange(*requested_arrangement);
  }
  requested_arrangement.reset();
  if (plays_through()) {
    move_in_lesson([dt](const Lesson& l, std::size_t& k, Playback& p) { lesson_tick(l, k, p, dt); });
  } else if (doc.model) {
    playback.tick(runs(), dt);
  }
  refresh_frame();
  panels.clear();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  // No background: glClear paints it, and on a software rasteriser (llvmpipe) every
  // full-screen layer costs milliseconds.
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                     ImGuiWindowFlags_NoBackground;
  ImGui::Begin("collsim", nullptr, flags);
  shapes.clear();
  // Side by side keeps its own layout; a single view goes on the stage where it is chosen.
  stage = has_document() && !doc.compare && wants_stage(toggles.stage, presenting, vp->Size.x, vp->Size.y, ImGui::GetFontSize());
  if (presenting && has_document()) {
    DrawError();
    transport_.HandleKeys(*this);
    stage ? DrawStage() : DrawPresenting();
    ImGui::End();
    return;
  }
  toolbar_.Draw(*this);
  DrawError();
  if (has_document()) {
    transport_.HandleKeys(*this);
    transport_.Draw(*this);
    if (stage) {
      DrawStage();
    } else {
      caption_.Draw(*this);
      DrawMain();
    }
  } else {
    DrawEmpty();
  }
  ImGui::End();
  size_curve.Draw(*this);
  file_dialog_.Draw(*this);
}

void App::DrawError() {
  if (!status.empty()) {
    ImGui::TextColored(ImVec4(0.5f, 0.85f, 0.55f, 1.0f), "%s", status.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("ok")) status.clear();
  }
  if (error.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.45f, 0.10f, 0.10f, 1.0f));
  const float height = ImGui::GetTextLineHeightWithSpacing() * 2.4f;
  ImGui::BeginChild("error", ImVec2(0, height), true);
  ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - 90);
  ImGui::TextUnformatted(error.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 70);
  if (ImGui::Button("Dismiss")) error.clear();
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void App::DrawEmpty() {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPosX() + avail.x * 0.3f, ImGui::GetCursorPosY() + avail.y * 0.4f));
  if (loading()) {
    ImGui::TextUnformatted("Loading…");
  } else {
    ImGui::TextUnformatted("Nothing is open. Pick a scenario above, open a file, or press Run.");
  }
}

void App::set_presenting(bool on) {
  if (on == presenting) return;
  presenting = on;
  if (on) scale_before_presenting = toggles.ui_scale;
  requested_scale = on ? scale_before_presenting * 1.25f : scale_before_presenting;
}

void App::open_lecture(const std::filesystem::path& file) {
  try {
    lecture = load_lecture(file);
  } catch (const InputError& e) {
    error = e.what();
    last_load = LoadOutcome::failed;
    return;
  }
  slide = 0;
  doc = Document{};  // the lecture's first slide is opened afresh
  go_to_slide(0);
}

void App::go_to_slide(std::size_t k) {
  if (!lecture || k >= lecture->slides.size() || loading()) return;
  slide = k;
  const Slide& s = lecture->slides[k];
  const std::size_t phase = s.phase ? static_cast<std::size_t>(*s.phase - 1) : 0;
  const bool same_file = has_document() && std::filesystem::path(doc.source) == s.file;
  const bool same_run = same_file && (!s.compares_algorithm() || (doc.compare && !doc.compare_phase && doc.phase == phase &&
                                                                  doc.compare->schedule().algorithm == s.compare));
  if (same_run) return PlaceSlide();  // the file shown: at once
  slide_pending = true;
  open(s.file, s.compares_algorithm() ? s.compare : "", phase);
}

void App::PlaceSlide() {
  if (!lecture || !has_document()) return;
  const Slide& s = lecture->slides[slide];
  if (!s.compares_algorithm() && doc.compare) doc.compare.reset(), doc.compare_phase.reset();
  HeadlessOptions where;
  where.phase = s.phase;
  where.step = s.step;
  where.time_us = s.time_us;
  if (!s.clock.empty()) where.clock = clock_named(s.clock);
  std::string problem;
  if (!place_playhead(*this, where, problem)) error = fmt::format("{}: {}", s.where, problem);
  if (!s.compare.empty() && !s.compares_algorithm()) set_compare(s.compare);
  // The slide's arrangement, else its file's own (a slide before may have chosen another).
  if (doc.model) requested_arrangement = s.arrange ? *s.arrange : doc.model->file_arrangement();
  refresh_frame();
}

void App::DrawStage() {
  caption_.max_share = 0.2f;  // a fifth of the height at most: the scene is what the class looks at
  caption_.Draw(*this);
  caption_.max_share = 0.22f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  // Presenter mode has no transport: one line at the bottom says where the presenter is.
  const float main_h = std::floor(presenting ? avail.y - ImGui::GetTextLineHeightWithSpacing() - gap : avail.y);
  if (!doc.model) {  // a lesson's compute phase: its card in the scene's place
    BeginPanel(PanelId::scene, "compute", ImVec2(avail.x, main_h));
    compute_.Draw(*this);
    ImGui::EndChild();
  } else {
    StageRequest r;
    r.width = avail.x, r.height = main_h, r.em = ImGui::GetFontSize(), r.gap = gap;
    r.program = doc.lesson && doc.lesson->multi_phase();
    r.outputs_wanted = buffers_[0].DesiredHeight(*this, *doc.model, false);
    r.all_rows_wanted = buffers_[0].DesiredHeight(*this, *doc.model, toggles.inputs);
    if (r.program) r.program_wanted = program_.DesiredHeight(*this);
    // The numbers' line, wrapped to the column (as wide as the plan makes it: asked twice).
    // The shorter words when the whole line would take more than two.
    const float wrap = plan_stage(r).right_w;
    std::string numbers = stage_numbers_line(doc.model->trace());
    if (ImGui::CalcTextSize(numbers.c_str(), nullptr, false, wrap).y > ImGui::GetTextLineHeight() * 2.5f)
      numbers = stage_numbers_line(doc.model->trace(), true);
    r.numbers_h = ImGui::CalcTextSize(numbers.c_str(), nullptr, false, wrap).y;
    stage_plan = plan_stage(r);
    const Pane run = pane(0);
    const float top = ImGui::GetCursorScreenPos().y;
    BeginPanel(PanelId::scene, "scene", ImVec2(stage_plan.scene_w, main_h), true, ImGuiWindowFlags_NoScrollbar);
    scene_.Draw(*this, run);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    BeginPanel(PanelId::buffers, "buffers", ImVec2(stage_plan.right_w, stage_plan.buffers_h));
    buffers_[0].Draw(*this, run);
    ImGui::EndChild();
    if (stage_plan.program_h > 0) {
      BeginPanel(PanelId::program, "program", ImVec2(stage_plan.right_w, stage_plan.program_h), true,
                 ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
      program_.Draw(*this);
      ImGui::EndChild();
    }
    // The numbers on a line (or two), the prediction first; "Numbers…" has every figure.
    ImGui::SetCursorScreenPos(ImVec2(ImGui::GetCursorScreenPos().x, top + main_h - stage_plan.numbers_h));
    ImGui::BeginChild("stage_numbers", ImVec2(stage_plan.right_w, stage_plan.numbers_h), false, ImGuiWindowFlags_NoScrollbar);
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.45f, 1.0f), "%s", numbers.c_str());
    ImGui::PopTextWrapPos();
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    shapes.push_back({ShapeKind::label, numbers, {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y}, Box{at.x, at.y, size.x, size.y}});
    ImGui::EndChild();
    ImGui::EndGroup();
  }
  if (presenting) DrawWhere();
}

void App::PopupButton(PanelId id, const char* label, const char* tip, ImVec2 size, const std::function<void()>& draw) {
  ImGui::PushID(static_cast<int>(id));
  if (ImGui::Button(label)) ImGui::OpenPopup("panel");
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  panels.push_back({id, 0, lo.x, lo.y, hi.x - lo.x, hi.y - lo.y, true});
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: click to open it over the window", tip);
  draw_panel_popup(size, draw);
  ImGui::PopID();
}

void App::DrawStageButtons() {
  const ImVec2 window = ImGui::GetMainViewport()->Size;
  const float em = ImGui::GetFontSize();
  const bool program = doc.lesson && doc.lesson->multi_phase();
  const auto next = [] { ImGui::SameLine(); };
  if (doc.model) {
    PopupButton(PanelId::timeline, "Timeline…", "the transfers' timeline (the stage has no room for it)",
                ImVec2(window.x * 0.9f, std::max(timeline_.DesiredHeight(*this), em * 10)), [this] { timeline_.Draw(*this); });
    next();
  }
  if (doc.lesson && (program || !doc.lesson->scenario.questions.empty())) {
    PopupButton(PanelId::lesson, "Phases…", "the lesson's phases and questions", ImVec2(em * 26, window.y * 0.7f),
                [this] { lesson_.Draw(*this); });
    next();
  }
  if (program && (!doc.model || stage_plan.program_h <= 0)) {
    PopupButton(PanelId::program, "Program…", "the lesson's program timeline (no room for it under the buffers)",
                ImVec2(window.x * 0.9f, std::max(program_.DesiredHeight(*this), em * 8)), [this] { program_.Draw(*this); });
    next();
  }
  PopupButton(PanelId::about, "About…", "the title, the lesson's words for this phase and the scenario's description",
              ImVec2(em * 32, window.y * 0.7f), [this] { caption_.DrawAbout(*this); });
  if (doc.model) {
    next();
    PopupButton(PanelId::numbers, "Numbers…", "every figure of the run, its formulas and the bytes per rank",
                ImVec2(em * 30, window.y * 0.7f), [this] { numbers_.Draw(*this); });
  }
}

void App::DrawWhere() {
  std::string at = doc.lesson && doc.lesson->phase_count() > 1 ? fmt::format("Phase {}/{}", doc.phase + 1, doc.lesson->phase_count()) : "";
  if (doc.model)
    at += fmt::format("{}Step {}/{}", at.empty() ? "" : " · ", caption_step(now, doc.model->step_count()),
                      doc.model->step_count());
  if (lecture) at += fmt::format(" · slide {}/{}", slide + 1, lecture->slides.size());
  ImGui::TextDisabled("%s    → ← step · space play · %sF5 or Escape: leave presenter mode", at.c_str(),
                      lecture ? "PageDown PageUp: slides · " : "");
}

void App::DrawPresenting() {
  // The caption may take a third of the window; the scene and the buffers the rest, with
  // one line at the bottom for where the presenter is.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  caption_.max_share = 0.34f;
  caption_.Draw(*this);
  caption_.max_share = 0.22f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.y, main_h = std::floor(avail.y - line - gap);
  if (doc.compare) {
    const float half = std::floor((avail.x - gap) / 2);
    for (int side = 0; side < 2; ++side) {
      if (side == 1) ImGui::SameLine(0, gap);
      const Pane p = pane(side);
      BeginPanel(PanelId::scene, side ? "scene_b" : "scene_a", ImVec2(half, main_h * 0.62f), true, ImGuiWindowFlags_NoScrollbar, side);
      scene_.Draw(*this, p);
      ImGui::EndChild();
    }
    for (int side = 0; side < 2; ++side) {
      if (side == 1) ImGui::SameLine(0, gap);
      BeginPanel(PanelId::buffers, side ? "buffers_b" : "buffers_a", ImVec2(half, std::floor(main_h * 0.38f) - gap), true, 0, side);
      buffers_[side].Draw(*this, pane(side));
      ImGui::EndChild();
    }
  } else if (!doc.model) {
    BeginPanel(PanelId::scene, "compute", ImVec2(0, main_h));
    compute_.Draw(*this);
    ImGui::EndChild();
  } else {
    const Pane run = pane(0);
    const float scene_w = std::floor(avail.x * 0.56f);
    BeginPanel(PanelId::scene, "scene", ImVec2(scene_w, main_h), true, ImGuiWindowFlags_NoScrollbar);
    scene_.Draw(*this, run);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    BeginPanel(PanelId::buffers, "buffers", ImVec2(0, main_h));
    buffers_[0].Draw(*this, run);
    ImGui::EndChild();
  }
  DrawWhere();
}

bool App::BeginPanel(PanelId id, const char* name, ImVec2 size, bool border, ImGuiWindowFlags flags, int side) {
  const bool open = ImGui::BeginChild(name, size, border, flags);
  const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  panels.push_back({id, side, p.x, p.y, s.x, s.y, false});
  return open;
}

void App::DrawCollapsed(PanelId id, const char* label, const char* why, ImVec2 size, ImVec2 popup,
                        const std::function<void()>& draw) {
  ImGui::PushID(static_cast<int>(id));
  ImGui::BeginChild("collapsed", size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  panels.push_back({id, 0, p.x, p.y, s.x, s.y, true});
  const bool strip = id == PanelId::lesson;  // a narrow strip: the button fills it
  if (ImGui::Button(label, strip ? ImGui::GetContentRegionAvail() : ImVec2(0, 0))) ImGui::OpenPopup("panel");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: click to open it over the window", why);
  if (!strip) {
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", why);
  }
  draw_panel_popup(popup, draw);
  ImGui::EndChild();
  ImGui::PopID();
}

std::vector<std::string> App::panels_too_small() const {
  std::vector<std::string> small;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize();
  for (const PanelRect& r : panels) {
    const PanelMinimum m = panel_minimum(r.id);
    const std::string name = fmt::format("{}{}", to_string(r.id), r.side ? "_b" : "");
    if (r.x < vp->Pos.x - 0.5f || r.y < vp->Pos.y - 0.5f || r.x + r.w > vp->Pos.x + vp->Size.x + 0.5f ||
        r.y + r.h > vp->Pos.y + vp->Size.y + 0.5f)
      small.push_back(name + " (outside the window)");
    else if (!r.collapsed && (r.w + 0.5f < m.width_em * em || r.h + 0.5f < m.height_em * em))
      small.push_back(fmt::format("{} ({:.0f}x{:.0f} < {:.0f}x{:.0f})", name, r.w, r.h, m.width_em * em, m.height_em * em));
  }
  return small;
}

void App::DrawMain() {
  if (doc.compare) return DrawCompared();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& style = ImGui::GetStyle();
  const bool program = doc.lesson && doc.lesson->multi_phase();
  MainAreaRequest r;
  r.width = avail.x, r.height = avail.y;
  r.em = ImGui::GetFontSize();
  r.gap = style.ItemSpacing.y;
  r.header_h = ImGui::GetFrameHeight() + 2 * style.WindowPadding.y;
  r.lesson_panel = program || (doc.lesson && !doc.lesson->scenario.questions.empty());
  r.program = program;
  r.numbers_open = toggles.numbers;
  r.run = doc.model != nullptr;
  if (doc.model) r.buffers_wanted = buffers_[0].DesiredHeight(*this, *doc.model), r.timeline_wanted = timeline_.DesiredHeight(*this);
  if (program) r.program_wanted = program_.DesiredHeight(*this);
  plan = plan_panels(r);
  const PanelBox& lesson = plan[PanelId::lesson];
  if (lesson.shown) {  // the lesson's phases and questions on the left
    const auto draw_lesson = [this] { lesson_.Draw(*this); };
    if (lesson.collapsed)
      DrawCollapsed(PanelId::lesson, "»", "the lesson's phases and questions (no room beside the scene)", ImVec2(lesson.width, plan.main_h),
                    ImVec2(r.em * 24, plan.main_h), draw_lesson);
    else {
      BeginPanel(PanelId::lesson, "lesson", ImVec2(lesson.width, plan.main_h));
      draw_lesson();
      ImGui::EndChild();
    }
    ImGui::SameLine(0, r.gap);
  }
  DrawRun();
  // The program above the transfers of the shown phase (a compute phase has none).
  const PanelBox& prog = plan[PanelId::program];
  if (prog.shown && prog.collapsed) {
    DrawCollapsed(PanelId::program, "Program…", "the lesson's program timeline (no room at this window size)", ImVec2(0, prog.height),
                  ImVec2(avail.x * 0.9f, std::max(program_.DesiredHeight(*this), r.em * 8)), [this] { program_.Draw(*this); });
  } else if (prog.shown) {
    BeginPanel(PanelId::program, "program", ImVec2(0, prog.height), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    program_.Draw(*this);
    ImGui::EndChild();
  }
  const PanelBox& timeline = plan[PanelId::timeline];
  if (!timeline.shown) return;
  if (timeline.collapsed) {
    DrawCollapsed(PanelId::timeline, "Timeline…", "the transfers' timeline (no room at this window size)", ImVec2(0, timeline.height),
                  ImVec2(avail.x * 0.9f, std::max(timeline_.DesiredHeight(*this), r.em * 10)), [this] { timeline_.Draw(*this); });
    return;
  }
  BeginPanel(PanelId::timeline, "timeline", ImVec2(0, 0), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  timeline_.Draw(*this);
  ImGui::EndChild();
}

void App::DrawRun() {
  const PanelBox& scene = plan[PanelId::scene];
  if (!doc.model) {
    BeginPanel(PanelId::scene, "compute", ImVec2(scene.width, plan.main_h));
    compute_.Draw(*this);
    ImGui::EndChild();
    return;
  }
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const Pane run = pane(0);
  BeginPanel(PanelId::scene, "scene", ImVec2(scene.width, plan.main_h), true, ImGuiWindowFlags_NoScrollbar);
  scene_.Draw(*this, run);
  ImGui::EndChild();
  ImGui::SameLine(0, gap);
  ImGui::BeginGroup();
  BeginPanel(PanelId::buffers, "buffers", ImVec2(plan.right_w, plan[PanelId::buffers].height));
  buffers_[0].Draw(*this, run);
  ImGui::EndChild();
  const PanelBox& numbers = plan[PanelId::numbers];
  if (numbers.collapsed && toggles.numbers) {  // no room: the numbers open as a popup
    DrawCollapsed(PanelId::numbers, "Numbers…", "no room for the numbers under the buffers", ImVec2(plan.right_w, numbers.height),
                  ImVec2(ImGui::GetFontSize() * 30, ImGui::GetFontSize() * 22), [this] { numbers_.Draw(*this); });
  } else {
    BeginPanel(PanelId::numbers, "numbers", ImVec2(plan.right_w, numbers.height));
    panels.back().collapsed = numbers.collapsed;  // closed by its own header
    numbers_.Draw(*this);
    ImGui::EndChild();
  }
  ImGui::EndGroup();
}

void App::DrawCompared() {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float bottom_h = std::max(avail.y * 0.3f, ImGui::GetFrameHeight() * 5);  // the timeline holds both runs
  const float main_h = std::max(avail.y - bottom_h - style.ItemSpacing.y, ImGui::GetFrameHeight() * 8);
  const float half_w = std::floor((avail.x - style.ItemSpacing.x) / 2);
  for (int side = 0; side < 2; ++side) {
    const Pane p = pane(side);
    if (side == 1) ImGui::SameLine();
    ImGui::BeginChild(side == 0 ? "side_a" : "side_b", ImVec2(half_w, main_h), false, ImGuiWindowFlags_NoScrollbar);
    // The scene above, the buffers below: the buffers take what their rows need, up to 40 %.
    const float buffers_h = std::clamp(buffers_[side].DesiredHeight(*this, p.model), main_h * 0.25f, main_h * 0.4f);
    BeginPanel(PanelId::scene, "scene", ImVec2(0, main_h - buffers_h - style.ItemSpacing.y), true, ImGuiWindowFlags_NoScrollbar, side);
    scene_.Draw(*this, p);
    ImGui::EndChild();
    BeginPanel(PanelId::buffers, "buffers", ImVec2(0, 0), true, 0, side);
    buffers_[side].Draw(*this, p);
    ImGui::EndChild();
    ImGui::EndChild();
  }
  BeginPanel(PanelId::numbers, "numbers", ImVec2(std::floor(avail.x * 0.42f), 0));
  numbers_.Draw(*this);
  ImGui::EndChild();
  ImGui::SameLine();
  BeginPanel(PanelId::timeline, "timeline", ImVec2(0, 0), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  timeline_.Draw(*this);
  ImGui::EndChild();
}

}  // namespace collsim::gui
