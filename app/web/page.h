// The web page (`collsim html`): one self-contained HTML file that plays a run in any
// browser — the scene, the buffers, the timeline and the caption on the steps, measured
// and predicted clocks — for students without the desktop app (docs/web.md).
//
// The page only reads what the view model computed (app/views/view_model.h, plain C++):
// every node's place and every packet's way (sampled from the layout's own lanes), every
// transfer's begin and end on each clock, every buffer cell's history with the time each
// change takes effect on each clock, and per clock its frame table (app/web/frames.h): every
// state ViewModel::frame takes — steps done, the step shown, what is in flight and queued,
// the caption — computed by calling it. The player (app/web/player.js) draws them and looks
// them up by time (a frame is a binary search in its table); its only arithmetic is the
// drawing's (how far along its way a packet is). It holds no caption text or caption rule
// and derives nothing of the run itself.
//
// Elements a test may read carry classes and data attributes: `.cell` (data-rank,
// data-buffer, data-cell, data-holds: the ranks it holds, as the storyboard writes them;
// up to 20 000 cells), `.packet` (data-transfer), `#caption`, `#playhead` (data-t,
// data-clock, data-step). window.collsimPlayer.load(text) shows another page's data.
#pragma once
#include <string>
#include <vector>

#include "app/views/lesson.h"
#include "app/views/view_model.h"

namespace collsim::html {

// Beyond these the page is refused with advice (the browser would not cope).
inline constexpr std::size_t kMaxTransfers = 2'000'000;
inline constexpr std::size_t kMaxCells = 4'000'000;

// What the page says besides the run: a scenario's words and questions.
struct PageText {
  std::string title;
  std::string description;
  std::vector<std::string> step_captions;  // per frame (0: the start, k: step k), from a scenario; may be empty
  struct Question {
    std::string text, answer;  // the answer computed from the run
  };
  std::vector<Question> questions;
  std::string source;  // the file it came from, shown small
  std::string clock;   // the clock it opens on (a scenario's `clock`); "": steps
};

// The page's data as JSON text, what the player reads (and collsimPlayer.load takes): its
// long columns typed arrays in base64 (docs/web.md, "The data format", version 4). One view
// (a run or a trace) played as a lesson of one phase.
std::string page_data(const gui::ViewModel& vm, const PageText& text);
// A lesson (app/views/lesson.h, built as the app builds it): every phase in program order
// with its kind, predicted times and narration, one view per distinct collective phase
// view, the program's bars per rank, and the questions with their computed answers.
std::string lesson_page_data(const gui::Lesson& l, const std::string& source);
// Text for inside a <script> element: every "</" written "<\/", which JSON and JavaScript
// strings read as "</" and which cannot end the element.
std::string script_safe(std::string text);

// The whole page: the player's HTML, CSS and JavaScript with the data inlined.
std::string make_page(const gui::ViewModel& vm, const PageText& text);
std::string make_lesson_page(const gui::Lesson& l, const std::string& source);

}  // namespace collsim::html
