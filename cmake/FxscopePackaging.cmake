# The Debian package: `cpack -G DEB` in a configured build tree (tools/package.sh does it all).
# It holds what the runtime install component installs: bin/fxscope and bin/fxscope-cli, the
# CUPTI injection library and the PyTorch driver where CUDA is built, the desktop entry and the
# icon. Its Depends line is computed by dpkg-shlibdeps from the binaries' NEEDED lists, so it
# names the Debian packages of Qt, Graphviz and the C++ runtime they link.
include(GNUInstallDirs)
if(FXSCOPE_WITH_GUI)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/fxscope.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT runtime)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/fxscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT runtime)
endif()

set(CPACK_PACKAGE_NAME fxscope)
set(CPACK_PACKAGE_VENDOR fxscope)
# The Maintainer field: set FXSCOPE_PACKAGE_CONTACT to "Name <address>" for a real release.
set(FXSCOPE_PACKAGE_CONTACT "fxscope maintainers" CACHE STRING "The Debian package's Maintainer")
set(CPACK_PACKAGE_CONTACT "${FXSCOPE_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "debugger for PyTorch 2 torch.compile logs (TORCH_TRACE)")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "fxscope reads the TORCH_TRACE logs of torch.compile and shows each compiled graph, its "
       "graph breaks, recompiles and guards, and how Inductor fused it into kernels. "
       "fxscope-cli summarizes, exports and captures logs from the command line.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Only what a user runs: the runtime component (tests and benchmarks install nothing).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};runtime;/")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# dpkg-shlibdeps runs with --ignore-missing-info: the CUDA toolkit's libraries under
# /usr/local/cuda belong to no Debian package, so a build with CUDA gets no dependency on them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
