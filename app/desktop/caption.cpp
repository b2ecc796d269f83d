// The step caption ("In step 2/6: reduce-scatter 2/3: every rank sends one chunk to its
// right neighbour, which reduces it"), a lesson's narration under it (the lesson's
// caption, the phase's, and the step's own, from the scenario file), the scenario's
// title, and its lesson text.
#include <cmath>

#include <fmt/format.h>

#include "app/desktop/app.h"

namespace collsim::gui {
namespace {

// Scenario descriptions are wrapped by hand in the TOML file: join their lines into
// paragraphs and let ImGui wrap them to the window.
std::string reflow(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
    } else if (i + 1 < text.size() && text[i + 1] == '\n') {
      out += "\n";
      while (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += "\n";
    } else {
      out += ' ';
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// The file's words for the shown step: the lesson's caption and the phase's (dim, with
// the phase's name in a lesson of several), then the step's own (bright).
void draw_narration(const App& app) {
  const Lesson& l = *app.doc.lesson;
  const int step = app.doc.model ? caption_step(app.now, app.doc.model->step_count()) : 0;
  const Narration n = narration(l, app.doc.phase, step);
  std::string about = n.lesson;
  if (l.multi_phase()) about += fmt::format("{}Phase {}: {}{}", about.empty() ? "" : "  ", app.doc.phase + 1,
                                            l.phase(app.doc.phase).name, n.phase.empty() ? "." : ". ");
  else if (!n.phase.empty() && !about.empty())
    about += ' ';
  about += n.phase;
  ImGui::PushTextWrapPos(0);
  if (!about.empty()) ImGui::TextColored(ImVec4(0.72f, 0.76f, 0.86f, 1.0f), "%s", about.c_str());
  if (!n.step.empty()) ImGui::TextColored(ImVec4(1.0f, 0.9f, 0.6f, 1.0f), "%s", n.step.c_str());
  ImGui::PopTextWrapPos();
}

// The stage's narration: the file's words for the step (bright). The phase's name heads the
// scene; the lesson's and the phase's longer words are behind the toolbar's "About…".
void draw_stage_narration(const App& app) {
  const Lesson& l = *app.doc.lesson;
  const int step = app.doc.model ? caption_step(app.now, app.doc.model->step_count()) : 0;
  const Narration n = narration(l, app.doc.phase, step);
  if (n.step.empty()) return;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ImVec4(1.0f, 0.9f, 0.6f, 1.0f), "%s", n.step.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void CaptionPanel::Draw(App& app) {
  const float wanted = content_h > 0 ? content_h : ImGui::GetTextLineHeightWithSpacing() * 3;
  const float height = std::floor(std::min(wanted, ImGui::GetMainViewport()->Size.y * max_share));
  ImGui::BeginChild("caption", ImVec2(0, height), false);
  const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  app.shapes.push_back({ShapeKind::caption, "caption", {at.x, at.y, size.x, size.y}});
  DrawText(app);
  content_h = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y;
  ImGui::EndChild();
}

void CaptionPanel::DrawAbout(App& app) {
  const Document& doc = app.doc;
  ImGui::PushTextWrapPos(0);
  ImGui::PushFont(app.fonts.large);
  ImGui::TextUnformatted((doc.title.empty() ? doc.source : doc.title).c_str());
  ImGui::PopFont();
  if (!doc.note.empty()) ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "(%s)", doc.note.c_str());
  if (doc.lesson) draw_narration(app);
  if (app.lecture && !app.lecture->slides[app.slide].note.empty())
    ImGui::TextColored(ImVec4(0.6f, 0.95f, 0.7f, 1.0f), "%s", app.lecture->slides[app.slide].note.c_str());
  if (!doc.description.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted(reflow(doc.description).c_str());
  }
  ImGui::PopTextWrapPos();
}

void CaptionPanel::DrawText(App& app) {
  const Document& doc = app.doc;
  ImGui::PushFont(app.fonts.large);
  ImGui::PushTextWrapPos(0);
  if (doc.model && app.playback.clock != ClockKind::steps)
    ImGui::TextColored(ImVec4(0.65f, 0.8f, 1.0f, 1.0f), "t = %s", format_duration_ns(app.playback.t).c_str()), ImGui::SameLine();
  if (!doc.model)  // a compute phase of a lesson
    ImGui::Text("Compute: %s", doc.lesson->phase(doc.phase).name.c_str());
  else if (doc.compare && doc.compare_phase)  // each side's caption heads its own scene
    ImGui::Text("%s (left) and %s (right), one clock", app.side_title(0).c_str(), app.side_title(1).c_str());
  else if (doc.compare)
    ImGui::Text("%s (left) and %s (right): the same %s, one clock", app.side_title(0).c_str(), app.side_title(1).c_str(),
                std::string(to_string(doc.model->schedule().spec.collective)).c_str());
  else
    ImGui::TextUnformatted(app.now.caption.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
  if (app.stage) {  // the stage: the caption and a line or two; the rest behind the bar's About…
    if (doc.lesson) draw_stage_narration(app);
    return;
  }
  if (doc.lesson && !doc.compare) draw_narration(app);
  if (app.lecture && !app.lecture->slides[app.slide].note.empty()) {  // the teacher's words for the slide
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(0.6f, 0.95f, 0.7f, 1.0f), "%s", app.lecture->slides[app.slide].note.c_str());
    ImGui::PopTextWrapPos();
  }
  const std::string title = doc.title.empty() ? doc.source : doc.title;
  ImGui::TextDisabled("%s", title.c_str());
  if (!doc.note.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "(%s)", doc.note.c_str());
  }
  if (!doc.description.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton(app.toggles.about ? "hide the lesson" : "show the lesson")) app.toggles.about = !app.toggles.about;
    if (app.toggles.about) {
      ImGui::PushTextWrapPos(0);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::text_dim));
      ImGui::TextUnformatted(reflow(doc.description).c_str());
      ImGui::PopStyleColor();
      ImGui::PopTextWrapPos();
    }
  }
}

}  // namespace collsim::gui
