// Tests of lessons (captions). Filled in by its owner.
#include <doctest/doctest.h>
