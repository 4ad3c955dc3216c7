// A student's typo: the compiler must point at line 5 of this file.
__global__ void k(float* x) {
  int i = threadIdx.x;
  // the next line has an undeclared name
  x[i] = undeclared_value;
}
int main() { return 0; }
