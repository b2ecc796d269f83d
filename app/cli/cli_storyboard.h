// `collsim storyboard`, and the run or trace behind it that `collsim html` (cli_html.cpp)
// shares: the commands that draw what the app shows. No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/cli_io.h"
#include "app/storyboard/storyboard.h"
#include "sim/trace/trace.h"

namespace collsim::cli {

// `collsim storyboard SCENARIO|TRACE.json --out DIR`: runs the scenario (or the flags alone
// when `input` is empty) on the CPU backend as the GUI does, or reads the trace, and
// writes DIR/step-NN.svg and DIR/index.html, all or nothing. `from_flags` and `given` are
// the spec flags, as for `collsim run`; a trace takes none.
int command_storyboard(const std::string& input, const std::string& out_dir, const RunRequest& from_flags,
                       const flags::FlagGiven& given);

// What the storyboard and the web page both draw from (cli_storyboard.cpp):

// What the GUI shows for a scenario: run on the CPU backend, times predicted on the
// scenario's topology (app/views/loader.cpp does the same), so the storyboard's scene is laid out
// as in the app.
// `check` refuses a schedule too large for the output (storyboard::check_drawable).
using SizeCheck = void (*)(const Schedule&, const std::string&);

Trace run_for_storyboard(const RunPlan& plan, const std::string& scenario, SizeCheck check = storyboard::check_drawable);

// (The caller refuses the run flags given with a trace: it records its own run.)
Trace load_for_storyboard(const std::string& input, SizeCheck check = storyboard::check_drawable);

// A single collective's frames with the file's captions: "" where the file has none, so
// that the frame keeps its own description (a file without captions draws as before).
std::vector<std::string> file_captions(const RunPlan& plan, const Schedule& s);

}  // namespace collsim::cli
