# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE, cmake/package.cmake): the
# .tar.gz keeps the installed tree without /usr, so that it unpacks and runs anywhere.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
endif()
