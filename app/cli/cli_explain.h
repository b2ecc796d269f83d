// `collsim explain`: the step table of one collective's schedule, checked, not run (a
// lesson's: cli_lesson.h). No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>

#include "app/cli/cli_flags.h"
#include "app/cli/cli_io.h"

namespace collsim::cli {

int command_explain(const SpecFlags& sf, const std::string& scenario, const FlagGiven& given);

}  // namespace collsim::cli
