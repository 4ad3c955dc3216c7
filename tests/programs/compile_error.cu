// A student's typo: the compiler must point at line 5 of this file.
__global__ void k(float* x) {
  int i = threadIdx.x;
  // the next line has an undeclared name
  x[i] = undeclared_value;
}
int main() { return 0; }

// The test of this file (tests/lit/README.md): graded as a student's
// vector_add.cu, it is reported as not compiling, at its line.
// REQUIRES: solution
// TEST: lesson.vector_add.compile_error_is_reported
// LABELS: lesson
// RUN: %cudalab check --seed 1 vector_add --file %s
// EXIT: 1
// CHECK: did not compile
// CHECK: compile_error.cu:5:
