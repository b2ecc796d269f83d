# The header-only dependencies from COLLSIM_DEPS_DIR (included by the top-level
# CMakeLists.txt when it is set), as the same target names find_package would give:
#   COLLSIM_DEPS_DIR/include/{fmt,toml++,nlohmann,CLI,doctest}/...   the headers
#   COLLSIM_DEPS_DIR/cmake/doctest.cmake, doctestAddTests.cmake      doctest_discover_tests
# fmt and toml++ are compiled header-only (FMT_HEADER_ONLY, TOML_HEADER_ONLY): nothing to
# link. The headers are SYSTEM includes (as for imported targets), searched before the
# compiler's own folders, so a copy elsewhere on the machine is never picked up instead.
set(_collsim_deps_include "${COLLSIM_DEPS_DIR}/include")
foreach(_header IN ITEMS fmt/format.h toml++/toml.h nlohmann/json.hpp CLI/CLI.hpp doctest/doctest.h)
  if(NOT EXISTS "${_collsim_deps_include}/${_header}")
    list(APPEND _collsim_missing "${_header}")
  endif()
endforeach()
if(NOT EXISTS "${COLLSIM_DEPS_DIR}/cmake/doctest.cmake")
  list(APPEND _collsim_missing "cmake/doctest.cmake")
endif()
if(_collsim_missing)
  list(JOIN _collsim_missing ", " _collsim_missing)
  message(FATAL_ERROR "collsim: COLLSIM_DEPS_DIR=${COLLSIM_DEPS_DIR} lacks ${_collsim_missing}; "
                      "make it with scripts/gpu-check --prepare on a machine that has the packages.")
endif()

function(_collsim_header_only target)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_collsim_deps_include}"
    INTERFACE_COMPILE_DEFINITIONS "${ARGN}")
endfunction()
_collsim_header_only(fmt::fmt FMT_HEADER_ONLY=1)
_collsim_header_only(tomlplusplus::tomlplusplus TOML_HEADER_ONLY=1)
_collsim_header_only(nlohmann_json::nlohmann_json)
_collsim_header_only(CLI11::CLI11)
_collsim_header_only(doctest::doctest)
list(APPEND CMAKE_MODULE_PATH "${COLLSIM_DEPS_DIR}/cmake")  # include(doctest)
message(STATUS "collsim: dependencies from COLLSIM_DEPS_DIR=${COLLSIM_DEPS_DIR} (header-only)")
