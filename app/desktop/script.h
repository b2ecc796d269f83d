// Scripted input: `collsim-gui FILE --script ACTIONS` drives the real window, one action
// per line, and prints the view-model state after each; `expect` lines check it. Used by
// the GUI tests (tests/gui/actions.txt) and handy for reproducing a bug.
//
//   step | back | home | end | play-pause        the transport buttons (step and back go on to
//                                                 the next or previous phase of a lesson at a
//                                                 phase's end or start; play plays on through
//                                                 a lesson's phases)
//   key space|left|right|home|end|pageup|pagedown|escape|a|f5   a key press (through ImGui's input)
//   phase K                                       show the lesson's phase K (1-based)
//   reveal | reveal K | reveal all                the A key (the next hidden answer); question
//                                                 K's button; every answer
//   play N                                        play for N frames of 1/30 s
//   frames N                                      draw N frames, changing nothing
//   seek-step P | seek-time T                     the scrubber (T in clock units: ns, or steps)
//   clock steps|measured|predicted
//   toggle values|link-heat|legend|numbers|loop
//   open PATH                                     open a file and wait for it
//   run KEY=VALUE ...                             edit the run (collective, algorithm, ranks,
//                                                 count, dtype, op, root, in_place, slices,
//                                                 servers, colocated, ranks_per_node, topology,
//                                                 link, bandwidth, latency, compare; the
//                                                 "links…" popup's uplink, uplink_bandwidth,
//                                                 uplink_latency, group_size, nic=node|gpu,
//                                                 reduce_rate, copy_rate) and press Run; waits
//   start KEY=VALUE ...                           the same, without waiting
//   cancel | wait                                 the Cancel button; wait for the load
//   straggler RANK LATE SLOW | stragglers none     the stragglers popup: add one (late in µs,
//                                                 slow a factor) or remove them all; applied
//                                                 by the next run (`run` alone re-runs)
//   link-override NAME BW LAT | link-overrides none   the "links…" popup's overrides: add a
//                                                 row (GB/s, µs; "-" keeps the link's own
//                                                 figure) or remove them all; applied by the
//                                                 next run
//   compare ALGO|none                             the "compare with" picker; waits
//   window WxH [SCALE]                            the window's size and the UI scale (as --size, --scale)
//   stage auto|on|off                             the View menu's stage layout (panel_plan.h)
//   screenshot PATH
//   export json|chrome|csv|scenario BASE          writes BASE.json, .chrome.json, .csv or .toml
//   export lesson-json|lesson-chrome|lesson-csv BASE   the whole lesson: BASE.lesson.json,
//                                                 .lesson.chrome.json or .lesson.csv
//   expect NAME OP VALUE                          OP: == != < <= > >= contains lacks
//   print NAME                                    writes NAME=VALUE, the state's whole text, on a
//                                                 line of its own (the caption, for one)
//   # comment
// ${NAME} in a line is replaced by the environment variable NAME. State names: loaded
// loading load (loading, loaded, failed, cancelled, none) error playing; the layout
// (panel_plan.h): panels (the panels ImGui placed, "scene buffers numbers timeline"),
// collapsed (those that gave way to a header line or a strip), panels_small (any under its
// minimum or outside the window, with its size; "none") and clipped (toolbar and transport
// rows cut off at the window's right edge); presenting (presenter mode), slide and slides
// (a lecture's: the one shown, 1-based, or none), scale (the UI scale); what the frame drew
// (drawn_shapes.h): stage (1 on the stage layout), window (WxH), scene_share (the scenes'
// area over the window's), caption_share (the caption's height over the window's), disc_min
// and packet_min (px, the smallest; none), outputs_missing (output rows not shown whole and
// 16 px high in the buffers panel: "rank 5, rank 6"; none), overlaps (labels over a label,
// disc, hub or packet; none), cut (texts not inside their box or the window; none); with a run open:
// arranged (the scene's arrangement: algorithm, topology or both) wires (the topology's wires drawn under the pattern, arranged by both) step steps t clock caption (the caption line's text, without its "t = " on a time
// clock; for `expect` and `print`, as other long texts) in_flight highlighted
// complete_cells incomplete_cells cells ranks total_ranks algorithm collective count dtype op root in_place topology link bandwidth
// latency uplink uplink_bandwidth group_size overrides (how many the run had) stragglers
// (the same) predicted_on (the predicted topology's
// description, stragglers included) predicted_us sent_total title compare (the
// algorithm, or none); comparing:
// compare_step compare_steps compare_in_flight compare_predicted_us end (the clock's end);
// with a scenario open (a lesson, lesson.h): phase phases phase_kind (collective, compute)
// phase_name lesson_caption phase_caption step_caption (the narration of the step shown)
// questions revealed answer_1 answer_2 ... ("hidden" until revealed). A compute phase has
// no run: only the lesson's names then.
#pragma once
#include <string>

#include "app/desktop/app.h"
#include "app/desktop/platform.h"
#include "app/desktop/script_error.h"  // ScriptError: a bad line, its file, line, command and argument

namespace collsim::gui {

// Runs the script; returns 0 when every action ran and every expectation held, 1 when
// an expectation failed, 2 when the script could not be read or has a bad line. A bad
// line stops it: whatever its command threw becomes a ScriptError (script_error.h) located
// at the file and line, printed as "collsim-gui: FILE:LINE: REASON".
int run_script(Platform& p, App& app, const std::string& path);

// "step=2/6 t=2 clock=steps playing=0 ..." — the state the script prints and checks.
std::string describe_state(const App& app);

}  // namespace collsim::gui
