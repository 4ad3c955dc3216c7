// clock() in a CUDA program. In a kernel, CUDA's clock() counts the GPU's
// cycles, as clock64() does; in the host code of the same file clock() is the
// C library's, which the program may declare again and take the address of,
// and whatever else is named clock (a member here) stays what it is.
#include <gtest/gtest.h>

#include <ctime>

// The C library's clock, declared again as C code may do.
extern "C" clock_t clock(void) noexcept;

namespace {

// Its address, in host code.
clock_t (*const c_library_clock)() = &clock;

// Not the C library's: a member named clock.
struct Lap {
  __host__ __device__ long clock() const { return 42; }
};

__device__ clock_t clock_in_a_device_function() { return clock(); }

__global__ void read_clocks(long long* cycles, clock_t* clocks, long* lap) {
  cycles[0] = clock64();
  clocks[0] = clock();
  clocks[1] = std::clock();
  clocks[2] = clock_in_a_device_function();
  cycles[1] = clock64();
  *lap = Lap().clock();
}

TEST(Clock, InAKernelClockCountsTheGpusCyclesAsClock64Does) {
  long long* d_cycles;
  clock_t* d_clocks;
  long* d_lap;
  ASSERT_EQ(cudaMalloc(&d_cycles, 2 * sizeof(long long)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_clocks, 3 * sizeof(clock_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_lap, sizeof(long)), cudaSuccess);
  read_clocks<<<1, 1>>>(d_cycles, d_clocks, d_lap);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  long long cycles[2];
  clock_t clocks[3];
  long lap = 0;
  cudaMemcpy(cycles, d_cycles, sizeof(cycles), cudaMemcpyDeviceToHost);
  cudaMemcpy(clocks, d_clocks, sizeof(clocks), cudaMemcpyDeviceToHost);
  cudaMemcpy(&lap, d_lap, sizeof(lap), cudaMemcpyDeviceToHost);
  // Read between the two clock64() readings, on the same counter.
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(static_cast<long long>(clocks[i]), cycles[0]) << i;
    EXPECT_LE(static_cast<long long>(clocks[i]), cycles[1]) << i;
  }
  EXPECT_EQ(lap, 42);
  cudaFree(d_cycles);
  cudaFree(d_clocks);
  cudaFree(d_lap);
}

TEST(Clock, InHostCodeClockIsTheCLibrarys) {
  // The processor time the C library counts, read in order: clock() and
  // std::clock() fall between two calls through its address.
  const clock_t before = c_library_clock();
  const clock_t plain = clock();
  const clock_t qualified = std::clock();
  const clock_t after = c_library_clock();
  EXPECT_LE(before, plain);
  EXPECT_LE(plain, qualified);
  EXPECT_LE(qualified, after);
  EXPECT_EQ(Lap().clock(), 42);
}

}  // namespace
