// The launch rewriter: turns the pieces of CUDA C++ that a C++ compiler
// cannot parse, or would read as something else, into plain C++, and nothing
// else, keeping every line where it was so compiler messages point at the
// student's .cu file and line.
//
//   kernel<<<grid, block, shmem, stream>>>(args)
//     -> ::cudalab::detail::make_launcher(<call of kernel>, <kernel as a pointer of
//        the arguments' types, if it is one>, <site>)(grid, block, shmem, stream)(args)
//   extern __shared__ T name[];
//     -> static thread_local T* const name = <this block's dynamic shared memory>;
//
//   __global__ void k(params) { ... }
//     -> the same, then (on its last line) a registration of k with its
//        parameter types, for cudaLaunchKernel((void*)k, ...)
//
//   clock()  (also std::clock(), ::clock())
//     -> ::cudalab::detail::clock(): CUDA's clock() is a __host__ __device__
//        function, the GPU's cycle counter in a kernel and the C library's
//        clock() elsewhere; declarations, &clock, t.clock() and
//        Timer::clock() are left alone
//
//   asm("PTX" : outputs : inputs)  (also __asm__, asm volatile)
//     -> C++ doing what the PTX does (inline_ptx.h says which instructions);
//        an asm statement whose text is not PTX is left alone
//
//   volatile T* / volatile T& / volatile __shared__, in a file with __shared__
//   memory (warp-synchronous code)
//     -> after the last line, a weak definition of
//        cudalab_warp_synchronous_source ("file.cu:LINE"), which turns on the
//        runtime's lock-step warps (CUDALAB_LOCKSTEP=auto)
//
// `<<<` inside comments, string and character literals is left alone.
#pragma once

#include <string>
#include <vector>

namespace cudalab::rewriter {

struct Problem {
  int line = 0;
  std::string message;
};

struct Result {
  std::string text;               // the rewritten source (empty on problems)
  std::vector<Problem> problems;  // what could not be rewritten, with its line
  int launches = 0;
  int dynamic_shared = 0;
  int registered_kernels = 0;  // for cudaLaunchKernel through a void pointer
  int clock_calls = 0;         // calls of clock() made calls of the runtime's
  int inline_ptx = 0;          // asm statements translated from PTX
  // The line of warp-synchronous code (volatile data in a file with
  // __shared__ memory), marked for the runtime's lock-step warps; 0: none.
  int warp_synchronous_line = 0;
};

// `path` names the original file in the #line directive and in problems.
// `library`: the source is a library's header (CUB's): see
// translate_inline_ptx.
Result rewrite(const std::string& source, const std::string& path, bool library = false);

}  // namespace cudalab::rewriter
