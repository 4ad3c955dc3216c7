// Textures, surfaces and CUDA arrays as a GPU runs them: every result is
// printed as its bits in hex, so that the simulator's output can be compared
// with an H100's (tests/data/textures_gpu.txt) by a diff. Covers arrays and
// their copies, texture objects over arrays, linear and pitched memory
// (every address mode, point and linear filtering, normalized coordinates,
// normalized-float reads of 8- and 16-bit integers, half floats), 1D, 2D, 3D,
// layered and cubemap fetches, gathers, level-0 LOD fetches, surfaces and
// the error codes of wrong calls.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) check((call), #call, __LINE__)
static void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    std::printf("error %d (%s) at line %d: %s\n", int(e), cudaGetErrorName(e), line, what);
    std::exit(1);
  }
}

// ---- printing -------------------------------------------------------------------------------
static int g_line_items = 0;
static void begin(const char* name) {
  std::printf("%s:", name);
  g_line_items = 0;
}
static void item_bytes(const void* p, size_t size) {
  if (g_line_items == 8) {
    std::printf("\n ");
    g_line_items = 0;
  }
  const unsigned char* b = static_cast<const unsigned char*>(p);
  std::printf(" ");
  if (size % 4 == 0) {
    for (size_t w = 0; w < size / 4; ++w) {
      uint32_t v;
      std::memcpy(&v, b + 4 * w, 4);
      std::printf(w ? ".%08x" : "%08x", v);
    }
  } else {
    for (size_t i = size; i-- > 0;) std::printf("%02x", b[i]);
  }
  ++g_line_items;
}
static void end() { std::printf("\n"); }
template <class T>
static void dump(const char* name, const std::vector<T>& v) {
  begin(name);
  for (const T& x : v) item_bytes(&x, sizeof(T));
  end();
}
// An error code a call returned; the last error is cleared, as an error
// code printed is not one a later check should see.
static void code(const char* name, cudaError_t e) {
  std::printf("%s: %d\n", name, int(e));
  (void)cudaGetLastError();
}

// FNV-1a over the bits of a result set too long to print.
template <class T>
static uint32_t hash_of(const std::vector<T>& v) {
  uint32_t h = 2166136261u;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ b[i]) * 16777619u;
  return h;
}

static uint32_t g_seed = 12345;
static uint32_t next_random() {
  g_seed = g_seed * 1664525u + 1013904223u;
  return g_seed;
}
static float random_float(float lo, float hi) {
  return lo + (hi - lo) * float(next_random() >> 8) / 16777216.0f;
}

// ---- fetching -------------------------------------------------------------------------------
struct Coord {
  float x, y, z;
  int layer;
};
enum Fetch {
  kFetch1D,
  kTex1D,
  kTex2D,
  kTex3D,
  kTex1DLayered,
  kTex2DLayered,
  kCubemap,
  kCubemapLayered,
  kTex1DLod,
  kTex2DLod,
  kTex3DLod,
};

template <class R>
__global__ void fetch_kernel(cudaTextureObject_t t, int kind, const Coord* coords, R* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Coord c = coords[i];
  R r;
  switch (kind) {
    case kFetch1D: r = tex1Dfetch<R>(t, int(c.x)); break;
    case kTex1D: r = tex1D<R>(t, c.x); break;
    case kTex2D: r = tex2D<R>(t, c.x, c.y); break;
    case kTex3D: r = tex3D<R>(t, c.x, c.y, c.z); break;
    case kTex1DLayered: r = tex1DLayered<R>(t, c.x, c.layer); break;
    case kTex2DLayered: r = tex2DLayered<R>(t, c.x, c.y, c.layer); break;
    case kCubemap: r = texCubemap<R>(t, c.x, c.y, c.z); break;
    case kCubemapLayered: r = texCubemapLayered<R>(t, c.x, c.y, c.z, c.layer); break;
    case kTex1DLod: r = tex1DLod<R>(t, c.x, float(c.layer)); break;
    case kTex2DLod: r = tex2DLod<R>(t, c.x, c.y, float(c.layer)); break;
    default: r = tex3DLod<R>(t, c.x, c.y, c.z, float(c.layer)); break;
  }
  out[i] = r;
}

template <class R>
__global__ void gather_kernel(cudaTextureObject_t t, const Coord* coords, R* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Coord c = coords[i];
  switch (c.layer) {
    case 0: out[i] = tex2Dgather<R>(t, c.x, c.y, 0); break;
    case 1: out[i] = tex2Dgather<R>(t, c.x, c.y, 1); break;
    case 2: out[i] = tex2Dgather<R>(t, c.x, c.y, 2); break;
    default: out[i] = tex2Dgather<R>(t, c.x, c.y, 3); break;
  }
}

template <class R>
static std::vector<R> fetch(cudaTextureObject_t t, Fetch kind, const std::vector<Coord>& coords,
                            bool gather = false) {
  const int n = int(coords.size());
  Coord* dc = nullptr;
  R* dr = nullptr;
  CK(cudaMalloc(&dc, n * sizeof(Coord)));
  CK(cudaMalloc(&dr, n * sizeof(R)));
  CK(cudaMemcpy(dc, coords.data(), n * sizeof(Coord), cudaMemcpyHostToDevice));
  if (gather)
    gather_kernel<R><<<(n + 127) / 128, 128>>>(t, dc, dr, n);
  else
    fetch_kernel<R><<<(n + 127) / 128, 128>>>(t, kind, dc, dr, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<R> r(n);
  CK(cudaMemcpy(r.data(), dr, n * sizeof(R), cudaMemcpyDeviceToHost));
  CK(cudaFree(dc));
  CK(cudaFree(dr));
  return r;
}

static cudaTextureObject_t make_texture(const cudaResourceDesc& res, cudaTextureAddressMode mode,
                                        cudaTextureFilterMode filter, cudaTextureReadMode read,
                                        int normalized, const float* border = nullptr,
                                        cudaError_t* error = nullptr) {
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  if (border)
    for (int i = 0; i < 4; ++i) td.borderColor[i] = border[i];
  cudaTextureObject_t t = 0;
  const cudaError_t e = cudaCreateTextureObject(&t, &res, &td, nullptr);
  if (error)
    *error = e;
  else
    CK(e);
  return t;
}

static cudaResourceDesc array_resource(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  return r;
}

static const cudaTextureAddressMode kModes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
                                                cudaAddressModeMirror, cudaAddressModeBorder};
static const char* const kModeNames[] = {"wrap", "clamp", "mirror", "border"};
static const float kBorder[4] = {0.625f, -3.5f, 7.25f, 1.0e-3f};

