# `cmake --install BUILD` and the packages (scripts/package: a .deb and a .tar.gz, CPack),
# included by the top-level CMakeLists.txt after the targets exist. The installed tree:
#   bin/collsim, bin/collsim-gui                 the command line and the app
#   share/collsim/scenarios/                     lessons, lectures, exercises (found by name:
#                                                `collsim run lessons/01_ring_allreduce`,
#                                                app/flags/data_files.h: BIN/../share/collsim)
#   share/collsim/assets/                        the app's font
#   share/collsim/collsim-live.js                `collsim html --live`'s WebAssembly CLI, when built
#   share/doc/collsim/                           README.md and docs/
#   share/man/man1/collsim.1.gz, collsim-COMMAND.1.gz, collsim-gui.1.gz
#                                                generated from --help by help2man
#   share/applications/collsim.desktop, share/icons/hicolor/scalable/apps/collsim.svg
# Every path is relative to the prefix, so the .tar.gz unpacks and runs anywhere.
include(GNUInstallDirs)
set(COLLSIM_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/collsim")

install(TARGETS collsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET collsim-gui)
  install(TARGETS collsim-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES "${PROJECT_SOURCE_DIR}/assets/desktop/collsim.desktop" DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES "${PROJECT_SOURCE_DIR}/assets/desktop/collsim.svg"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/scenarios/" DESTINATION ${COLLSIM_INSTALL_DATADIR}/scenarios)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/assets/fonts" DESTINATION ${COLLSIM_INSTALL_DATADIR}/assets)
if(COLLSIM_WITH_LIVE)
  # Built by the live page's external project with `all`; OPTIONAL for a tree built target by target.
  install(FILES "${COLLSIM_LIVE_JS}" DESTINATION ${COLLSIM_INSTALL_DATADIR} OPTIONAL)
endif()
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# --- man pages, one per command, from its --help (help2man, a Debian package) ----------------
find_program(COLLSIM_HELP2MAN help2man)
if(NOT COLLSIM_HELP2MAN)
  message(STATUS "collsim: man pages OFF (help2man not found: ${_collsim_setup_hint})")
  return()
endif()
set(_collsim_man_dir "${CMAKE_BINARY_DIR}/man")
set(_collsim_man_pages "")
# collsim_man_page(PAGE TARGET "SUBCOMMAND" "WHAT"): PAGE.1.gz from `TARGET SUBCOMMAND --help`.
# help2man runs a program; a subcommand's is a two-line script that runs TARGET SUBCOMMAND.
function(collsim_man_page page target subcommand what)
  set(program "$<TARGET_FILE:${target}>")
  if(subcommand)
    set(program "${_collsim_man_dir}/bin/${page}")
    file(GENERATE OUTPUT "${program}" CONTENT "#!/bin/sh\nexec '$<TARGET_FILE:${target}>' ${subcommand} \"$@\"\n"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endif()
  set(out "${_collsim_man_dir}/${page}.1.gz")
  add_custom_command(OUTPUT "${out}"
    COMMAND "${COLLSIM_HELP2MAN}" --no-info --no-discard-stderr "--version-string=${PROJECT_VERSION}"
            "--name=${what}" --section=1 "--output=${_collsim_man_dir}/${page}.1" "${program}"
    COMMAND gzip -n -9 -f "${_collsim_man_dir}/${page}.1"
    DEPENDS ${target}
    COMMENT "man page ${page}(1)" VERBATIM)
  set(_collsim_man_pages ${_collsim_man_pages} "${out}" PARENT_SCOPE)
endfunction()

collsim_man_page(collsim collsim "" "run, verify, explain and draw collective-communication algorithms")
# Each command's one line for the NAME section (its --help says the rest).
collsim_man_page(collsim-run collsim run "run a collective or a lesson on a backend and verify every output")
collsim_man_page(collsim-explain collsim explain "print the step table of a schedule, or of every phase of a lesson")
collsim_man_page(collsim-bench collsim bench "benchmark a backend in nccl-tests' format, beside its predictions")
collsim_man_page(collsim-convert collsim convert "write a JSON trace again as JSON, Chrome trace or CSV")
collsim_man_page(collsim-storyboard collsim storyboard "draw every step of a run or lesson as SVG")
collsim_man_page(collsim-html collsim html "write one self-contained web page that plays a run or lesson")
collsim_man_page(collsim-validate collsim validate "check scenario, lesson, schedule, trace and lecture files")
collsim_man_page(collsim-list collsim list "list collectives, algorithms with their cost formulas, types and ops")
collsim_man_page(collsim-export-msccl collsim export-msccl "write a schedule as an MSCCL algorithm file")
collsim_man_page(collsim-calibrate collsim calibrate "measure a job's links and write them as a topology file")
if(TARGET collsim-gui)
  collsim_man_page(collsim-gui collsim-gui "" "watch a collective happen, chunk by chunk (the desktop app)")
endif()
add_custom_target(collsim_man ALL DEPENDS ${_collsim_man_pages})
install(FILES ${_collsim_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
