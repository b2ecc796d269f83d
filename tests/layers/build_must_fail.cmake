# Builds the probe target (a core-layer file that includes sim/run/) and passes only when
# the build fails with the layer check's message, naming the file and line.
#   cmake -DBUILD_DIR=... -DTARGET=collsim_layer_probe -P build_must_fail.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}" --target "${TARGET}"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  message(FATAL_ERROR "the wrong-way include built without an error:\n${out}")
endif()
# CMake wraps long messages: compare with the whitespace folded.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
if(NOT flat MATCHES "wrong_way\\.cpp:4: #include \"sim/run/run\\.h\": sim/core may not include sim/run/")
  message(FATAL_ERROR "the build failed, but not with the layer check's message:\n${out}")
endif()
message(STATUS "the wrong-way include failed the build, as it must")
