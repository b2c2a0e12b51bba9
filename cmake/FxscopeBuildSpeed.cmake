# What keeps the edit-build-test loop short on a 2-core machine (tools/build_times.sh measures it).

# ccache for C++ and CUDA where it is installed: one cache (ccache's own, ~/.cache/ccache) serves
# every checkout on the machine. base_dir makes the absolute paths under this source tree
# relative in what ccache hashes, and hash_dir off keeps the build directory's path out of the
# hash, so a second clone or a worktree compiles from the cache. (No precompiled headers: a .gch
# holds its build directory's paths, so every file compiled with one misses the cache in another
# checkout; and measured here they saved little, since code generation, not parsing, dominates.)
option(FXSCOPE_USE_CCACHE "Compile through ccache when it is installed" ON)
find_program(FXSCOPE_CCACHE ccache)
if(FXSCOPE_USE_CCACHE AND FXSCOPE_CCACHE)
  set(_fxscope_launcher
      ${CMAKE_COMMAND} -E env "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}" CCACHE_NOHASHDIR=1
      CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
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

# RelWithDebInfo with line tables only (-g1): backtraces, perf and sanitizer reports keep their
# functions, files and lines, and a file compiles in about two thirds of the time full debug info
# (-g) takes (the CLI's command files: 37 s -> 22 s). FXSCOPE_DEBUG_INFO=full restores -g for a
# debugging session with local variables.
set(FXSCOPE_DEBUG_INFO lines CACHE STRING "Debug info of RelWithDebInfo builds: lines (-g1) or full (-g)")
set_property(CACHE FXSCOPE_DEBUG_INFO PROPERTY STRINGS lines full)
if(FXSCOPE_DEBUG_INFO STREQUAL "lines" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<AND:$<CONFIG:RelWithDebInfo>,$<COMPILE_LANGUAGE:CXX>>:-g1>)
endif()

# Debug info in .dwo files beside the objects: the linker no longer copies it into every
# executable (gdb reads the .dwo files).
option(FXSCOPE_SPLIT_DWARF "Keep debug info out of the linked binaries (-gsplit-dwarf)" ON)
if(FXSCOPE_SPLIT_DWARF AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-gsplit-dwarf>)
endif()

# Unity builds (cmake/FxscopeUnity.cmake): each target's sources compile in batches, with
# relative includes so that ccache serves them in every checkout. FXSCOPE_UNITY_BUILD=OFF compiles
# file by file.
option(FXSCOPE_UNITY_BUILD "Compile each target's sources in batches (unity builds)" ON)
include(FxscopeUnity)
