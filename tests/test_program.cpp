// Tests of lessons (program). Filled in by its owner.
#include <doctest/doctest.h>
