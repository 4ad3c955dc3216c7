"""The same vector add under Numba's CUDA simulator, for comparison.

Run with NUMBA_ENABLE_CUDASIM=1 (bench/run sets it): python3 numba_vector_add.py N
"""
import sys

import numpy as np
from numba import cuda


@cuda.jit
def vector_add(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 2.0, dtype=np.float32)
    da, db = cuda.to_device(a), cuda.to_device(b)
    dc = cuda.device_array(n, dtype=np.float32)
    vector_add[(n + 255) // 256, 256](da, db, dc, n)
    c = dc.copy_to_host()
    wrong = int(np.count_nonzero(c != a + b))
    print(f"numba vector add of {n} floats: {wrong} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
