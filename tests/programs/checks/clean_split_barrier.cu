// checks corpus: libcu++'s split barrier and a block's pipeline, used as
// their documentation says; no report, whatever order the threads run in.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cstdio>

namespace cg = cooperative_groups;

// A three-point average: each thread writes its slot, arrives, works on
// something of its own, then waits before reading its neighbours' slots.
__global__ void smooth(const float* in, float* out, float* scaled) {
  __shared__ float s[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const unsigned t = threadIdx.x, i = blockIdx.x * 128 + t;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  s[t] = in[i];
  auto token = bar.arrive();
  scaled[i] = in[i] * 2.0f;  // needs nothing of the others
  bar.wait(std::move(token));
  out[i] = (s[(t + 127) % 128] + s[t] + s[(t + 1) % 128]) / 3.0f;
}

// The first warp copies rows into a ring of two stages; the other threads
// sum a column of each row once its stage is filled.
__global__ void column_sums(const float* rows, float* sums) {
  __shared__ float ring[2][96];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  const bool producer = threadIdx.x < 32;
  auto pipe = cuda::make_pipeline(
      block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  float sum = 0;
  for (int r = 0; r < 6; ++r) {
    if (producer) {
      pipe.producer_acquire();
      for (int k = threadIdx.x; k < 96; k += 32)
        cuda::memcpy_async(&ring[r % 2][k], &rows[r * 96 + k], sizeof(float), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      sum += ring[r % 2][threadIdx.x - 32];
      pipe.consumer_release();
    }
  }
  if (!producer) sums[threadIdx.x - 32] = sum;
}

int main() {
  float *in, *out, *scaled;
  cudaMalloc(&in, 576 * sizeof(float));  // 6 rows of 96 for column_sums
  cudaMalloc(&out, 256 * sizeof(float));
  cudaMalloc(&scaled, 256 * sizeof(float));
  cudaMemset(in, 0, 576 * sizeof(float));
  smooth<<<2, 128>>>(in, out, scaled);
  column_sums<<<1, 128>>>(in, out);
  std::printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  cudaFree(scaled);
  return 0;
}
