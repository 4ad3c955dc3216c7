// curand_init(seed, thread id, 0) in every thread of a large grid: the
// simulator jumps from one thread's state to the next; each state must equal
// the one a lone curand_init computes. Then Sobol's states: a jump equals
// the steps it skips, the simulator's limit on dimensions is an error with
// its reason, zero direction vectors are named, and the inverse normal CDF
// holds in the far tail that 64-bit points reach.
#include <curand.h>
#include <curand_kernel.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

__global__ void first_draws(unsigned* out, int n) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  curandState s;
  curand_init(2026, id, 0, &s);
  out[id] = curand(&s);
}

TEST(CurandInit, EveryThreadsStateIsItsOwnSubsequence) {
  const int n = 1 << 16;
  unsigned* d;
  cudaMalloc(&d, n * sizeof(unsigned));
  first_draws<<<n / 256, 256>>>(d, n);
  std::vector<unsigned> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
  // Checked from the top down, so that none can reuse an earlier jump.
  for (int id = n - 1; id >= 0; id -= 997) {
    curandState s;
    curand_init(2026, id, 0, &s);
    EXPECT_EQ(h[id], curand(&s)) << "thread " << id;
  }
  cudaFree(d);
}

__global__ void sobol_points(curandDirectionVectors64_t* dv, unsigned long long* out, int n) {
  const int t = threadIdx.x;
  curandStateSobol64_t s;
  curand_init(dv[t % 4], 1000ull * t, &s);
  for (int i = 0; i < n; ++i) out[t * n + i] = curand(&s);
}

TEST(CurandSobol, AJumpEqualsTheStepsItSkips) {
  curandDirectionVectors64_t* vectors = nullptr;
  ASSERT_EQ(curandGetDirectionVectors64(&vectors, CURAND_DIRECTION_VECTORS_64_JOEKUO6),
            CURAND_STATUS_SUCCESS);
  curandDirectionVectors64_t* dv;
  cudaMalloc(&dv, 4 * sizeof(curandDirectionVectors64_t));
  cudaMemcpy(dv, vectors, 4 * sizeof(curandDirectionVectors64_t), cudaMemcpyHostToDevice);
  const int threads = 8, n = 300;
  unsigned long long* d;
  cudaMalloc(&d, threads * n * sizeof(unsigned long long));
  sobol_points<<<1, threads>>>(dv, d, n);
  std::vector<unsigned long long> h(threads * n);
  ASSERT_EQ(cudaMemcpy(h.data(), d, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int t = 0; t < threads; ++t) {
    curandStateSobol64_t s;
    curand_init(vectors[t % 4], 0, &s);
    for (int i = 0; i < 1000 * t; ++i) curand(&s);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(h[t * n + i], curand(&s)) << "thread " << t << ", point " << i;
  }
  // Every point of dimension 1 in the first 2^10 is distinct: a (0,1)-sequence.
  curandStateSobol32_t s;
  curandDirectionVectors32_t* v32 = nullptr;
  ASSERT_EQ(curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6),
            CURAND_STATUS_SUCCESS);
  curand_init(v32[1], 0, &s);
  std::vector<bool> seen(1024);
  for (int i = 0; i < 1024; ++i) {
    const unsigned top = curand(&s) >> 22;
    EXPECT_FALSE(seen[top]) << "point " << i;
    seen[top] = true;
  }
  cudaFree(d);
  cudaFree(dv);
}

TEST(CurandSobol, TheDimensionsPastTheTableAreAnErrorWithItsReason) {
  curandGenerator_t g;
  ASSERT_EQ(curandCreateGenerator(&g, CURAND_RNG_QUASI_SOBOL32), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandSetQuasiRandomGeneratorDimensions(g, 3667), CURAND_STATUS_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(curandSetQuasiRandomGeneratorDimensions(g, 3668), CURAND_STATUS_OUT_OF_RANGE);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("3668 Sobol dimensions"), std::string::npos) << said;
  EXPECT_NE(said.find("the simulator has direction vectors for 3667"), std::string::npos) << said;
  EXPECT_EQ(curandSetQuasiRandomGeneratorDimensions(g, 20001), CURAND_STATUS_OUT_OF_RANGE);
  curandDestroyGenerator(g);

  // The scrambled generators need NVIDIA's tables.
  testing::internal::CaptureStderr();
  EXPECT_NE(curandCreateGenerator(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64), CURAND_STATUS_SUCCESS);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("NVIDIA's own"), std::string::npos);
}

__global__ void first_point_of(curandDirectionVectors32_t* dv, unsigned* out) {
  curandStateSobol32_t s;
  curand_init(*dv, 1, &s);
  *out = curand(&s);
}

TEST(CurandSobol, ZeroDirectionVectorsAreNamed) {
  curandDirectionVectors32_t* vectors = nullptr;
  ASSERT_EQ(curandGetDirectionVectors32(&vectors, CURAND_DIRECTION_VECTORS_32_JOEKUO6),
            CURAND_STATUS_SUCCESS);
  EXPECT_EQ(vectors[3666][0], 0x80000000u);  // the last dimension the simulator has
  EXPECT_EQ(vectors[3667][0], 0u);           // past it
  curandDirectionVectors32_t* dv;
  unsigned* out;
  cudaMalloc(&dv, sizeof(curandDirectionVectors32_t));
  cudaMalloc(&out, sizeof(unsigned));
  cudaMemcpy(dv, vectors[5000], sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice);
  testing::internal::CaptureStderr();
  first_point_of<<<1, 1>>>(dv, out);
  cudaDeviceSynchronize();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("direction vectors that are zero"), std::string::npos) << said;
  EXPECT_NE(said.find("dimensions 0 to 3666"), std::string::npos) << said;
  cudaFree(dv);
  cudaFree(out);
}

TEST(CurandSobol, TheInverseNormalHoldsInTheFarTail) {
  for (double y : {1e-300, 0x1p-64, 1e-10, 1e-3, 0.3, 0.5, 0.7, 1.2, 1.999}) {
    const double x = erfcinv(y);
    EXPECT_NEAR(std::erfc(x) / y, 1.0, 1e-13) << "y = " << y;
  }
  EXPECT_EQ(erfcinv(0.0), INFINITY);
  EXPECT_TRUE(std::isnan(erfcinv(-1.0)));
  // The first 64-bit point, 0, is 2^-65 from zero: Phi(z) = 2^-65 there.
  const double z = cudalab::detail::curand::normal_icdf_double(0ull);
  EXPECT_NEAR(0.5 * std::erfc(-z / std::sqrt(2.0)) / 0x1p-65, 1.0, 1e-12) << z;
  EXPECT_NEAR(std::erfc(double(erfcinvf(1e-30f))) / 1e-30, 1.0, 1e-5);
}

}  // namespace
