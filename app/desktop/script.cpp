#include "app/desktop/script.h"

#include <filesystem>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include "app/views/export.h"
#include "app/views/numbers.h"
#include "app/desktop/headless.h"
#include "sim/core/errors.h"
#include "sim/core/text_file.h"

namespace collsim::gui {
namespace {

using State = std::vector<std::pair<std::string, std::string>>;

std::string number(double v) { return fmt::format("{:.6g}", v); }

// Cells that hold every rank they will ever hold, and cells that do not yet.
std::pair<std::size_t, std::size_t> complete_cells(const ViewModel& vm, const Playback& p) {
  std::size_t done = 0, not_yet = 0;
  for (std::uint32_t c = 0; c < vm.buffers().cells().size(); ++c) {
    const CellChange& st = vm.cell_state(p.clock, c, p.t);
    const int target = vm.buffers().cells()[c].target;
    if (target == 0) continue;
    ++(st.written && ranks_of(st.contributions).count == target ? done : not_yet);
  }
  return {done, not_yet};
}

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "none"; }

// A lesson's state: the phase shown, its narration, the questions and the answers
// revealed ("hidden" until then).
State lesson_state(const App& app) {
  const Lesson& l = *app.doc.lesson;
  const Phase& phase = l.phase(app.doc.phase);
  const int step = app.doc.model ? caption_step(app.now, app.doc.model->step_count()) : 0;
  const Narration n = narration(l, app.doc.phase, step);
  State s{{"phase", std::to_string(app.doc.phase + 1)},
          {"phases", std::to_string(l.phase_count())},
          {"phase_kind", phase.kind == PhaseKind::compute ? "compute" : "collective"},
          {"phase_name", phase.name},
          {"lesson_caption", n.lesson},
          {"phase_caption", n.phase},
          {"step_caption", n.step},
          {"questions", std::to_string(l.scenario.questions.size())},
          {"revealed", std::to_string(app.reveals.count())}};
  for (std::size_t k = 0; k < l.answers.size(); ++k)
    s.emplace_back(fmt::format("answer_{}", k + 1),
                   k < app.reveals.shown.size() && app.reveals.shown[k] ? l.answers[k] : std::string("hidden"));
  return s;
}

// The items, ", " between them; "none" for none.
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "none" : out;
}

// The panels ImGui placed this frame ("scene buffers numbers(collapsed) ..."), those under
// their minimum or outside the window ("none"), and the toolbar's and transport's rows cut
// off at the right edge: what the layout tests hold (panel_plan.h).
State layout_state(const App& app) {
  std::string placed, collapsed;
  for (const PanelRect& r : app.panels) {
    std::string& list = r.collapsed ? collapsed : placed;
    list += fmt::format("{}{}{}", list.empty() ? "" : " ", to_string(r.id), r.side ? "_b" : "");
  }
  return {{"panels", placed.empty() ? "none" : placed},
          {"collapsed", collapsed.empty() ? "none" : collapsed},
          {"panels_small", joined(app.panels_too_small())},
          {"clipped", std::to_string(app.clipped_items())},
          {"presenting", app.presenting ? "1" : "0"},
          {"slide", app.lecture ? std::to_string(app.slide + 1) : "none"},
          {"slides", app.lecture ? std::to_string(app.lecture->slides.size()) : "0"},
          {"scale", number(app.toggles.ui_scale)}};
}