// Coordinates in texels: whole, half and odd fractions, negative, far out.
static std::vector<float> texel_coords(int n) {
  std::vector<float> c = {-9.3f,  -4.0f,   -1.0f,  -0.5001f, -0.5f,  -0.25f,    -0.0f,
                          0.0f,   0.1f,    0.4999f, 0.5f,    0.5039f, 0.75f,    1.0f,
                          1.25f,  1.5f,    1.998f, 2.5f,     3.1f,   4.0f,     5.5f,
                          1e6f,   -1e6f,   3e9f,   -3e9f,    1.0f / 3.0f, 2.0f / 3.0f};
  const float fn = float(n);
  for (float f : {fn - 1.0f, fn - 0.5f, fn - 0.25f, fn, fn + 0.5f, fn + 1.5f, 2.0f * fn + 0.3f,
                  -fn - 0.7f})
    c.push_back(f);
  for (int k = 0; k < 12; ++k) c.push_back(random_float(-2.0f * fn, 3.0f * fn));
  return c;
}
static std::vector<float> normalized_coords(int n) {
  std::vector<float> c = texel_coords(n);
  for (float& x : c) x /= float(n);
  for (float x : {1.3f, 2.6f, -1.1f, 3.7f, 1.0001f, 0.9999f, -0.0001f, 5.0f, -5.0f}) c.push_back(x);
  return c;
}

// ---- 1. channel descriptions and arrays -------------------------------------------------------
static void channel_descs() {
  const cudaChannelFormatDesc d[] = {
      cudaCreateChannelDesc<float>(),  cudaCreateChannelDesc<float2>(),
      cudaCreateChannelDesc<float4>(), cudaCreateChannelDesc<int>(),
      cudaCreateChannelDesc<uint2>(),  cudaCreateChannelDesc<char>(),
      cudaCreateChannelDesc<signed char>(), cudaCreateChannelDesc<unsigned char>(),
      cudaCreateChannelDesc<uchar4>(), cudaCreateChannelDesc<short>(),
      cudaCreateChannelDesc<ushort2>(), cudaCreateChannelDesc<char4>(),
      cudaCreateChannelDescHalf(),     cudaCreateChannelDescHalf4(),
      cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsigned),
      cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindFloat)};
  begin("channel descs");
  for (const cudaChannelFormatDesc& c : d) std::printf(" %d,%d,%d,%d,%d", c.x, c.y, c.z, c.w, int(c.f));
  end();
}

static void print_array_info(const char* name, cudaArray_t a) {
  cudaChannelFormatDesc d;
  cudaExtent e;
  unsigned flags = 99;
  CK(cudaArrayGetInfo(&d, &e, &flags, a));
  std::printf("%s info: %d,%d,%d,%d,%d extent %zu %zu %zu flags %u\n", name, d.x, d.y, d.z, d.w,
              int(d.f), e.width, e.height, e.depth, flags);
}

static void array_copies() {
  // A 2D array of 6x5 ints: in through a pitched copy with an offset, out
  // through other windows.
  cudaChannelFormatDesc d = cudaCreateChannelDesc<int>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d, 6, 5));
  print_array_info("array 6x5 int", a);
  std::vector<int> zero(30, -1);
  CK(cudaMemcpy2DToArray(a, 0, 0, zero.data(), 6 * sizeof(int), 6 * sizeof(int), 5,
                         cudaMemcpyHostToDevice));
  std::vector<int> src(4 * 3);
  for (int i = 0; i < 12; ++i) src[i] = 100 + i;
  CK(cudaMemcpy2DToArray(a, 1 * sizeof(int), 2, src.data(), 4 * sizeof(int), 3 * sizeof(int), 3,
                         cudaMemcpyHostToDevice));
  std::vector<int> all(30);
  CK(cudaMemcpy2DFromArray(all.data(), 6 * sizeof(int), a, 0, 0, 6 * sizeof(int), 5,
                           cudaMemcpyDeviceToHost));
  dump("array 2D copy in", all);
  std::vector<int> win(2 * 2, 0);
  CK(cudaMemcpy2DFromArray(win.data(), 2 * sizeof(int), a, 2 * sizeof(int), 3, 2 * sizeof(int), 2,
                           cudaMemcpyDeviceToHost));
  dump("array 2D window", win);
  // Device memory in and out.
  int* dev = nullptr;
  size_t pitch = 0;
  CK(cudaMallocPitch(&dev, &pitch, 6 * sizeof(int), 5));
  CK(cudaMemcpy2DFromArray(dev, pitch, a, 0, 0, 6 * sizeof(int), 5, cudaMemcpyDeviceToDevice));
  std::vector<int> back(30);
  CK(cudaMemcpy2D(back.data(), 6 * sizeof(int), dev, pitch, 6 * sizeof(int), 5,
                  cudaMemcpyDeviceToHost));
  dump("array to pitched", back);
  // The deprecated whole-row copies, which continue onto the next row.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  std::vector<int> line = {7, 8, 9, 10, 11, 12, 13, 14};
  CK(cudaMemcpyToArray(a, 4 * sizeof(int), 1, line.data(), line.size() * sizeof(int),
                       cudaMemcpyHostToDevice));
  std::vector<int> out(9);
  CK(cudaMemcpyFromArray(out.data(), a, 3 * sizeof(int), 1, out.size() * sizeof(int),
                         cudaMemcpyDeviceToHost));
