// Tests of lessons (lesson_parse). Filled in by its owner.
#include <doctest/doctest.h>