// The stage's measures (panel_plan.h, drawn_shapes.h), from what this frame drew: the scene's
// share of the window, the caption's of its height, the smallest disc and packet, the output
// rows not shown whole at 16 px at least, labels over anything, texts cut by their box.
State stage_state(const App& app) {
  const ImVec2 window = ImGui::GetMainViewport()->Size;
  float scene = 0, caption = 0, disc = FLT_MAX, packet = FLT_MAX;
  std::optional<Box> buffers;
  for (const PanelRect& r : app.panels) {
    if (r.id == PanelId::scene && !r.collapsed) scene += r.w * r.h;
    if (r.id == PanelId::buffers && r.side == 0 && !r.collapsed) buffers = Box{r.x, r.y, r.w, r.h};
  }
  for (const DrawnShape& s : app.shapes) {
    if (s.kind == ShapeKind::caption) caption = std::max(caption, s.box.h);
    if (s.kind == ShapeKind::disc) disc = std::min({disc, s.box.w, s.box.h});
    if (s.kind == ShapeKind::packet) packet = std::min({packet, s.box.w, s.box.h});
  }
  std::vector<std::string> missing;
  if (app.doc.model)
    for (const BufferRow& row : app.doc.model->buffers().rows()) {
      if (row.buffer != BufferKind::output) continue;
      const bool shown = std::any_of(app.shapes.begin(), app.shapes.end(), [&](const DrawnShape& s) {
        return s.kind == ShapeKind::row && s.side == 0 && s.output && s.rank == row.rank && s.box.h >= 16 && buffers && contains(*buffers, s.box);
      });
      if (!shown) missing.push_back(fmt::format("rank {}", row.rank));
    }
  const auto px = [](float v) { return v == FLT_MAX ? std::string("none") : fmt::format("{:.0f}", v); };
  // A text outside the window is cut too (by the window).
  std::vector<std::string> cut = cut_texts(app.shapes);
  const Box whole{0, 0, window.x, window.y};
  for (const DrawnShape& s : app.shapes)
    if ((s.kind == ShapeKind::label || s.kind == ShapeKind::row) && !contains(whole, s.box))
      cut.push_back(fmt::format("'{}' outside the window", s.name));
  return {{"stage", app.stage ? "1" : "0"},
          {"window", fmt::format("{:.0f}x{:.0f}", window.x, window.y)},
          {"scene_share", fmt::format("{:.3f}", scene / (window.x * window.y))},
          {"caption_share", fmt::format("{:.3f}", caption / window.y)},
          {"disc_min", px(disc)},
          {"packet_min", px(packet)},
          {"outputs_missing", joined(missing)},
          {"overlaps", joined(overlapping_labels(app.shapes))},
          {"cut", joined(cut)}};
}

