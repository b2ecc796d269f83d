// Every algorithm file defines one AlgorithmInfo; this list is the registry's only input.
// To add an algorithm: write sim/algorithms/<collective>_<name>.cpp, declare it here,
// add it to kAlgorithms in sim/algorithm.cpp and to sim/CMakeLists.txt.
#pragma once
#include "sim/algorithm.h"

namespace collsim {

extern const AlgorithmInfo kAllReduceRing;
extern const AlgorithmInfo kAllReduceParameterServer;
extern const AlgorithmInfo kAllReduceDirect;

}  // namespace collsim
