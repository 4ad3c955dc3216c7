// Monte Carlo: what the student's file (exercise.cu or solution.cu)
// provides. Every thread draws its own random numbers with cuRAND (Philox),
// from its own stream: curand_init(seed, global thread id, 0, &state).
// Blocks have kThreads threads; each block adds up its threads' results in
// shared memory and one thread adds the block's total to the answer in
// global memory with one atomicAdd.
#pragma once

constexpr int kThreads = 256;

// Stage 1, pi: each thread draws `samples_per_thread` points (x, y) uniform
// in the unit square and counts those inside the quarter circle
// x^2 + y^2 <= 1; *hits (zero before the launch) gets the total. Then
// pi ~ 4 hits / (blocks * kThreads * samples_per_thread).
void launch_count_in_circle(unsigned long long* hits, int blocks, int samples_per_thread,
                            unsigned long long seed);

// Stage 2, a European call: the price today of the right to buy a stock at
// `strike` at time `years`, when the stock, now at `spot`, moves as
// S_T = spot * exp((rate - volatility^2 / 2) years + volatility sqrt(years) Z)
// with Z standard normal. Each thread draws `samples_per_thread` values of Z
// and sums the payoffs max(S_T - strike, 0) and their squares; sums[0] and
// sums[1] (zero before the launch) get the totals. The price is
// exp(-rate years) sums[0] / N, and sums[1] gives its standard error.
struct Option {
  float spot, strike, rate, volatility, years;
};
void launch_call_payoffs(double* sums, Option option, int blocks, int samples_per_thread,
                         unsigned long long seed);
