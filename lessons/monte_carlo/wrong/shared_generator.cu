// Known-wrong Monte Carlo: the block shares one cuRAND generator in shared
// memory. Every draw reads and advances the same state, so threads race on
// it; where threads run one after another (as on the simulator) the numbers
// even look right, and only racecheck says what is wrong.
// expect-failed: PiNoRace
#include <curand_kernel.h>

#include "lesson.h"

__global__ void count_in_circle(unsigned long long* hits, int samples_per_thread,
                                unsigned long long seed) {
  __shared__ unsigned int counts[kThreads];
  __shared__ curandStatePhilox4_32_10_t state;  // one generator for the whole block
  if (threadIdx.x == 0) curand_init(seed, blockIdx.x, 0, &state);
  __syncthreads();
  unsigned int inside = 0;
  for (int s = 0; s < samples_per_thread; ++s) {
    const float x = curand_uniform(&state), y = curand_uniform(&state);
    inside += x * x + y * y <= 1.0f;
  }
  counts[threadIdx.x] = inside;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) counts[threadIdx.x] += counts[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(hits, (unsigned long long)counts[0]);
}

__global__ void call_payoffs(double* sums, Option o, int samples_per_thread,
                             unsigned long long seed) {
  __shared__ double payoff[kThreads];
  __shared__ double squares[kThreads];
  const unsigned long long id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, id, 0, &state);
  const float drift = (o.rate - 0.5f * o.volatility * o.volatility) * o.years;
  const float spread = o.volatility * sqrtf(o.years);
  double sum = 0, sum_of_squares = 0;
  for (int s = 0; s < samples_per_thread; ++s) {
    const float price = o.spot * expf(drift + spread * curand_normal(&state));
    const double p = fmaxf(price - o.strike, 0.0f);
    sum += p;
    sum_of_squares += p * p;
  }
  payoff[threadIdx.x] = sum;
  squares[threadIdx.x] = sum_of_squares;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      payoff[threadIdx.x] += payoff[threadIdx.x + half];
      squares[threadIdx.x] += squares[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], payoff[0]);
    atomicAdd(&sums[1], squares[0]);
  }
}

void launch_count_in_circle(unsigned long long* hits, int blocks, int samples_per_thread,
                            unsigned long long seed) {
  count_in_circle<<<blocks, kThreads>>>(hits, samples_per_thread, seed);
}

void launch_call_payoffs(double* sums, Option option, int blocks, int samples_per_thread,
                         unsigned long long seed) {
  call_payoffs<<<blocks, kThreads>>>(sums, option, samples_per_thread, seed);
}
