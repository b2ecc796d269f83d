// A deliberate wrong-way include: a file of app/flags (the run's flags, shared by the CLI and
// the desktop app) that includes the views. tests/layers/build_must_fail.cmake builds it and
// expects the build to fail at the layer check (it is not part of the normal build).
#include "app/views/loader.h"
