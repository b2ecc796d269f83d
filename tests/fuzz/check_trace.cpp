// JSON traces: imported as `collsim convert` and the GUI's "open trace" import them (with
// the buffer history the views draw), then exported to every format; the JSON export must
// read back and export to the same bytes (trace.h promises export -> import -> export is
// exact), or the importer accepted something the exporter cannot say.
#include <string>

#include "sim/core/errors.h"
#include "sim/trace/trace.h"
#include "tests/fuzz/fuzz_checks.h"

namespace collsim::fuzz {

void check_trace(std::string_view input) {
  Trace trace;
  try {
    trace = parse_trace_json(input, "fuzz.json", /*record_history=*/true);
  } catch (const InputError&) {
    return;  // the documented answer to a bad file: exit 2 with file:line:column and the JSON path
  }
  (void)trace_to_chrome(trace);
  (void)trace_to_csv(trace);
  const std::string exported = trace_to_json(trace);
  std::string again;
  try {
    again = trace_to_json(parse_trace_json(exported, "exported.json"));
  } catch (const InputError& e) {
    finding(std::string("an accepted trace, exported, does not read back: ") + e.what());
  }
  if (again != exported) finding("an accepted trace, exported, read back and exported again, differs");
}

}  // namespace collsim::fuzz
