# Fails when the ELF file EXECUTABLE names a library matching FORBIDDEN (a regex) as NEEDED: such
# an entry stops the binary from starting at all where that library is missing (Graphviz on a GPU
# host, CUDA on a laptop), though most commands never call it; WHAT names it in the message.
# Prints "SKIPPED" (CTest's skip pattern for these tests) where readelf is not installed, rather
# than passing without having looked.
if(NOT EXECUTABLE OR NOT EXISTS "${EXECUTABLE}")
  message(FATAL_ERROR "no executable to check: '${EXECUTABLE}'")
endif()
if(NOT FORBIDDEN OR NOT WHAT)
  message(FATAL_ERROR "FORBIDDEN (a regex) and WHAT (its name) are required")
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
set(found "")
foreach(entry IN LISTS needed)
  if(entry MATCHES "${FORBIDDEN}")
    list(APPEND found "${entry}")
  endif()
endforeach()
if(found)
  string(REPLACE ";" "\n" found "${found}")
  message(FATAL_ERROR "${EXECUTABLE} links ${WHAT}; it must dlopen it instead:\n${found}")
endif()
list(LENGTH needed n)
message(STATUS "${EXECUTABLE}: ${n} NEEDED entries, none of them ${WHAT}")
