// Sobol's direction vectors for the host API's generators and
// curandGetDirectionVectors32/64 (curand_sobol.cpp).
#pragma once

namespace cudalab::detail::curand {

// Dimensions with Joe and Kuo's vectors; the arrays hold 20,000, as cuRAND's.
inline constexpr unsigned kSobolDimensions = 3667;

// 32 (or 64) vectors per dimension, dimension after dimension.
unsigned int* sobol_vectors32();
unsigned long long* sobol_vectors64();

}  // namespace cudalab::detail::curand
