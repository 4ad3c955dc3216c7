# Builds the folder of Thrust's and CUB's headers that simulated programs
# include (cmake -P, run by the build: simulator/CMakeLists.txt). Each header
# that holds inline PTX, a `<<<` launch or dynamic shared memory is a copy
# rewritten by `cudalab-rewrite --library` (CUB's warp shuffles, loads and
# stores in PTX; Thrust's kernel launcher; CUB's merge sort kernels), and
# cub/util_arch.cuh reads cudalab/detail/cub_config.h first, and
# cub/util_device.cuh's chain of tuning policies stops at the simulated GPUs'
# lowest PTX version; every other one is a link to the original. (Thrust's launcher that CUB uses is
# simulator/include-thrust's.)
#
#   -DREWRITE=cudalab-rewrite -DSOURCE=/usr/include -DDEST=folder -DSTAMP=file
foreach(v REWRITE SOURCE DEST STAMP)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "LibraryHeaders.cmake needs -D${v}=...")
  endif()
endforeach()
set(rewritten 0)
foreach(lib thrust cub)
  file(REMOVE_RECURSE ${DEST}/${lib})
  if(NOT IS_DIRECTORY ${SOURCE}/${lib})
    continue()
  endif()
  file(GLOB_RECURSE headers RELATIVE ${SOURCE}/${lib} ${SOURCE}/${lib}/*)
  foreach(h IN LISTS headers)
    get_filename_component(dir ${DEST}/${lib}/${h} DIRECTORY)
    file(MAKE_DIRECTORY ${dir})
    file(READ ${SOURCE}/${lib}/${h} text)
    if(lib STREQUAL "cub" AND h STREQUAL "util_arch.cuh")
      # CUB's host-or-device choice, made when the code runs (see the header).
      file(WRITE ${DEST}/${lib}/${h}
           "#include <cudalab/detail/cub_config.h>\n#include \"${SOURCE}/${lib}/${h}\"\n")
    elseif(lib STREQUAL "cub" AND h STREQUAL "util_device.cuh")
      # The chain of tuning policies stops at the simulated GPUs' lowest PTX
      # version (cudalab/detail/cub_config.h says why), on the same lines.
      set(walk "if (ptx_version < PTX_VERSION) {")
      string(FIND "${text}" "${walk}" at)
      if(at EQUAL -1)
        file(CREATE_LINK ${SOURCE}/${lib}/${h} ${DEST}/${lib}/${h} SYMBOLIC)
      else()
        string(REPLACE "${walk}" "if constexpr (PTX_VERSION > CUDALAB_LOWEST_PTX_VERSION) ${walk}"
                       text "${text}")
        file(WRITE ${DEST}/${lib}/${h} "${text}")
      endif()
    elseif(text MATCHES "(^|[^A-Za-z0-9_])asm([^A-Za-z0-9_]|$)|<<<|extern[ \t]+__shared__|__shared__[ \t]+extern")
      execute_process(COMMAND ${REWRITE} --library ${SOURCE}/${lib}/${h} ${DEST}/${lib}/${h}
                      RESULT_VARIABLE rc ERROR_VARIABLE err)
      if(rc EQUAL 0)
        math(EXPR rewritten "${rewritten} + 1")
      else()
        # The original then: a program that includes it fails to compile
        # there, the others build as before.
        message(WARNING "cudalab-rewrite --library ${SOURCE}/${lib}/${h}: ${err}")
        file(REMOVE ${DEST}/${lib}/${h})
        file(CREATE_LINK ${SOURCE}/${lib}/${h} ${DEST}/${lib}/${h} SYMBOLIC)
      endif()
    else()
      file(CREATE_LINK ${SOURCE}/${lib}/${h} ${DEST}/${lib}/${h} SYMBOLIC)
    endif()
  endforeach()
endforeach()
file(WRITE ${STAMP} "${rewritten} headers rewritten\n")
