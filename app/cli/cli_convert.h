// `collsim convert`: a JSON trace read back and written again in other formats. No CLI11
// here (cli_main.cpp owns the flags).
#pragma once
#include <string>

#include "app/cli/cli_io.h"

namespace collsim::cli {

// `collsim convert TRACE.json [--trace F] [--chrome F] [--csv F]`: reads a JSON trace
// (proving import) and writes the wanted formats. A lesson trace (collsim-lesson) is
// rebuilt as a lesson and written as the lesson's formats. Prints a one-line summary.
int command_convert(const std::string& trace_path, const TraceOutputs& outputs);

}  // namespace collsim::cli
