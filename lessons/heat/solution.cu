// BEGIN SOLUTION
// Heat equation, the reference solution: an explicit step with fixed
// boundaries, the same with a shared-memory halo and with each thread
// walking down a column, and the time loop with double buffering and the
// stability check.
// EXERCISE: // Heat equation: u moves by out = in + alpha (left + right + up + down - 4 in).
// EXERCISE: // Your task: the step kernels and heat_simulate below. Read README.md first.
// EXERCISE: // Check your work with:     cudalab check heat   (on a GPU: add --gpu)
// EXERCISE: // Run the program with it:  cudalab run heat     (with nvcc: see driver.cu)
// END SOLUTION
#include "lesson.h"

// Stage 1: one thread per cell.
__global__ void heat_step(const float* in, float* out, int nx, int ny, float alpha) {
  // TODO step 1: the cell (x, y) of this thread: x from the .x's, y from the .y's.
  // TODO step 2: threads outside the grid do nothing; a cell on the edge
  //              (x or y is 0 or the last) copies its value unchanged.
  // TODO step 3: an interior cell computes the update from its 4 neighbours.
  // BEGIN SOLUTION
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = in[i] + alpha * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - 4.0f * in[i]);
  // END SOLUTION
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
  // BEGIN SOLUTION
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBlockX + tx, y = blockIdx.y * kBlockY + ty;
  const bool inside = x < nx && y < ny;
  if (inside) {
    const int i = y * nx + x;
    tile[ty + 1][tx + 1] = in[i];
    if (tx == 0 && x > 0) tile[ty + 1][0] = in[i - 1];
    if (tx == kBlockX - 1 && x + 1 < nx) tile[ty + 1][tx + 2] = in[i + 1];
    if (ty == 0 && y > 0) tile[0][tx + 1] = in[i - nx];
    if (ty == kBlockY - 1 && y + 1 < ny) tile[ty + 2][tx + 1] = in[i + nx];
  }
  __syncthreads();
  if (!inside) return;
  const float c = tile[ty + 1][tx + 1];
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[y * nx + x] = c;
    return;
  }
  out[y * nx + x] = c + alpha * (tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
                                 tile[ty + 2][tx + 1] - 4.0f * c);
  // END SOLUTION
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
  // BEGIN SOLUTION
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = (blockIdx.y * blockDim.y + threadIdx.y) * kRowsPerThread;
  if (x >= nx || first >= ny) return;
  const int last = min(first + kRowsPerThread, ny);
  float up = first > 0 ? in[(first - 1) * nx + x] : 0.0f;
  float center = in[first * nx + x];
  for (int y = first; y < last; ++y) {
    const int i = y * nx + x;
    const float down = y + 1 < ny ? in[i + nx] : 0.0f;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      out[i] = center;
    else
      out[i] = center + alpha * (in[i - 1] + in[i + 1] + up + down - 4.0f * center);
    up = center;
    center = down;
  }
  // END SOLUTION
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
  // BEGIN SOLUTION
  if (!(alpha >= 0.0f && alpha <= 0.25f)) return cudaErrorInvalidValue;
  float* from = u;
  float* to = scratch;
  for (int s = 0; s < steps; ++s) {
    if (stage == 3)
      launch_heat_step_columns(from, to, nx, ny, alpha);
    else if (stage == 2)
      launch_heat_step_shared(from, to, nx, ny, alpha);
    else
      launch_heat_step(from, to, nx, ny, alpha);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    float* t = from;
    from = to;
    to = t;
  }
  if (from != u)
    return cudaMemcpy(u, from, size_t(nx) * ny * sizeof(float), cudaMemcpyDeviceToDevice);
  return cudaDeviceSynchronize();
  // EXERCISE: return cudaErrorNotSupported;  // until the steps above are written
  // END SOLUTION
}
