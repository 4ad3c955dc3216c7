// A student's launch with an argument missing: the compiler's message must
// show the launch as written (line 9) and the kernel's declaration (line 5),
// never the code cudalab turns a launch into.
#include <cstdio>
__global__ void add(const float* a, float* c, int n) { c[threadIdx.x] = a[threadIdx.x] + n; }

int main() {
  float *a = nullptr, *c = nullptr;
  add<<<1, 32>>>(a, c);
  return 0;
}
