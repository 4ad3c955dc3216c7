// What cooperative groups (cooperative_groups.h) are built on: the calling
// thread's rank in its block, and the runtime's grid barrier and barriers
// among the threads of tiles larger than a warp (simulator/src/). Not for
// programs to call.
#pragma once

#include <cstddef>

#include "cudalab/kernel_language.h"

namespace cudalab::detail {

inline unsigned block_rank() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
// The lanes of the calling thread's warp that belong to its tile of Size
// threads.
template <unsigned Size>
unsigned tile_lanes() {
  const unsigned lane = block_rank() % 32;
  return Size == 32 ? 0xffffffffu : ((1u << Size) - 1) << (lane / Size * Size);
}

void grid_sync();            // in the runtime: every thread of a cooperative launch
bool grid_is_cooperative();  // whether this launch came through cudaLaunchCooperativeKernel
// Tiles larger than a warp: a barrier among threads [first, first + size) of
// the block, and scratch memory of `bytes` per thread of the block.
void tile_sync(unsigned first, unsigned size);
void* tile_scratch(size_t bytes);

}  // namespace cudalab::detail
