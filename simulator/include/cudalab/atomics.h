// CUDA's atomic functions on the CPU, for the types CUDA has them for. The
// _block and _system scopes are as strong as the device scope here. The
// operations themselves are in cudalab/detail/atomic.h.
#pragma once

#include <cstring>
#include <type_traits>

#include "cudalab/detail/atomic.h"

// Each atomic in its three scopes: name, name_block and name_system.
#define CUDALAB_ATOMIC_SCOPES(ret, name, op, params, args)            \
  inline ret name params { return cudalab::detail::op args; }         \
  inline ret name##_block params { return cudalab::detail::op args; } \
  inline ret name##_system params { return cudalab::detail::op args; }
#define CUDALAB_ATOMIC(T, name, op) CUDALAB_ATOMIC_SCOPES(T, name, op, (T * a, T v), (a, v))

CUDALAB_ATOMIC(int, atomicAdd, atomic_add)
CUDALAB_ATOMIC(unsigned int, atomicAdd, atomic_add)
CUDALAB_ATOMIC(unsigned long long, atomicAdd, atomic_add)
CUDALAB_ATOMIC(float, atomicAdd, atomic_add)
CUDALAB_ATOMIC(double, atomicAdd, atomic_add)

CUDALAB_ATOMIC(int, atomicSub, atomic_sub)
CUDALAB_ATOMIC(unsigned int, atomicSub, atomic_sub)

CUDALAB_ATOMIC(int, atomicExch, atomic_exch)
CUDALAB_ATOMIC(unsigned int, atomicExch, atomic_exch)
CUDALAB_ATOMIC(unsigned long long, atomicExch, atomic_exch)
CUDALAB_ATOMIC(float, atomicExch, atomic_exch)

#define CUDALAB_ATOMIC_MINMAX(T)           \
  CUDALAB_ATOMIC(T, atomicMin, atomic_min) \
  CUDALAB_ATOMIC(T, atomicMax, atomic_max)
CUDALAB_ATOMIC_MINMAX(int)
CUDALAB_ATOMIC_MINMAX(unsigned int)
CUDALAB_ATOMIC_MINMAX(long long)
CUDALAB_ATOMIC_MINMAX(unsigned long long)
#undef CUDALAB_ATOMIC_MINMAX

// atomicInc, atomicDec: wrap around at `limit`, as CUDA defines them.
CUDALAB_ATOMIC(unsigned int, atomicInc, atomic_inc)
CUDALAB_ATOMIC(unsigned int, atomicDec, atomic_dec)

#define CUDALAB_ATOMIC_CAS(T) \
  CUDALAB_ATOMIC_SCOPES(T, atomicCAS, atomic_cas, (T * a, T c, T v), (a, c, v))
CUDALAB_ATOMIC_CAS(int)
CUDALAB_ATOMIC_CAS(unsigned int)
CUDALAB_ATOMIC_CAS(unsigned long long)
CUDALAB_ATOMIC_CAS(unsigned short)
#undef CUDALAB_ATOMIC_CAS

#define CUDALAB_ATOMIC_BITS(T)             \
  CUDALAB_ATOMIC(T, atomicAnd, atomic_and) \
  CUDALAB_ATOMIC(T, atomicOr, atomic_or)   \
  CUDALAB_ATOMIC(T, atomicXor, atomic_xor)
CUDALAB_ATOMIC_BITS(int)
CUDALAB_ATOMIC_BITS(unsigned int)
CUDALAB_ATOMIC_BITS(unsigned long long)
#undef CUDALAB_ATOMIC_BITS
#undef CUDALAB_ATOMIC
#undef CUDALAB_ATOMIC_SCOPES
