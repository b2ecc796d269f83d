// `collsim storyboard` and `collsim validate`: the commands that read lesson files and
// write or run nothing else. No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>
#include <vector>

#include "app/cli_io.h"
#include "sim/model/topology.h"

namespace collsim::cli {

// `collsim storyboard SCENARIO|TRACE.json --out DIR`: runs the scenario (or the flags alone
// when `input` is empty) on the CPU backend as the GUI does, or reads the trace, and
// writes DIR/step-NN.svg and DIR/index.html, all or nothing. `from_flags` and `given` are
// the spec flags, as for `collsim run`; a trace takes none.
int command_storyboard(const std::string& input, const std::string& out_dir, const RunRequest& from_flags,
                       const FlagGiven& given);

// What `collsim html` takes besides the spec flags.
struct HtmlOptions {
  std::string out;          // --out: the page (or, with data_only, its data)
  TopologyConfig topology;  // the topology flags (topology_flags): what the times are predicted on
  bool live = false;        // --live: with the WebAssembly CLI and a form that re-runs it (app/html/live.h)
  bool data_only = false;   // --data: the page's data (JSON, docs/web.md) instead of the page
};

// `collsim html SCENARIO|TRACE.json --out PAGE.html`: the same run (or trace) as one
// self-contained web page that plays it (app/html/page.h), written all or nothing; the
// output path and the live module are checked before the run. A lesson of several phases:
// every phase, loaded as the app loads it (its spec flags are the file's: refused).
int command_html(const std::string& input, const RunRequest& from_flags, const FlagGiven& given, const HtmlOptions& options);

// `collsim validate FILE...`: loads each scenario, schedule or trace file and checks it
// (a scenario's schedule symbolically, its topology by the timing model) without running
// anything; prints "FILE: OK (...)" per file. Stops at the first bad file with its error
// (InputError, exit 2; a hand-written schedule that is wrong: WrongScheduleError, exit 1).
int command_validate(const std::vector<std::string>& files);

}  // namespace collsim::cli
