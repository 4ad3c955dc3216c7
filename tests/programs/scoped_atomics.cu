// The built-in scoped atomics of CUDA 12.8 and later (__nv_atomic_*, in the
// style of GCC's __atomic builtins), each with its memory order and scope:
// every thread of 4 blocks of 256 adds, counts, takes a ticket, and the
// last thread of each block publishes with a release store that a reader
// loads with acquire. The results are the same on every run and device; an
// H100 (CUDA 13.0) prints the three lines tests/CMakeLists.txt expects.
#include <cstdio>

__global__ void scoped(int* sum, unsigned* bits, int* lo, int* hi, unsigned* ticket,
                       unsigned long long* wide, int* flags, int* seen) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_atomic_fetch_add(sum, t, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_sub(sum, 1, __NV_ATOMIC_RELAXED);  // scope left out: the system's
  __nv_atomic_fetch_or(bits, 1u << (t % 32), __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
  __nv_atomic_fetch_and(bits + 1, ~(1u << (t % 32)), __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_xor(bits + 2, 1u << (t % 8), __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_min(lo, 1000 - t, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_max(hi, t * 3, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_add(wide, (unsigned long long)t << 20, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  // A ticket per thread: compare-and-swap until it is ours.
  unsigned old = __nv_atomic_load_n(ticket, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  while (!__nv_atomic_compare_exchange_n(ticket, &old, old + 1, false, __NV_ATOMIC_ACQ_REL,
                                         __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE)) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_store_n(&flags[blockIdx.x], int(blockIdx.x) + 1, __NV_ATOMIC_RELEASE,
                        __NV_THREAD_SCOPE_DEVICE);
    const int mine = __nv_atomic_load_n(&flags[blockIdx.x], __NV_ATOMIC_ACQUIRE,
                                        __NV_THREAD_SCOPE_DEVICE);
    const int before = __nv_atomic_exchange_n(&seen[blockIdx.x], mine * 10, __NV_ATOMIC_ACQ_REL,
                                              __NV_THREAD_SCOPE_DEVICE);
    seen[blockIdx.x] += before;  // 0 before: mine * 10
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int *sum, *lo, *hi, *flags, *seen;
  unsigned *bits, *ticket;
  unsigned long long* wide;
  cudaMalloc(&sum, sizeof(int));
  cudaMalloc(&lo, sizeof(int));
  cudaMalloc(&hi, sizeof(int));
  cudaMalloc(&bits, 3 * sizeof(unsigned));
  cudaMalloc(&ticket, sizeof(unsigned));
  cudaMalloc(&wide, sizeof(unsigned long long));
  cudaMalloc(&flags, 4 * sizeof(int));
  cudaMalloc(&seen, 4 * sizeof(int));
  const int big = 1 << 30;
  const unsigned ones = ~0u;
  cudaMemset(sum, 0, sizeof(int));
  cudaMemcpy(lo, &big, sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(hi, 0, sizeof(int));
  cudaMemset(bits, 0, 3 * sizeof(unsigned));
  cudaMemcpy(bits + 1, &ones, sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(ticket, 0, sizeof(unsigned));
  cudaMemset(wide, 0, sizeof(unsigned long long));
  cudaMemset(flags, 0, 4 * sizeof(int));
  cudaMemset(seen, 0, 4 * sizeof(int));
  scoped<<<4, 256>>>(sum, bits, lo, hi, ticket, wide, flags, seen);
  const cudaError_t e = cudaDeviceSynchronize();
  int h_sum, h_lo, h_hi, h_flags[4], h_seen[4];
  unsigned h_bits[3], h_ticket;
  unsigned long long h_wide;
  cudaMemcpy(&h_sum, sum, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_lo, lo, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_hi, hi, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_bits, bits, sizeof(h_bits), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_ticket, ticket, sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_wide, wide, sizeof(long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_flags, flags, sizeof(h_flags), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_seen, seen, sizeof(h_seen), cudaMemcpyDeviceToHost);
  std::printf("%s\n", cudaGetErrorName(e));
  std::printf("sum %d lo %d hi %d bits %08x %08x %08x ticket %u wide %llu\n", h_sum, h_lo, h_hi,
              h_bits[0], h_bits[1], h_bits[2], h_ticket, h_wide);
  std::printf("flags %d %d %d %d seen %d %d %d %d\n", h_flags[0], h_flags[1], h_flags[2],
              h_flags[3], h_seen[0], h_seen[1], h_seen[2], h_seen[3]);
  return e == cudaSuccess ? 0 : 1;
}

// The tests of this program (tests/lit/README.md): both builds print what
// an H100 printed. (nvcc has these built-ins from CUDA 12.8 on: an older
// one builds no GPU twin.)
// BUILD:
// TEST: unit.scoped_atomics_as_cuda
// LABELS: unit
// RUN: %bin
// CHECK: {{^}}cudaSuccess
// CHECK-NEXT: {{^}}sum 522752 lo -23 hi 3069 bits ffffffff 00000000 00000000 ticket 1024 wide 549218942976
// CHECK-NEXT: {{^}}flags 1 2 3 4 seen 10 20 30 40
//
// TEST: gpu.scoped_atomics_as_cuda
// LABELS: gpu
// REQUIRES: nvcc-12.8, gpu
// RUN: %bin_gpu
// CHECK: {{^}}cudaSuccess
// CHECK-NEXT: {{^}}sum 522752 lo -23 hi 3069 bits ffffffff 00000000 00000000 ticket 1024 wide 549218942976
// CHECK-NEXT: {{^}}flags 1 2 3 4 seen 10 20 30 40
