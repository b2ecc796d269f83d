// `collsim validate`: reads scenario, lesson, lecture, schedule and trace files and checks
// them without running anything. No CLI11 here (cli_main.cpp owns the flags).
#pragma once
#include <string>
#include <vector>

namespace collsim::cli {

// `collsim validate FILE...`: loads each scenario, schedule or trace file and checks it
// (a scenario's schedule symbolically, its topology by the timing model) without running
// anything; prints "FILE: OK (...)" per file and each bad file's error, all of them: exit 2
// if any had an input error, 1 if the worst was a hand-written schedule that is wrong.
int command_validate(const std::vector<std::string>& files);

}  // namespace collsim::cli
