// `collsim explain`: the step table of one collective's schedule, checked, not run (a
// lesson's: cli_lesson.h). No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>

#include "app/flags/run_flags.h"
#include "app/cli/cli_io.h"

namespace collsim::cli {

int command_explain(const flags::SpecFlags& sf, const std::string& scenario, const flags::FlagGiven& given);

}  // namespace collsim::cli