#pragma GCC diagnostic pop
  dump("array 1D copies", out);
  // Errors: a window past the array's edge.
  code("copy past the right edge", cudaMemcpy2DToArray(a, 5 * sizeof(int), 0, src.data(),
                                                       4 * sizeof(int), 2 * sizeof(int), 1,
                                                       cudaMemcpyHostToDevice));
  code("copy past the bottom", cudaMemcpy2DFromArray(win.data(), 2 * sizeof(int), a, 0, 4,
                                                     2 * sizeof(int), 2, cudaMemcpyDeviceToHost));
  CK(cudaFree(dev));
  CK(cudaFreeArray(a));

  // 3D: an array of 5x4x3 shorts filled from a pitched buffer with
  // cudaMemcpy3D, copied to a second array at an offset, and back.
  cudaChannelFormatDesc ds = cudaCreateChannelDesc<short>();
  cudaArray_t a3, b3;
  CK(cudaMalloc3DArray(&a3, &ds, make_cudaExtent(5, 4, 3)));
  CK(cudaMalloc3DArray(&b3, &ds, make_cudaExtent(7, 6, 4)));
  print_array_info("array 5x4x3 short", a3);
  std::vector<short> h3(5 * 4 * 3);
  for (size_t i = 0; i < h3.size(); ++i) h3[i] = short(i * 37 - 500);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(h3.data(), 5 * sizeof(short), 5, 4);
  p.dstArray = a3;
  p.extent = make_cudaExtent(5, 4, 3);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  std::vector<short> fill(7 * 6 * 4, 0x7777);
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(fill.data(), 7 * sizeof(short), 7, 6);
  p.dstArray = b3;
  p.extent = make_cudaExtent(7, 6, 4);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  std::memset(&p, 0, sizeof p);
  p.srcArray = a3;
  p.srcPos = make_cudaPos(1, 1, 0);
  p.dstArray = b3;
  p.dstPos = make_cudaPos(2, 0, 1);
  p.extent = make_cudaExtent(3, 2, 3);
  p.kind = cudaMemcpyDeviceToDevice;
  CK(cudaMemcpy3D(&p));
  std::vector<short> out3(7 * 6 * 4);
  std::memset(&p, 0, sizeof p);
  p.srcArray = b3;
  p.dstPtr = make_cudaPitchedPtr(out3.data(), 7 * sizeof(short), 7, 6);
  p.extent = make_cudaExtent(7, 6, 4);
  p.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&p));
  dump("array 3D copies", out3);
  // Through device pitched memory, with positions on both sides.
  cudaPitchedPtr pp;
  CK(cudaMalloc3D(&pp, make_cudaExtent(8 * sizeof(short), 5, 3)));
  CK(cudaMemset3D(pp, 0, make_cudaExtent(8 * sizeof(short), 5, 3)));
  std::memset(&p, 0, sizeof p);
  p.srcArray = a3;
  p.srcPos = make_cudaPos(2, 1, 1);
  p.dstPtr = pp;
  p.dstPos = make_cudaPos(3 * sizeof(short), 2, 1);
  p.extent = make_cudaExtent(3, 3, 2);
  p.kind = cudaMemcpyDeviceToDevice;
  CK(cudaMemcpy3D(&p));
  std::vector<short> out4(8 * 5 * 3);
  std::memset(&p, 0, sizeof p);
  p.srcPtr = pp;
  p.dstPtr = make_cudaPitchedPtr(out4.data(), 8 * sizeof(short), 8, 5);
  p.extent = make_cudaExtent(8 * sizeof(short), 5, 3);
  p.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&p));
  dump("array 3D to pitched", out4);
  std::memset(&p, 0, sizeof p);
  p.srcArray = a3;
  p.dstArray = b3;
  p.srcPos = make_cudaPos(3, 0, 0);
  p.extent = make_cudaExtent(3, 1, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  code("3D copy past the edge", cudaMemcpy3D(&p));
  CK(cudaFreeArray(a3));
  CK(cudaFreeArray(b3));

  // Array kinds and their descriptions.
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t l, c, s, one;
  CK(cudaMalloc3DArray(&l, &d4, make_cudaExtent(8, 0, 3), cudaArrayLayered));
  print_array_info("1D layered", l);
  CK(cudaMalloc3DArray(&c, &d4, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
  print_array_info("cubemap", c);
  CK(cudaMalloc3DArray(&s, &d4, make_cudaExtent(4, 3, 0), cudaArraySurfaceLoadStore));
  print_array_info("2D surface", s);
  CK(cudaMallocArray(&one, &d4, 9));
  print_array_info("1D", one);
  CK(cudaFreeArray(l));
  CK(cudaFreeArray(c));
  CK(cudaFreeArray(s));
  CK(cudaFreeArray(one));
  cudaArray_t bad = nullptr;
  code("cubemap not square", cudaMalloc3DArray(&bad, &d4, make_cudaExtent(4, 5, 6), cudaArrayCubemap));
  code("cubemap of 5 faces", cudaMalloc3DArray(&bad, &d4, make_cudaExtent(4, 4, 5), cudaArrayCubemap));
  cudaChannelFormatDesc three = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
  code("three channels", cudaMallocArray(&bad, &three, 4, 4));
  code("width 0", cudaMallocArray(&bad, &d4, 0, 4));
}

// ---- 2. 1D textures: every mode, point and linear ---------------------------------------------
static std::vector<Coord> coords_1d(const std::vector<float>& xs) {
  std::vector<Coord> c;
  for (float x : xs) c.push_back({x, 0, 0, 0});
  return c;
}

static void textures_1d() {
  const int n = 8;
  const float values[n] = {1.0f, -2.5f, 3.25f, 100.0f, 0.1f, -7.75f, 1.0e-3f, 42.0f};
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d, n));
  CK(cudaMemcpy2DToArray(a, 0, 0, values, n * sizeof(float), n * sizeof(float), 1,
                         cudaMemcpyHostToDevice));
  const std::vector<Coord> texels = coords_1d(texel_coords(n));
  const std::vector<Coord> norm = coords_1d(normalized_coords(n));
  dump("1D coords texels", texels);
  dump("1D coords normalized", norm);
  char name[128];
  for (int m = 0; m < 4; ++m)
    for (int f = 0; f < 2; ++f)
      for (int nc = 0; nc < 2; ++nc) {
        cudaTextureObject_t t =
            make_texture(array_resource(a), kModes[m], f ? cudaFilterModeLinear : cudaFilterModePoint,
                         cudaReadModeElementType, nc, kBorder);
        std::snprintf(name, sizeof name, "tex1D float %s %s %s", kModeNames[m], f ? "linear" : "point",
                      nc ? "normalized" : "texels");
        dump(name, fetch<float>(t, kTex1D, nc ? norm : texels));
        CK(cudaDestroyTextureObject(t));
      }
  // Missing channels of a one-channel texture, and level-0 LOD fetches.
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                                       cudaReadModeElementType, 0);
  dump("tex1D float4 of float", fetch<float4>(t, kTex1D, coords_1d({-1.0f, 0.5f, 2.7f, 9.0f})));
  dump("tex1D float2 of float", fetch<float2>(t, kTex1D, coords_1d({-1.0f, 0.5f, 2.7f, 9.0f})));
  std::vector<Coord> lod = coords_1d({0.3f, 1.7f, 2.5f, 6.9f});
  for (size_t i = 0; i < lod.size(); ++i) lod[i].layer = int(i);  // levels 0 to 3
  dump("tex1DLod float", fetch<float>(t, kTex1DLod, lod));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // The filter weight: between 0 and 1, in 1/1024 steps, and far from 0.
  const int m = 2048;
  std::vector<float> ramp(m);
  for (int i = 0; i < m; ++i) ramp[i] = float(i % 2);
  CK(cudaMallocArray(&a, &d, m));
  CK(cudaMemcpy2DToArray(a, 0, 0, ramp.data(), m * sizeof(float), m * sizeof(float), 1,
                         cudaMemcpyHostToDevice));
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                   cudaReadModeElementType, 0);
  std::vector<float> xs;
  for (int k = 0; k <= 1024; ++k) xs.push_back(0.5f + float(k) / 1024.0f);
  dump("linear weights near 0", fetch<float>(t, kTex1D, coords_1d(xs)));
  xs.clear();
  for (int k = 0; k <= 512; ++k) xs.push_back(1000.5f + float(k) / 512.0f + float(k % 3) / 8192.0f);
  dump("linear weights near 1000", fetch<float>(t, kTex1D, coords_1d(xs)));
  CK(cudaDestroyTextureObject(t));
  t = make_texture(array_resource(a), cudaAddressModeWrap, cudaFilterModeLinear,
                   cudaReadModeElementType, 1);
  xs.clear();
  for (int k = 0; k <= 256; ++k) xs.push_back((0.5f + float(k) / 256.0f + float(k % 7) / 4096.0f) / m);
  dump("linear weights normalized", fetch<float>(t, kTex1D, coords_1d(xs)));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // Random pairs of values and random weights: how the blend is computed.
  std::vector<float> pairs(512);
  for (float& v : pairs) {
    v = random_float(-100.0f, 100.0f);
    v *= std::ldexp(1.0f, int(next_random() % 9) - 4);
  }
  CK(cudaMallocArray(&a, &d, pairs.size()));
  CK(cudaMemcpy2DToArray(a, 0, 0, pairs.data(), pairs.size() * sizeof(float),
                         pairs.size() * sizeof(float), 1, cudaMemcpyHostToDevice));
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                   cudaReadModeElementType, 0);
  xs.clear();
  for (int k = 0; k < 256; ++k) xs.push_back(float(2 * k) + 0.5f + random_float(0.0f, 1.0f));
  dump("linear blends", fetch<float>(t, kTex1D, coords_1d(xs)));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
}

