// Tests of lessons (training). Filled in by its owner.
#include <doctest/doctest.h>
