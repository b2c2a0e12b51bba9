# Fails when a C++ source under SOURCE_DIR differs from what the repo's .clang-format makes of it.
file(GLOB_RECURSE files
     "${SOURCE_DIR}/engine/*.h" "${SOURCE_DIR}/engine/*.cpp" "${SOURCE_DIR}/app/*.h"
     "${SOURCE_DIR}/app/*.cpp" "${SOURCE_DIR}/views/*.h" "${SOURCE_DIR}/views/*.cpp"
     "${SOURCE_DIR}/tests/*.h" "${SOURCE_DIR}/tests/*.cpp" "${SOURCE_DIR}/bench/*.cpp")
list(FILTER files EXCLUDE REGEX "/tests/data/")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-format: these files need `clang-format -i`:\n${err}")
endif()
list(LENGTH files n)
message(STATUS "clang-format: ${n} files clean")
