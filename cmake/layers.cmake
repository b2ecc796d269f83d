# collsim_layer_check(): the build-time include check of one layer, shared by sim/ (one layer
# per folder, sim/CMakeLists.txt), app/ (one room per folder, app/CMakeLists.txt) and the
# deliberate offenders of tests/layers/. The rules themselves are cmake/check_layer.cmake.
include_guard(GLOBAL)

# collsim_layer_check(TARGET LAYER ALLOWED FOLDER): runs cmake/check_layer.cmake over every .h
# and .cpp under FOLDER before TARGET compiles. LAYER names the folder as includes do
# (sim/core, app/views); ALLOWED lists what it may include (check_layer.cmake says how). The
# check is its own target, TARGET_layer_check: another target built from the same folder
# waits for it with add_dependencies(OTHER TARGET_layer_check).
function(collsim_layer_check target layer allowed folder)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${folder}/*.h ${folder}/*.cpp)
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}.layer-check)
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} "-DLAYER=${layer}" "-DALLOWED=${allowed}" "-DFILES=${files}" "-DSTAMP=${stamp}"
            -P ${PROJECT_SOURCE_DIR}/cmake/check_layer.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/check_layer.cmake
    COMMENT "Checking the includes of ${layer}"
    VERBATIM)
  add_custom_target(${target}_layer_check DEPENDS ${stamp})
  add_dependencies(${target} ${target}_layer_check)
endfunction()
