# Fails when a file of one layer (a folder of sim/ or of app/) includes a header of a folder
# it may not reach, or a toolkit header its layer never touches (docs/design.md, "Layers").
# Run at build time by collsim_layer_check() (cmake/layers.cmake), before the layer's library
# or executable compiles, so a wrong-way include fails the build with the file, the line and
# the rule it breaks.
#   cmake -DLAYER=sim/core -DALLOWED="sim/core" -DFILES="a.cpp;b.h" -DSTAMP=file -P check_layer.cmake
#
# LAYER:   the folder checked, as includes name it (sim/core, app/views, ...).
# ALLOWED: what its files may include of the project's own folders: "sim/core" (that folder),
#          "sim" (every folder of sim/), "app/views", ...; and "imgui" where ImGui, GLFW and
#          OpenGL headers are allowed (only app/desktop draws). kernels/ and other libraries'
#          headers are not checked; CUDA headers never are allowed (only kernels/ touches CUDA).
cmake_minimum_required(VERSION 3.25)
string(REPLACE ";" ", " _allowed_text "${ALLOWED}")
set(_errors "")
foreach(_file IN LISTS FILES)
  file(STRINGS "${_file}" _lines)
  set(_line_number 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _line_number "${_line_number} + 1")
    if(NOT _line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      continue()
    endif()
    set(_header "${CMAKE_MATCH_1}")
    set(_why "")
    if(_header MATCHES "^((sim|app)/[a-z_]+)/")
      set(_to "${CMAKE_MATCH_1}")
      set(_top "${CMAKE_MATCH_2}")
      if(NOT _to IN_LIST ALLOWED AND NOT _top IN_LIST ALLOWED)
        set(_why "${LAYER} may not include ${_to}/ (it may include: ${_allowed_text}; the layers run one way, see docs/design.md)")
      endif()
    elseif(_header MATCHES "^(sim|app)/[^/]+$")
      set(_why "${CMAKE_MATCH_1}/ headers live in a layer folder (sim/core/, app/views/, ...)")
    elseif(_header MATCHES "^(imgui|backends/imgui|GLFW/|GL/)")  # backends/: ImGui's GLFW and OpenGL glue
      if(NOT "imgui" IN_LIST ALLOWED)
        set(_why "${LAYER} may not include ImGui, GLFW or OpenGL headers (only app/desktop draws)")
      endif()
    elseif(_header MATCHES "^(cuda|cuda_runtime|nccl)")
      set(_why "${LAYER} may not include CUDA headers (only kernels/ touches CUDA)")
    endif()
    if(_why)
      string(APPEND _errors "${_file}:${_line_number}: #include \"${_header}\": ${_why}\n")
    endif()
  endforeach()
endforeach()
if(_errors)
  message(FATAL_ERROR "collsim: wrong-way include in layer ${LAYER}:\n${_errors}")
endif()
file(WRITE "${STAMP}" "ok\n")
