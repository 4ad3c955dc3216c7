// Heat equation: u moves by out = in + alpha (left + right + up + down - 4 in).
// Your task: the step kernels and heat_simulate below. Read README.md first.
// Check your work with:     cudalab check heat   (on a GPU: add --gpu)
// Run the program with it:  cudalab run heat     (with nvcc: see driver.cu)
#include "lesson.h"

// Stage 1: one thread per cell.
__global__ void heat_step(const float* in, float* out, int nx, int ny, float alpha) {
  // TODO step 1: the cell (x, y) of this thread: x from the .x's, y from the .y's.
  // TODO step 2: threads outside the grid do nothing; a cell on the edge
  //              (x or y is 0 or the last) copies its value unchanged.
  // TODO step 3: an interior cell computes the update from its 4 neighbours.
}

// Stage 2: the block's cells and a one-cell halo around them are loaded into
// shared memory once; the update then reads its neighbours from there.
__global__ void heat_step_shared(const float* in, float* out, int nx, int ny, float alpha) {
  __shared__ float tile[kBlockY + 2][kBlockX + 2];
  // TODO step 1: cell (x, y) as in stage 1; it goes to tile[ty + 1][tx + 1].
  // TODO step 2: threads on the block's edges also load the halo cells next
  //              to them (when those are inside the grid).
  // TODO step 3: __syncthreads(), then the update of stage 1 reading the tile.
  //              Every thread must reach the barrier: return only after it.
}

// Stage 3 (advanced, optional): each thread steps down kRowsPerThread cells
// of its column. The cells above and below it are the ones it had or will
// have as its own, so it keeps them in registers (up, center, down) and
// reads only one new row per cell from memory; the left and right
// neighbours are in the row its warp has just read, in the cache. Fewer
// instructions per cell and more loads in flight: the step runs nearly as
// fast as a copy.
__global__ void heat_step_columns(const float* in, float* out, int nx, int ny, float alpha) {
  // TODO (advanced): see README.md, stage 3.
}

void launch_heat_step(const float* in, float* out, int nx, int ny, float alpha) {
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY);
  heat_step<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

void launch_heat_step_shared(const float* in, float* out, int nx, int ny, float alpha) {
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY);
  heat_step_shared<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

void launch_heat_step_columns(const float* in, float* out, int nx, int ny, float alpha) {
  const int rows = kBlockY * kRowsPerThread;  // a block's rows
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + rows - 1) / rows);
  heat_step_columns<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

cudaError_t heat_simulate(float* u, float* scratch, int nx, int ny, float alpha, int steps,
                          int stage) {
  // TODO step 1: refuse an unstable alpha (below 0 or above 0.25) with
  //              cudaErrorInvalidValue before touching u.
  // TODO step 2: step from one buffer into the other, then swap which is
  //              which; after the last step make sure the result is in u.
  // TODO step 3: return the first error of the launches (cudaGetLastError).
  return cudaErrorNotSupported;  // until the steps above are written
}
