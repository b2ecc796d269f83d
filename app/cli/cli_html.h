// `collsim html`: a run, a trace or a lesson as one self-contained web page (app/web/).
// No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>

#include "app/cli/cli_io.h"
#include "sim/model/topology.h"

namespace collsim::cli {

// What `collsim html` takes besides the spec flags.
struct HtmlOptions {
  std::string out;          // --out: the page (or, with data_only, its data)
  TopologyConfig topology;  // the topology flags (topology_flags): what the times are predicted on
  bool live = false;        // --live: with the WebAssembly CLI and a form that re-runs it (app/web/live.h)
  bool data_only = false;   // --data: the page's data (JSON, docs/web.md) instead of the page
  std::string trace;        // --trace: the run's trace as well (a lesson's: the lesson trace), as `run --trace` writes it
};

// `collsim html SCENARIO|TRACE.json --out PAGE.html`: the same run (or trace) as one
// self-contained web page that plays it (app/web/page.h), and with --trace the trace of the
// run it plays, written all or nothing; the output paths and the live module are checked
// before the run. A lesson of several phases:
// every phase, loaded as the app loads it (its spec flags are the file's: refused).
int command_html(const std::string& input, const RunRequest& from_flags, const flags::FlagGiven& given, const HtmlOptions& options);

}  // namespace collsim::cli
