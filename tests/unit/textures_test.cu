// Textures on the simulator where no GPU can check them: the legacy texture
// references (removed in CUDA 12; nvcc 13 refuses them) against texture
// objects over the same data, the deprecated array copies, and what a fetch
// through a bad handle or a surface write outside its array does.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

texture<float, 1, cudaReadModeElementType> linear_ref;
texture<float, 2, cudaReadModeElementType> image_ref;
texture<unsigned char, 1, cudaReadModeNormalizedFloat> bytes_ref;
texture<float4, 1, cudaReadModeElementType> array_ref;

__global__ void read_references(float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  const float x = 0.37f * float(i) - 2.0f;
  out[6 * i] = tex1Dfetch(linear_ref, i - 3);
  out[6 * i + 1] = tex2D(image_ref, x, 0.61f * float(i) - 1.0f);
  out[6 * i + 2] = tex1D(bytes_ref, x);
  const float4 v = tex1D(array_ref, x * 0.25f);
  out[6 * i + 3] = v.x;
  out[6 * i + 4] = v.w;
  out[6 * i + 5] = tex1Dfetch(bytes_ref, i);
}

__global__ void read_objects(cudaTextureObject_t lin, cudaTextureObject_t img,
                             cudaTextureObject_t bytes_fetch, cudaTextureObject_t bytes,
                             cudaTextureObject_t arr, float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  const float x = 0.37f * float(i) - 2.0f;
  out[6 * i] = tex1Dfetch<float>(lin, i - 3);
  out[6 * i + 1] = tex2D<float>(img, x, 0.61f * float(i) - 1.0f);
  out[6 * i + 2] = tex1D<float>(bytes, x);
  const float4 v = tex1D<float4>(arr, x * 0.25f);
  out[6 * i + 3] = v.x;
  out[6 * i + 4] = v.w;
  out[6 * i + 5] = tex1Dfetch<float>(bytes_fetch, i);
}

cudaTextureObject_t make_object(const cudaResourceDesc& r, cudaTextureFilterMode filter,
                                cudaTextureAddressMode mode, cudaTextureReadMode read,
                                int normalized) {
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  EXPECT_EQ(cudaCreateTextureObject(&t, &r, &td, nullptr), cudaSuccess);
  return t;
}

