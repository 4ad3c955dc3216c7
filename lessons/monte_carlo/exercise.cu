// Monte Carlo: pi and a European call option from random samples.
// Your task: write the bodies of the two kernels below. Read README.md first.
// Check your work with:     cudalab check monte_carlo   (on a GPU: add --gpu)
// Run the program with it:  cudalab run monte_carlo     (with nvcc: see driver.cu)
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
}

// Stage 2: the payoffs of a European call.
__global__ void call_payoffs(double* sums, Option o, int samples_per_thread,
                             unsigned long long seed) {
  __shared__ double payoff[kThreads];
  __shared__ double squares[kThreads];
  // TODO: as stage 1, with curand_normal for Z, the payoff
  //       max(S_T - strike, 0) summed in payoff[] and its square in squares[],
  //       and two atomicAdds per block, into sums[0] and sums[1].
}

void launch_count_in_circle(unsigned long long* hits, int blocks, int samples_per_thread,
                            unsigned long long seed) {
  count_in_circle<<<blocks, kThreads>>>(hits, samples_per_thread, seed);
}

void launch_call_payoffs(double* sums, Option option, int blocks, int samples_per_thread,
                         unsigned long long seed) {
  call_payoffs<<<blocks, kThreads>>>(sums, option, samples_per_thread, seed);
}
