// Scan: out[i] = in[0] + ... + in[i], in four stages (README.md explains each).
// Your task: the kernels and device functions below, one stage at a time.
// Check your work with:     cudalab check scan   (on a GPU: add --gpu)
// Run the program with it:  cudalab run scan     (with nvcc: see driver.cu)
#include <cuda/atomic>

#include "lesson.h"

// ---------------------------------------------------------------------------
// Stage 1, Kogge-Stone: one thread per element. In each step every element
// adds the one `offset` places before it, for offset = 1, 2, 4, ...: after
// log2(n) steps each holds the sum of everything up to it. All threads must
// read the old values of a step before anyone writes the new ones, so the
// block keeps two arrays: a step reads one and writes the other (double
// buffering), with one barrier per step.
__global__ void scan_kogge_stone(const int* in, int* out, int n) {
  __shared__ int buffer[2][kBlockElements];
  // TODO step 1: thread i loads in[i] into buffer[0][i] (0 past the end of
  //              in); the block waits until the array is whole.
  // TODO step 2: for offset = 1, 2, 4, ... below blockDim.x, each thread
  //              writes its element, plus the one offset places before it
  //              where there is one, into the other buffer; the block waits
  //              before the next step reads it.
  // TODO step 3: thread i < n stores its element of the last buffer written.
}

// ---------------------------------------------------------------------------
// Stage 2, Brent-Kung: a tree that does about 2n additions where Kogge-Stone
// does n log2(n). One thread per two elements.
//   Up-sweep, stride = 1, 2, 4, ...: the last element of every run of
//   2 * stride adds the last element of the run's first half; afterwards
//   s[k] holds the sum of the run that ends at k.
//   Down-sweep, stride = kBlockElements / 4, ..., 2, 1: the sum of
//   everything before each run's end is passed to the end of the next half
//   run, s[k + stride] += s[k].
// Let thread t work on the t-th run of a step (not on element t): the
// working threads are then the first ones, and whole warps go idle together
// instead of one lane in every warp doing the work.
__global__ void scan_brent_kung(const int* in, int* out, int n) {
  __shared__ int s[kBlockElements];
  // TODO step 1: thread t loads elements t and t + kBlockElements / 2 (0 past
  //              the end of in); the block waits.
  // TODO step 2: the up-sweep: in each step, thread t adds into the last
  //              element k of the t-th run of 2 * stride elements, if that
  //              run is inside the array; a barrier after each step.
  // TODO step 3: the down-sweep, with the same k: s[k + stride] += s[k]
  //              where k + stride is inside; a barrier after each step.
  // TODO step 4: thread t stores elements t and t + kBlockElements / 2 that
  //              are below n.
}

// ---------------------------------------------------------------------------
// Stage 3, any n: reduce, scan the sums, scan again. A block handles a tile
// of kTileElements, each thread kItemsPerThread of it in registers: item j
// of thread t is element j * kTileThreads + t of the tile (lesson.h), so
// that a warp's 32 loads of item j are 32 neighbouring ints, one 128-byte
// line. Three launches:
//   1. reduce_tiles:   tile_sums[b] = the sum of tile b;
//   2. scan_tile_sums: tile_sums becomes its inclusive scan, so that
//                      tile_sums[b - 1] is the sum of all tiles before b;
//   3. scan_tiles:     each tile scanned, plus tile_sums[b - 1].
// in is read twice and out written once: 12 bytes per element.

// Loads this thread's items of the tile that starts at element `first`.
// Elements at n or past it are not read: they count as 0 (they add nothing).
__device__ void load_tile(const int* in, int n, int first, int (&items)[kItemsPerThread]) {
  // TODO: item j is element first + j * kTileThreads + threadIdx.x.
  for (int& item : items) item = 0;
}

// Stores this thread's items of the tile that starts at `first`: only the
// elements below n.
__device__ void store_tile(int* out, int n, int first, const int (&items)[kItemsPerThread]) {
  // TODO: as load_tile, the other way.
}

