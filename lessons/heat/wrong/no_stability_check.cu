// Known-wrong heat equation: heat_simulate runs any alpha. Above 1/4 the
// update amplifies the shortest wiggles every step and the temperatures
// blow up; the lesson asks for cudaErrorInvalidValue instead.
// expect-failed: UnstableAlphaRefused
#include "lesson.h"

__global__ void heat_step(const float* in, float* out, int nx, int ny, float alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = in[i] + alpha * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - 4.0f * in[i]);
}

__global__ void heat_step_shared(const float* in, float* out, int nx, int ny, float alpha) {
  __shared__ float tile[kBlockY + 2][kBlockX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBlockX + tx, y = blockIdx.y * kBlockY + ty;
  const bool inside = x < nx && y < ny;
  if (inside) {
    const int i = y * nx + x;
    tile[ty + 1][tx + 1] = in[i];
    if (tx == 0 && x > 0) tile[ty + 1][0] = in[i - 1];
    if (tx == kBlockX - 1 && x + 1 < nx) tile[ty + 1][tx + 2] = in[i + 1];
    if (ty == 0 && y > 0) tile[0][tx + 1] = in[i - nx];
    if (ty == kBlockY - 1 && y + 1 < ny) tile[ty + 2][tx + 1] = in[i + nx];
  }
  __syncthreads();
  if (!inside) return;
  const float c = tile[ty + 1][tx + 1];
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[y * nx + x] = c;
    return;
  }
  out[y * nx + x] = c + alpha * (tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
                                 tile[ty + 2][tx + 1] - 4.0f * c);
}

__global__ void heat_step_columns(const float* in, float* out, int nx, int ny, float alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = (blockIdx.y * blockDim.y + threadIdx.y) * kRowsPerThread;
  if (x >= nx || first >= ny) return;
  const int last = min(first + kRowsPerThread, ny);
  float up = first > 0 ? in[(first - 1) * nx + x] : 0.0f;
  float center = in[first * nx + x];
  for (int y = first; y < last; ++y) {
    const int i = y * nx + x;
    const float down = y + 1 < ny ? in[i + nx] : 0.0f;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      out[i] = center;
    else
      out[i] = center + alpha * (in[i - 1] + in[i + 1] + up + down - 4.0f * center);
    up = center;
    center = down;
  }
}

void launch_heat_step(const float* in, float* out, int nx, int ny, float alpha) {
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY);
  heat_step<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

void launch_heat_step_shared(const float* in, float* out, int nx, int ny, float alpha) {
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + kBlockY - 1) / kBlockY);
  heat_step_shared<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

void launch_heat_step_columns(const float* in, float* out, int nx, int ny, float alpha) {
  const int rows = kBlockY * kRowsPerThread;  // a block's rows
  const dim3 threads(kBlockX, kBlockY),
      blocks((nx + kBlockX - 1) / kBlockX, (ny + rows - 1) / rows);
  heat_step_columns<<<blocks, threads>>>(in, out, nx, ny, alpha);
}

cudaError_t heat_simulate(float* u, float* scratch, int nx, int ny, float alpha, int steps,
                          int stage) {
  float* from = u;
  float* to = scratch;
  for (int s = 0; s < steps; ++s) {
    if (stage == 3)
      launch_heat_step_columns(from, to, nx, ny, alpha);
    else if (stage == 2)
      launch_heat_step_shared(from, to, nx, ny, alpha);
    else
      launch_heat_step(from, to, nx, ny, alpha);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    float* t = from;
    from = to;
    to = t;
  }
  if (from != u)
    return cudaMemcpy(u, from, size_t(nx) * ny * sizeof(float), cudaMemcpyDeviceToDevice);
  return cudaDeviceSynchronize();
}
