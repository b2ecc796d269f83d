// The app: what is open, the playhead, the view toggles, and the panels that draw them.
// Every panel is a small struct with a Draw(App&); all of them read one Frame (the view
// model at the playhead), computed once per frame. None owns simulation state.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/views/bench_plot.h"
#include "app/views/buffer_layout.h"
#include "app/views/drawn_shapes.h"
#include "app/views/lesson.h"
#include "app/views/loader.h"
#include "app/views/panel_plan.h"
#include "app/views/playback.h"
#include "app/views/run_editor.h"
#include "app/desktop/style.h"
#include "app/views/timeline_model.h"
#include "app/views/values.h"
#include "app/views/view_model.h"
#include "sim/lesson/lecture.h"
#include "sim/model/topology.h"

namespace collsim::gui {

// View toggles, with their defaults, in one place (as Tracy's ViewData).
struct ViewToggles {
  bool values = false;  // numbers in the cells (buffers of at most 16 elements per rank)
  bool inputs = true;   // the input buffers too (they never change); set per trace: up to 8 ranks
  ValueSource value_source = ValueSource::rank_numbers;
  bool link_heat = true;
  bool rank_bytes = true;        // "↑ sent ↓ received" next to each rank (up to 16 ranks)
  bool legend = true;
  bool numbers = true;           // the numbers panel is open
  bool follow_playhead = true;   // the timeline pans to keep the playhead in view
  bool about = false;            // the scenario's description (the lesson) under the caption
  StageChoice stage = StageChoice::automatic;  // the stage layout (panel_plan.h): by the window's size, or chosen
  float ui_scale = 1.0f;
};

// What is open.
struct Document {
  // The run shown: a trace's, an edited run's, or the shown phase's of a lesson (null while
  // a lesson shows a compute phase).
  std::shared_ptr<ViewModel> model;
  // Comparing: the same spec, options and topology run with another algorithm, or another
  // phase of the lesson, shown side by side on the same playhead (null otherwise).
  std::shared_ptr<ViewModel> compare;
  std::optional<std::size_t> compare_phase;  // comparing with this phase of the lesson
  std::string source, title, description, note;
  RunRequest request;
  TopologyConfig topology;  // what the prediction was made on; re-runs keep it
  // A scenario's program: its phases, their views and the questions (null for a trace or a
  // plain run); `phase` is the one shown.
  std::shared_ptr<Lesson> lesson;
  std::size_t phase = 0;
};

// How the last load ended (the script's `load` state; `loading` while one runs).
enum class LoadOutcome : std::uint8_t { none, loaded, failed, cancelled };
std::string_view to_string(LoadOutcome o);

// One run as the scene and buffers panes draw it: its model, its frame and the playhead
// on its own clock range. Comparing, there are two, side by side (side 0 left, 1 right).
struct Pane {
  const ViewModel& model;
  const Frame& now;
  ClockKind clock;
  double t;
  int side = 0;
};

// A panel as ImGui placed it this frame: its child window's rectangle (screen pixels), for
// the layout tests (the script's `panels` and `panels_small`) and nothing else.
struct PanelRect {
  PanelId id;
  int side = 0;  // comparing: 0 left, 1 right
  float x = 0, y = 0, w = 0, h = 0;
  bool collapsed = false;  // gave way: a header line or a strip that opens the panel as a popup
};

class App;

// Two rows when the window is wide enough for them (full_width, measured when they were
// last drawn); else one: the run's summary opens the editor as a popup.
struct ToolbarPanel {
  std::vector<std::filesystem::path> scenarios;  // scenarios/*.toml, listed once
  std::string export_base = "collsim-export";    // the Export popup's path, without extension
  float full_width = 0;                          // px the two rows took, last drawn
  bool compact = false;                          // this frame: one row
  int clipped = 0;                               // this frame: items reaching past the window's right edge
  std::string phase_below;                       // this frame: the load's phase, too long for its bar
  void Draw(App& app);
  void DrawPhaseBelow();              // that phase on a line of its own, under the rows
  void DrawRunEditor(App& app);       // the first row: the collective and its options
  void DrawTopologyFields(App& app);  // the second: the topology, its links, the protocol, the stragglers
  void DrawActions(App& app);         // the comparison, Run or the progress, Export
  bool DrawProgress(App& app);        // while a load runs: its progress and Cancel (true); else nothing
  void DrawExport(App& app);
};

// One row when the window is wide enough (right_w: the speed, loop, clock and View group's
// width, last drawn); else that group wraps under the scrubber.
struct TransportPanel {
  float right_w = 0;
  int clipped = 0;  // this frame: items reaching past the window's right edge
  void Draw(App& app);
  void HandleKeys(App& app);
};

// Bounded: at most max_share of the window's height (the scene must keep its room), the
// rest scrolls; content_h is what the text took last frame.
struct CaptionPanel {
  float content_h = 0;
  float max_share = 0.22f;
  void Draw(App& app);
  void DrawText(App& app);
  void DrawAbout(App& app);  // the stage's About popup: the title, the lesson's and the phase's words, the description
};

struct ScenePanel {
  void Draw(App& app, const Pane& pane);
};

struct BuffersPanel {
  // Where a row's cells go: the shared equal-width pieces (buffer_layout.h) across
  // [x0, x0 + width).
  struct RowGeometry {
    float x0, width, y0, height;
    const BufferColumns* columns;
    float x_of(std::uint32_t boundary) const { return columns->x_of(boundary, x0, width); }
  };
  // How a row is drawn: readable (stripes, counts, values when asked for) or thin (an
  // overview row: stripes or shade only).
  enum class RowStyle : std::uint8_t { readable, values, thin };
  struct Hover {  // what the mouse is over, for the tooltip
    int row = -1;             // index into the visible rows
    std::int64_t cell = -1;  // a cell of it, or -1 (its label)
  };
  std::vector<char> lit;  // per cell: written by a highlighted transfer
  std::vector<std::uint32_t> lit_cells;
  // The shared partition of the visible rows, recomputed when they change.
  BufferColumns columns;
  const BufferHistory* columns_for = nullptr;
  std::size_t columns_cells = 0;
  std::vector<std::uint32_t> columns_rows;
  int detail_top = 0;  // split: the first row the detail area shows (follows the overview's hover, the wheel)
  void Draw(App& app, const Pane& pane);
  void DrawHeader(App& app, const Pane& pane);  // the switches (inputs, values) and the rank colour legend
  void MarkHighlighted(const Pane& pane);
  void UpdateColumns(const BufferHistory& h, const std::vector<std::uint32_t>& visible);
  // The rows shown (inputs only when asked for), and the height they need.
  std::vector<std::uint32_t> VisibleRows(const App& app, const ViewModel& vm) const;
  float RowHeight(const App& app, const ViewModel& vm) const;  // a readable row (on the stage: compact)
  float DesiredHeight(const App& app, const ViewModel& vm) const;
  float DesiredHeight(const App& app, const ViewModel& vm, bool inputs) const;  // with or without the input rows
  // Readable rows [first, last) of `visible`, labelled, from `at` down; what the mouse is over.
  Hover DrawRows(App& app, const Pane& pane, ImDrawList* d, const std::vector<std::uint32_t>& visible, int first,
                 int last, ImVec2 at, float width, float label_w, const RowsPlan& plan, RowStyle style);
  // Every row, thin, labelled every plan.label_stride-th row, the detail area's rows framed.
  Hover DrawOverview(const App& app, const Pane& pane, ImDrawList* d, const std::vector<std::uint32_t>& visible, ImVec2 at,
                     float width, float label_w, const RowsPlan& plan);
  // Draws one row's cells (folded to one per 2 pixels when they are narrower); returns
  // the cell under the mouse, or -1.
  std::int64_t DrawRow(const App& app, const Pane& pane, ImDrawList* d, const BufferRow& row, const RowGeometry& g,
                       RowStyle style);
};

struct TimelinePanel {
  struct Hover {  // the bar under the mouse, for the tooltip
    bool any = false;
    LaneBar bar;
    const ViewModel* run = nullptr;  // whose transfer it is (comparing: either run)
  };
  TimeScale scale;
  const ViewModel* fitted_for = nullptr;  // the model (comparison and clock) the scale was fitted to
  const ViewModel* fitted_compare = nullptr;
  ClockKind fitted_clock = ClockKind::steps;
  std::vector<LaneBar> bars;  // reused for every lane
  void Draw(App& app);
  float DesiredHeight(const App& app) const;  // the header, the ruler and every lane at its largest
  void DrawHeader(App& app);
  void DrawRuler(App& app, ImVec2 p, float height);
  void DrawLanes(App& app, float ruler_top, float ruler_h);
  void HandleInput(App& app, const Hover& hover);  // zoom, pan, fit, the tooltip
};

// The lesson's side panel: the phases (name, kind, predicted begin → end; click one to show
// it) and the questions, each answer hidden until revealed (lesson_panel.cpp).
struct LessonPanel {
  std::size_t scrolled_to = static_cast<std::size_t>(-1);  // the phase last scrolled into view
  const Lesson* scrolled_in = nullptr;                      // of this lesson
  void Draw(App& app);
  void DrawPhases(App& app, float height);
  void DrawQuestions(App& app);
};

// A lane pair per rank (compute, communication) with a bar per phase at its predicted
// times; click a bar to show its phase. Wheel: zoom; drag: pan; double click: fit.
struct ProgramTimelinePanel {
  TimeScale scale;
  const Lesson* fitted_for = nullptr;  // the lesson (and its length: a re-run may reuse the address) fitted to
  double fitted_total = -1;
  void Draw(App& app);
  float DesiredHeight(const App& app) const;  // the ruler and every rank's lanes at their smallest
};

// A compute phase instead of the scene and the buffers: each rank's duration as a bar.
struct ComputeCard {
  void Draw(App& app);
};

struct NumbersPanel {
  void Draw(App& app);
  void DrawComparison(App& app);  // both runs' times and bandwidths, and their ratio
};

// "busbw against size": the run's curve on its topology, its own size marked, in a window of
// its own (the Numbers panel's button, or --size-curve). The plot is the views' (bench_plot.h:
// the storyboard's busbw.svg is the same), computed when the window first shows a run.
struct SizeCurveWindow {
  bool open = false;
  const ViewModel* of = nullptr;  // the run the cached plot is of
  SizeCurvePlot cached;
  void Draw(App& app);
};

struct FileDialog {
  bool open = false;
  std::filesystem::path dir;
  std::string path;
  void Open(const std::filesystem::path& start);
  void Draw(App& app);
};

class App {
 public:
  explicit App(Fonts fonts);
  // Loads in the background; the current document stays until the new one is ready.
  // `compare`: also run the scenario with this algorithm, side by side (a lesson of several
  // phases: phase `phase`'s collective), or "phase:K" to show the lesson's phase K beside it.
  void open(const std::filesystem::path& file, const std::string& compare = "", std::size_t phase = 0);
  // The same for a run the command line's flags describe (app/flags/run_plan.h): `scenario`
  // is the file with them applied, loaded as a re-run of it (its phases, captions and
  // questions kept; `request` and `topology` are its own); null: the flags' run alone.
  void open_run(const RunRequest& request, const TopologyConfig& topology, std::shared_ptr<const Scenario> scenario,
                const std::string& compare = "", std::size_t phase = 0);
  void run(const RunRequest& request, const TopologyConfig& topology);
  // Runs what the toolbar's editor says (the Run button), compared with editor.compare
  // when set; a count or figure that does not parse becomes the error.
  void run_editor();
  // Compares with `what`: an algorithm (its run in the background; in a lesson of several
  // phases, the shown phase's collective), "phase:K" (the lesson's phase K, 1-based, at
  // once), or "" to stop comparing.
  void set_compare(const std::string& what);
  // Compares the shown phase with phase k (0-based) of the lesson; false, with app.error
  // set, for a phase that is not a collective phase of it.
  bool compare_with_phase(std::size_t k);
  // What side 0 or 1 shows, for headings: the algorithm, or in a lesson "phase 2: name".
  std::string side_title(int side) const;
  // Presenter mode (F5, --present): the caption, the scene and the buffers only, the text
  // 1.25 times larger, no editing controls; the keys as before (arrows step, space plays,
  // PageDown/PageUp: the next or previous slide of a lecture), F5 or Escape leaves it.
  void set_presenting(bool on);
  // A lecture file (sim/lesson/lecture.h): read it (a bad one is the error) and show its first slide.
  void open_lecture(const std::filesystem::path& file);
  // Slide k of the lecture: its file (opened again only when it or the comparison differs
  // from what is shown), its phase, playhead and clock.
  void go_to_slide(std::size_t k);
  bool loading() const { return loader.busy(); }
  // Something to show: a run, or a lesson (whose shown phase may be a compute phase).
  bool has_document() const { return doc.model || doc.lesson; }
  // Shows phase k of the lesson, the playhead at its start (or its end).
  void select_phase(std::size_t k, bool at_end = false);
  // → and ←: a step, or at the end (start) of a lesson's phase the next (previous) phase.
  void step_forward();
  void step_back();
  // Play / pause (the button, space): through every phase of a lesson (lesson_tick).
  void toggle_play();
  // Whether playing goes on through the lesson's phases: a lesson of several phases, unless
  // play_through is off (--bench-frames plays one phase on a loop).
  bool plays_through() const { return play_through && doc.lesson && doc.lesson->phase_count() > 1 && !doc.compare; }
  // The `A` key: the next hidden answer, or hides them all once every one is shown.
  void reveal_next();
  // Abandons the load in progress (Cancel, Escape): the window goes on with what it showed.
  void cancel_load();
  // Takes a finished load (if any): the new document, or the error to show.
  void poll();
  // One frame: advances the playhead by `dt` seconds when playing, and draws everything.
  void draw(double dt);
  // What the playhead drives: the run, and the one it is compared with.
  Runs runs() const { return Runs(*doc.model, doc.compare.get()); }
  // Side 0: the run; side 1: the comparison (doc.compare must be set).
  Pane pane(int side) const;