// ---- 3. integer channels: normalized floats and elements ---------------------------------------
template <class T>
static cudaArray_t array_of(const std::vector<T>& v, cudaChannelFormatDesc d) {
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d, v.size()));
  CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), v.size() * sizeof(T), v.size() * sizeof(T), 1,
                         cudaMemcpyHostToDevice));
  return a;
}

template <class T>
static void normalized_all(const char* name, int count, int first) {
  std::vector<T> v(count);
  for (int i = 0; i < count; ++i) v[i] = T(first + i);
  cudaArray_t a = array_of(v, cudaCreateChannelDesc<T>());
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModePoint,
                                       cudaReadModeNormalizedFloat, 0);
  std::vector<Coord> c;
  for (int i = 0; i < count; ++i) c.push_back({float(i) + 0.5f, 0, 0, 0});
  const std::vector<float> r = fetch<float>(t, kTex1D, c);
  char line[96];
  if (count <= 256) {
    std::snprintf(line, sizeof line, "normalized %s", name);
    dump(line, r);
  } else {
    std::vector<float> some;
    for (int i = 0; i < count; i += 257) some.push_back(r[i]);
    some.push_back(r[count - 1]);
    std::snprintf(line, sizeof line, "normalized %s (every 257th)", name);
    dump(line, some);
    std::printf("normalized %s hash: %08x\n", name, hash_of(r));
  }
  // Linear filtering between neighbours, at several weights.
  cudaTextureObject_t tl = make_texture(array_resource(a), cudaAddressModeClamp,
                                        cudaFilterModeLinear, cudaReadModeNormalizedFloat, 0);
  c.clear();
  for (int k = 0; k < 96; ++k)
    c.push_back({float(next_random() % (count - 1)) + 0.5f + float(k % 33) / 32.0f +
                     float(k % 5) / 2048.0f,
                 0, 0, 0});
  std::snprintf(line, sizeof line, "linear normalized %s", name);
  dump(line, fetch<float>(tl, kTex1D, c));
  CK(cudaDestroyTextureObject(t));
  CK(cudaDestroyTextureObject(tl));
  CK(cudaFreeArray(a));
}

// Blends of every pair of 8-bit values (and 65,536 pairs of 16-bit ones)
// at eight weights, in a 2D texture whose rows hold the pairs side by side
// (y on a row's centre, so two texels take part), and a 3D one of random
// signed 8-bit texels: the filter's fixed point, all of it.
template <class T>
static void blend_sweep(const char* name, int (*value)(int)) {
  const int width = 512, height = 256;
  std::vector<T> h(size_t(width) * height);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < 256; ++c) {
      h[size_t(r) * width + 2 * c] = T(value(r));
      h[size_t(r) * width + 2 * c + 1] = T(value(c));
    }
  const cudaChannelFormatDesc d = cudaCreateChannelDesc<T>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d, width, height));
  CK(cudaMemcpy2DToArray(a, 0, 0, h.data(), width * sizeof(T), width * sizeof(T), height,
                         cudaMemcpyHostToDevice));
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp,
                                       cudaFilterModeLinear, cudaReadModeNormalizedFloat, 0);
  std::vector<Coord> c;
  for (int r = 0; r < height; ++r)
    for (int col = 0; col < 256; ++col)
      for (int j = 0; j < 8; ++j)
        c.push_back({float(2 * col) + 0.5f + float(1 + 32 * j) / 256.0f, float(r) + 0.5f, 0, 0});
  const std::vector<float> out = fetch<float>(t, kTex2D, c);
  char line[96];
  std::snprintf(line, sizeof line, "blend sweep %s (first 64)", name);
  dump(line, std::vector<float>(out.begin(), out.begin() + 64));
  std::printf("blend sweep %s hash: %08x\n", name, hash_of(out));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
}

static void blend_sweeps() {
  blend_sweep<signed char>("char", [](int i) { return i - 128; });
  blend_sweep<unsigned char>("uchar", [](int i) { return i; });
  blend_sweep<short>("short", [](int i) { return std::min(i * 257 - 32768 + (i * 37) % 251, 32767); });
  blend_sweep<unsigned short>("ushort", [](int i) { return i * 257 - (i * 37) % 251 % (i + 1); });

  const int n = 6;
  std::vector<signed char> v(n * n * n);
  for (auto& x : v) x = static_cast<signed char>(next_random() & 255);
  const cudaChannelFormatDesc d = cudaCreateChannelDesc<signed char>();
  cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &d, make_cudaExtent(n, n, n)));
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(v.data(), n, n, n);
  p.dstArray = a;
  p.extent = make_cudaExtent(n, n, n);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeBorder,
                                       cudaFilterModeLinear, cudaReadModeNormalizedFloat, 0,
                                       kBorder);
  std::vector<Coord> c;
  for (int i = 0; i < 256; ++i)
    c.push_back({random_float(-0.5f, n + 0.5f), random_float(-0.5f, n + 0.5f),
                 random_float(-0.5f, n + 0.5f), 0});
  dump("blend char 3D border", fetch<float>(t, kTex3D, c));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
}

