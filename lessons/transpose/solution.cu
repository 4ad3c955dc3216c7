// BEGIN SOLUTION
// Matrix transpose, the reference solution: out[c][r] = in[r][c], four
// kernels, each faster than the one before for one reason.
// EXERCISE: // Matrix transpose: out[c][r] = in[r][c], in four stages (README.md explains each).
// EXERCISE: // Your task: write the bodies of the kernels below, one stage at a time.
// EXERCISE: // Check your work with:     cudalab check transpose   (on a GPU: add --gpu)
// EXERCISE: // Run the program with it:  cudalab run transpose     (with nvcc: see driver.cu)
// END SOLUTION
#include "lesson.h"

// in has `height` rows of `width` floats; out has `width` rows of `height`
// floats. Element (r, c) of in is in[r * width + c]; element (c, r) of out is
// out[c * height + r].

// Stage 1, naive: one thread per element, in blocks of kTile x kBlockRows
// threads. threadIdx.x walks along a row of in, so a warp reads 32
// neighbouring floats (coalesced) and writes them down a column of out,
// `height` floats apart (scattered: 32 sectors for 128 bytes).
__global__ void transpose_naive(const float* in, float* out, int width, int height) {
  // TODO step 1: this thread's element of in: its column c from blockIdx.x,
  //              blockDim.x and threadIdx.x, its row r from the .y's.
  // TODO step 2: a thread outside in (c or r past the edge) does nothing.
  // TODO step 3: copy element (r, c) of in to element (c, r) of out. Which
  //              of width and height is the length of a row of out?
  // BEGIN SOLUTION
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < width && r < height) out[c * height + r] = in[r * width + c];
  // END SOLUTION
}

// Stage 2, a shared-memory tile: a block of kTile x kTile threads moves one
// kTile x kTile tile of the matrix. It reads the tile from in row by row
// (coalesced) into shared memory, waits until the tile is whole, and writes
// it to out row by row too (coalesced). The transpose happens inside the
// tile: the tile of in at block (bx, by) is the tile of out at (by, bx), and
// a thread writes the element of the tile whose row and column are its own,
// swapped.
__global__ void transpose_tiled(const float* in, float* out, int width, int height) {
  __shared__ float tile[kTile][kTile];
  // TODO step 1: each thread reads one element of its block's tile of in,
  //              threadIdx.x along the row, into tile[threadIdx.y][threadIdx.x]
  //              (only if the element is inside in).
  // TODO step 2: wait until the whole tile is in shared memory. Every thread
  //              of the block must reach that barrier.
  // TODO step 3: each thread writes one element of the tile of out at block
  //              (by, bx), threadIdx.x again along the row (only if it is
  //              inside out: width rows of height floats), taking it from the
  //              tile with threadIdx.x and threadIdx.y in the other places.
  // BEGIN SOLUTION
  const int c = blockIdx.x * kTile + threadIdx.x;  // in's column
  const int r = blockIdx.y * kTile + threadIdx.y;  // in's row
  if (c < width && r < height) tile[threadIdx.y][threadIdx.x] = in[r * width + c];
  __syncthreads();  // the tile is whole

  // Out's tile (by, bx): its columns are rows of in, its rows columns of in.
  const int out_c = blockIdx.y * kTile + threadIdx.x;
  const int out_r = blockIdx.x * kTile + threadIdx.y;
  if (out_c < height && out_r < width) out[out_r * height + out_c] = tile[threadIdx.x][threadIdx.y];
  // END SOLUTION
}

// Stage 3, the padded tile: stage 2 reads its tile down a column, and the 32
// lanes of a warp read words kTile apart. Shared memory is 32 banks of 4-byte
// words (word w is in bank w % 32), so all 32 words are in one bank and are
// read one after another: a 32-way bank conflict. A row one word longer
// than the tile starts each row one bank further on.
__global__ void transpose_padded(const float* in, float* out, int width, int height) {
  // TODO step 1: declare the tile with one unused word more per row.
  // TODO step 2: stage 2's three steps with it.
  // BEGIN SOLUTION
  __shared__ float tile[kTile][kTile + 1];  // + 1: row k starts in bank k
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  if (c < width && r < height) tile[threadIdx.y][threadIdx.x] = in[r * width + c];
  __syncthreads();  // the tile is whole
  const int out_c = blockIdx.y * kTile + threadIdx.x;
  const int out_r = blockIdx.x * kTile + threadIdx.y;
  if (out_c < height && out_r < width) out[out_r * height + out_c] = tile[threadIdx.x][threadIdx.y];
  // EXERCISE: __shared__ float tile[kTile][kTile];  // not padded yet
  // END SOLUTION
}

// Stage 4, more elements per thread: a block of kTile x kBlockRows (32 x 8)
// threads moves the same padded kTile x kTile tile, each thread
// kTile / kBlockRows = 4 elements of it, kBlockRows rows apart. A quarter of
// the threads and of the index arithmetic, and four loads in flight per
// thread before the barrier.
__global__ void transpose_coarsened(const float* in, float* out, int width, int height) {
  // TODO step 1: the tile, padded as in stage 3.
  // TODO step 2: as in stage 3, but each thread reads the tile's rows
  //              threadIdx.y, threadIdx.y + kBlockRows, ... (a loop).
  // TODO step 3: one barrier, reached by every thread.
  // TODO step 4: each thread writes rows threadIdx.y, threadIdx.y +
  //              kBlockRows, ... of out's tile in the same way.
  // BEGIN SOLUTION
  __shared__ float tile[kTile][kTile + 1];
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (c < width && r + k < height) tile[threadIdx.y + k][threadIdx.x] = in[(r + k) * width + c];
  __syncthreads();  // the tile is whole
  const int out_c = blockIdx.y * kTile + threadIdx.x;
  const int out_r = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (out_c < height && out_r + k < width)
      out[(out_r + k) * height + out_c] = tile[threadIdx.x][threadIdx.y + k];
  // END SOLUTION
}

// The launches: enough blocks to cover in, x along its rows (its width), y
// down its columns (its height).
void launch_transpose_naive(const float* in, float* out, int width, int height) {
  const dim3 threads(kTile, kBlockRows);
  const dim3 blocks((width + kTile - 1) / kTile, (height + kBlockRows - 1) / kBlockRows);
  transpose_naive<<<blocks, threads>>>(in, out, width, height);
}

void launch_transpose_tiled(const float* in, float* out, int width, int height) {
  const dim3 threads(kTile, kTile);
  const dim3 blocks((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose_tiled<<<blocks, threads>>>(in, out, width, height);
}

void launch_transpose_padded(const float* in, float* out, int width, int height) {
  const dim3 threads(kTile, kTile);
  const dim3 blocks((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose_padded<<<blocks, threads>>>(in, out, width, height);
}

void launch_transpose_coarsened(const float* in, float* out, int width, int height) {
  const dim3 threads(kTile, kBlockRows);  // each thread 4 rows of the tile
  const dim3 blocks((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose_coarsened<<<blocks, threads>>>(in, out, width, height);
}
