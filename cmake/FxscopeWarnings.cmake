# Warnings are errors for everything fxscope compiles itself.
function(fxscope_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wconversion -Wsign-conversion -Wimplicit-fallthrough
    -Werror)
  # GCC 12 at -O3 (Release) reports std::string appends inside libstdc++'s char_traits as
  # overlapping memcpy (-Wrestrict, GCC bug 105329) and engaged std::optional members as maybe
  # uninitialized: false positives inside the library's own code, so they stay warnings there
  # rather than failing Release builds (RelWithDebInfo, the default, does not report them).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wno-error=restrict -Wno-error=maybe-uninitialized>)
  endif()
endfunction()
