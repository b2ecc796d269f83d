// Tests of lessons (lessons). Filled in by its owner.
#include <doctest/doctest.h>