static void integer_channels() {
  normalized_all<unsigned char>("uchar", 256, 0);
  normalized_all<signed char>("char", 256, -128);
  normalized_all<unsigned short>("ushort", 65536, 0);
  normalized_all<short>("short", 65536, -32768);

  // Four-channel 8-bit textures read as normalized floats, point and linear.
  std::vector<uchar4> u4(10);
  for (int i = 0; i < 10; ++i)
    u4[i] = make_uchar4(i * 25, 255 - i * 20, (i * 77) & 255, i & 1 ? 255 : 0);
  cudaArray_t a = array_of(u4, cudaCreateChannelDesc<uchar4>());
  const std::vector<Coord> texels = coords_1d(texel_coords(10));
  for (int f = 0; f < 2; ++f) {
    cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeBorder,
                                         f ? cudaFilterModeLinear : cudaFilterModePoint,
                                         cudaReadModeNormalizedFloat, 0, kBorder);
    dump(f ? "uchar4 normalized linear border" : "uchar4 normalized point border",
         fetch<float4>(t, kTex1D, texels));
    CK(cudaDestroyTextureObject(t));
  }
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeBorder, cudaFilterModePoint,
                                       cudaReadModeElementType, 0, kBorder);
  dump("uchar4 elements border", fetch<uchar4>(t, kTex1D, texels));
  CK(cudaDestroyTextureObject(t));
  cudaError_t e;
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                   cudaReadModeElementType, 0, nullptr, &e);
  code("linear filter on uchar4 elements", e);
  if (e == cudaSuccess) CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // Elements of int, uint, short2 and char4 textures, with borders.
  std::vector<int> iv = {-7, 2000000000, 0, 13, -2147483647 - 1, 99};
  a = array_of(iv, cudaCreateChannelDesc<int>());
  for (int m = 0; m < 4; ++m) {
    t = make_texture(array_resource(a), kModes[m], cudaFilterModePoint, cudaReadModeElementType, 1,
                     kBorder);
    char name[64];
    std::snprintf(name, sizeof name, "int elements %s", kModeNames[m]);
    dump(name, fetch<int>(t, kTex1D, coords_1d(normalized_coords(6))));
    CK(cudaDestroyTextureObject(t));
  }
  t = make_texture(array_resource(a), cudaAddressModeBorder, cudaFilterModePoint,
                   cudaReadModeElementType, 0, kBorder);
  dump("int4 of int", fetch<int4>(t, kTex1D, coords_1d({-1.0f, 0.5f, 3.5f, 6.5f})));
  dump("uint of int", fetch<unsigned>(t, kTex1D, coords_1d({-1.0f, 0.5f, 3.5f, 6.5f})));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
  std::vector<short2> s2 = {make_short2(-1, 2), make_short2(30000, -30000), make_short2(5, 6)};
  a = array_of(s2, cudaCreateChannelDesc<short2>());
  t = make_texture(array_resource(a), cudaAddressModeBorder, cudaFilterModePoint,
                   cudaReadModeElementType, 0, kBorder);
  dump("short2 elements", fetch<short2>(t, kTex1D, coords_1d({-1.0f, 0.5f, 1.5f, 2.5f, 3.5f})));
  CK(cudaDestroyTextureObject(t));
  t = make_texture(array_resource(a), cudaAddressModeBorder, cudaFilterModeLinear,
                   cudaReadModeNormalizedFloat, 0, kBorder);
  dump("short2 normalized linear",
       fetch<float2>(t, kTex1D, coords_1d({-1.0f, 0.25f, 0.8f, 1.5f, 2.2f, 2.9f, 3.5f})));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
  std::vector<char4> c4 = {make_char4(-128, 127, 0, -1), make_char4(1, 2, 3, 4)};
  a = array_of(c4, cudaCreateChannelDesc<char4>());
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModePoint,
                   cudaReadModeElementType, 0);
  dump("char4 elements", fetch<char4>(t, kTex1D, coords_1d({-1.0f, 0.5f, 1.5f, 2.5f})));
  CK(cudaDestroyTextureObject(t));
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModePoint,
                   cudaReadModeNormalizedFloat, 0);
  dump("char4 normalized", fetch<float4>(t, kTex1D, coords_1d({-1.0f, 0.5f, 1.5f, 2.5f})));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // Half floats: point and linear.
  std::vector<unsigned short> h = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x3555, 0xfbff, 0x2e66, 0x8000};
  a = array_of(h, cudaCreateChannelDescHalf());
  for (int f = 0; f < 2; ++f) {
    t = make_texture(array_resource(a), cudaAddressModeClamp,
                     f ? cudaFilterModeLinear : cudaFilterModePoint, cudaReadModeElementType, 0);
    dump(f ? "half linear" : "half point", fetch<float>(t, kTex1D, coords_1d(texel_coords(8))));
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFreeArray(a));
}

// ---- 4. linear and pitched memory --------------------------------------------------------------
static void linear_memory() {
  std::vector<float> v(10);
  for (int i = 0; i < 10; ++i) v[i] = 1.5f * float(i) - 4.0f;
  float* dv = nullptr;
  CK(cudaMalloc(&dv, 64 * sizeof(float)));
  CK(cudaMemset(dv, 0x41, 64 * sizeof(float)));
  CK(cudaMemcpy(dv, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dv;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = v.size() * sizeof(float);
  cudaTextureObject_t t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint,
                                       cudaReadModeElementType, 0);
  const std::vector<Coord> idx =
      coords_1d({-5.0f, -1.0f, 0.0f, 1.0f, 9.0f, 10.0f, 11.0f, 63.0f, 1000.0f, 134217728.0f});
  dump("tex1Dfetch float", fetch<float>(t, kFetch1D, idx));
  dump("tex1Dfetch float4 of float", fetch<float4>(t, kFetch1D, idx));
  CK(cudaDestroyTextureObject(t));
  t = make_texture(r, cudaAddressModeBorder, cudaFilterModePoint, cudaReadModeElementType, 0, kBorder);
  dump("tex1Dfetch float border", fetch<float>(t, kFetch1D, idx));
  CK(cudaDestroyTextureObject(t));
  // Bytes read as normalized floats, and as int2 pairs.
  r.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
  r.res.linear.sizeInBytes = 40;
  t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, 0);
  dump("tex1Dfetch uchar normalized",
       fetch<float>(t, kFetch1D, coords_1d({-1.0f, 0.0f, 1.0f, 2.0f, 3.0f, 39.0f, 40.0f, 41.0f})));
  CK(cudaDestroyTextureObject(t));
  r.res.linear.desc = cudaCreateChannelDesc<int2>();
  t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeElementType, 0);
  dump("tex1Dfetch int2", fetch<int2>(t, kFetch1D, coords_1d({-1.0f, 0.0f, 4.0f, 5.0f})));
  CK(cudaDestroyTextureObject(t));
  // Linear filtering on linear memory is refused or ignored.
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  cudaError_t e;
  t = make_texture(r, cudaAddressModeClamp, cudaFilterModeLinear, cudaReadModeElementType, 0, nullptr,
                   &e);
  code("linear filter on linear memory", e);
  if (e == cudaSuccess) {
    dump("tex1Dfetch float linear mode", fetch<float>(t, kFetch1D, idx));
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFree(dv));

  // Pitched 2D memory: 7x5 floats.
  const int w = 7, hgt = 5;
  float* dp = nullptr;
  size_t pitch = 0;
  CK(cudaMallocPitch(&dp, &pitch, w * sizeof(float), hgt));
  std::vector<float> img(w * hgt);
  for (float& x : img) x = random_float(-50.0f, 50.0f);
  CK(cudaMemcpy2D(dp, pitch, img.data(), w * sizeof(float), w * sizeof(float), hgt,
                  cudaMemcpyHostToDevice));
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = dp;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = w;
  r.res.pitch2D.height = hgt;
  r.res.pitch2D.pitchInBytes = pitch;
  std::vector<Coord> c;
  for (int k = 0; k < 48; ++k) c.push_back({random_float(-3.0f, 10.0f), random_float(-3.0f, 8.0f), 0, 0});
  for (int m = 0; m < 4; ++m)
    for (int f = 0; f < 2; ++f) {
      t = make_texture(r, kModes[m], f ? cudaFilterModeLinear : cudaFilterModePoint,
                       cudaReadModeElementType, m == 0 || m == 2, kBorder);
      std::vector<Coord> cc = c;
      if (m == 0 || m == 2)
        for (Coord& x : cc) {
          x.x /= w;
          x.y /= hgt;
        }
      char name[64];
      std::snprintf(name, sizeof name, "pitch2D float %s %s", kModeNames[m], f ? "linear" : "point");
      dump(name, fetch<float>(t, kTex2D, cc));
      CK(cudaDestroyTextureObject(t));
    }
  CK(cudaFree(dp));
}

