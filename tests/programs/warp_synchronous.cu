// Warp-synchronous code as courses and older libraries wrote it before
// Volta: lanes of a warp read each other's shared memory without
// __syncwarp(), trusting the warp to run in lock-step. On every GPU these
// give the intended results (printed below); the simulator runs such code
// with its warps in lock-step (CUDALAB_LOCKSTEP). racecheck still reports
// each as the race it is under CUDA's memory model.
#include <cstdio>

// The last warp of a tree reduction, unrolled (a classic course kernel).
__device__ void warp_reduce(volatile int* s, int tid) {
  s[tid] = s[tid] + s[tid + 32];
  s[tid] = s[tid] + s[tid + 16];
  s[tid] = s[tid] + s[tid + 8];
  s[tid] = s[tid] + s[tid + 4];
  s[tid] = s[tid] + s[tid + 2];
  s[tid] = s[tid] + s[tid + 1];
}

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[128];
  const int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  if (tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) warp_reduce(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// An inclusive scan of each warp, lanes that have no partner skipping the
// step (they diverge, and must wait for the others before reading on).
__global__ void warp_scan(const int* in, int* out, int* totals) {
  __shared__ int s[64];
  volatile int* v = s;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v[threadIdx.x] = in[threadIdx.x];
  for (int offset = 1; offset < 32; offset *= 2)
    if (lane >= offset) v[threadIdx.x] = v[threadIdx.x] + v[threadIdx.x - offset];
  out[threadIdx.x] = v[threadIdx.x];
  if (lane == 0) totals[warp] = v[warp * 32 + 31];  // read after the whole scan
}

// Each lane adds its partner's value in place, within one barrier interval
// (as NVIDIA's dxtc sample sums colours): all reads come before the writes.
__global__ void butterfly(float* data) {
  __shared__ float s[16];
  const int i = threadIdx.x;
  s[i] = data[i];
  __syncthreads();
  volatile float* v = s;
  v[i] = v[i] + v[i ^ 8];
  v[i] = v[i] + v[i ^ 4];
  v[i] = v[i] + v[i ^ 2];
  v[i] = v[i] + v[i ^ 1];
  data[i] = v[i];
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  const int blocks = 4;
  int h_in[blocks * 128], h_out[blocks];
  for (int i = 0; i < blocks * 128; ++i) h_in[i] = i % 7 + 1;
  int *in, *out;
  cudaMalloc(&in, sizeof(h_in));
  cudaMalloc(&out, sizeof(h_out));
  cudaMemcpy(in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
  reduce<<<blocks, 128>>>(in, out);
  cudaMemcpy(h_out, out, sizeof(h_out), cudaMemcpyDeviceToHost);
  int expected = 0;
  for (int i = 0; i < 128; ++i) expected += h_in[i];
  std::printf("reduce %d %d %d %d (block 0 should be %d)\n", h_out[0], h_out[1], h_out[2],
              h_out[3], expected);

  int s_in[64], s_out[64], s_tot[2];
  for (int i = 0; i < 64; ++i) s_in[i] = i % 5;
  int *sin, *sout, *stot;
  cudaMalloc(&sin, sizeof(s_in));
  cudaMalloc(&sout, sizeof(s_out));
  cudaMalloc(&stot, sizeof(s_tot));
  cudaMemcpy(sin, s_in, sizeof(s_in), cudaMemcpyHostToDevice);
  warp_scan<<<1, 64>>>(sin, sout, stot);
  cudaMemcpy(s_out, sout, sizeof(s_out), cudaMemcpyDeviceToHost);
  cudaMemcpy(s_tot, stot, sizeof(s_tot), cudaMemcpyDeviceToHost);
  int wrong = 0, run = 0;
  for (int i = 0; i < 64; ++i) {
    run = (i % 32 == 0 ? 0 : run) + s_in[i];
    wrong += s_out[i] != run;
  }
  std::printf("scan %d wrong, totals %d %d\n", wrong, s_tot[0], s_tot[1]);

  float b[16];
  for (int i = 0; i < 16; ++i) b[i] = float(i);
  float* d;
  cudaMalloc(&d, sizeof(b));
  cudaMemcpy(d, b, sizeof(b), cudaMemcpyHostToDevice);
  butterfly<<<1, 16>>>(d);
  cudaMemcpy(b, d, sizeof(b), cudaMemcpyDeviceToHost);
  std::printf("butterfly %g %g %g\n", b[0], b[7], b[15]);
  std::printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}

// The tests of this program (tests/lit/README.md): whatever the order the
// simulator runs its threads in, it prints what every GPU prints
// (warp_synchronous.expected).
// BUILD:
// TEST: unit.warp_synchronous_as_cuda_in-order
// LABELS: unit
// RUN: CUDALAB_SCHEDULE=in-order %bin | diff -u %S/warp_synchronous.expected -
//
// TEST: unit.warp_synchronous_as_cuda_reverse
// LABELS: unit
// RUN: CUDALAB_SCHEDULE=reverse %bin | diff -u %S/warp_synchronous.expected -
//
// TEST: unit.warp_synchronous_as_cuda_random:11
// LABELS: unit
// RUN: CUDALAB_SCHEDULE=random:11 %bin | diff -u %S/warp_synchronous.expected -
//
// TEST: gpu.warp_synchronous_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > warp_synchronous_gpu.out
// RUN: diff -u %S/warp_synchronous.expected warp_synchronous_gpu.out
