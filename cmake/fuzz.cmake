# The fuzz build (COLLSIM_FUZZ=ON; included from the top-level CMakeLists.txt before any
# target): every translation unit instrumented for libFuzzer and compiled with ASan+UBSan,
# so that the targets in tests/fuzz/ see coverage and any memory error or undefined
# behaviour is a crash. Only clang has libFuzzer (Debian's clang 14: libclang-rt-14-dev).
# Configure a build tree of its own with it, e.g.
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCOLLSIM_FUZZ=ON \
#         -DCOLLSIM_CUDA=OFF -DCOLLSIM_MPI=OFF -DCOLLSIM_LIVE=OFF -DCOLLSIM_GUI=OFF
# and build only the fuzz targets (tests/fuzz/README.md).
option(COLLSIM_FUZZ "Build the libFuzzer targets of tests/fuzz/ with ASan+UBSan (clang only)" OFF)
if(NOT COLLSIM_FUZZ)
  return()
endif()

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR
    "collsim: COLLSIM_FUZZ=ON needs clang (libFuzzer is clang's), but the C++ compiler is "
    "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}). Configure a separate build tree with "
    "-DCMAKE_CXX_COMPILER=clang++ (Debian: apt-get install clang; scripts/setup does).")
endif()

# -O1: fast enough for millions of inputs, with a useful stack. No NDEBUG whatever the build
# type: the libraries' own assertions (toml++'s) are part of what the fuzzer looks for.
set(_collsim_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=all)
add_compile_options(${_collsim_sanitizers} -fsanitize=fuzzer-no-link -O1 -g -fno-omit-frame-pointer -UNDEBUG)
add_link_options(${_collsim_sanitizers})

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer,address")
check_cxx_source_compiles([[
  #include <cstddef>
  #include <cstdint>
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] COLLSIM_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT COLLSIM_HAVE_LIBFUZZER)
  message(FATAL_ERROR
    "collsim: COLLSIM_FUZZ=ON but ${CMAKE_CXX_COMPILER} cannot link a libFuzzer target "
    "(-fsanitize=fuzzer): install clang's runtime (Debian: libclang-rt-14-dev, which clang brings).")
endif()
message(STATUS "collsim: fuzz build (libFuzzer, ASan+UBSan): build the targets of tests/fuzz/")