// ---- 5. 2D, 3D, layered, cubemap and gathers ---------------------------------------------------
static void textures_2d_3d() {
  // A 5x4 float4 array.
  const int w = 5, hgt = 4;
  std::vector<float4> img(w * hgt);
  for (float4& x : img) {  // one call after another: argument order is unspecified
    x.x = random_float(-9, 9);
    x.y = random_float(0, 1);
    x.z = random_float(-1000, 1000);
    x.w = random_float(-1, 1);
  }
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<float4>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d4, w, hgt, cudaArrayTextureGather));
  CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), w * sizeof(float4), w * sizeof(float4), hgt,
                         cudaMemcpyHostToDevice));
  std::vector<Coord> c;
  for (float y : {-0.7f, 0.0f, 0.5f, 1.3f, 2.75f, 3.5f, 4.2f})
    for (float x : {-1.2f, 0.25f, 0.5f, 1.0f, 2.6f, 4.5f, 5.0f, 6.8f}) c.push_back({x, y, 0, 0});
  for (int m = 0; m < 4; ++m)
    for (int f = 0; f < 2; ++f)
      for (int nc = 0; nc < 2; ++nc) {
        if (!nc && (m == 0 || m == 2)) continue;  // wrap and mirror need normalized coordinates
        cudaTextureObject_t t =
            make_texture(array_resource(a), kModes[m], f ? cudaFilterModeLinear : cudaFilterModePoint,
                         cudaReadModeElementType, nc, kBorder);
        std::vector<Coord> cc = c;
        if (nc)
          for (Coord& x : cc) {
            x.x /= w;
            x.y /= hgt;
          }
        char name[64];
        std::snprintf(name, sizeof name, "tex2D float4 %s %s %s", kModeNames[m],
                      f ? "linear" : "point", nc ? "normalized" : "texels");
        dump(name, fetch<float4>(t, kTex2D, cc));
        CK(cudaDestroyTextureObject(t));
      }
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                                       cudaReadModeElementType, 0);
  std::vector<Coord> lod = c;
  for (size_t i = 0; i < lod.size(); ++i) lod[i].layer = int(i % 3);
  dump("tex2DLod float4", fetch<float4>(t, kTex2DLod, lod));
  std::vector<Coord> g;
  for (int comp = 0; comp < 4; ++comp)
    for (float y : {-0.5f, 0.5f, 1.2f, 3.9f})
      for (float x : {-0.5f, 0.0f, 1.0f, 2.7f, 5.5f}) g.push_back({x, y, 0, comp});
  dump("tex2Dgather float4", fetch<float4>(t, kTex2D, g, true));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // Gathers of an 8-bit texture, as elements.
  std::vector<uchar4> u(w * hgt);
  for (int i = 0; i < w * hgt; ++i) u[i] = make_uchar4(i, 100 + i, 200 + i, 255 - i);
  cudaChannelFormatDesc du = cudaCreateChannelDesc<uchar4>();
  CK(cudaMallocArray(&a, &du, w, hgt, cudaArrayTextureGather));
  CK(cudaMemcpy2DToArray(a, 0, 0, u.data(), w * sizeof(uchar4), w * sizeof(uchar4), hgt,
                         cudaMemcpyHostToDevice));
  t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModePoint,
                   cudaReadModeElementType, 0);
  dump("tex2Dgather uchar4", fetch<uchar4>(t, kTex2D, g, true));
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));

  // 3D: 5x4x3 floats.
  const int dz = 3;
  std::vector<float> vol(w * hgt * dz);
  for (float& x : vol) x = random_float(-20, 20);
  cudaChannelFormatDesc d1 = cudaCreateChannelDesc<float>();
  CK(cudaMalloc3DArray(&a, &d1, make_cudaExtent(w, hgt, dz)));
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(vol.data(), w * sizeof(float), w, hgt);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, hgt, dz);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  c.clear();
  for (int k = 0; k < 64; ++k)
    c.push_back({random_float(-2, 7), random_float(-2, 6), random_float(-2, 5), k % 2});
  for (int m = 0; m < 4; ++m)
    for (int f = 0; f < 2; ++f) {
      const int nc = (m == 0 || m == 2);
      t = make_texture(array_resource(a), kModes[m], f ? cudaFilterModeLinear : cudaFilterModePoint,
                       cudaReadModeElementType, nc, kBorder);
      std::vector<Coord> cc = c;
      if (nc)
        for (Coord& x : cc) {
          x.x /= w;
          x.y /= hgt;
          x.z /= dz;
        }
      char name[64];
      std::snprintf(name, sizeof name, "tex3D float %s %s", kModeNames[m], f ? "linear" : "point");
      dump(name, fetch<float>(t, kTex3D, cc));
      if (m == 1 && f == 1) dump("tex3DLod float", fetch<float>(t, kTex3DLod, cc));
      CK(cudaDestroyTextureObject(t));
    }
  CK(cudaFreeArray(a));

  // Layered: 1D (6 texels, 3 layers) and 2D (4x3, 3 layers) floats.
  std::vector<float> lay(6 * 3);
  for (size_t i = 0; i < lay.size(); ++i) lay[i] = float(i) * 1.25f - 3.0f;
  CK(cudaMalloc3DArray(&a, &d1, make_cudaExtent(6, 0, 3), cudaArrayLayered));
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(lay.data(), 6 * sizeof(float), 6, 1);
  p.dstArray = a;
  p.extent = make_cudaExtent(6, 1, 3);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  c.clear();
  for (int layer : {-1, 0, 1, 2, 3, 100})
    for (float x : {-0.5f, 0.7f, 2.5f, 5.9f, 7.0f}) c.push_back({x, 0, 0, layer});
  for (int f = 0; f < 2; ++f) {
    t = make_texture(array_resource(a), cudaAddressModeClamp,
                     f ? cudaFilterModeLinear : cudaFilterModePoint, cudaReadModeElementType, 0);
    dump(f ? "tex1DLayered linear" : "tex1DLayered point", fetch<float>(t, kTex1DLayered, c));
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFreeArray(a));
  lay.resize(4 * 3 * 3);
  for (size_t i = 0; i < lay.size(); ++i) lay[i] = float(i * i) * 0.5f - 7.0f;
  CK(cudaMalloc3DArray(&a, &d1, make_cudaExtent(4, 3, 3), cudaArrayLayered));
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(lay.data(), 4 * sizeof(float), 4, 3);
  p.dstArray = a;
  p.extent = make_cudaExtent(4, 3, 3);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  c.clear();
  for (int layer : {-1, 0, 2, 3})
    for (float y : {-0.4f, 1.5f, 2.8f})
      for (float x : {-0.5f, 0.7f, 2.5f, 4.2f}) c.push_back({x, y, 0, layer});
  for (int f = 0; f < 2; ++f) {
    t = make_texture(array_resource(a), cudaAddressModeBorder,
                     f ? cudaFilterModeLinear : cudaFilterModePoint, cudaReadModeElementType, 0,
                     kBorder);
    dump(f ? "tex2DLayered linear" : "tex2DLayered point", fetch<float>(t, kTex2DLayered, c));
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFreeArray(a));
}

