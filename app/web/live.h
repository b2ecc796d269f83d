// The live page (`collsim html --live`, docs/web.md): the static page plus the collsim CLI
// itself compiled to WebAssembly (cmake/live.cmake builds collsim-live.js) and a form
// (app/web/live.js) that runs it again in the browser with other ranks, sizes, algorithms
// and topologies. The form builds a command line, the WebAssembly CLI runs it on an
// in-memory file system holding the page's input files — `collsim run` for the summary,
// `collsim html --data` for the player's new data — so the page shows exactly what the CLI
// would print and draw.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/topology.h"
#include "sim/run/run.h"

namespace collsim::html {

// What the form starts from and may run.
struct LiveInput {
  struct File {
    std::string path;  // as the CLI reads it (the input as given; a schedule file as the scenario resolved it)
    std::string text;
  };
  std::string input;        // the scenario or lesson as given on the command line; "": the flags' run (or a trace's)
  std::vector<File> files;  // the input and the schedule files it names
  bool lesson = false;      // a lesson of several phases: only --ranks, --seed and the topology change it
  RunRequest request;       // the run the page shows: the form's first values
  TopologyConfig topology;
};

// `page` (html::make_page or make_lesson_page) with the live part added before </body>:
// the input as JSON, the WebAssembly CLI (`module_js`, the text of collsim-live.js) and the form.
std::string add_live(const std::string& page, const LiveInput& input, std::string_view module_js);

}  // namespace collsim::html
