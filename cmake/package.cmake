# The packages (CPack): `cpack --config BUILD/CPackConfig.cmake` writes a Debian package and a
# .tar.gz of the installed tree (cmake/install.cmake). scripts/package builds a tree for them
# (without CUDA: a .deb must depend only on Debian's packages) and runs cpack;
# tests/package/test_package.sh installs the .deb into a fresh root and runs it from there.
set(CPACK_PACKAGE_NAME collsim)
set(CPACK_PACKAGE_VENDOR "the collsim project")
set(CPACK_PACKAGE_CONTACT "collsim maintainers <collsim@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "educational simulator and visualizer of collective communication")
set(CPACK_PACKAGE_DESCRIPTION
    "collsim runs collective-communication algorithms (ring all-reduce, trees, parameter servers, all-gather, "
    "reduce-scatter, all-to-all) chunk by chunk, verifies every output, predicts every transfer on a topology, and "
    "shows them: a desktop app, SVG storyboards and web pages, with lessons on DDP, FSDP and NCCL's algorithms.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://example.org/collsim")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME "collsim-${PROJECT_VERSION}-${CMAKE_SYSTEM_PROCESSOR}")

# Debian: the libraries' packages from the binaries themselves (dpkg-shlibdeps: Debian's own
# names and versions, e.g. libglfw3, libfmt9, libopenmpi3), plus what the binaries run but do
# not link: mpirun for --backend mpi.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xvfb, xauth")  # collsim-gui --screenshot without a display
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # fast to build and to test; xz saves little on binaries

# The .deb installs under /usr; the .tar.gz holds the tree from its prefix (bin/, share/).
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/cmake/package_per_generator.cmake")
include(CPack)