static void cubemaps() {
  // Six faces of 4x4 floats; face f, texel (x, y) holds f * 100 + y * 10 + x.
  const int n = 4;
  std::vector<float> faces(n * n * 6 * 2);
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < 6; ++f)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
          faces[((l * 6 + f) * n + y) * n + x] = float(l * 1000 + f * 100 + y * 10 + x);
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  std::vector<Coord> dirs = {{1, 0, 0, 0},     {-1, 0, 0, 0},    {0, 1, 0, 0},
                             {0, -1, 0, 0},    {0, 0, 1, 0},     {0, 0, -1, 0},
                             {1, 1, 0, 0},     {1, -1, 0, 0},    {-1, 1, 0, 0},
                             {0, 1, 1, 0},     {0, -1, -1, 0},   {1, 0, 1, 0},
                             {-1, 0, -1, 0},   {1, 1, 1, 0},     {-1, -1, -1, 0},
                             {0.5f, 0.9f, -0.3f, 0}, {-0.0f, 0, 1, 0}, {0, 0, -0.0f, 0},
                             {0, 0, 0, 0},     {2, 0.5f, -0.25f, 0}, {0.999f, 1, 0.2f, 0},
                             {-3, 2.9f, 2.95f, 0}, {0.1f, -0.2f, 0.9f, 0}, {-0.6f, 0.7f, 0.05f, 0}};
  for (int k = 0; k < 40; ++k)
    dirs.push_back({random_float(-1, 1), random_float(-1, 1), random_float(-1, 1), k % 3 - (k % 5 == 4)});
  for (int layered = 0; layered < 2; ++layered) {
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &d, make_cudaExtent(n, n, 6 * (layered + 1)),
                         cudaArrayCubemap | (layered ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(faces.data(), n * sizeof(float), n, n);
    p.dstArray = a;
    p.extent = make_cudaExtent(n, n, 6 * (layered + 1));
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    for (int f = 0; f < 2; ++f) {
      cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp,
                                           f ? cudaFilterModeLinear : cudaFilterModePoint,
                                           cudaReadModeElementType, 1);
      char name[64];
      std::snprintf(name, sizeof name, "%s %s", layered ? "texCubemapLayered" : "texCubemap",
                    f ? "linear" : "point");
      dump(name, fetch<float>(t, layered ? kCubemapLayered : kCubemap, dirs));
      CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFreeArray(a));
  }
}

// ---- 6. surfaces --------------------------------------------------------------------------------
__global__ void surface_write_2d(cudaSurfaceObject_t s, int w, int h) {
  const int x = threadIdx.x, y = threadIdx.y;
  if (x < w && y < h) surf2Dwrite(float(y * 10 + x) + 0.5f, s, x * 4, y);
}
__global__ void surface_edges_2d(cudaSurfaceObject_t s) {
  surf2Dwrite(-1.0f, s, -4, 1, cudaBoundaryModeClamp);   // to x = 0
  surf2Dwrite(-2.0f, s, 400, 2, cudaBoundaryModeClamp);  // to the last column
  surf2Dwrite(-3.0f, s, 4, 99, cudaBoundaryModeClamp);   // to the last row
  surf2Dwrite(-4.0f, s, 400, 0, cudaBoundaryModeZero);   // dropped
  surf2Dwrite(-5.0f, s, 8, -1, cudaBoundaryModeZero);    // dropped
}
__global__ void surface_read_2d(cudaSurfaceObject_t s, const int2* at, float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  const int2 p = at[i];
  out[2 * i] = surf2Dread<float>(s, p.x, p.y, cudaBoundaryModeZero);
  out[2 * i + 1] = surf2Dread<float>(s, p.x, p.y, cudaBoundaryModeClamp);
}
__global__ void surface_1d_3d_layered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3,
                                      cudaSurfaceObject_t sl, cudaSurfaceObject_t su,
                                      cudaSurfaceObject_t sc) {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  if (y == 0 && z == 0) surf1Dwrite(int2{x, -x}, s1, x * 8);
  surf3Dwrite(float(x + 10 * y + 100 * z), s3, x * 4, y, z);
  surf2DLayeredwrite(short(x - 10 * y - 100 * z), sl, x * 2, y, z);
  if (z == 0) surf2Dwrite(make_uchar4(x, y, x + y, 255), su, x * 4, y);
  if (x < 4 && y == 0 && z == 0)
    for (int face = 0; face < 6; ++face)
      for (int row = 0; row < 4; ++row)
        surfCubemapwrite(float(1000 * face + 10 * row + x), sc, x * 4, row, face);
}
__global__ void surface_read_back(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3,
                                  cudaSurfaceObject_t sl, cudaSurfaceObject_t su,
                                  cudaSurfaceObject_t sc, int* out) {
  const int x = threadIdx.x;  // 0..7
  int k = x * 12;
  const int2 a = surf1Dread<int2>(s1, x * 8 - 8, cudaBoundaryModeClamp);
  out[k++] = a.x;
  out[k++] = a.y;
  out[k++] = surf1Dread<int2>(s1, x * 8 - 8, cudaBoundaryModeZero).y;
  out[k++] = __float_as_int(surf3Dread<float>(s3, x * 4 - 4, x % 3, x / 3, cudaBoundaryModeZero));
  out[k++] = __float_as_int(surf3Dread<float>(s3, x * 4, x - 1, 5, cudaBoundaryModeClamp));
  out[k++] = surf2DLayeredread<short>(sl, x * 2, 1, x % 4, cudaBoundaryModeZero);
  out[k++] = surf2DLayeredread<short>(sl, x * 2 - 2, 9, 2, cudaBoundaryModeClamp);
  const uchar4 u = surf2Dread<uchar4>(su, x * 4, x - 1, cudaBoundaryModeZero);
  out[k++] = u.x | u.y << 8 | u.z << 16 | u.w << 24;
  float f;
  surf2Dread(&f, su, x * 4, 1);
  out[k++] = __float_as_int(f);
  out[k++] = __float_as_int(surfCubemapread<float>(sc, x * 4 % 16, x / 4, x % 6));
  out[k++] = surf2Dread<int>(su, x * 4 + 4, 2, cudaBoundaryModeClamp);
  out[k++] = 0;
}

