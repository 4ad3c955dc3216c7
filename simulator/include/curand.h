// cudalab's CPU simulator: cuRAND's host API (generators made and filled from
// the host), written for the simulator. XORWOW, Philox4_32_10, MRG32k3a and
// the Sobol generators fill buffers (device memory, or host memory for
// curandCreateGeneratorHost) with the values an H100 gives for the same
// seed, offset and ordering; Sobol's direction vectors are Joe and Kuo's, as
// cuRAND's are, for the first 3667 dimensions. What the simulator cannot
// reproduce (MTGP32, MT19937, the scrambled Sobol generators, XORWOW's seeded
// ordering, Poisson draws) returns an error status and says so on stderr
// (docs/simulator.md).
#pragma once
// Programs test this name to know that cuRAND's host API is included
// (NVIDIA's helper_cuda.h, for one).
#ifndef CURAND_H_
#define CURAND_H_
#endif

#include <cstddef>

#include "cuda_runtime.h"

#define CURAND_VER_MAJOR 10
#define CURAND_VER_MINOR 4
#define CURAND_VER_PATCH 0
#define CURAND_VERSION (CURAND_VER_MAJOR * 1000 + CURAND_VER_MINOR * 100 + CURAND_VER_PATCH)

enum curandStatus {
  CURAND_STATUS_SUCCESS = 0,
  CURAND_STATUS_VERSION_MISMATCH = 100,
  CURAND_STATUS_NOT_INITIALIZED = 101,
  CURAND_STATUS_ALLOCATION_FAILED = 102,
  CURAND_STATUS_TYPE_ERROR = 103,
  CURAND_STATUS_OUT_OF_RANGE = 104,
  CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  CURAND_STATUS_LAUNCH_FAILURE = 201,
  CURAND_STATUS_PREEXISTING_FAILURE = 202,
  CURAND_STATUS_INITIALIZATION_FAILED = 203,
  CURAND_STATUS_ARCH_MISMATCH = 204,
  CURAND_STATUS_INTERNAL_ERROR = 999
};
typedef enum curandStatus curandStatus_t;

enum curandRngType {
  CURAND_RNG_TEST = 0,
  CURAND_RNG_PSEUDO_DEFAULT = 100,
  CURAND_RNG_PSEUDO_XORWOW = 101,
  CURAND_RNG_PSEUDO_MRG32K3A = 121,
  CURAND_RNG_PSEUDO_MTGP32 = 141,
  CURAND_RNG_PSEUDO_MT19937 = 142,
  CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
  CURAND_RNG_QUASI_DEFAULT = 200,
  CURAND_RNG_QUASI_SOBOL32 = 201,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
  CURAND_RNG_QUASI_SOBOL64 = 203,
  CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
};
typedef enum curandRngType curandRngType_t;

enum curandOrdering {
  CURAND_ORDERING_PSEUDO_BEST = 100,
  CURAND_ORDERING_PSEUDO_DEFAULT = 101,
  CURAND_ORDERING_PSEUDO_SEEDED = 102,
  CURAND_ORDERING_PSEUDO_LEGACY = 103,
  CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
  CURAND_ORDERING_QUASI_DEFAULT = 201
};
typedef enum curandOrdering curandOrdering_t;

enum curandDirectionVectorSet {
  CURAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
  CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102,
  CURAND_DIRECTION_VECTORS_64_JOEKUO6 = 103,
  CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104
};
typedef enum curandDirectionVectorSet curandDirectionVectorSet_t;
typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];

struct curandGenerator_st;
typedef struct curandGenerator_st* curandGenerator_t;

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t* generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandGetVersion(int* version);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order);
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* output_ptr, size_t num);
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long* output_ptr,
                                      size_t num);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* output_ptr, size_t num);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* output_ptr,
                                           size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                    float mean, float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* output_ptr, size_t n,
                                          double mean, double stddev);
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float* output_ptr, size_t n,
                                       float mean, float stddev);
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double* output_ptr,
                                             size_t n, double mean, double stddev);
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int* output_ptr,
                                     size_t n, double lambda);
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions);
// Sobol's direction vectors: an array of 20,000 dimensions, as cuRAND's. The
// simulator has Joe and Kuo's for the first 3667 (those of Boost's table);
// the dimensions past them are zero, and a Sobol state started from zero
// vectors says so on stderr.
curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[],
                                           curandDirectionVectorSet_t set);
curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t* vectors[],
                                           curandDirectionVectorSet_t set);
// NVIDIA's scramble constants: not on the simulator (an error status).
curandStatus_t curandGetScrambleConstants32(unsigned int** constants);
curandStatus_t curandGetScrambleConstants64(unsigned long long** constants);
