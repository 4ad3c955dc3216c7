// L1 wavefronts of gathered global loads: each warp request reads
// `Lines` distinct 128-byte lines, `Sectors` 32-byte sectors of each (one
// word a lane; lanes spread over them), from a table small enough to stay
// in L1 (4 KiB) or too large for it (16 MiB, in L2), many warps a
// multiprocessor; and lines whose words lie in different banks
// (gather_banks). Timed (CUDA events, the median of 10 after a warm-up) and
// counted under Nsight Compute:
//   nvcc -O3 -arch=sm_90 gather_lines.cu -o gather_lines && ./gather_lines
//   ncu --csv --metrics gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
//       l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
//       l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum ./gather_lines --quick
#include <cstdio>
#include <cstring>

#include "probe_timing.h"

// Lane l reads line (l % Lines), sector (l / Lines) % Sectors of it; the
// lines 33 words apart from one iteration's start, which moves a word an
// iteration (wrapping in the table).
template <int Lines, int Sectors>
__global__ void gather(const float* table, unsigned mask, float* out, int iters) {
  const int lane = threadIdx.x & 31;
  const int line = lane % Lines, sector = (lane / Lines) % Sectors;
  const unsigned base = line * 32 + sector * 8 + (blockIdx.x & 7) * 32 * Lines * 64;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += table[(base + unsigned(k) * 32 * Lines) & mask];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Lane l reads line (l % Lines) at word (l % Lines) of it: the lines'
// words in different banks (32 + 1 words apart), where gather's share one.
template <int Lines>
__global__ void gather_banks(const float* table, unsigned mask, float* out, int iters) {
  const int lane = threadIdx.x & 31;
  const unsigned base = (lane % Lines) * 33 + (blockIdx.x & 7) * 33 * Lines * 64;
  float s = 0;
  for (int k = 0; k < iters; ++k) s += table[(base + unsigned(k) * 33 * Lines) & mask];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

bool g_quick = false;
template <class F>
void time_it(const char* name, F f) {
  f();  // a warm-up
  std::printf("%-22s %12.2f us\n", name, median_ms(g_quick ? 1 : 10, f) * 1e3);
}
int main(int argc, char** argv) {
  g_quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  const int blocks = 132 * 16, threads = 256, iters = 512;
  const unsigned small = 1024, large = 1u << 22;  // words
  float *table, *out;
  cudaMalloc(&table, large * 4);
  cudaMemset(table, 0, large * 4);
  cudaMalloc(&out, size_t(blocks) * threads * 4);
  // clang-format off
#define G(l, s)                                                                      \
  time_it("l1_" #l "x" #s,                                                           \
          [&] { gather<l, s><<<blocks, threads>>>(table, small - 1, out, iters); }); \
  time_it("l2_" #l "x" #s,                                                           \
          [&] { gather<l, s><<<blocks, threads>>>(table, large - 1, out, iters / 8); });
  G(1, 1)
  G(1, 4)
  G(2, 1) G(2, 4) G(4, 1) G(4, 2) G(4, 4) G(8, 1) G(8, 2) G(8, 4) G(16, 1) G(16, 2) G(32, 1)
#define B(l)                                                                            \
  time_it("l1_banks_" #l,                                                               \
          [&] { gather_banks<l><<<blocks, threads>>>(table, small - 1, out, iters); }); \
  time_it("l2_banks_" #l,                                                               \
          [&] { gather_banks<l><<<blocks, threads>>>(table, large - 1, out, iters / 8); });
      B(4) B(8) B(16) B(32) std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}  // clang-format on