// Kogge-Stone again, across the 32 lanes of a warp and in registers: lane l
// adds the value of lane l - offset (__shfl_up_sync) for offset = 1, 2, 4,
// 8, 16. A shuffle hands over the values every lane had before it, so no
// second buffer and no barrier are needed. Returns the sum of the values of
// lanes 0 to l.
__device__ int warp_inclusive_scan(int value) {
  // TODO: five shuffles; a lane below offset has no lane to add.
  return value;
}

// Scans the tile held in the block's items in place: afterwards each item
// holds the sum of the tile's elements up to it. Returns the sum of the
// whole tile. The tile is kItemsPerThread rows of kTileThreads elements
// (row j: item j of every thread, in thread order). Each row is scanned
// across each warp (warp_inclusive_scan); the warps' totals, one per row
// and warp, in tile order, are scanned by warp 0 through shared memory; then
// each item adds the totals of the (row, warp) pieces before its own.
__device__ int scan_tile(int (&items)[kItemsPerThread]) {
  constexpr int kWarps = kTileThreads / 32, kPieces = kItemsPerThread * kWarps;
  static_assert(kPieces % 32 == 0, "warp 0 scans the pieces' totals 32 at a time");
  __shared__ int piece_totals[kPieces];  // row j of warp w at [j * kWarps + w]
  // TODO step 1: for each row j: the warp's inclusive scan of item j; lane
  //              31 writes the warp's total to piece_totals[j * kWarps + warp].
  // TODO step 2: barrier; warp 0 scans piece_totals in place, 32 at a time,
  //              carrying the total of the 32 before into the next 32;
  //              barrier.
  // TODO step 3: each item adds the total of all pieces before its own.
  // TODO step 4: read the tile's total, then a barrier, so that a next call
  //              cannot overwrite piece_totals while others still read it.
  return 0;
}

// Adds `carry` to every item.
__device__ void add_to_tile(int (&items)[kItemsPerThread], int carry) {
  for (int& item : items) item += carry;
}

// Stage 3, launch 1: tile_sums[b] = the sum of tile b.
__global__ void reduce_tiles(const int* in, int* tile_sums, int n) {
  __shared__ int warp_sums[kTileThreads / 32];
  // TODO: load the block's tile (load_tile), add up this thread's items,
  //       then the warp's (__reduce_add_sync), then the warps' through
  //       warp_sums; one thread writes tile_sums[blockIdx.x].
}

// Stage 3, launch 2: one block scans tile_sums in place, kTileElements at a
// time, carrying the sum of the chunks before into each next one.
__global__ void scan_tile_sums(int* tile_sums, int tiles) {
  // TODO: for each chunk of kTileElements sums: load it (load_tile with
  //       n = tiles), scan it (scan_tile), add the carry, store it, and add
  //       the chunk's total to the carry.
}

// Stage 3, launch 3: block b scans tile b and adds the sum of all tiles
// before it.
__global__ void scan_tiles(const int* in, int* out, const int* tile_sums, int n) {
  // TODO: load the tile, scan it, add the sum of the tiles before this one
  //       (tile 0 has none), store it.
}

// ---------------------------------------------------------------------------
// Stage 4 (advanced, extra credit), one pass with decoupled look-back: each
// block scans its tile once and asks the tiles before it for their sums
// through a status word per tile:
//   0                       nothing published yet;
//   kAggregate and a value  the tile's own sum (its prefix not known yet);
//   kInclusive and a value  the sum of this tile and all before it.
// A block publishes its aggregate as soon as its tile is scanned, then
// walks back over the tiles before it, 32 at a time (one per lane of warp
// 0), adding aggregates until it meets an inclusive value; then it publishes
// its own inclusive value. It never waits for a tile to finish, only for
// its aggregate: that is the "decoupled" in the name.
//
// The flag and the value share one 64-bit word, written and read with one
// atomic access each, so a reader never sees a flag without its value. (In
// two separate words, the writer would need __threadfence() between the
// value and the flag, and the reader volatile or atomic loads.)
//
// A block waits only on tiles that started before it: tiles are numbered by
// an atomic counter in the order blocks start (not by blockIdx.x, since a GPU
// may start block 7 before block 3 and run it to the end of the look-back
// while block 3 waits for a free multiprocessor).
constexpr unsigned long long kAggregate = 1, kInclusive = 2;

