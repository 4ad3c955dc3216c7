// memcheck corpus: a buffer never freed (reported with CUDALAB_CHECK_LEAKS=1).
int main() {
  float* x;
  cudaMalloc(&x, 4000);  // line 4
  return 0;
}
