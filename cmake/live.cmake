# The live web page's WebAssembly build (`collsim html --live`, docs/web.md): the collsim
# CLI itself compiled by Debian's emscripten (emcmake), so that the page re-runs a lesson or
# a collective exactly as the CLI would. Included by the top-level CMakeLists.txt after the
# packages are found. Defines, for app/CMakeLists.txt:
#   COLLSIM_WITH_LIVE   ON/OFF: the WebAssembly CLI is built with `all`
#   COLLSIM_LIVE_JS     where it lands (one .js file with the .wasm inside)
#
# It is an external project: this same source tree configured again with emcmake, the
# GUI, CUDA, tests and benchmarks off, its header-only packages from COLLSIM_DEPS_DIR (a
# folder of links to this machine's headers; never -I/usr/include, which would pull the
# host's libc into emscripten's). Its build folder is shared by every build tree of this
# checkout (COLLSIM_LIVE_DIR, default build-wasm/), so scripts/test's second pass finds it
# built. Emscripten missing: the static page still builds, and the configure says why.
# MinSizeRel (-Os): a smaller download for the page, and em++ compiles it in about a
# quarter less time than at -O3 (CI's time, docs/performance.md).
set(COLLSIM_LIVE AUTO CACHE STRING "Build the live page's WebAssembly CLI: AUTO (if emcmake is found), ON, OFF")
set_property(CACHE COLLSIM_LIVE PROPERTY STRINGS AUTO ON OFF)
set(COLLSIM_LIVE_DIR "${PROJECT_SOURCE_DIR}/build-wasm" CACHE PATH "Build folder of the live page's WebAssembly CLI")

set(COLLSIM_WITH_LIVE OFF)
set(COLLSIM_LIVE_JS "${COLLSIM_LIVE_DIR}/app/collsim-live.js")
string(TOUPPER "${COLLSIM_LIVE}" _collsim_live_mode)
find_program(COLLSIM_EMCMAKE emcmake)
if(EMSCRIPTEN OR _collsim_live_mode STREQUAL "OFF")
  set(_collsim_live_why "COLLSIM_LIVE=OFF")
elseif(NOT COLLSIM_EMCMAKE)
  set(_collsim_live_why "emcmake not found: install Debian's emscripten (scripts/setup does)")
  if(_collsim_live_mode STREQUAL "ON")
    message(FATAL_ERROR "collsim: COLLSIM_LIVE=ON but ${_collsim_live_why}")
  endif()
else()
  set(COLLSIM_WITH_LIVE ON)
endif()

if(NOT COLLSIM_WITH_LIVE)
  message(STATUS "collsim: live web page OFF (${_collsim_live_why}); `collsim html` writes static pages")
  return()
endif()
message(STATUS "collsim: live web page ON (${COLLSIM_EMCMAKE}, built in ${COLLSIM_LIVE_DIR})")

# The header-only packages, as cmake/deps_dir.cmake expects them: links to where the
# installed packages keep their headers (or the given COLLSIM_DEPS_DIR).
if(COLLSIM_DEPS_DIR)
  set(_collsim_live_deps "${COLLSIM_DEPS_DIR}")
else()
  set(_collsim_live_deps "${COLLSIM_LIVE_DIR}-deps")
  file(MAKE_DIRECTORY "${_collsim_live_deps}/include" "${_collsim_live_deps}/cmake")
  foreach(_pair IN ITEMS "fmt::fmt|fmt" "tomlplusplus::tomlplusplus|toml++" "nlohmann_json::nlohmann_json|nlohmann"
                         "CLI11::CLI11|CLI" "doctest::doctest|doctest")
    string(REPLACE "|" ";" _pair "${_pair}")
    list(GET _pair 0 _target)
    list(GET _pair 1 _folder)
    get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
    set(_found "")
    foreach(_dir IN LISTS _dirs)
      if(NOT _found AND IS_DIRECTORY "${_dir}/${_folder}")
        set(_found "${_dir}/${_folder}")
      endif()
    endforeach()
    if(NOT _found)
      message(FATAL_ERROR "collsim: the live page needs ${_folder}'s headers; ${_target} has none in '${_dirs}'")
    endif()
    file(CREATE_LINK "${_found}" "${_collsim_live_deps}/include/${_folder}" SYMBOLIC)
  endforeach()
  # deps_dir.cmake checks for doctest's discovery script; the WebAssembly build has no tests.
  file(WRITE "${_collsim_live_deps}/cmake/doctest.cmake" "# unused: the WebAssembly build has no tests\n")
endif()

# Emscripten's JavaScript optimiser needs Debian's `acorn` module, which a node not from
# Debian (these machines' node 20) finds only through NODE_PATH (../shared/TOOLCHAIN.md).
set(_collsim_live_env ${CMAKE_COMMAND} -E env "NODE_PATH=/usr/share/nodejs:$ENV{NODE_PATH}")
include(ExternalProject)
ExternalProject_Add(collsim_live
  SOURCE_DIR "${PROJECT_SOURCE_DIR}"
  BINARY_DIR "${COLLSIM_LIVE_DIR}"
  CONFIGURE_COMMAND ${_collsim_live_env} ${COLLSIM_EMCMAKE} ${CMAKE_COMMAND} -S <SOURCE_DIR> -B <BINARY_DIR> -G ${CMAKE_GENERATOR}
                    -DCMAKE_BUILD_TYPE=MinSizeRel -DCOLLSIM_DEPS_DIR=${_collsim_live_deps}
                    -DCOLLSIM_GUI=OFF -DCOLLSIM_CUDA=OFF -DCOLLSIM_LIVE=OFF
  BUILD_COMMAND ${_collsim_live_env} ${CMAKE_COMMAND} --build <BINARY_DIR> --target collsim
  BUILD_ALWAYS ON  # its own build tool decides what is out of date
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${COLLSIM_LIVE_JS}"
  USES_TERMINAL_BUILD ON)
