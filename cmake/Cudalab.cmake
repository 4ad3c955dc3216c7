# cudalab_add_cuda_executable(name [INSTRUMENTED | PLAIN] [NO_GPU] [RUNTIME_COMPILE]
#                             [SIM_LIBS libs...] [GPU_LIBS libs...] sources...)
#
# Builds `name` from .cu and C++ sources for the CPU simulator: each .cu goes
# through cudalab-rewrite (with the local headers it includes that need it),
# then everything is compiled by the host compiler against the simulator's
# headers, with the recipe of CudalabRecipe.cmake, which cudalab-cc uses too.
# Unless INSTRUMENTED, an instrumented twin `name.instrumented` is built
# beside it (what CUDALAB_TRACE runs); with INSTRUMENTED, `name` itself is
# the instrumented program; with PLAIN there is no instrumented build at all.
# When CMake found a CUDA compiler (and not NO_GPU), `name_gpu` is built from
# the same sources by nvcc (by `all` only where this machine has a GPU).
# RUNTIME_COMPILE: the program uses NVRTC or loads modules with the driver
# API. It is linked with all of the simulator, its symbols exported, so that
# the kernels it compiles or loads while it runs use its simulator (as
# cudalab-cc does with -lcuda or -lnvrtc); `name_gpu` links NVRTC and the
# driver library.
include(${CMAKE_CURRENT_LIST_DIR}/CudalabRecipe.cmake)
cudalab_recipe_as_options(CUDALAB_COMPILE_OPTIONS "${CUDALAB_RECIPE_COMPILE_FLAGS}")
cudalab_recipe_as_options(CUDALAB_INSTRUMENT_OPTIONS "${CUDALAB_RECIPE_INSTRUMENT_FLAGS}")
# A simulated program's own code is not sanitized (see CUDALAB_SANITIZE and
# CUDALAB_TSAN).
set(CUDALAB_NOT_SANITIZED)
if(CUDALAB_SANITIZE)
  set(CUDALAB_NOT_SANITIZED -fno-sanitize=address,undefined)
elseif(CUDALAB_TSAN)
  set(CUDALAB_NOT_SANITIZED -fno-sanitize=thread)
endif()

# CUDALAB_PROGRAM_OBJECTS_FROM: another build of this tree (the default one)
# whose simulated programs' objects this build links instead of compiling its
# own. The sanitize and tsan presets use it: a simulated program's own code is
# not sanitized in them, so their objects would be the same work again (about
# half of those builds). Kept only when that build is configured from this
# source tree with the same compiler and generator; otherwise the programs
# are compiled here, and configure says why.
set(CUDALAB_PROGRAM_OBJECTS_FROM "" CACHE PATH
    "A build of this tree (e.g. build/) whose simulated programs' objects this build links instead of compiling them (the sanitize and tsan presets)")
set(cudalab_objects_from "")
if(CUDALAB_PROGRAM_OBJECTS_FROM)
  get_filename_component(from "${CUDALAB_PROGRAM_OBJECTS_FROM}" ABSOLUTE)
  set(why "")
  if(from STREQUAL CMAKE_BINARY_DIR)
    set(why "it is this build")
  elseif(NOT EXISTS "${from}/CMakeCache.txt")
    set(why "it is not configured (run cmake --preset default first)")
  else()
    load_cache("${from}" READ_WITH_PREFIX from_ CMAKE_HOME_DIRECTORY CMAKE_CXX_COMPILER
               CMAKE_GENERATOR)
    # The compilers down to their files (a preset may give a bare name).
    find_program(from_compiler NAMES "${from_CMAKE_CXX_COMPILER}" NO_CACHE)
    get_filename_component(from_compiler "${from_compiler}" REALPATH)
    get_filename_component(our_compiler "${CMAKE_CXX_COMPILER}" REALPATH)
    if(NOT from_CMAKE_HOME_DIRECTORY STREQUAL CMAKE_SOURCE_DIR)
      set(why "it builds another source tree (${from_CMAKE_HOME_DIRECTORY})")
    elseif(NOT from_compiler STREQUAL our_compiler)
      set(why "it compiles with ${from_CMAKE_CXX_COMPILER}, this build with ${CMAKE_CXX_COMPILER}")
    elseif(NOT from_CMAKE_GENERATOR STREQUAL CMAKE_GENERATOR)
      set(why "it is a ${from_CMAKE_GENERATOR} build, this one ${CMAKE_GENERATOR}")
    endif()
  endif()
  if(why)
    message(STATUS "The simulated programs are compiled here, not taken from ${from}: ${why}")
  else()
    set(cudalab_objects_from "${from}")
    message(STATUS "The simulated programs' objects come from ${from}")
  endif()
