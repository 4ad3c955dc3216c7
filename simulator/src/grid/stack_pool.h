// Stacks for the fibers that run CUDA threads (stack_pool.cpp). Not a public
// header.
#pragma once

#include <boost/context/stack_context.hpp>

namespace cudalab::rt {

// A Boost.Context stack allocator over each worker's pool of stacks: 128 KiB
// each, reused across blocks and launches. Cooperative launches switch this
// thread to unguarded stacks (use_unguarded_stacks, in grid.h).
struct PooledStack {
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
};

}  // namespace cudalab::rt