__device__ unsigned long long make_status(unsigned long long flag, int value) {
  return flag << 32 | unsigned(value);
}
__device__ unsigned long long status_flag(unsigned long long status) { return status >> 32; }
__device__ int status_value(unsigned long long status) { return int(unsigned(status)); }

// One atomic 64-bit access of a status word, seen by all blocks of the GPU.
__device__ unsigned long long load_status(unsigned long long* word) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word).load(
      cuda::memory_order_relaxed);
}
__device__ void store_status(unsigned long long* word, unsigned long long status) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word).store(
      status, cuda::memory_order_relaxed);
}

// Called by the 32 lanes of warp 0 of the block that scans tile `tile`, whose
// sum is `total`: publishes the tile's aggregate, finds the sum of all tiles
// before it, publishes the tile's inclusive value and returns that sum (the
// tile's carry-in) to every lane.
__device__ int look_back(unsigned long long* status, int tile, int total) {
  // TODO step 1: tile 0 publishes kInclusive with its total at once and has
  //              nothing before it; any other tile publishes kAggregate.
  // TODO step 2: a window of 32 tiles at a time, lane l looking at tile
  //              last - l (last = tile - 1 at first): wait until every lane's
  //              tile has published something (__any_sync), find the nearest
  //              lane with an inclusive value (__ballot_sync, __ffs), add the
  //              values of the lanes up to it (__reduce_add_sync); with no
  //              inclusive value in the window, add all 32 and go 32 further.
  // TODO step 3: publish kInclusive with the sum before plus total; return
  //              the sum before.
  return 0;
}

// status holds one word per tile and, after them, the counter that numbers
// the tiles in the order blocks start.
__global__ void scan_single_pass(const int* in, int* out, unsigned long long* status, int n) {
  __shared__ int tile_shared, carry_shared;
  // TODO step 1: thread 0 takes the block's tile number from the counter
  //              (atomicAdd on status[gridDim.x]); the block waits and reads it.
  // TODO step 2: load the tile and scan it (stage 3's load_tile, scan_tile).
  // TODO step 3: warp 0 looks back (look_back); thread 0 shares the
  //              carry-in through carry_shared; the block waits for it.
  // TODO step 4: add the carry-in and store the tile.
}

// ---------------------------------------------------------------------------
// The launches.
void launch_scan_kogge_stone(const int* in, int* out, int n) {
  scan_kogge_stone<<<1, kBlockElements>>>(in, out, n);
}

void launch_scan_brent_kung(const int* in, int* out, int n) {
  scan_brent_kung<<<1, kBlockElements / 2>>>(in, out, n);
}

void launch_reduce_tiles(const int* in, int* tile_sums, int n) {
  if (n > 0) reduce_tiles<<<tiles_for(n), kTileThreads>>>(in, tile_sums, n);
}

void launch_scan_tile_sums(int* tile_sums, int tiles) {
  if (tiles > 0) scan_tile_sums<<<1, kTileThreads>>>(tile_sums, tiles);
}

void launch_scan_tiles(const int* in, int* out, const int* tile_sums, int n) {
  if (n > 0) scan_tiles<<<tiles_for(n), kTileThreads>>>(in, out, tile_sums, n);
}

void launch_scan_multiblock(const int* in, int* out, int* tile_sums, int n) {
  launch_reduce_tiles(in, tile_sums, n);
  launch_scan_tile_sums(tile_sums, tiles_for(n));
  launch_scan_tiles(in, out, tile_sums, n);
}

void launch_scan_single_pass(const int* in, int* out, unsigned long long* status, int n) {
  if (n <= 0) return;
  const int tiles = tiles_for(n);
  // Every word 0: no tile has published anything, and the counter starts at 0.
  cudaMemsetAsync(status, 0, (tiles + 1) * sizeof(unsigned long long));
  scan_single_pass<<<tiles, kTileThreads>>>(in, out, status, n);
}
