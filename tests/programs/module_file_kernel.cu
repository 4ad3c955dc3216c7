// The kernel of module_file.cu, built into a module file by
// `cudalab-cc -fatbin`. Its thread n reads element n, which the host never
// wrote (line 7).
extern "C" __global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)  // one too many
    x[i] = x[i] * s;
}