  Document doc;
  SizeCurveWindow size_curve;  // "busbw against size": opened by the Numbers panel and --size-curve
  Playback playback;
  ViewToggles toggles;
  RunEditor editor;
  Frame now;            // the view model at the playhead, computed once per frame
  Frame compare_now;    // the comparison's, when comparing
  std::string error;    // shown in a red banner until dismissed or the next load succeeds
  LoadOutcome last_load = LoadOutcome::none;
  Fonts fonts;
  BackgroundLoader loader;
  std::function<void()> toggle_fullscreen;  // set by main (GLFW)
  float requested_scale = 0;                // > 0: main rebuilds the fonts between frames
  std::optional<Arrangement> requested_arrangement;  // the scene's arrangement from the next frame on
  std::function<void(App&)> on_first_load;    // runs once, after the first successful load (main: --step)
  std::string requested_screenshot;           // main writes the next frame to this PNG
  std::string status;                         // a line of news ("wrote out.json"), until dismissed
  Reveals reveals;                            // which of the lesson's answers are shown
  std::optional<std::size_t> pending_compare_phase;  // open(…, "phase:K"): compared once the lesson is loaded
  std::size_t opened_phase = 0;                      // … from this phase
  bool presenting = false;
  float scale_before_presenting = 1.0f;
  std::optional<Lecture> lecture;  // a lecture is open: its slides
  std::size_t slide = 0;           // the slide shown
  bool slide_pending = false;      // its file is loading: placed once it is ready
  bool play_through = true;                   // see plays_through()
  PanelPlan plan;                             // this frame's (the single view's) share of the window
  bool stage = false;                         // this frame: the stage layout (panel_plan.h)
  StagePlan stage_plan;                       // ... its shares
  // The input rows are shown: asked for (the buffers' switch) and, on the stage, room for them.
  bool shows_inputs() const { return toggles.inputs && !(stage && !stage_plan.inputs); }
  // What this frame drew where (drawn_shapes.h): the layout tests' data.
  std::vector<DrawnShape> shapes;
  std::vector<PanelRect> panels;              // every panel ImGui placed this frame
  // Whether a panel ImGui placed this frame is under its minimum (panel_plan.h), or reaches
  // outside the window; collapsed panels are not held to it.
  std::vector<std::string> panels_too_small() const;
  // The stage's buttons in the toolbar (what gave way: the timeline, the phases, the program,
  // About, the numbers), each opening it over the window.
  void DrawStageButtons();
  // Toolbar and transport items that reach past the window's right edge this frame (cut off).
  int clipped_items() const { return toolbar_.clipped + transport_.clipped; }

