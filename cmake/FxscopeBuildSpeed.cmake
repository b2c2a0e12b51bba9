# What keeps the edit-build-test loop short on a 2-core machine (tools/build_times.sh measures it).

# ccache for C++ and CUDA where it is installed: one cache (ccache's own, ~/.cache/ccache) serves
# every checkout on the machine. base_dir makes the absolute paths under this source tree
# relative in what ccache hashes, and hash_dir off keeps the build directory's path out of the
# hash, so a second clone or a worktree compiles from the cache. The sloppiness lets ccache cache
# translation units built with a precompiled header.
option(FXSCOPE_USE_CCACHE "Compile through ccache when it is installed" ON)
find_program(FXSCOPE_CCACHE ccache)
if(FXSCOPE_USE_CCACHE AND FXSCOPE_CCACHE)
  set(_fxscope_launcher
      ${CMAKE_COMMAND} -E env "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}" CCACHE_NOHASHDIR=1
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${FXSCOPE_CCACHE})
  foreach(lang CXX CUDA)
    if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
      set(CMAKE_${lang}_COMPILER_LAUNCHER ${_fxscope_launcher})
    endif()
  endforeach()
  message(STATUS "fxscope: compiling through ${FXSCOPE_CCACHE}")
endif()

# mold links the large test executables several times faster than GNU ld.
option(FXSCOPE_USE_MOLD "Link with mold when it is installed" ON)
find_program(FXSCOPE_MOLD mold)
if(FXSCOPE_USE_MOLD AND FXSCOPE_MOLD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"
   AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12.1)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fuse-ld=mold>)
  message(STATUS "fxscope: linking with ${FXSCOPE_MOLD}")
endif()

# Debug info in .dwo files beside the objects: the linker no longer copies it into every
# executable (gdb reads the .dwo files).
option(FXSCOPE_SPLIT_DWARF "Keep debug info out of the linked binaries (-gsplit-dwarf)" ON)
if(FXSCOPE_SPLIT_DWARF AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-gsplit-dwarf>)
endif()
