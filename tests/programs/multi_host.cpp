#include "multi.h"

long host_sum(const int* h, int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  return s;
}