 private:
  void start(LoadRequest request);
  void open_request(LoadRequest request, const std::string& compare, std::size_t phase);  // open's and open_run's
  void show_phase(std::size_t k);  // the phase's view becomes the shown run (the playhead is the caller's)
  // Moves through the lesson (lesson.h's presenter flow) and shows the phase it ends in.
  void move_in_lesson(const std::function<void(const Lesson&, std::size_t&, Playback&)>& move);
  void refresh_frame();            // `now` (and `compare_now`) at the playhead, after it or the run changed
  void DrawMain();
  void DrawPresenting();  // presenter mode comparing two runs: the caption, the scenes and the buffers
  void DrawStage();       // the stage layout (panel_plan.h, plan_stage)
  void DrawWhere();       // presenter mode's last line: the phase, step and slide shown, and the keys
  // A button that opens `draw` as a popup of `size` over the window, its rectangle recorded
  // in `panels` as panel `id`, collapsed.
  void PopupButton(PanelId id, const char* label, const char* tip, ImVec2 size, const std::function<void()>& draw);
  void PlaceSlide();      // the shown slide's phase, playhead and clock, once its file is open
  void DrawCompared();  // the scene and buffers split in two, the numbers beside the timeline
  void DrawRun();  // the scene, the buffers and the numbers of the shown run (or a compute card), as planned
  void DrawEmpty();
  void DrawError();
  // A child window for a panel, its rectangle recorded in `panels`.
  bool BeginPanel(PanelId id, const char* name, ImVec2 size, bool border = true, ImGuiWindowFlags flags = 0, int side = 0);
  // A panel that gave way: a bordered header line (or a strip, for the lesson panel) whose
  // button opens the panel as a popup of `popup` size over the window.
  void DrawCollapsed(PanelId id, const char* label, const char* why, ImVec2 size, ImVec2 popup, const std::function<void()>& draw);

  ToolbarPanel toolbar_;
  TransportPanel transport_;
  CaptionPanel caption_;
  ScenePanel scene_;
  BuffersPanel buffers_[2];  // one per side (each keeps its highlighted cells)
  TimelinePanel timeline_;
  NumbersPanel numbers_;
  LessonPanel lesson_;
  ProgramTimelinePanel program_;
  ComputeCard compute_;
  FileDialog file_dialog_;

  friend struct ToolbarPanel;
};

}  // namespace collsim::gui
