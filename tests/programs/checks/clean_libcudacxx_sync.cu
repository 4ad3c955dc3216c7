// checks corpus: shared memory handed from thread to thread by libcu++'s
// synchronization, each used as documented: a barrier's completion function
// reading what every thread wrote, a semaphore and an atomic_flag guarding a
// section, a flag published with notify and read after wait. No report,
// whatever order the threads run in.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/semaphore>
#include <cstdio>
#include <new>

struct Total {
  int* data;
  int* total;
  __device__ void operator()() noexcept {  // runs once all have arrived
    int s = 0;
    for (int k = 0; k < 64; ++k) s += data[k];
    *total = s;
  }
};
using TotalBarrier = cuda::barrier<cuda::thread_scope_block, Total>;
using Mutex = cuda::binary_semaphore<cuda::thread_scope_block>;

__global__ void handoffs(int* out) {
  __shared__ int data[64], total, guarded, locked, message;
  __shared__ alignas(TotalBarrier) unsigned char bar_storage[sizeof(TotalBarrier)];
  __shared__ alignas(Mutex) unsigned char mutex_storage[sizeof(Mutex)];
  __shared__ cuda::atomic_flag<cuda::thread_scope_block> flag;
  __shared__ int ready;
  auto& bar = *reinterpret_cast<TotalBarrier*>(bar_storage);
  auto& mutex = *reinterpret_cast<Mutex*>(mutex_storage);
  const int t = threadIdx.x;
  if (t == 0) {
    init(&bar, blockDim.x, Total{data, &total});
    new (&mutex) Mutex(1);
    flag.clear();
    guarded = locked = message = ready = 0;
  }
  __syncthreads();
  data[t] = t + 1;
  bar.arrive_and_wait();  // the completion sums data[] before anyone goes on
  mutex.acquire();
  guarded += total;  // one thread at a time
  mutex.release();
  while (flag.test_and_set()) {
  }
  locked += 1;
  flag.clear();
  cuda::atomic_ref<int, cuda::thread_scope_block> go(ready);
  if (t == 63) {
    message = 42;
    go.store(1);
    go.notify_all();
  } else if (t == 0) {
    go.wait(0);
    out[3] = message;  // written before the notify
  }
  __syncthreads();
  if (t == 0) out[0] = total, out[1] = guarded, out[2] = locked;
}

int main() {
  int* out;
  cudaMalloc(&out, 4 * sizeof(int));
  handoffs<<<1, 64>>>(out);
  int h[4] = {};
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  std::printf("after: %s; %d %d %d %d\n", cudaGetErrorName(cudaDeviceSynchronize()), h[0], h[1],
              h[2], h[3]);
  cudaFree(out);
  return 0;
}
