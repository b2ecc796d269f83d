// `collsim validate`: reads scenario, lesson, lecture, schedule and trace files and checks
// them without running anything. No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>
#include <vector>

namespace collsim::cli {

// `collsim validate FILE...`: loads each scenario, schedule or trace file and checks it
// (a scenario's schedule symbolically, its topology by the timing model) without running
// anything; prints "FILE: OK (...)" per file. Stops at the first bad file with its error
// (InputError, exit 2; a hand-written schedule that is wrong: WrongScheduleError, exit 1).
int command_validate(const std::vector<std::string>& files);

}  // namespace collsim::cli
