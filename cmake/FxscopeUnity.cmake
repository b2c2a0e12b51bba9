# Unity builds with relocatable batches: each target's C++ sources compile in batches of
# FXSCOPE_UNITY_BATCH_SIZE files per translation unit, so the headers they share (the STL,
# nlohmann/json, Catch2, CLI11, Qt) are parsed and their templates instantiated once a batch
# rather than once a file. On the 2-core machine this is the largest cut of a cold build: the
# engine's report library (22 files) takes 42 s of CPU instead of 161 s.
#
# CMake's own UNITY_BUILD (3.25) writes each batch with absolute #include paths. Those paths are
# in the batch's text, where ccache's base_dir cannot rewrite them, so every batch missed the
# cache in a second checkout. The batches written here include their sources by paths relative to
# the batch file, so two clones (or a worktree) produce the same text and share ccache's results.
#
# Batching follows CMake's rules: sources in the target's order, C++ files only, a file with its
# own compile definitions or options, or SKIP_UNITY_BUILD_INCLUSION, compiles alone. File-local
# names must therefore be unique within a target.

set(FXSCOPE_UNITY_BATCH_SIZE 8 CACHE STRING "C++ files per unity batch")

function(_fxscope_unity_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _fxscope_unity_collect_targets(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# True when `path` may share a translation unit with other files of `target`.
function(_fxscope_unity_eligible target path out)
  set(${out} FALSE PARENT_SCOPE)
  if(NOT path MATCHES "\\.(cpp|cc|cxx)$")
    return()
  endif()
  foreach(property IN ITEMS SKIP_UNITY_BUILD_INCLUSION COMPILE_DEFINITIONS COMPILE_OPTIONS
                            COMPILE_FLAGS INCLUDE_DIRECTORIES HEADER_FILE_ONLY GENERATED)
    get_source_file_property(value ${path} TARGET_DIRECTORY ${target} ${property})
    if(value)
      return()
    endif()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)
endfunction()

function(_fxscope_unity_write target batch_dir index files)
  set(text "/* unity batch of ${target}, written by cmake/FxscopeUnity.cmake */\n")
  foreach(file IN LISTS files)
    file(RELATIVE_PATH relative ${batch_dir} ${file})
    string(APPEND text "#include \"${relative}\"\n")
  endforeach()
  # file(CONFIGURE) rewrites the batch only when its text changes, so a re-configure does not
  # recompile every batch.
  file(CONFIGURE OUTPUT ${batch_dir}/unity_${index}.cpp CONTENT "${text}" @ONLY)
endfunction()

function(_fxscope_unity_target target)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
    return()
  endif()
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(eligible)
  set(kept)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\$<")
      list(APPEND kept ${source})
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir} NORMALIZE OUTPUT_VARIABLE path)
    _fxscope_unity_eligible(${target} ${path} ok)
    if(ok)
      list(APPEND eligible ${path})
    else()
      list(APPEND kept ${source})
    endif()
  endforeach()
  list(LENGTH eligible count)
  if(count LESS 2)
    return()
  endif()

  set(batch_dir ${CMAKE_BINARY_DIR}/unity/${target})
  set(batches)
  set(batch)
  set(index 0)
  foreach(path IN LISTS eligible)
    list(APPEND batch ${path})
    list(LENGTH batch size)
    if(size EQUAL FXSCOPE_UNITY_BATCH_SIZE)
      _fxscope_unity_write(${target} ${batch_dir} ${index} "${batch}")
      list(APPEND batches ${batch_dir}/unity_${index}.cpp)
      math(EXPR index "${index} + 1")
      set(batch)
    endif()
  endforeach()
  if(batch)
    _fxscope_unity_write(${target} ${batch_dir} ${index} "${batch}")
    list(APPEND batches ${batch_dir}/unity_${index}.cpp)
  endif()

  # The batched sources leave the target's list (a source file's properties are shared by every
  # target of its directory, so HEADER_FILE_ONLY would also hide a file from another target that
  # lists it, such as the fuzz targets' replay_main.cpp). Ninja's depfiles still rebuild a batch
  # when one of its files changes. AUTOMOC no longer scans them: a .cpp that declares a Q_OBJECT
  # needs SKIP_UNITY_BUILD_INCLUSION.
  set_property(TARGET ${target} PROPERTY SOURCES ${kept} ${batches})
endfunction()

# Called once at the end of the top-level CMakeLists, after every target exists.
function(fxscope_unity_build_all)
  if(NOT FXSCOPE_UNITY_BUILD)
    return()
  endif()
  _fxscope_unity_collect_targets(${PROJECT_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    _fxscope_unity_target(${target})
  endforeach()
endfunction()
