// A deliberate wrong-way include: a file of the core layer that includes the run layer.
// tests/layers/build_must_fail.cmake builds it and expects the build to fail at the layer
// check (it is not part of the normal build).
#include "sim/run/run.h"