static cudaSurfaceObject_t make_surface(cudaArray_t a) {
  cudaResourceDesc r = array_resource(a);
  cudaSurfaceObject_t s = 0;
  CK(cudaCreateSurfaceObject(&s, &r));
  return s;
}

static void surfaces() {
  const int w = 6, h = 4;
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &d, w, h, cudaArraySurfaceLoadStore));
  cudaSurfaceObject_t s = make_surface(a);
  surface_write_2d<<<1, dim3(8, 8)>>>(s, w, h);
  CK(cudaGetLastError());
  surface_edges_2d<<<1, 1>>>(s);
  CK(cudaDeviceSynchronize());
  std::vector<float> img(w * h);
  CK(cudaMemcpy2DFromArray(img.data(), w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                           cudaMemcpyDeviceToHost));
  dump("surface 2D written", img);
  std::vector<int2> at = {{0, 0}, {4, 0}, {20, 3}, {24, 3}, {-4, 0}, {-8, 1}, {0, -1},
                          {100, 100}, {-100, -100}, {8, 4}, {20, 2}};
  int2* dat = nullptr;
  float* dout = nullptr;
  CK(cudaMalloc(&dat, at.size() * sizeof(int2)));
  CK(cudaMalloc(&dout, 2 * at.size() * sizeof(float)));
  CK(cudaMemcpy(dat, at.data(), at.size() * sizeof(int2), cudaMemcpyHostToDevice));
  surface_read_2d<<<1, 32>>>(s, dat, dout, int(at.size()));
  CK(cudaDeviceSynchronize());
  std::vector<float> rd(2 * at.size());
  CK(cudaMemcpy(rd.data(), dout, rd.size() * sizeof(float), cudaMemcpyDeviceToHost));
  dump("surface 2D reads zero,clamp", rd);
  // A texture over the array the surface wrote.
  cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear,
                                       cudaReadModeElementType, 0);
  dump("texture of surface", fetch<float>(t, kTex2D, {{0.5f, 0.5f, 0, 0}, {1.25f, 2.75f, 0, 0},
                                                      {5.9f, 3.9f, 0, 0}}));
  CK(cudaDestroyTextureObject(t));
  CK(cudaDestroySurfaceObject(s));
  CK(cudaFree(dat));
  CK(cudaFree(dout));
  CK(cudaFreeArray(a));

  // 1D int2, 3D float, 2D layered short, 2D uchar4, cubemap float.
  cudaChannelFormatDesc di2 = cudaCreateChannelDesc<int2>(), ds = cudaCreateChannelDesc<short>(),
                        du = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a1, a3, al, au, ac;
  CK(cudaMallocArray(&a1, &di2, 8, 0, cudaArraySurfaceLoadStore));
  CK(cudaMalloc3DArray(&a3, &d, make_cudaExtent(8, 3, 3), cudaArraySurfaceLoadStore));
  CK(cudaMalloc3DArray(&al, &ds, make_cudaExtent(8, 3, 3), cudaArraySurfaceLoadStore | cudaArrayLayered));
  CK(cudaMallocArray(&au, &du, 8, 3, cudaArraySurfaceLoadStore));
  CK(cudaMalloc3DArray(&ac, &d, make_cudaExtent(4, 4, 6), cudaArraySurfaceLoadStore | cudaArrayCubemap));
  cudaSurfaceObject_t s1 = make_surface(a1), s3 = make_surface(a3), sl = make_surface(al),
                      su = make_surface(au), sc = make_surface(ac);
  surface_1d_3d_layered<<<1, dim3(8, 3, 3)>>>(s1, s3, sl, su, sc);
  CK(cudaGetLastError());
  int* dres = nullptr;
  CK(cudaMalloc(&dres, 8 * 12 * sizeof(int)));
  CK(cudaMemset(dres, 0, 8 * 12 * sizeof(int)));
  surface_read_back<<<1, 8>>>(s1, s3, sl, su, sc, dres);
  CK(cudaDeviceSynchronize());
  std::vector<int> res(8 * 12);
  CK(cudaMemcpy(res.data(), dres, res.size() * sizeof(int), cudaMemcpyDeviceToHost));
  dump("surface reads", res);
  std::vector<short> layers(8 * 3 * 3);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcArray = al;
  p.dstPtr = make_cudaPitchedPtr(layers.data(), 8 * sizeof(short), 8, 3);
  p.extent = make_cudaExtent(8, 3, 3);
  p.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&p));
  dump("surface layered copy out", layers);
  for (cudaSurfaceObject_t x : {s1, s3, sl, su, sc}) CK(cudaDestroySurfaceObject(x));
  for (cudaArray_t x : {a1, a3, al, au, ac}) CK(cudaFreeArray(x));

  // A surface over an array without cudaArraySurfaceLoadStore.
  CK(cudaMallocArray(&a, &d, 4, 4));
  cudaResourceDesc r = array_resource(a);
  code("surface without the flag", cudaCreateSurfaceObject(&s, &r));
  CK(cudaFreeArray(a));
}

static void object_errors() {
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  cudaTextureObject_t t = 0;
  code("texture of no resource", cudaCreateTextureObject(&t, nullptr, &td, nullptr));
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  code("texture of a null array", cudaCreateTextureObject(&t, &r, &td, nullptr));
  float* dv = nullptr;
  CK(cudaMalloc(&dv, 256));
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dv;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 256;
  code("texture without a description", cudaCreateTextureObject(&t, &r, nullptr, nullptr));
  r.res.linear.devPtr = reinterpret_cast<char*>(dv) + 4;
  code("linear memory not aligned", cudaCreateTextureObject(&t, &r, &td, nullptr));
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = dv;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = 4;
  r.res.pitch2D.height = 2;
  r.res.pitch2D.pitchInBytes = 20;
  code("pitch not aligned", cudaCreateTextureObject(&t, &r, &td, nullptr));
  CK(cudaFree(dv));
  code("destroy texture 0", cudaDestroyTextureObject(0));
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  channel_descs();
  array_copies();
  textures_1d();
  integer_channels();
  linear_memory();
  textures_2d_3d();
  cubemaps();
  surfaces();
  object_errors();
  blend_sweeps();
  std::printf("done\n");
  return 0;
}

// The tests of this program (tests/lit/README.md): the simulator's results,
// value for value, against an H100's (data/textures_gpu.txt); on a GPU the
// program prints that file itself.
// BUILD:
// TEST: unit.textures_match_gpu
// LABELS: unit
// RUN: %bin > textures_sim.txt
// RUN: %python %S/compare_textures.py textures_sim.txt %data/textures_gpu.txt
//
// TEST: gpu.textures_match_expected
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu > textures_gpu_now.txt
// RUN: diff textures_gpu_now.txt %data/textures_gpu.txt
