// Every algorithm file defines one AlgorithmInfo; registry.def lists them, and is the
// registry's only input (sim/schedule/algorithm.cpp builds the list from it).
// To add an algorithm: write sim/schedule/algorithms/<collective>_<name>.cpp and add one
// COLLSIM_ALGORITHM line to registry.def. Nothing else names it: the build takes every
// .cpp of this folder, and the tests sweep every registered algorithm.
#pragma once
#include "sim/schedule/algorithm.h"

namespace collsim {

#define COLLSIM_ALGORITHM(name) extern const AlgorithmInfo name;
#include "sim/schedule/algorithms/registry.def"
#undef COLLSIM_ALGORITHM

}  // namespace collsim
