// A deliberate wrong-way include: a file of app/storyboard that includes the CLI.
// tests/layers/build_must_fail.cmake builds it and expects the build to fail at the layer
// check (it is not part of the normal build).
#include "app/cli/cli_io.h"
