// Storyboard export (`collsim storyboard`): a trace drawn as one SVG per step and an
// index.html that plays them, for slides and for readers without the desktop app.
//
// The drawing is the GUI's, from the same view model (app/views, no ImGui): the scene laid
// out by gui::make_layout (ranks, hubs, links; the step's transfers as arrows in the
// sender's colour and packets in one neutral with their chunk number, a filled disc with
// a "+" for a reduce, an outlined square for a copy) and every buffer
// as gui::BufferHistory's cells, striped by the ranks whose contributions each cell holds,
// in the palette of app/views/palette.h. Frame 0 is the start; frame k shows step k's
// transfers and the buffers after them, the cells they wrote outlined in white.
//
// Every element a test may count carries a class: "packet" (one per transfer of the
// step), "cell" (one per cell of every buffer row), "rank", "link", "caption".
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/views/view_model.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"

namespace collsim::storyboard {

// Beyond these a storyboard is unreadable (or thousands of files): refused with advice.
inline constexpr int kMaxRanks = 64;
inline constexpr int kMaxSteps = 1000;
inline constexpr std::size_t kMaxCellsDrawn = 4'000'000;  // cells times frames

struct Frame {
  std::string file;     // "step-03.svg"
  std::string caption;  // what the frame shows, in words
  std::string svg;
};

struct Storyboard {
  std::vector<Frame> frames;  // the start, then one per step
  std::string index_html;
  // One collective with predictions: "busbw.svg", its busbw against size on the run's
  // topology, the run's own size marked (sim's size_curve, app/views/bench_plot.h), shown
  // under the player in index.html. None where size_curve has none (a hand-written schedule,
  // a barrier, too many transfers) or the run was not predicted.
  std::optional<Frame> size_curve;
};

// Throws InputError (naming `source`) when the schedule is too large to draw: call it
// before building the view model, which is the expensive part.
void check_drawable(const Schedule& s, const std::string& source);

Storyboard make_storyboard(const gui::ViewModel& vm);
// The same with a scenario file's captions: captions[k] replaces frame k's own description
// (frame 0: the start); an empty or missing one keeps it.
Storyboard make_storyboard(const gui::ViewModel& vm, std::span<const std::string> captions);

// A lesson (lesson.h): every phase in order. A collective phase is one frame per step,
// drawn from `views[k]`, the view model of its whole collective (phases that run the same
// collective may share one), at the collective's own step, with the phase's name and the
// step's caption (shown_caption) on top: "phase-02-step-03.svg". A compute phase is one
// card of bars, each rank's compute time: "phase-01-compute.svg" (views[k] is nullptr).
// index.html lists the phases, each linked to its first frame. `p` is prepared and
// predicted from `s`. InputError when the frames are too many to draw.
Storyboard make_lesson_storyboard(const Scenario& s, const ProgramResult& p, const LessonFacts& f,
                                  std::span<const gui::ViewModel* const> views);

// The parts, for tests.
std::string frame_file(const gui::ViewModel& vm, int frame);
std::string frame_caption(const gui::ViewModel& vm, int frame);
std::string frame_svg(const gui::ViewModel& vm, int frame);
std::string index_html(const gui::ViewModel& vm, const std::vector<Frame>& frames);

// Text made safe for XML/HTML character data and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace collsim::storyboard
