# cudalab_add_cuda_executable(name [INSTRUMENTED | PLAIN] [NO_GPU]
#                             [SIM_LIBS libs...] [GPU_LIBS libs...] sources...)
#
# Builds `name` from .cu and C++ sources for the CPU simulator: each .cu goes
# through cudalab-rewrite, then everything is compiled by the host compiler
# against the simulator's headers. Unless INSTRUMENTED, an instrumented twin
# `name.instrumented` is built beside it (what CUDALAB_TRACE runs); with
# INSTRUMENTED, `name` itself is the instrumented program; with PLAIN there is
# no instrumented build at all. When CMake found a
# CUDA compiler (and not NO_GPU), `name_gpu` is built from the same sources by
# nvcc.
# Every load, store and basic block of the program's own code calls the runtime; vectors
# are left out so that each access is the size the source says, as on a GPU.
set(CUDALAB_INSTRUMENT_FLAGS
    -fsanitize-coverage=bb,no-prune,trace-pc-guard,trace-loads,trace-stores
    -fno-vectorize -fno-slp-vectorize -DCUDALAB_INSTRUMENTED=1
    "SHELL:-mllvm -simplifycfg-sink-common=false" "SHELL:-mllvm -simplifycfg-hoist-common=false"
    -fno-builtin-memset)

function(cudalab_add_cuda_executable name)
  cmake_parse_arguments(ARG "INSTRUMENTED;PLAIN;NO_GPU" "" "SIM_LIBS;GPU_LIBS" ${ARGN})
  set(sim_sources)
  set(gpu_sources)
  foreach(src IN LISTS ARG_UNPARSED_ARGUMENTS)
    get_filename_component(abs ${src} ABSOLUTE)
    list(APPEND gpu_sources ${abs})
    if(abs MATCHES "\\.cu$")
      get_filename_component(fname ${src} NAME)
      set(out ${CMAKE_CURRENT_BINARY_DIR}/cudalab_rewritten/${name}/${fname}.cpp)
      add_custom_command(OUTPUT ${out}
        COMMAND cudalab-rewrite ${abs} ${out}
        DEPENDS ${abs} cudalab-rewrite
        COMMENT "cudalab-rewrite ${fname}"
        VERBATIM)
      list(APPEND sim_sources ${out})
      get_filename_component(dir ${abs} DIRECTORY)
      # Quoted includes next to the original file; and what nvcc defines.
      set_source_files_properties(${out} PROPERTIES COMPILE_OPTIONS "-iquote;${dir}"
                                  COMPILE_DEFINITIONS "__CUDACC__;__CUDA_ARCH__=900")
    else()
      list(APPEND sim_sources ${abs})
    endif()
  endforeach()

  set(can_instrument OFF)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(can_instrument ON)
  endif()

  add_executable(${name} ${sim_sources})
  target_link_libraries(${name} PRIVATE cudalab_sim ${ARG_SIM_LIBS})
  target_compile_options(${name} PRIVATE -gline-tables-only -fno-optimize-sibling-calls)
  if(ARG_INSTRUMENTED AND can_instrument)
    target_compile_options(${name} PRIVATE ${CUDALAB_INSTRUMENT_FLAGS})
  elseif(can_instrument AND NOT ARG_PLAIN)
    add_executable(${name}_instrumented ${sim_sources})
    set_target_properties(${name}_instrumented PROPERTIES OUTPUT_NAME ${name}.instrumented)
    target_link_libraries(${name}_instrumented PRIVATE cudalab_sim ${ARG_SIM_LIBS})
    target_compile_options(${name}_instrumented PRIVATE -gline-tables-only
                           -fno-optimize-sibling-calls ${CUDALAB_INSTRUMENT_FLAGS})
    add_dependencies(${name} ${name}_instrumented)
  endif()

  if(CMAKE_CUDA_COMPILER AND NOT ARG_NO_GPU)
    add_executable(${name}_gpu ${gpu_sources})
    target_link_libraries(${name}_gpu PRIVATE CUDA::cudart ${ARG_GPU_LIBS})
    target_compile_options(${name}_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endif()
endfunction()
