# Fails when the ELF file EXECUTABLE names a Graphviz library as NEEDED: fxscope-cli is started
# by the desktop app on GPU hosts without Graphviz, where such an entry stops it from starting at
# all; render/ loads Graphviz with dlopen instead. Prints "SKIPPED" (CTest's skip pattern for
# this test) where readelf is not installed, rather than passing without having looked.
if(NOT EXECUTABLE OR NOT EXISTS "${EXECUTABLE}")
  message(FATAL_ERROR "no executable to check: '${EXECUTABLE}'")
endif()
find_program(READELF NAMES readelf llvm-readelf eu-readelf)
if(NOT READELF)
  message("SKIPPED: readelf not found, the NEEDED list of ${EXECUTABLE} was not checked")
  return()
endif()
execute_process(COMMAND "${READELF}" -d "${EXECUTABLE}" OUTPUT_VARIABLE dynamic
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${EXECUTABLE} failed (${status}): ${errors}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
# An empty list would mean the output was not understood (every C++ program needs libc).
if(NOT needed MATCHES "libc\\.so")
  message(FATAL_ERROR "no NEEDED libc.so in `${READELF} -d ${EXECUTABLE}`:\n${dynamic}")
endif()
# libgvc, libcgraph and what they bring (libcdt, libpathplan, libxdot), as pkg-config links them.
set(graphviz "")
foreach(entry IN LISTS needed)
  if(entry MATCHES "lib(gvc|cgraph|cdt|pathplan|xdot)\\.so")
    list(APPEND graphviz "${entry}")
  endif()
endforeach()
if(graphviz)
  string(REPLACE ";" "\n" graphviz "${graphviz}")
  message(FATAL_ERROR "${EXECUTABLE} links Graphviz; it must dlopen it instead:\n${graphviz}")
endif()
list(LENGTH needed n)
message(STATUS "${EXECUTABLE}: ${n} NEEDED entries, none of them Graphviz")