endif()

# cudalab_use_source_accesses(target): an instrumented twin's probes for the
# accesses its source makes (simulator/passes/source_accesses.cpp), when the
# plugin is built; C++ sources only.
function(cudalab_use_source_accesses target)
  if(CUDALAB_SOURCE_ACCESSES_PLUGIN)
    cudalab_use_pass_plugin(${target} cudalab_source_accesses ${CUDALAB_SOURCE_ACCESSES_PLUGIN})
  endif()
endfunction()

# cudalab_use_pass_plugin(target plugin_target file): `target`'s C++ sources
# are compiled with the pass plugin `file` (made by `plugin_target`, in the
# build's lib/), and again whenever it changes.
function(cudalab_use_pass_plugin target plugin_target file)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-fpass-plugin=${file}>")
  add_dependencies(${target} ${plugin_target})
  get_target_property(sources ${target} SOURCES)
  set(made ${CMAKE_BINARY_DIR}/lib/${plugin_target}${CMAKE_SHARED_MODULE_SUFFIX})
  foreach(src IN LISTS sources)
    set_property(SOURCE ${src} TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS ${made})
  endforeach()
endfunction()

# cudalab_runtime_pch(INSTRUMENTED out): the target whose precompiled
# cuda_runtime.h the simulated programs of a variant (plain, or instrumented
# when INSTRUMENTED is true) reuse: built with their flags, it halves the
# compile of a small .cu file (the header is most of it).
function(cudalab_runtime_pch instrumented out)
  if(instrumented)
    set(name cudalab_pch_instrumented)
  else()
    set(name cudalab_pch_plain)
  endif()
  set(${out} ${name} PARENT_SCOPE)
  if(TARGET ${name})
    return()
  endif()
  set(src ${CMAKE_BINARY_DIR}/cudalab_pch/${name}.cpp)
  file(CONFIGURE OUTPUT ${src} CONTENT "// cuda_runtime.h, precompiled for the simulated programs\n")
  add_library(${name} STATIC ${src})
  set_target_properties(${name} PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
  target_link_libraries(${name} PRIVATE cudalab_sim)
  target_compile_definitions(${name} PRIVATE ${CUDALAB_RECIPE_CU_DEFINES})
  target_compile_options(${name} PRIVATE ${CUDALAB_COMPILE_OPTIONS} ${CUDALAB_NOT_SANITIZED})
  if(instrumented)
    target_compile_options(${name} PRIVATE ${CUDALAB_INSTRUMENT_OPTIONS})
    cudalab_use_source_accesses(${name})
  elseif(CUDALAB_BLOCK_LOOPS_PLUGIN)
    cudalab_use_pass_plugin(${name} cudalab_block_loops ${CUDALAB_BLOCK_LOOPS_PLUGIN})
  endif()
  if(TARGET cudalab_library_headers)
    add_dependencies(${name} cudalab_library_headers)
  endif()
  target_precompile_headers(${name} PRIVATE <cuda_runtime.h>)
endfunction()

# The sources of a simulated program that take the precompiled header: the
# rewritten .cu files (the others are plain C++, without nvcc's macros).
function(cudalab_reuse_runtime_pch target instrumented)
  if(cudalab_objects_from)
    return()  # no .cu file is compiled here
  endif()
  cudalab_runtime_pch(${instrumented} donor)
  target_precompile_headers(${target} REUSE_FROM ${donor})
  get_target_property(sources ${target} SOURCES)
  foreach(src IN LISTS sources)
    if(NOT src MATCHES "/cudalab_rewritten/")
      set_source_files_properties(${src} TARGET_DIRECTORY ${target} PROPERTIES
                                  SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()

function(cudalab_add_cuda_executable name)
  cmake_parse_arguments(ARG "INSTRUMENTED;PLAIN;NO_GPU;RUNTIME_COMPILE" "" "SIM_LIBS;GPU_LIBS"
                        ${ARGN})
  set(sim_runtime cudalab_sim)
  if(ARG_RUNTIME_COMPILE)
    set(sim_runtime "$<LINK_LIBRARY:WHOLE_ARCHIVE,cudalab_sim>")
  endif()
  set(sim_sources)
  set(twin_sources)
  set(gpu_sources)
  set(can_instrument OFF)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(can_instrument ON)
  endif()
  set(twin ${name}_instrumented)
  if(ARG_INSTRUMENTED OR ARG_PLAIN OR NOT can_instrument)
    set(twin)
  endif()
  foreach(src IN LISTS ARG_UNPARSED_ARGUMENTS)
    get_filename_component(abs ${src} ABSOLUTE)
    list(APPEND gpu_sources ${abs})
    if(abs MATCHES "\\.cu$" AND cudalab_objects_from)
      # The other build's objects of the rewritten file (CMake's own layout).
      get_filename_component(fname ${src} NAME)
      file(RELATIVE_PATH dir ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
      foreach(target IN ITEMS ${name} ${twin})
        set(obj "${cudalab_objects_from}/${dir}/CMakeFiles/${target}.dir/cudalab_rewritten/${name}/${fname}.cpp.o")
        string(REPLACE "//" "/" obj "${obj}")
        set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT ON GENERATED ON)
        set_property(GLOBAL APPEND PROPERTY CUDALAB_SHARED_OBJECTS ${obj})
        set_property(GLOBAL APPEND PROPERTY CUDALAB_SHARED_OBJECT_TARGETS ${target})
        if(target STREQUAL name)
          list(APPEND sim_sources ${obj})
        else()
          list(APPEND twin_sources ${obj})
        endif()
      endforeach()
    elseif(abs MATCHES "\\.cu$")
      get_filename_component(fname ${src} NAME)
      set(out ${CMAKE_CURRENT_BINARY_DIR}/cudalab_rewritten/${name}/${fname}.cpp)
      # Local headers that hold kernels or launches are rewritten beside it
      # (as cudalab-cc does); the depfile makes a change to one rebuild it.
      set(includes "$<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>")
      # A rebuilt pass plugin rewrites (and so recompiles) the file too: its
      # objects carry the plugins' code.
      set(plugin)
      if(TARGET cudalab_block_loops)
        set(plugin cudalab_block_loops cudalab_source_accesses)
      endif()
      add_custom_command(OUTPUT ${out}
        COMMAND cudalab-rewrite ${abs} ${out} --depfile ${out}.d
                "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
        DEPENDS ${abs} cudalab-rewrite ${plugin}
        DEPFILE ${out}.d
        COMMENT "cudalab-rewrite ${fname}"
        COMMAND_EXPAND_LISTS
        VERBATIM)
      list(APPEND sim_sources ${out})
      list(APPEND twin_sources ${out})
      get_filename_component(dir ${abs} DIRECTORY)
      # Quoted includes next to the original file; and what nvcc defines.
      set_source_files_properties(${out} PROPERTIES COMPILE_OPTIONS "-iquote;${dir}"
                                  COMPILE_DEFINITIONS "${CUDALAB_RECIPE_CU_DEFINES}")
    else()
      list(APPEND sim_sources ${abs})
      list(APPEND twin_sources ${abs})
    endif()
  endforeach()

  add_executable(${name} ${sim_sources})
  # (Objects alone, from CUDALAB_PROGRAM_OBJECTS_FROM: CMake cannot tell.)
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  if(TARGET cudalab_library_headers)
    add_dependencies(${name} cudalab_library_headers)
  endif()
  # A student's file (and any simulated program) keeps its warnings as
  # warnings, in every preset.
  set_target_properties(${name} PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
  target_link_libraries(${name} PRIVATE ${sim_runtime} ${ARG_SIM_LIBS})
  if(ARG_RUNTIME_COMPILE)
    set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  endif()
  target_compile_options(${name} PRIVATE ${CUDALAB_COMPILE_OPTIONS} ${CUDALAB_NOT_SANITIZED})
  target_link_libraries(${name} PRIVATE ${CUDALAB_RECIPE_LINK_LIBS})
  if(CUDALAB_BLOCK_LOOPS_PLUGIN AND NOT (ARG_INSTRUMENTED AND can_instrument))
    # The plain build's block loops (simulator/passes/); C++ sources only.
    cudalab_use_pass_plugin(${name} cudalab_block_loops ${CUDALAB_BLOCK_LOOPS_PLUGIN})
  endif()
  if(ARG_INSTRUMENTED AND can_instrument)
    target_compile_options(${name} PRIVATE ${CUDALAB_INSTRUMENT_OPTIONS})
    cudalab_use_source_accesses(${name})
    cudalab_reuse_runtime_pch(${name} TRUE)
  elseif(can_instrument)
    cudalab_reuse_runtime_pch(${name} FALSE)
  endif()
  if(can_instrument AND NOT ARG_PLAIN AND NOT ARG_INSTRUMENTED)
    add_executable(${name}_instrumented ${twin_sources})
    set_target_properties(${name}_instrumented PROPERTIES LINKER_LANGUAGE CXX)
    if(TARGET cudalab_library_headers)
      add_dependencies(${name}_instrumented cudalab_library_headers)
    endif()
    set_target_properties(${name}_instrumented PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
    set_target_properties(${name}_instrumented PROPERTIES OUTPUT_NAME ${name}.instrumented)
    target_link_libraries(${name}_instrumented PRIVATE ${sim_runtime} ${ARG_SIM_LIBS}
                          ${CUDALAB_RECIPE_LINK_LIBS})
    if(ARG_RUNTIME_COMPILE)
      set_target_properties(${name}_instrumented PROPERTIES ENABLE_EXPORTS ON)
    endif()
    target_compile_options(${name}_instrumented PRIVATE ${CUDALAB_COMPILE_OPTIONS}
                           ${CUDALAB_INSTRUMENT_OPTIONS} ${CUDALAB_NOT_SANITIZED})
    cudalab_use_source_accesses(${name}_instrumented)
    cudalab_reuse_runtime_pch(${name}_instrumented TRUE)
    # Building the program builds its twin, which the checks and traces run.
    # A dependency of the link step only (not add_dependencies, which would
    # also hold the program's compiles until the twin is linked): the two
    # compile side by side.
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS
                 $<TARGET_FILE:${name}_instrumented>)
  endif()

  if(CMAKE_CUDA_COMPILER AND NOT ARG_NO_GPU)
    add_executable(${name}_gpu ${gpu_sources})
    if(NOT CUDALAB_GPU_HERE)
      # No GPU to run it here: built by the target gpu_programs, not by
      # `all` or the tests' build (CI builds it to see that it compiles).
      set_target_properties(${name}_gpu PROPERTIES EXCLUDE_FROM_ALL ON)
      set_property(GLOBAL APPEND PROPERTY CUDALAB_GPU_TWINS ${name}_gpu)
    endif()
    set_target_properties(${name}_gpu PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
    target_link_libraries(${name}_gpu PRIVATE CUDA::cudart ${ARG_GPU_LIBS})
    if(ARG_RUNTIME_COMPILE)
      target_link_libraries(${name}_gpu PRIVATE CUDA::nvrtc CUDA::cuda_driver)
    endif()
    target_compile_options(${name}_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endif()
endfunction()

# cudalab_share_gpu_source(first second source): two GPU twins (nvcc) with
# the same compile options and include folders that both build
# `source` (a path relative to the current folder): one object library
# compiles it once, and each links its object.
function(cudalab_share_gpu_source first second source)
  get_filename_component(abs ${source} ABSOLUTE)
  get_filename_component(stem ${source} NAME_WE)
  set(lib ${first}_${stem}_objects)
  add_library(${lib} OBJECT ${abs})
  foreach(p IN ITEMS INCLUDE_DIRECTORIES COMPILE_OPTIONS COMPILE_DEFINITIONS EXCLUDE_FROM_ALL
                     COMPILE_WARNING_AS_ERROR)
    get_target_property(v ${first} ${p})
    get_target_property(w ${second} ${p})
    if(NOT v)
      set(v "")
    endif()
    if(NOT w)
      set(w "")
    endif()
    if(NOT "${v}" STREQUAL "${w}")
      message(FATAL_ERROR "cudalab_share_gpu_source: ${first} and ${second} differ in ${p}")
    endif()
    if(v)
      set_property(TARGET ${lib} PROPERTY ${p} "${v}")
    endif()
  endforeach()
  # The libraries of both, for their include folders and definitions.
  get_target_property(libs ${first} LINK_LIBRARIES)
  get_target_property(more ${second} LINK_LIBRARIES)
  list(APPEND libs ${more})
  list(REMOVE_DUPLICATES libs)
  target_link_libraries(${lib} PRIVATE ${libs})
  get_target_property(excluded ${first} EXCLUDE_FROM_ALL)
  if(excluded)
    set_property(GLOBAL APPEND PROPERTY CUDALAB_GPU_TWINS ${lib})
  endif()
  foreach(t IN ITEMS ${first} ${second})
    get_target_property(sources ${t} SOURCES)
    list(REMOVE_ITEM sources ${abs})
    set_property(TARGET ${t} PROPERTY SOURCES ${sources} $<TARGET_OBJECTS:${lib}>)
  endforeach()
endfunction()

# cudalab_add_test_programs_target(name): a target that builds every program
# and library of the project, those left out of `all` included (the tests',
# the examples', the benchmarks'), but for the GPU twins on a machine
# without a GPU, which the target gpu_programs builds (there is nothing to
# run them on). Custom targets are not its direct dependencies (`bench` runs
# the benchmarks); those that make files come in through the programs
# needing them.
function(cudalab_add_test_programs_target name)
  add_custom_target(${name})
  get_property(gpu_twins GLOBAL PROPERTY CUDALAB_GPU_TWINS)
  if(TARGET cudalab_framework_gpu AND NOT CUDALAB_GPU_HERE)
    list(APPEND gpu_twins cudalab_framework_gpu)
  endif()
  add_custom_target(gpu_programs)
  if(gpu_twins)
    add_dependencies(gpu_programs ${gpu_twins})
  endif()
  cudalab_targets_below(${PROJECT_SOURCE_DIR} targets)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "UTILITY" AND NOT type STREQUAL "INTERFACE_LIBRARY" AND
       NOT t IN_LIST gpu_twins)
      add_dependencies(${name} ${t})
    endif()
  endforeach()
endfunction()

function(cudalab_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    cudalab_targets_below(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# cudalab_share_program_objects(): with CUDALAB_PROGRAM_OBJECTS_FROM, after
# every program is defined: one step that brings the other build's programs
# up to date (its objects are what this build links), before any of them
# links here. One step, so that the other build runs once at a time.
function(cudalab_share_program_objects)
  if(NOT cudalab_objects_from)
    return()
  endif()
  get_property(objects GLOBAL PROPERTY CUDALAB_SHARED_OBJECTS)
  get_property(targets GLOBAL PROPERTY CUDALAB_SHARED_OBJECT_TARGETS)
  list(REMOVE_DUPLICATES targets)
  add_custom_target(cudalab_shared_program_objects
    COMMAND ${CMAKE_COMMAND} --build ${cudalab_objects_from} --target ${targets}
    BYPRODUCTS ${objects}
    COMMENT "The simulated programs' objects, in ${cudalab_objects_from}"
    VERBATIM)
  foreach(t IN LISTS targets)
    add_dependencies(${t} cudalab_shared_program_objects)
  endforeach()
endfunction()
