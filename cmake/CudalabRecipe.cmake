# How a program is built for the simulator, in one place. Both builders read
# these lists: the CMake function cudalab_add_cuda_executable (Cudalab.cmake)
# and cudalab-cc (simulator/tools/cudalab_cc.cpp, through its generated
# cudalab_config.h). A change here changes both.
#
# An item with a space is one option with its argument ("-mllvm X"): CMake
# gets it as "SHELL:-mllvm X" (so that two -mllvm are not merged into one),
# cudalab-cc splits it at the space.

# What nvcc defines for a .cu file. One compilation serves host and device,
# so device code guarded by __CUDA_ARCH__ (the simulated H100's 9.0) is
# compiled too; code that asks whether nvcc compiles it (__NVCC__) is told
# so (NVRTC's compiles leave that one out). Each .cu also gets -iquote its
# own folder: its quoted includes are found next to the original file, not
# the rewritten one.
set(CUDALAB_RECIPE_CU_DEFINES __CUDACC__ __NVCC__ __CUDA_ARCH__=900)

# Thrust, from Debian's libthrust-dev (Thrust 1.17 in /usr/include), when
# it is installed: its algorithms run on the host (its CPP system), its
# device memory is the simulator's. Two folders come before the compiler's
# own: simulator/include-thrust, whose thrust/detail/config.h configures
# Thrust for that (and two headers more give it the simulator's memory);
# then a folder of this build with /usr/include's thrust/ and cub/ alone
# (Debian's libcub-dev, CUB 1.17), so that a CUDA toolkit's Thrust in
# /usr/local/include, which the compiler searches before /usr/include, is
# never the one found. The build fills that folder (LibraryHeaders.cmake):
# links to the headers, and rewritten copies of those with inline PTX or
# launches. Both are system folders: Thrust's warnings are not the student's.
# cuda_runtime.h precompiled for cudalab-cc's default recipe (simulator/).
set(CUDALAB_PCH_DIR ${CMAKE_BINARY_DIR}/lib/pch)
find_path(CUDALAB_THRUST_INCLUDE_DIR thrust/version.h PATHS /usr/include NO_DEFAULT_PATH)
set(CUDALAB_RECIPE_THRUST_FLAGS)
if(CUDALAB_THRUST_INCLUDE_DIR)
  set(CUDALAB_THRUST_LINKS ${CMAKE_BINARY_DIR}/thrust-include)
  file(MAKE_DIRECTORY ${CUDALAB_THRUST_LINKS})
  get_filename_component(cudalab_thrust_shim ${CMAKE_CURRENT_LIST_DIR}/../simulator/include-thrust
                         ABSOLUTE)
  set(CUDALAB_RECIPE_THRUST_FLAGS "-isystem ${cudalab_thrust_shim}"
                                  "-isystem ${CUDALAB_THRUST_LINKS}")
endif()

# CUDA code often passes a variable that only some lanes set to a shuffle
# (`if (lane == 0) x = ...; x = __shfl_sync(mask, x, 0);`), which a GPU runs
# as meant. Clang marks call arguments noundef, and its optimizer then takes
# such a call as proof that the lanes which did not set it never get there:
# it deletes the `if`, and every lane does lane 0's work. Without the
# marks an unset value is only unknown, as on a GPU. (The option's name
# changed after clang 14.)
include(CheckCXXCompilerFlag)
set(CUDALAB_RECIPE_NOUNDEF_FLAG)
check_cxx_compiler_flag("-Xclang -disable-noundef-analysis" CUDALAB_HAS_DISABLE_NOUNDEF)
if(CUDALAB_HAS_DISABLE_NOUNDEF)
  set(CUDALAB_RECIPE_NOUNDEF_FLAG "-Xclang -disable-noundef-analysis")
else()
  check_cxx_compiler_flag("-Xclang -no-enable-noundef-analysis" CUDALAB_HAS_NO_ENABLE_NOUNDEF)
  if(CUDALAB_HAS_NO_ENABLE_NOUNDEF)
    set(CUDALAB_RECIPE_NOUNDEF_FLAG "-Xclang -no-enable-noundef-analysis")
  endif()