State state_of(const App& app) {
  State s{{"loaded", app.has_document() ? "1" : "0"},
          {"loading", app.loading() ? "1" : "0"},
          {"load", app.loading() ? "loading" : std::string(to_string(app.last_load))},
          {"error", app.error},
          {"playing", app.playback.playing ? "1" : "0"}};  // a lesson's compute phase plays too
  const State layout = layout_state(app), stage = stage_state(app);
  s.insert(s.end(), layout.begin(), layout.end());
  s.insert(s.end(), stage.begin(), stage.end());
  if (app.doc.lesson) {
    const State lesson = lesson_state(app);
    s.insert(s.end(), lesson.begin(), lesson.end());
  }
  if (!app.doc.model) return s;
  const ViewModel& vm = *app.doc.model;
  const CollectiveSpec& spec = vm.schedule().spec;
  double sent = 0;
  for (double b : app.now.sent) sent += b;
  const auto [done, not_yet] = complete_cells(vm, app.playback);
  State more{{"arranged", std::string(to_string(vm.arranged()))},
             {"wires", std::to_string(vm.layout().wires.size())},
             {"step", std::to_string(app.now.steps_done)},
             {"steps", std::to_string(vm.step_count())},
             {"t", number(app.playback.t)},
             {"clock", std::string(to_string(app.playback.clock))},
             {"caption", app.now.caption},  // the caption line's text (its "t = " on a time clock apart)
             {"in_flight", std::to_string(app.now.in_flight.size())},
             {"highlighted", std::to_string(app.now.highlighted.size())},
             {"complete_cells", std::to_string(done)},
             {"incomplete_cells", std::to_string(not_yet)},
             {"cells", std::to_string(vm.buffers().cells().size())},
             {"ranks", std::to_string(spec.ranks)},
             {"total_ranks", std::to_string(vm.schedule().total_ranks)},
             {"algorithm", vm.schedule().algorithm},
             {"collective", std::string(to_string(spec.collective))},
             {"count", std::to_string(spec.count)},
             {"dtype", std::string(to_string(spec.dtype))},
             {"op", std::string(to_string(spec.op))},
             {"root", std::to_string(spec.root)},
             {"in_place", spec.in_place ? "1" : "0"},
             {"topology", std::string(to_string(app.doc.topology.kind))},
             {"link", app.doc.topology.link.empty() ? "default" : app.doc.topology.link},
             {"bandwidth", optional_number(app.doc.topology.bandwidth_gbps)},
             {"latency", optional_number(app.doc.topology.latency_us)},
             {"uplink", app.doc.topology.uplink.empty() ? "default" : app.doc.topology.uplink},
             {"uplink_bandwidth", optional_number(app.doc.topology.uplink_bandwidth_gbps)},
             {"group_size", std::to_string(app.doc.topology.group_size)},
             {"overrides", std::to_string(app.doc.topology.overrides.size())},
             {"stragglers", std::to_string(app.doc.topology.stragglers.size())},
             {"protocol", std::string(to_string(app.doc.topology.protocol))},
             {"predicted_on", vm.trace().predicted ? vm.trace().predicted->topology : "none"},
             {"predicted_us", vm.trace().predicted ? number(vm.trace().predicted->time_ns / 1000) : "none"},
             {"sent_total", number(sent)},
             {"numbers_line", stage_numbers_line(vm.trace())},
             {"note", app.doc.note.empty() ? "none" : app.doc.note},
             {"title", app.doc.title}};
  s.insert(s.begin() + 1, more.begin(), more.end());
  if (!app.doc.compare) {
    s.emplace_back("compare", "none");
    return s;
  }
  const ViewModel& b = *app.doc.compare;
  State compared{{"compare", app.doc.compare_phase ? phase_comparison(*app.doc.compare_phase) : b.schedule().algorithm},
                 {"compare_algorithm", b.schedule().algorithm},
                 {"compare_step", std::to_string(app.compare_now.steps_done)},
                 {"compare_steps", std::to_string(b.step_count())},
                 {"compare_in_flight", std::to_string(app.compare_now.in_flight.size())},
                 {"compare_predicted_us", b.trace().predicted ? number(b.trace().predicted->time_ns / 1000) : "none"},
                 {"end", number(app.runs().finish(app.playback.clock))}};
  s.insert(s.end() - 1, compared.begin(), compared.end());
  return s;
}

std::optional<double> as_number(const std::string& s) { return parse_number(s); }

bool compare(const std::string& have, const std::string& op, const std::string& want) {
  if (op == "contains") return have.find(want) != std::string::npos;
  if (op == "lacks") return have.find(want) == std::string::npos;
  const auto a = as_number(have), b = as_number(want);
  if (a && b) {
    if (op == "==") return *a == *b;
    if (op == "!=") return *a != *b;
    if (op == "<") return *a < *b;
    if (op == "<=") return *a <= *b;
    if (op == ">") return *a > *b;
    if (op == ">=") return *a >= *b;
  }
  if (op == "==") return have == want;
  if (op == "!=") return have != want;
  throw ScriptError("expect", op, fmt::format("cannot compare '{}' {} '{}'", have, op, want));
}

// ${NAME} -> the environment variable NAME (empty when unset).
std::string expand(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const std::size_t close = line.compare(i, 2, "${") == 0 ? line.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += line[i];
      continue;
    }
    const char* value = std::getenv(line.substr(i + 2, close - i - 2).c_str());
    out += value ? value : "";
    i = close;
  }
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(expand(line));
  std::string word;
  while (in >> std::quoted(word)) w.push_back(word);
  return w;
}

