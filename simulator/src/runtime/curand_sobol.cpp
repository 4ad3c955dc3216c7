// Sobol's direction vectors, as cuRAND's curandGetDirectionVectors32/64
// give them: Joe and Kuo's (2008) primitive polynomials and initial
// direction numbers, taken from Boost's table (its first 3667 dimensions,
// which equal cuRAND's vectors bit for bit on an H100), extended to 32 or 64
// bits by the Sobol recurrence. cuRAND's arrays have 20,000 dimensions; the
// ones past the table stay zero, and a state started from them says so.
#include <boost/random/detail/sobol_table.hpp>
#include <cstdio>
#include <mutex>
#include <vector>

#include "curand_kernel.h"
#include "runtime/sobol.h"

namespace cudalab::detail::curand {
namespace {

using Table = boost::random::detail::qrng_tables::sobol;
static_assert(Table::max_dimension == kSobolDimensions);

constexpr unsigned kArrayDimensions = 20000;

// Dimension 0 is the van der Corput sequence (every m_k = 1); dimension d
// follows polynomial d - 1 of the table, of degree s: its first s numbers
// are the table's, the rest v_k = v_{k-s} ^ (v_{k-s} >> s) ^ the v_{k-j}
// whose coefficient a_j is set.
template <class Word>
std::vector<Word> make_vectors() {
  constexpr int kBits = sizeof(Word) * 8;
  std::vector<Word> v(size_t{kArrayDimensions} * kBits, 0);
  for (int k = 0; k < kBits; ++k) v[k] = Word{1} << (kBits - 1 - k);
  for (unsigned d = 1; d < kSobolDimensions; ++d) {
    const unsigned poly = Table::polynomial(d - 1);
    int degree = 0;
    while ((poly >> (degree + 1)) != 0) ++degree;
    Word* dim = &v[size_t{d} * kBits];
    for (int k = 0; k < degree && k < kBits; ++k)
      dim[k] = Word{Table::minit(d - 1, k)} << (kBits - 1 - k);
    for (int k = degree; k < kBits; ++k) {
      Word x = dim[k - degree] ^ (dim[k - degree] >> degree);
      for (int j = 1; j < degree; ++j)
        if ((poly >> (degree - j)) & 1) x ^= dim[k - j];
      dim[k] = x;
    }
  }
  return v;
}

curandStatus_t nvidia_only(const char* what) {
  std::fprintf(stderr,
               "cudalab: cuRAND host API: %s of the scrambled Sobol generators are NVIDIA's own "
               "and are not on the simulator\n",
               what);
  return CURAND_STATUS_TYPE_ERROR;
}

}  // namespace

unsigned int* sobol_vectors32() {
  static std::vector<unsigned int> v = make_vectors<unsigned int>();
  return v.data();
}
unsigned long long* sobol_vectors64() {
  static std::vector<unsigned long long> v = make_vectors<unsigned long long>();
  return v.data();
}

void zero_direction_vectors() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fprintf(stderr,
                 "cudalab: cuRAND: a Sobol state was started from direction vectors that are "
                 "zero, so every point it gives is zero. The simulator has Joe and Kuo's vectors "
                 "for dimensions 0 to %u (cuRAND has 20,000); past those, and in vectors never "
                 "copied to the device, they are zero.\n",
                 kSobolDimensions - 1);
  });
}

}  // namespace cudalab::detail::curand

namespace {
// A table of direction vectors, if `set` names the plain Joe and Kuo set of
// its width.
template <class Vectors, class Word>
curandStatus_t direction_vectors(Vectors** out, curandDirectionVectorSet_t set,
                                 curandDirectionVectorSet_t plain,
                                 curandDirectionVectorSet_t scrambled, Word* table) {
  if (out == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  if (set == scrambled)
    return cudalab::detail::curand::nvidia_only("the scrambled direction vectors");
  if (set != plain) return CURAND_STATUS_OUT_OF_RANGE;
  *out = reinterpret_cast<Vectors*>(table);
  return CURAND_STATUS_SUCCESS;
}
}  // namespace

curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[],
                                           curandDirectionVectorSet_t set) {
  return direction_vectors(vectors, set, CURAND_DIRECTION_VECTORS_32_JOEKUO6,
                           CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6,
                           cudalab::detail::curand::sobol_vectors32());
}
curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t* vectors[],
                                           curandDirectionVectorSet_t set) {
  return direction_vectors(vectors, set, CURAND_DIRECTION_VECTORS_64_JOEKUO6,
                           CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6,
                           cudalab::detail::curand::sobol_vectors64());
}
curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
  (void)constants;
  return cudalab::detail::curand::nvidia_only("the scramble constants");
}
curandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
  (void)constants;
  return cudalab::detail::curand::nvidia_only("the scramble constants");
}