endif()

# Every source of a simulated program, plain and instrumented.
set(CUDALAB_RECIPE_COMPILE_FLAGS
    # Lines for the reports (a fault, a finding, a trace at the student's line).
    -gline-tables-only
    # A call to __syncthreads() at a kernel's end stays a call, so reports
    # can name its line.
    -fno-optimize-sibling-calls
    # A store through a null pointer stays a store, which faults as on a GPU
    # (the optimizer may otherwise drop it as undefined behaviour).
    -fno-delete-null-pointer-checks
    # A loop that never ends stays a loop, which runs until CUDALAB_TIMEOUT
    # stops it as a GPU's watchdog would (C++ lets the optimizer assume that
    # a loop with no I/O, atomic or volatile access ends, and delete it).
    -fno-finite-loops
    # C++17 removed the `register` storage class; nvcc still takes it (older
    # CUDA code writes `register float x`), and so does the simulator.
    -Wno-register
    # A `#pragma unroll` the optimizer cannot honour (a loop whose trip count
    # is not known, as in CUB's radix sort) is no warning with nvcc either.
    -Wno-pass-failed
    # A compiler that crashes (out of memory, on a template that grows
    # without end) leaves no reproducer files in /tmp, and stops at once
    # instead of preprocessing the file again to write them.
    -fno-crash-diagnostics
    ${CUDALAB_RECIPE_NOUNDEF_FLAG}
    ${CUDALAB_RECIPE_THRUST_FLAGS})

# The instrumented twin: every load, store and basic block of the program's
# own code calls the runtime; vectors are left out so that each access is
# the size the source says, as on a GPU. Each line's loads and stores stay
# its own (not one store sunk out of two branches, which has no line to
# report), and stores of zeros stay stores (not merged into a memset the
# checks never see, which would leave memory the kernel did set looking
# unset).
set(CUDALAB_RECIPE_INSTRUMENT_FLAGS
    -fsanitize-coverage=bb,no-prune,trace-pc-guard,trace-loads,trace-stores
    -fno-vectorize -fno-slp-vectorize -DCUDALAB_INSTRUMENTED=1
    "-mllvm -simplifycfg-sink-common=false" "-mllvm -simplifycfg-hoist-common=false"
    -fno-builtin-memset)

# Libraries after the simulator's runtime and Boost.Context; in the sanitize
# and tsan presets, the sanitizers' runtime that the simulator's library then
# needs.
set(CUDALAB_RECIPE_LINK_LIBS -lpthread -ldl)
# GNU gold (in Debian's binutils, beside the default linker) links a
# simulated program in about 60% of the default's time: a class's grading
# links two programs per submission.
include(CheckLinkerFlag)
check_linker_flag(CXX -fuse-ld=gold CUDALAB_HAS_GOLD)
if(CUDALAB_HAS_GOLD)
  list(APPEND CUDALAB_RECIPE_LINK_LIBS -fuse-ld=gold)
endif()
if(CUDALAB_SANITIZE)
  list(APPEND CUDALAB_RECIPE_LINK_LIBS -fsanitize=address,undefined)
elseif(CUDALAB_TSAN)
  list(APPEND CUDALAB_RECIPE_LINK_LIBS -fsanitize=thread)
endif()

# The lists as C string lists ("a", "b") for cudalab_config.h.
function(cudalab_recipe_as_c_strings out list)
  set(items)
  foreach(item IN LISTS list)
    string(REPLACE " " ";" parts "${item}")
    foreach(part IN LISTS parts)
      list(APPEND items "\"${part}\"")
    endforeach()
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

# The lists as CMake options ("SHELL:" where an item has a space).
function(cudalab_recipe_as_options out list)
  set(items)
  foreach(item IN LISTS list)
    if(item MATCHES " ")
      list(APPEND items "SHELL:${item}")
    else()
      list(APPEND items "${item}")
    endif()
  endforeach()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()