int glfw_key(const std::string& name) {
  static const std::map<std::string, int> keys{{"space", GLFW_KEY_SPACE},     {"left", GLFW_KEY_LEFT},
                                               {"right", GLFW_KEY_RIGHT},     {"home", GLFW_KEY_HOME},
                                               {"end", GLFW_KEY_END},         {"pageup", GLFW_KEY_PAGE_UP},
                                               {"pagedown", GLFW_KEY_PAGE_DOWN}, {"escape", GLFW_KEY_ESCAPE},
                                               {"a", GLFW_KEY_A},             {"f5", GLFW_KEY_F5}};
  const auto it = keys.find(name);
  if (it == keys.end())
    throw ScriptError("key", name, "unknown key '" + name + "' (space left right home end pageup pagedown escape a f5)");
  return it->second;
}

// A key press as ImGui sees it: down for one frame, then up.
void press_key(Platform& p, App& app, int key) {
  draw_frame(p, app, 0.0, [key](ImGuiIO& io) { io.KeysDown[key] = true; });
  draw_frame(p, app, 0.0, [key](ImGuiIO& io) { io.KeysDown[key] = false; });
}

// `run` and `start`: w[0] is the command, each KEY=VALUE pair after it the argument a
// ScriptError names.
void edit_run(RunEditor& e, const std::vector<std::string>& w) {
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto bad = [&](std::string reason) { return ScriptError(w[0], w[i], std::move(reason)); };
    const std::size_t eq = w[i].find('=');
    if (eq == std::string::npos) throw bad("run takes KEY=VALUE pairs, got '" + w[i] + "'");
    const std::string key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
    auto integer = [&] {
      try {
        return std::stoi(value);
      } catch (const std::exception& x) {  // std::stoi's own message, as the app has always printed it
        throw bad(x.what());
      }
    };
    auto named = [&](const auto& v, const char* what) {
      if (!v) throw bad(fmt::format("unknown {} '{}'", what, value));
      return *v;
    };
    if (key == "collective") {
      const auto c = parse_collective(value);
      if (!c) throw bad("unknown collective '" + value + "'");
      e.collective = static_cast<int>(std::find(std::begin(kAllCollectives), std::end(kAllCollectives), *c) - std::begin(kAllCollectives));
    } else if (key == "algorithm") {
      e.algorithm = value;
    } else if (key == "ranks") {
      e.ranks = integer();
    } else if (key == "count") {
      e.count = value;
    } else if (key == "slices") {
      e.slices = integer();
    } else if (key == "servers") {
      e.servers = integer();
    } else if (key == "colocated") {
      e.colocated = value == "true" || value == "1";
    } else if (key == "ranks_per_node") {
      e.ranks_per_node = integer();
    } else if (key == "dtype") {
      e.dtype = named(parse_data_type(value), "dtype");
    } else if (key == "op") {
      e.op = named(parse_reduce_op(value), "op");
    } else if (key == "root") {
      e.root = integer();
    } else if (key == "in_place") {
      e.in_place = value == "true" || value == "1";
    } else if (key == "topology") {
      e.set_topology_kind(named(parse_topology_kind(value), "topology"));
    } else if (key == "link") {
      e.topology.link = value == "default" ? "" : value;
    } else if (key == "bandwidth") {
      e.bandwidth = value;
    } else if (key == "latency") {
      e.latency = value;
    } else if (key == "uplink") {  // the "links…" popup's fields
      e.topology.uplink = value == "default" ? "" : value;
    } else if (key == "uplink_bandwidth") {
      e.uplink_bandwidth = value;
    } else if (key == "uplink_latency") {
      e.uplink_latency = value;
    } else if (key == "group_size") {
      e.topology.group_size = integer();
    } else if (key == "nic") {
      if (value != "node" && value != "gpu") throw bad("nic=node|gpu, got '" + value + "'");
      e.topology.nic_per_gpu = value == "gpu";
    } else if (key == "reduce_rate") {
      e.reduce_rate = value;
    } else if (key == "copy_rate") {
      e.copy_rate = value;
    } else if (key == "protocol") {
      e.topology.protocol = named(parse_protocol(value), "protocol");
    } else if (key == "compare") {
      e.compare = value == "none" ? "" : value;
    } else {
      throw bad("unknown run key '" + key + "'");
    }
  }
}

