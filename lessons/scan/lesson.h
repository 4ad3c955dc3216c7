// Scan: what the student's file (exercise.cu or solution.cu) provides. Every
// launcher computes the inclusive prefix sum of n ints,
//
//   out[i] = in[0] + in[1] + ... + in[i]     for every i < n,
//
// with in and out device pointers. Stages 1 and 2 scan one block's worth
// (n <= kBlockElements); stages 3 and 4 scan any n, in tiles of
// kTileElements, one block per tile.
#pragma once

// Stages 1 and 2: one block scans up to kBlockElements elements in shared
// memory. Kogge-Stone runs one thread per element, Brent-Kung one thread per
// two.
constexpr int kBlockElements = 1024;

// Stages 3 and 4: a tile is kTileElements consecutive elements, scanned by
// one block of kTileThreads threads, each holding kItemsPerThread of them in
// registers: item j of thread t is element j * kTileThreads + t of the tile,
// so that the 32 threads of a warp always touch 32 neighbouring elements.
constexpr int kTileThreads = 256;
constexpr int kItemsPerThread = 16;
constexpr int kTileElements = kTileThreads * kItemsPerThread;  // 4096

// How many tiles cover n elements: the length of the tile_sums buffer of
// stage 3, and (plus one) of the status buffer of stage 4.
inline int tiles_for(int n) { return (n + kTileElements - 1) / kTileElements; }

// Stage 1: Kogge-Stone, one block, n <= kBlockElements.
void launch_scan_kogge_stone(const int* in, int* out, int n);

// Stage 2: Brent-Kung, one block, n <= kBlockElements.
void launch_scan_brent_kung(const int* in, int* out, int n);

// Stage 3: any n, in three launches (launch_scan_multiblock calls them in
// order). tile_sums has tiles_for(n) ints.
//   1. tile_sums[b] = the sum of tile b;
void launch_reduce_tiles(const int* in, int* tile_sums, int n);
//   2. tile_sums becomes its own inclusive scan (one block, any count);
void launch_scan_tile_sums(int* tile_sums, int tiles);
//   3. each tile scanned, plus the sum of all tiles before it.
void launch_scan_tiles(const int* in, int* out, const int* tile_sums, int n);
void launch_scan_multiblock(const int* in, int* out, int* tile_sums, int n);

// Stage 4 (advanced, extra credit): any n in one launch, with decoupled
// look-back. status has tiles_for(n) + 1 words; the launcher zeroes it.
void launch_scan_single_pass(const int* in, int* out, unsigned long long* status, int n);