TEST(Textures, ReferencesReadAsTextureObjects) {
  const int n = 24;
  // Linear memory of floats, a pitched 7x5 image, 40 bytes, and an array of
  // 6 float4.
  std::vector<float> values(32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 1.5f * float(i) - 7.0f;
  float* lin;
  ASSERT_EQ(cudaMalloc(&lin, values.size() * sizeof(float)), cudaSuccess);
  cudaMemcpy(lin, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice);
  float* img;
  size_t pitch;
  ASSERT_EQ(cudaMallocPitch(&img, &pitch, 7 * sizeof(float), 5), cudaSuccess);
  std::vector<float> pixels(35);
  for (int i = 0; i < 35; ++i) pixels[i] = float(i * i % 17) - 3.25f;
  cudaMemcpy2D(img, pitch, pixels.data(), 7 * sizeof(float), 7 * sizeof(float), 5,
               cudaMemcpyHostToDevice);
  unsigned char* bytes;
  ASSERT_EQ(cudaMalloc(&bytes, 40), cudaSuccess);
  std::vector<unsigned char> b(40);
  for (int i = 0; i < 40; ++i) b[i] = static_cast<unsigned char>(i * 37);
  cudaMemcpy(bytes, b.data(), 40, cudaMemcpyHostToDevice);
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<float4>();
  cudaArray_t arr;
  ASSERT_EQ(cudaMallocArray(&arr, &d4, 6), cudaSuccess);
  std::vector<float4> quads(6);
  for (int i = 0; i < 6; ++i) quads[i] = make_float4(float(i), -float(i), 0.5f * float(i), 9.0f);
  // The deprecated copy, which the array reads back row by row.
  ASSERT_EQ(cudaMemcpyToArray(arr, 0, 0, quads.data(), 6 * sizeof(float4), cudaMemcpyHostToDevice),
            cudaSuccess);

  // The references: fields set, then bound.
  size_t offset = 99;
  ASSERT_EQ(cudaBindTexture(&offset, linear_ref, lin, values.size() * sizeof(float)), cudaSuccess);
  EXPECT_EQ(offset, 0u);
  image_ref.filterMode = cudaFilterModeLinear;
  image_ref.addressMode[0] = image_ref.addressMode[1] = cudaAddressModeClamp;
  cudaChannelFormatDesc df = cudaCreateChannelDesc<float>();
  ASSERT_EQ(cudaBindTexture2D(nullptr, image_ref, img, df, 7, 5, pitch), cudaSuccess);
  // Through the textureReference* form, which keeps the declared read mode.
  const cudaChannelFormatDesc d8 = cudaCreateChannelDesc<unsigned char>();
  const textureReference* bytes_pointer = &bytes_ref;
  ASSERT_EQ(cudaBindTexture(nullptr, bytes_pointer, bytes, &d8, 40), cudaSuccess);
  array_ref.normalized = 1;
  array_ref.filterMode = cudaFilterModeLinear;
  array_ref.addressMode[0] = cudaAddressModeWrap;
  ASSERT_EQ(cudaBindTextureToArray(array_ref, arr), cudaSuccess);

  float* out;
  ASSERT_EQ(cudaMalloc(&out, 2 * 6 * n * sizeof(float)), cudaSuccess);
  read_references<<<1, n>>>(out, n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // The same through texture objects.
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = lin;
  r.res.linear.desc = df;
  r.res.linear.sizeInBytes = values.size() * sizeof(float);
  const cudaTextureObject_t t_lin =
      make_object(r, cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeElementType, 0);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = img;
  r.res.pitch2D.desc = df;
  r.res.pitch2D.width = 7;
  r.res.pitch2D.height = 5;
  r.res.pitch2D.pitchInBytes = pitch;
  const cudaTextureObject_t t_img =
      make_object(r, cudaFilterModeLinear, cudaAddressModeClamp, cudaReadModeElementType, 0);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = bytes;
  r.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
  r.res.linear.sizeInBytes = 40;
  const cudaTextureObject_t t_fetch =
      make_object(r, cudaFilterModePoint, cudaAddressModeClamp, cudaReadModeNormalizedFloat, 0);
  const cudaTextureObject_t t_bytes = t_fetch;  // tex1D of linear memory reads 0
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = arr;
  const cudaTextureObject_t t_arr =
      make_object(r, cudaFilterModeLinear, cudaAddressModeWrap, cudaReadModeElementType, 1);
  read_objects<<<1, n>>>(t_lin, t_img, t_fetch, t_bytes, t_arr, out + 6 * n, n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<float> h(2 * 6 * n);
  cudaMemcpy(h.data(), out, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 6 * n; ++i)
    EXPECT_EQ(std::memcmp(&h[i], &h[6 * n + i], 4), 0)
        << "value " << i % 6 << " of thread " << i / 6 << ": reference " << h[i] << ", object "
        << h[6 * n + i];
  EXPECT_EQ(h[0], 0.0f) << "tex1Dfetch before the start reads 0";
  EXPECT_EQ(h[6 * 3], values[0]);
  EXPECT_EQ(h[6 * 5 + 5], float(b[5]) / 255.0f);

  std::vector<float4> back(6);
  ASSERT_EQ(cudaMemcpyFromArray(back.data(), arr, 0, 0, 6 * sizeof(float4), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(back[5].y, -5.0f);
  EXPECT_EQ(cudaUnbindTexture(linear_ref), cudaSuccess);
  for (cudaTextureObject_t t : {t_lin, t_img, t_fetch, t_arr})
    EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  cudaFree(out);
  cudaFree(lin);
  cudaFree(img);
  cudaFree(bytes);
  cudaFreeArray(arr);
}

__global__ void fetch_through(cudaTextureObject_t t, float* out) { *out = tex1D<float>(t, 0.5f); }

TEST(Textures, AnObjectOutlivesItsFreedArray) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &d, 4), cudaSuccess);
  const float v[4] = {2.5f, 3, 4, 5};
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, v, sizeof v, sizeof v, 1, cudaMemcpyHostToDevice),
            cudaSuccess);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  cudaTextureObject_t t = 0;
  ASSERT_EQ(cudaCreateTextureObject(&t, &r, &td, nullptr), cudaSuccess);
  ASSERT_EQ(cudaFreeArray(a), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaErrorInvalidValue) << "freed twice";
  float* out;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  fetch_through<<<1, 1>>>(t, out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  float h = 0;
  cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT_EQ(h, 2.5f) << "the object still reads the texels it was made over";
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  cudaFree(out);
}
__global__ void write_outside(cudaSurfaceObject_t s) { surf2Dwrite(1.0f, s, 400, 0); }

TEST(Textures, BadHandlesAndTrapsFaultTheKernel) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  ASSERT_EQ(cudaMallocArray(&a, &d, 4, 4, cudaArraySurfaceLoadStore), cudaSuccess);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  cudaTextureObject_t t = 0;
  ASSERT_EQ(cudaCreateTextureObject(&t, &r, &td, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  float* out;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  fetch_through<<<1, 1>>>(t, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress) << "a destroyed texture object";
  cudaDeviceReset();
  ASSERT_EQ(cudaMallocArray(&a, &d, 4, 4, cudaArraySurfaceLoadStore), cudaSuccess);
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  ASSERT_EQ(cudaCreateSurfaceObject(&s, &r), cudaSuccess);
  write_outside<<<1, 1>>>(s);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress)
      << "a surface write outside the array with cudaBoundaryModeTrap";
  cudaDeviceReset();
}

}  // namespace
