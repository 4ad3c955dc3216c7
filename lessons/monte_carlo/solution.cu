// BEGIN SOLUTION
// Monte Carlo, the reference solution: pi and a European call, one cuRAND
// stream per thread, a block reduction in shared memory and one atomicAdd
// per block.
// EXERCISE: // Monte Carlo: pi and a European call option from random samples.
// EXERCISE: // Your task: write the bodies of the two kernels below. Read README.md first.
// EXERCISE: // Check your work with:     cudalab check monte_carlo   (on a GPU: add --gpu)
// EXERCISE: // Run the program with it:  cudalab run monte_carlo     (with nvcc: see driver.cu)
// END SOLUTION
#include <curand_kernel.h>

#include "lesson.h"

// Stage 1: pi from points in the unit square.
__global__ void count_in_circle(unsigned long long* hits, int samples_per_thread,
                                unsigned long long seed) {
  __shared__ unsigned int counts[kThreads];
  // TODO step 1: a generator of this thread's own: curand_init(seed, id, 0,
  //              &state) with id the thread's global index, so that no two
  //              threads draw the same numbers.
  // TODO step 2: draw samples_per_thread points with curand_uniform and count
  //              those with x * x + y * y <= 1.
  // TODO step 3: put the count in counts[threadIdx.x]; then, with
  //              __syncthreads() between the rounds, let the first half of the
  //              block add the second half's counts to theirs, then the first
  //              quarter, ... until counts[0] holds the block's total.
  // TODO step 4: thread 0 adds counts[0] to *hits with atomicAdd: other
  //              blocks add to it at the same time.
  // BEGIN SOLUTION
  const unsigned long long id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, id, 0, &state);
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
  // END SOLUTION
}

// Stage 2: the payoffs of a European call.
__global__ void call_payoffs(double* sums, Option o, int samples_per_thread,
                             unsigned long long seed) {
  __shared__ double payoff[kThreads];
  __shared__ double squares[kThreads];
  // TODO: as stage 1, with curand_normal for Z, the payoff
  //       max(S_T - strike, 0) summed in payoff[] and its square in squares[],
  //       and two atomicAdds per block, into sums[0] and sums[1].
  // BEGIN SOLUTION
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
  // END SOLUTION
}

void launch_count_in_circle(unsigned long long* hits, int blocks, int samples_per_thread,
                            unsigned long long seed) {
  count_in_circle<<<blocks, kThreads>>>(hits, samples_per_thread, seed);
}

void launch_call_payoffs(double* sums, Option option, int blocks, int samples_per_thread,
                         unsigned long long seed) {
  call_payoffs<<<blocks, kThreads>>>(sums, option, samples_per_thread, seed);
}
