// Host loops that run until a kernel's result says so, under a prediction
// (cudalab predict), where only a sample of each large launch's blocks runs
// and a launch like one before records nothing:
// - a small kernel's counter (one block: every repeat runs whole) ends its
//   loop after 5 launches, as on a GPU;
// - a large kernel's flag, set by a block the sample leaves out, is never
//   set: the prediction stops the program at its time limit and says why.
//   predict_until_done [--large]
#include <cstdio>
#include <cstring>

__global__ void count_up(int* counter) {
  if (threadIdx.x == 0) ++*counter;
}

// The flag is set by block 1234 of 4096 (not one of a sample's first kinds:
// the first, the last and one between).
__global__ void set_flag_in_one_block(int* flag) {
  if (blockIdx.x == 1234 && threadIdx.x == 0) *flag = 1;
}

int main(int argc, char** argv) {
  const bool large = argc > 1 && !std::strcmp(argv[1], "--large");
  int* d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  int h = 0, launches = 0;
  if (!large) {
    while (h < 5) {
      count_up<<<1, 32>>>(d);
      cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
      ++launches;
    }
  } else {
    while (h == 0) {
      set_flag_in_one_block<<<4096, 256>>>(d);
      cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
      ++launches;
    }
  }
  std::printf("predict_until_done: %d launches, %s\n", launches,
              cudaGetErrorString(cudaGetLastError()));
  return 0;
}

// The tests of this file (tests/lit/README.md).
// BUILD: NO_GPU
// TEST: unit.predict_stops_a_loop_that_never_ends
// LABELS: unit
// RUN: %bin
// CHECK: predict_until_done: 5 launches, no error
// RUN: %bin --large
// CHECK: predict_until_done: 1 launches, no error
// RUN: %cudalab predict --gpu h200 -- %bin
// CHECK: predict_until_done: 5 launches, no error
// CHECK: count_up<<<1, 32>>> (5 launches like it; the first one's figures)
// RUN: %cudalab predict --gpu h200 --time-limit 3 -- %bin --large
// EXIT: 1
// CHECK: cudalab predict: stopped {{.*}}predict_until_done: it ran past the time limit, 3 s (--time-limit)
// CHECK: a loop that runs until its kernels' results say so
// RUN: %cudalab predict --time-limit -1 -- %bin
// EXIT: 105
// CHECK: --time-limit: Value -1 not in range