void toggle(App& app, const std::string& what) {
  ViewToggles& v = app.toggles;
  if (what == "values") v.values = !v.values;
  else if (what == "link-heat") v.link_heat = !v.link_heat;
  else if (what == "legend") v.legend = !v.legend;
  else if (what == "numbers") v.numbers = !v.numbers;
  else if (what == "loop") app.playback.loop = !app.playback.loop;
  else throw ScriptError("toggle", what, "unknown toggle '" + what + "'");
}

ClockKind clock_named(const std::string& name) {
  for (ClockKind c : kAllClocks)
    if (to_string(c) == name) return c;
  throw ScriptError("clock", name, "unknown clock '" + name + "' (steps measured predicted)");
}

// Applies one action; returns false when an `expect` failed.
bool apply(Platform& p, App& app, const std::vector<std::string>& w) {
  const std::string& a = w[0];
  auto arg = [&](std::size_t i) -> const std::string& {
    if (i >= w.size()) throw ScriptError(a, {}, a + ": missing argument");
    return w[i];
  };
  auto need_model = [&]() -> const ViewModel& {
    if (!app.doc.model) throw ScriptError(a, {}, a + ": nothing is open");
    return *app.doc.model;
  };
  auto need_runs = [&] {
    need_model();
    return app.runs();
  };
  if (a == "expect") {
    const State s = state_of(app);
    const auto it = std::find_if(s.begin(), s.end(), [&](const auto& kv) { return kv.first == arg(1); });
    if (it == s.end()) throw ScriptError(a, arg(1), "expect: unknown state '" + arg(1) + "'");
    if (compare(it->second, arg(2), arg(3))) return true;
    fmt::print("FAILED: expected {} {} '{}', got '{}'\n", arg(1), arg(2), arg(3), it->second);
    return false;
  }
  static const std::map<std::string, void (Playback::*)(const Runs&)> transport{
      {"home", &Playback::home}, {"end", &Playback::end}};
  auto need_lesson = [&]() -> const Lesson& {
    if (!app.doc.lesson) throw ScriptError(a, {}, a + ": no lesson is open (a trace or an edited run has no phases)");
    return *app.doc.lesson;
  };
  auto need_document = [&] {
    if (!app.has_document()) throw ScriptError(a, {}, a + ": nothing is open");
  };
  if (const auto t = transport.find(a); t != transport.end()) (app.playback.*t->second)(need_runs());
  else if (a == "play-pause") {  // as the button: in a lesson, on through the phases
    need_document();
    app.toggle_play();
  } else if (a == "step" || a == "back") {  // as the buttons: on to the next (previous) phase at a phase's end (start)
    need_document();
    a == "step" ? app.step_forward() : app.step_back();
  } else if (a == "phase") {
    const int k = script_int(a, arg(1));
    if (k < 1 || k > static_cast<int>(need_lesson().phase_count()))
      throw ScriptError(a, arg(1), fmt::format("phase: {} is not a phase of the lesson (1..{})", k, need_lesson().phase_count()));
    app.select_phase(static_cast<std::size_t>(k - 1));
  } else if (a == "reveal") {  // reveal: the A key; reveal K: question K's button; reveal all
    const Lesson& l = need_lesson();
    if (w.size() < 2) app.reveal_next();
    else if (w[1] == "all") std::fill(app.reveals.shown.begin(), app.reveals.shown.end(), true);
    else if (const int k = script_int(a, w[1]); k >= 1 && k <= static_cast<int>(l.scenario.questions.size()))
      app.reveals.toggle(static_cast<std::size_t>(k - 1));
    else throw ScriptError(a, w[1], fmt::format("reveal: {} is not a question of the lesson (1..{})", w[1], l.scenario.questions.size()));
  }
  else if (a == "key") press_key(p, app, glfw_key(arg(1)));
  else if (a == "play") {
    need_document();
    if (!app.playback.playing) app.toggle_play();
    for (int i = 0, n = script_int(a, arg(1)); i < n; ++i) draw_frame(p, app, 1.0 / 30.0);
  } else if (a == "frames") {
    for (int i = 0, n = script_int(a, arg(1)); i < n; ++i) draw_frame(p, app, 1.0 / 60.0);
  } else if (a == "seek-step") app.playback.seek_step(need_runs(), script_double(a, arg(1)));
  else if (a == "seek-time") app.playback.seek_time(need_runs(), script_double(a, arg(1)));
  else if (a == "clock") app.playback.set_clock(need_runs(), clock_named(arg(1)));
  else if (a == "toggle") toggle(app, arg(1));
  else if (a == "print") {  // one state's whole text on a line of its own, long ones included
    const State s = state_of(app);
    const auto it = std::find_if(s.begin(), s.end(), [&](const auto& kv) { return kv.first == arg(1); });
    if (it == s.end()) throw ScriptError(a, arg(1), "print: unknown state '" + arg(1) + "'");
    fmt::print("{}={}\n", it->first, it->second);
  }
  else if (a == "export" && arg(1).starts_with("lesson-")) {  // the whole lesson, every phase
    static const std::map<std::string, LessonExportKind> kinds{
        {"lesson-json", LessonExportKind::json}, {"lesson-chrome", LessonExportKind::chrome}, {"lesson-csv", LessonExportKind::csv}};
    const auto kind = kinds.find(arg(1));
    if (kind == kinds.end()) throw ScriptError(a, arg(1), "export lesson-json|lesson-chrome|lesson-csv BASE");
    const Lesson& l = need_lesson();
    const std::filesystem::path path = lesson_export_path(arg(2), kind->second);
    const std::string problem = write_export(path, lesson_export_text(kind->second, l.scenario, l.program));
    if (!problem.empty()) throw ScriptError(a, arg(2), problem);
  } else if (a == "export") {
    static const std::map<std::string, ExportKind> kinds{
        {"json", ExportKind::json}, {"chrome", ExportKind::chrome}, {"csv", ExportKind::csv}, {"scenario", ExportKind::scenario}};
    const auto kind = kinds.find(arg(1));
    if (kind == kinds.end()) throw ScriptError(a, arg(1), "export json|chrome|csv|scenario BASE");
    const std::filesystem::path path = export_path(arg(2), kind->second);
    const std::string problem = write_export(path, export_text(kind->second, need_model().trace(), app.doc.topology));
    if (!problem.empty()) throw ScriptError(a, arg(2), problem);
  }
  else if (a == "open") {
    app.open(arg(1));
    wait_for_load(p, app);
  } else if (a == "run" || a == "start") {  // start: press Run and go on while it runs
    edit_run(app.editor, w);
    app.run_editor();
    if (a == "run") wait_for_load(p, app);
  } else if (a == "straggler") {  // the stragglers popup: a row added (applied on the next Run)
    app.editor.add_straggler(script_int(a, arg(1)), script_double(a, arg(2)), script_double(a, arg(3)));
  } else if (a == "stragglers") {
    if (arg(1) != "none") throw ScriptError(a, arg(1), "stragglers none (add one with: straggler RANK LATE SLOW)");
    app.editor.topology.stragglers.clear();
  } else if (a == "link-override") {  // the "links…" popup: a row added ("-": an empty figure, the link's own)
    const auto figure = [](const std::string& v) { return v == "-" ? std::string() : v; };
    app.editor.add_override(arg(1), figure(arg(2)), figure(arg(3)));
  } else if (a == "link-overrides") {
    if (arg(1) != "none") throw ScriptError(a, arg(1), "link-overrides none (add one with: link-override NAME BW LAT)");
    app.editor.overrides.clear();
  } else if (a == "compare") {
    app.set_compare(arg(1) == "none" ? "" : arg(1));
    wait_for_load(p, app);
  } else if (a == "cancel") {
    app.cancel_load();
  } else if (a == "wait") {
    wait_for_load(p, app);
  }
  else if (a == "window") {  // window WxH [SCALE]: the window's size and the UI scale, as --size and --scale
    int width = 0, height = 0;
    if (std::sscanf(arg(1).c_str(), "%dx%d", &width, &height) != 2 || width < 320 || height < 240)
      throw ScriptError(a, arg(1), "window WIDTHxHEIGHT [SCALE]: '" + arg(1) + "' is not a size (320x240 or more)");
    if (w.size() > 2) {
      const double scale = script_double(a, w[2]);
      if (scale < 0.5 || scale > 4) throw ScriptError(a, w[2], "window: the scale must be 0.5 to 4");
      app.requested_scale = static_cast<float>(scale);
    }
    p.resize(width, height);
    for (int i = 0; i < 3; ++i) draw_frame(p, app, 0.0);  // the new size and fonts in place
  } else if (a == "stage") {  // the View menu's stage: auto (by the window's size), on, off
    static const std::map<std::string, StageChoice> choices{{"auto", StageChoice::automatic}, {"on", StageChoice::on}, {"off", StageChoice::off}};
    const auto c = choices.find(arg(1));
    if (c == choices.end()) throw ScriptError(a, arg(1), "stage auto|on|off");
    app.toggles.stage = c->second;
  }
  else if (a == "screenshot") {
    std::string error;
    bool ok = true;
    draw_frame(p, app, 0.0, {}, [&] { ok = p.save_png(arg(1), error); });
    if (!ok) throw ScriptError(a, arg(1), error);
  } else throw ScriptError(a, {}, "unknown action '" + a + "'");
  draw_frame(p, app, 0.0);  // the panels see the new state
  return true;
}

}  // namespace

