// Dynamic parallelism as CUDA 12 and later have it (nvcc -rdc=true, linked
// with cudadevrt): a kernel launches kernels; each child gets its own copy of
// the arguments at its launch and sees what its parent wrote before it;
// grids nest 24 deep at most. What an H100 printed is what the simulator must
// print (tests/CMakeLists.txt).
#include <cstdio>

__global__ void count_tree(int* nodes, int depth, int fanout) {
  atomicAdd(nodes, 1);
  if (depth == 0 || threadIdx.x != 0) return;
  int next = depth - 1;
  count_tree<<<fanout, 2>>>(nodes, next, fanout);
  next = -100;  // changed after the launch: the child's copy is not
}

__global__ void read_parent(const int* written, int* seen) { *seen = *written; }

__global__ void write_then_launch(int* written, int* seen) {
  *written = 42;
  read_parent<<<1, 1>>>(written, seen);
}

__global__ void nest(int* deepest, int* refused, int* code, int depth) {
  atomicMax(deepest, depth);
  nest<<<1, 1>>>(deepest, refused, code, depth + 1);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    atomicAdd(refused, 1);
    *code = int(e);
  }
}

// A child launched into a stream the parent made, then destroyed at once
// (as NVIDIA's quicksort sample does): it still runs.
__global__ void fill(int* out, int value) { out[threadIdx.x] = value; }
__global__ void launch_in_stream(int* out) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<1, 4, 0, s>>>(out, 7);
  cudaStreamDestroy(s);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int* d;
  cudaMalloc(&d, 16 * sizeof(int));
  cudaMemset(d, 0, 16 * sizeof(int));
  count_tree<<<1, 2>>>(d, 3, 3);
  write_then_launch<<<1, 1>>>(d + 1, d + 2);
  nest<<<1, 1>>>(d + 3, d + 4, d + 5, 0);
  launch_in_stream<<<1, 1>>>(d + 8);
  const cudaError_t e = cudaDeviceSynchronize();
  int h[16];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  std::printf("%s: nodes %d seen %d deepest %d refused %d (%s) stream %d %d\n", cudaGetErrorName(e),
              h[0], h[2], h[3], h[4], cudaGetErrorName(cudaError_t(h[5])), h[8], h[11]);
  cudaFree(d);
  return 0;
}

// The test of this program (tests/lit/README.md): it prints what an H100
// printed (dynamic_parallelism.expected; nvcc -rdc=true ... -lcudadevrt).
// BUILD: NO_GPU
// TEST: unit.dynamic_parallelism_as_cuda
// LABELS: unit
// RUN: %bin 2>/dev/null | diff -u %S/dynamic_parallelism.expected -
