# GUI tests (included from tests/CMakeLists.txt).
#
# test_gui_model: the view model, without OpenGL (doctest, one ctest test per TEST_CASE),
# and the app script's ScriptError (app/desktop/script_error.h, plain C++). It needs no GUI
# packages, so it runs in every build.
add_executable(test_gui_model ${CMAKE_CURRENT_LIST_DIR}/test_main.cpp ${CMAKE_CURRENT_LIST_DIR}/test_view_model.cpp
               ${CMAKE_CURRENT_LIST_DIR}/test_lesson.cpp ${CMAKE_CURRENT_LIST_DIR}/test_palette.cpp
               ${CMAKE_CURRENT_LIST_DIR}/test_buffer_layout.cpp
               ${CMAKE_CURRENT_LIST_DIR}/test_panel_plan.cpp ${CMAKE_CURRENT_LIST_DIR}/test_numbers.cpp
               ${CMAKE_CURRENT_LIST_DIR}/test_script_error.cpp ${CMAKE_CURRENT_LIST_DIR}/test_bench_plot.cpp)
target_link_libraries(test_gui_model PRIVATE collsim_views doctest::doctest collsim_warnings)
target_compile_definitions(test_gui_model PRIVATE COLLSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
doctest_discover_tests(test_gui_model)

# The app itself, under a virtual display (xvfb-run, installed by scripts/setup): screenshots
# that must show something and differ, one PNG per step, a scripted session with
# expectations (tests/gui/actions.txt), bad input, lessons (their phases, program timeline
# and captions) and a scripted walk through one (tests/gui/lesson_actions.txt). Labelled `gui`.
if(COLLSIM_GUI)
  add_executable(gui_png_check ${CMAKE_CURRENT_LIST_DIR}/png_check.cpp)
  target_link_libraries(gui_png_check PRIVATE PkgConfig::stb collsim_warnings)
  find_program(COLLSIM_XVFB_RUN xvfb-run)
  if(NOT COLLSIM_XVFB_RUN)
    message(STATUS "collsim: xvfb-run not found: the GUI tests need a display (run scripts/setup to install xvfb)")
  endif()
  foreach(case IN ITEMS screenshots frames script errors lessons lesson_script layout stage lecture same_trace run_flags)
    add_test(NAME gui_${case} COMMAND ${CMAKE_COMMAND}
      -DCASE=${case} -DGUI=$<TARGET_FILE:collsim-gui> -DCLI=$<TARGET_FILE:collsim>
      -DPNG_CHECK=$<TARGET_FILE:gui_png_check> -DXVFB_RUN=${COLLSIM_XVFB_RUN}
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/gui/${case}
      -P ${CMAKE_CURRENT_LIST_DIR}/run_gui_tests.cmake)
    # One at a time: concurrent xvfb-run -a can race for a display number.
    set_tests_properties(gui_${case} PROPERTIES LABELS gui TIMEOUT 600 RESOURCE_LOCK xvfb)
  endforeach()
endif()