std::string describe_state(const App& app) {
  std::string out;
  for (const auto& [k, v] : state_of(app)) {
    // Long texts are for `expect` only (the phase's name is short enough, quoted).
    if (k == "title" || k == "predicted_on" || k == "caption" || k.ends_with("_caption") || k.starts_with("answer_")) continue;
    const bool quoted = k == "error" || k == "phase_name";
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, quoted ? fmt::format("\"{}\"", v) : v);
  }
  return out;
}

int run_script(Platform& p, App& app, const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path, "script");
  } catch (const InputError& e) {  // "PATH: cannot read the script: why"
    fmt::print(stderr, "collsim-gui: --script {}\n", e.what());
    return 2;
  }
  std::istringstream in(text);
  std::string line;
  int number = 0, failures = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::vector<std::string> w = words(line);
    if (w.empty() || w[0].starts_with("#")) continue;
    try {
      if (!apply(p, app, w)) ++failures;
    } catch (const std::exception& e) {  // a bad line: the script's mistake, not the app's
      const ScriptError bad = ScriptError::from(e, w[0]).located(path, number);
      fmt::print(stderr, "collsim-gui: {}:{}: {}\n", bad.file, bad.line, bad.reason);
      return 2;
    }
    if (w[0] != "expect") fmt::print("{}:{}: {} -> {}\n", path, number, line, describe_state(app));
  }
  fmt::print("{}: {}\n", path, failures == 0 ? "all expectations held" : fmt::format("{} expectation(s) FAILED", failures));
  return failures == 0 ? 0 : 1;
}

}  // namespace collsim::gui
