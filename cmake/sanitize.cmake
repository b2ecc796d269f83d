# Sanitizer builds (issue 21, part 3): COLLSIM_SANITIZE=thread builds every target with
# ThreadSanitizer, =address with AddressSanitizer and UndefinedBehaviorSanitizer (no
# recovery: the first report fails the test). Included before any target, so the flags reach
# the libraries as well as the tests. scripts/test's pass 4 builds the whole suite with
# =address and runs it at COLLSIM_TEST_SCALE=small; pass 5 builds test_sim with =thread and
# runs the tests of the threaded engine (the CPU backend's workers, the bench's threads).
set(COLLSIM_SANITIZE "" CACHE STRING "Sanitizer build: thread, address (ASan+UBSan), or empty (none)")
set_property(CACHE COLLSIM_SANITIZE PROPERTY STRINGS "" thread address)
if(COLLSIM_SANITIZE STREQUAL "")
  return()
endif()
if(COLLSIM_SANITIZE STREQUAL "thread")
  set(_collsim_sanitize_flags -fsanitize=thread)
elseif(COLLSIM_SANITIZE STREQUAL "address")
  set(_collsim_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=all)
else()
  message(FATAL_ERROR "collsim: COLLSIM_SANITIZE='${COLLSIM_SANITIZE}': use thread, address or leave it empty")
endif()
if(COLLSIM_FUZZ)
  message(FATAL_ERROR "collsim: COLLSIM_SANITIZE and COLLSIM_FUZZ are separate build trees (the fuzz build has ASan+UBSan already)")
endif()
# -O1 -g1 whatever the build type (they come after its flags, and the last -O and -g win):
# line tables are enough for the reports' file:line stacks, and UBSan's checks with full debug
# information at -O2 made the compiles 2.7 times slower (sim/trace/trace_json.cpp: 60 s
# against 22 s, docs/performance.md). Use a build of your own with -g for a debugger.
add_compile_options(${_collsim_sanitize_flags} -fno-omit-frame-pointer -O1 -g1)
add_link_options(${_collsim_sanitize_flags})
message(STATUS "collsim: sanitizer build (${COLLSIM_SANITIZE}): ${_collsim_sanitize_flags}")
