# Builds a probe target (a file checked as part of one layer that includes what that layer
# may not) and passes only when the build fails with the layer check's message, naming the
# file, the line, the include and the rule.
#   cmake -DBUILD_DIR=... -DTARGET=collsim_layer_probe -DFILE=wrong_way.cpp -DLINE=4
#         -DINCLUDE=sim/run/run.h "-DRULE=sim/core may not include sim/run/" -P build_must_fail.cmake
foreach(_arg IN ITEMS BUILD_DIR TARGET FILE LINE INCLUDE RULE)
  if(NOT DEFINED ${_arg})
    message(FATAL_ERROR "build_must_fail.cmake needs -D${_arg}=")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}" --target "${TARGET}"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  message(FATAL_ERROR "the wrong-way include built without an error:\n${out}")
endif()
# CMake wraps long messages: compare with the whitespace folded. Plain text, not a regex.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
set(expected "/${FILE}:${LINE}: #include \"${INCLUDE}\": ${RULE}")
string(FIND "${flat}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the build failed, but not with the layer check's message (${expected}):\n${out}")
endif()
message(STATUS "the wrong-way include failed the build, as it must")
