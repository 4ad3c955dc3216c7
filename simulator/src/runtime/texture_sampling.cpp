// The sampling behind every texture fetch, as an H100 does it: address
// modes, point and linear filtering with the GPU's 8-bit fractional
// weights, normalized reads of integer channels, layers and cubemap faces
// (measured against an H100 with tests/programs/textures.cu). The objects
// are textures.cpp's (texture_objects.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cudalab/detail/half.h"
#include "cudalab/texture.h"
#include "cudalab/trace/format.h"
#include "grid/grid.h"
#include "runtime/texture_objects.h"

using cudalab::detail::TexOp;
using cudalab::detail::TexRequest;
using cudalab::detail::TexResult;
using cudalab::rt::filter_units;
using cudalab::rt::float_bits;
using cudalab::rt::Format;
using cudalab::rt::is_integer_format;
using cudalab::rt::Object;
using cudalab::rt::object_in_kernel;
using cudalab::rt::Resource;

namespace {
// One texel's channels: the register values (element reads) and their
// values as floats (for filtering).
struct Texel {
  uint32_t reg[4];
  double value[4];
};

float normalized(int64_t v, int bits, bool is_signed) {
  if (is_signed) {
    const float max = float((int64_t(1) << (bits - 1)) - 1);
    return std::max(float(v) / max, -1.0f);
  }
  return float(v) / float((int64_t(1) << bits) - 1);
}

// A blend of signed 8-bit texels, sum = the weights (in 1/256) times the
// texels, in 16-bit units, as an H100 widens it: sum + sum * 257 / 2^15
// with sum's low 4 bits dropped and the product rounded (every pair of
// values at 32 weights and 1,024 pairs at all 256 weights matched).
int64_t widen_signed_8_bit(int64_t sum) { return sum + (((sum >> 4) * 257 + 1024) >> 11); }
bool normalized_integers(const Object& o) {
  return o.tex.readMode == cudaReadModeNormalizedFloat && is_integer_format(o.res.desc);
}

// One channel's register value and, when filtering, its value to blend.
template <bool kValues>
inline void read_channel(const Object& o, const unsigned char* q, Texel& t, int c) {
  int64_t v;
  switch (o.format) {
    case Format::f32: {
      float f;
      std::memcpy(&f, q, 4);
      t.reg[c] = float_bits(f);
      if constexpr (kValues) t.value[c] = f;
      return;
    }
    case Format::f16: {
      uint16_t h;
      std::memcpy(&h, q, 2);
      const float f = cudalab::detail::half_bits_to_float(h);
      t.reg[c] = float_bits(f);
      if constexpr (kValues) t.value[c] = f;
      return;
    }
    case Format::s8:
      v = int8_t(*q);
      break;
    case Format::u8:
      v = *q;
      break;
    case Format::s16: {
      int16_t x;
      std::memcpy(&x, q, 2);
      v = x;
      break;
    }
    case Format::u16: {
      uint16_t x;
      std::memcpy(&x, q, 2);
      v = x;
      break;
    }
    case Format::s32: {
      int32_t x;
      std::memcpy(&x, q, 4);
      v = x;
      break;
    }
    default: {
      uint32_t x;
      std::memcpy(&x, q, 4);
      v = x;
      break;
    }
  }
  if (o.normalized_read) {
    const bool is_signed = o.res.desc.f == cudaChannelFormatKindSigned;
    t.reg[c] = float_bits(normalized(v, o.res.desc.x, is_signed));
    if constexpr (kValues) t.value[c] = filter_units(v, o.res.desc.x, is_signed);
  } else {
    t.reg[c] = uint32_t(v);
    if constexpr (kValues) t.value[c] = double(v);
  }
}

template <bool kValues = true>
Texel read_texel(const Object& o, const unsigned char* p) {
  Texel t;
  std::memset(&t, 0, sizeof t);  // channels the format lacks read as 0
  for (int c = 0; c < o.channels; ++c) read_channel<kValues>(o, p + c * o.channel_bytes, t, c);
  return t;
}

Texel border_texel(const Object& o) {
  Texel t{};
  for (int c = 0; c < 4; ++c) {
    t.reg[c] = o.border[c];
    t.value[c] = o.border_units[c];
  }
  return t;
}

// An index along one axis of `size` texels after the address mode; -1 for
// the border.
int64_t address(int64_t i, int64_t size, cudaTextureAddressMode mode, bool normalized_coords) {
  if (i >= 0 && i < size) return i;
  switch (mode) {
    case cudaAddressModeBorder:
      return -1;
    case cudaAddressModeWrap:
      if (normalized_coords) return ((i % size) + size) % size;
      break;
    case cudaAddressModeMirror:
      if (normalized_coords) {
        const int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
        return m < size ? m : 2 * size - 1 - m;
      }
      break;
    default:
      break;
  }
  return std::clamp<int64_t>(i, 0, size - 1);
}

int64_t floor_index(double v) {
  if (!(v == v)) return 0;  // NaN
  if (v >= 4.0e18) return int64_t(4.0e18);
  if (v <= -4.0e18) return int64_t(-4.0e18);
  const int64_t i = int64_t(v);
  return double(i) > v ? i - 1 : i;
}

// A float rounded from an exact sum, halfway cases away from zero, as the
// GPU's filter rounds.
float round_half_away(double e) {
  float r = float(e);  // to nearest, ties to even
  const double a = std::fabs(e);
  if (a >= 1.1754943508222875e-38 && a < 3.4028234663852886e+38) {
    // A tie has exactly the bit below a float's last one set in the
    // double's mantissa, and none under it.
    uint64_t b;
    std::memcpy(&b, &e, 8);
    if ((b & 0x1FFFFFFFu) != 0x10000000u) return r;
  } else if (!std::isfinite(e) || a == 0) {
    return r;
  }
  if (std::fabs(double(r)) < a) r = std::nextafter(r, e < 0 ? -INFINITY : INFINITY);
  return r;
}

// An exact sum rounded to the nearest half-precision value (halfway cases
// away from zero), as a float.
float round_to_half(double e) {
  if (!std::isfinite(e) || e == 0) return float(e);
  const double a = std::fabs(e);
  int exp = 0;
  std::frexp(a, &exp);                              // a = m * 2^exp, m in [0.5, 1)
  const int quantum_exp = std::max(exp - 11, -24);  // 11 significant bits, subnormals below 2^-14
  const double q = std::ldexp(1.0, quantum_exp);
  double r = std::floor(a / q + 0.5) * q;
  r = std::min(r, 65504.0);
  return float(e < 0 ? -r : r);
}

// The filter adds float texels in fixed point aligned to the largest of
// them (of the taps it weights), keeping 27 bits below its leading one:
// the smaller texels lose their lowest bits (toward zero).
void align_to_largest(double* v, const int* w, int taps) {
  double largest = 0;
  for (int k = 0; k < taps; ++k)
    if (w[k]) largest = std::max(largest, std::fabs(v[k]));
  // The leading one's exponent, read from the double's bits (texels are
  // floats: normal doubles, well inside the range used below).
  uint64_t bits;
  std::memcpy(&bits, &largest, 8);
  const int exp = int((bits >> 52) & 0x7FF) - 1023;
  if (largest == 0 || exp > 127 + 1) return;  // zero, infinity or NaN
  uint64_t q_bits = uint64_t(exp - 27 + 1023) << 52, inv_bits = uint64_t(27 - exp + 1023) << 52;
  double quantum, inverse;
  std::memcpy(&quantum, &q_bits, 8);
  std::memcpy(&inverse, &inv_bits, 8);
  for (int k = 0; k < taps; ++k)
    if (w[k]) v[k] = double(int64_t(v[k] * inverse)) * quantum;  // toward zero, exactly
}

// floor() without a call into the C library (the coordinates a fetch
// works with are far inside int64's range once clamped).
inline double fast_floor(double v) {
  if (!(std::fabs(v) < 4.0e15)) return std::floor(v);
  const double t = double(int64_t(v));
  return t > v ? t - 1 : t;
}

struct Axis {
  int64_t i0;
  int weight;  // of i0 + 1, in 1/256
};
// The texel below the sample point and the weight of the one above.
Axis linear_axis(double scaled) {
  if (std::isnan(scaled)) scaled = 0;
  const double b = scaled - 0.5;
  const double fl = fast_floor(b);
  const int w = int(fast_floor((b - fl) * 256.0 + 0.5));
  return Axis{floor_index(fl), w};
}

class Sampler {
 public:
  Sampler(const Object& o, int layer_or_face) : o_(o), layer_(layer_or_face) {}

  // The texel at (x, y, z) after the address modes, or the border.
  template <bool kValues = true>
  Texel texel(int64_t x, int64_t y, int64_t z) const {
    const Resource& r = o_.res;
    const bool nc = o_.tex.normalizedCoords;
    x = address(x, int64_t(r.width), o_.tex.addressMode[0], nc);
    y = address(y, dims_ >= 2 ? int64_t(r.height) : 1, o_.tex.addressMode[1], nc);
    if (dims_ >= 3) z = address(z, int64_t(r.depth), o_.tex.addressMode[2], nc);
    if (x < 0 || y < 0 || z < 0) return border_texel(o_);
    const size_t slice = layer_ >= 0 ? size_t(layer_) : size_t(z);
    return read_texel<kValues>(
        o_, r.base + slice * r.slice + size_t(y) * r.pitch + size_t(x) * r.element);
  }

  TexResult point(const float c[3]) const {
    int64_t i[3] = {0, 0, 0};
    for (int a = 0; a < dims_; ++a) i[a] = floor_index(scaled(c[a], a));
    const Texel t = texel<false>(i[0], i[1], i[2]);
    TexResult out;
    std::memcpy(out.v, t.reg, sizeof out.v);
    return out;
  }

  TexResult linear(const float c[3]) const {
    Axis ax[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int a = 0; a < dims_; ++a) {
      double t = scaled(c[a], a);
      if (dims_ == 3 && o_.tex.addressMode[a] == cudaAddressModeClamp) {
        const Resource& r = o_.res;
        const double n = double(a == 0 ? r.width : a == 1 ? r.height : r.depth);
        t = std::clamp(t, 0.5, n - 0.5);
      }
      ax[a] = linear_axis(t);
    }
    // A GPU filters a 1D texture as a 2D one of one row sampled at y = 0:
    // half from the row above it, which the address mode maps to row 0 or
    // to the border.
    const int dims = dims_ == 1 ? 2 : dims_;
    if (dims_ == 1) ax[1] = linear_axis(0.0);
    const int taps = 1 << dims;
    int w[8];
    weights(ax, dims, w);
    double values[8][4];
    for (int k = 0; k < taps; ++k) {
      if (w[k] == 0) continue;
      const Texel t = texel(ax[0].i0 + (k & 1), ax[1].i0 + ((k >> 1) & 1), ax[2].i0 + (k >> 2));
      std::copy(t.value, t.value + 4, values[k]);
    }
    const bool floats = o_.res.desc.f == cudaChannelFormatKindFloat;
    double sum[4] = {-0.0, -0.0, -0.0, -0.0};  // -0 stays -0, as on a GPU
    for (int ch = 0; ch < 4; ++ch) {
      double v[8];
      for (int k = 0; k < taps; ++k) v[k] = w[k] ? values[k][ch] : 0.0;
      if (floats) align_to_largest(v, w, taps);
      for (int k = 0; k < taps; ++k)
        if (w[k]) sum[ch] += double(w[k]) / 256.0 * v[k];
    }
    TexResult out;
    if (normalized_integers(o_)) {
      // Normalized integers blend as 16-bit integers, rounded half up (signed
      // 8-bit ones as 8-bit integers, then widened).
      const bool is_signed = o_.res.desc.f == cudaChannelFormatKindSigned;
      const bool signed_8_bit = is_signed && o_.res.desc.x == 8;
      const double den = is_signed ? 32767.0 : 65535.0;
      for (int ch = 0; ch < 4; ++ch) {
        const double k = signed_8_bit ? double(widen_signed_8_bit(int64_t(sum[ch] * 256.0)))
                                      : std::floor(sum[ch] + 0.5);
        out.v[ch] = float_bits(std::max(float(k / den), -1.0f));
      }
      return out;
    }
    const bool half = o_.res.desc.f == cudaChannelFormatKindFloat && o_.res.desc.x == 16;
    for (int ch = 0; ch < 4; ++ch) {
      const float f = round_half_away(sum[ch]);
      // Half floats filter to half precision.
      out.v[ch] = float_bits(half ? round_to_half(sum[ch]) : f);
    }
    return out;
  }

  TexResult gather(const float c[2], int comp) const {
    const Axis ax = linear_axis(scaled(c[0], 0)), ay = linear_axis(scaled(c[1], 1));
    const int64_t xs[4] = {ax.i0, ax.i0 + 1, ax.i0 + 1, ax.i0};
    const int64_t ys[4] = {ay.i0 + 1, ay.i0 + 1, ay.i0, ay.i0};
    TexResult out;
    for (int k = 0; k < 4; ++k) out.v[k] = texel(xs[k], ys[k], 0).reg[comp & 3];
    return out;
  }

  void set_dims(int d) { dims_ = d; }

 private:
  // A coordinate in texels.
  double scaled(float v, int axis) const {
    if (!o_.tex.normalizedCoords) return v;
    const Resource& r = o_.res;
    const size_t n = axis == 0 ? r.width : axis == 1 ? r.height : r.depth;
    // The GPU keeps a normalized coordinate as a fixed-point number with 21
    // fractional bits (rounded down), then scales it exactly.
    const double fixed = fast_floor(double(v) * 2097152.0) / 2097152.0;
    return fixed * double(n);
  }

  // The weights of the 2^dims taps in 1/256 (tap k: x + 2y + 4z), as an
  // H100 rounds them. In 2D, the products of the axes' weights rounded to
  // 1/256, halfway cases up for the (0,0) and (1,1) taps and down for the
  // others. In 3D, the x-z products are rounded that way (halfway cases up
  // where x is 1), and each is then split between the two rows in y: the
  // share of y = 1 rounded (halfway up where x is 1), the rest to y = 0.
  static void weights(const Axis ax[3], int dims, int w[8]) {
    const auto up = [](int p) { return (p + 128) >> 8; };
    const auto down = [](int p) { return (p + 127) >> 8; };
    if (dims == 2) {
      const int x1 = ax[0].weight, x0 = 256 - x1, y1 = ax[1].weight, y0 = 256 - y1;
      w[0] = up(x0 * y0);
      w[1] = down(x1 * y0);
      w[2] = down(x0 * y1);
      w[3] = up(x1 * y1);
      return;
    }
    const int x1 = ax[0].weight, x0 = 256 - x1, z1 = ax[2].weight, z0 = 256 - z1;
    const int xz[4] = {down(x0 * z0), up(x1 * z0), down(x0 * z1), up(x1 * z1)};
    for (int k = 0; k < 4; ++k) {
      const int x = k & 1, z = k >> 1;
      const int share = xz[k] * ax[1].weight;
      const int hi = x ? up(share) : down(share);
      w[x + 4 * z] = xz[k] - hi;
      w[x + 2 + 4 * z] = hi;
    }
  }

  const Object& o_;
  int layer_;
  int dims_ = 1;
};

// Which face of a cube a direction points at, and where on it (normalized
// coordinates), as the CUDA Programming Guide's cubemap table says. On ties
// z wins over y and y over x (as an H100 picks); a zero direction reads the
// centre of the +z face.
int cube_face(float x, float y, float z, float* u, float* v) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  int face;
  float s, t, m;
  if (az >= ax && az >= ay) {
    face = z >= 0 ? 4 : 5;
    m = az;
    s = z >= 0 ? x : -x;
    t = -y;
  } else if (ay >= ax) {
    face = y >= 0 ? 2 : 3;
    m = ay;
    s = x;
    t = y >= 0 ? z : -z;
  } else {
    face = x >= 0 ? 0 : 1;
    m = ax;
    s = x >= 0 ? -z : z;
    t = -y;
  }
  float sm = s / m, tm = t / m;
  if (std::isnan(sm)) sm = 0;
  if (std::isnan(tm)) tm = 0;
  *u = (sm + 1.0f) * 0.5f;
  *v = (tm + 1.0f) * 0.5f;
  return face;
}

// The texel of a 2D texture at (x, y), after the address modes; nullptr
// for the border.
inline const unsigned char* texel_2d(const Object& o, int64_t x, int64_t y) {
  const Resource& r = o.res;
  const bool nc = o.tex.normalizedCoords;
  x = address(x, int64_t(r.width), o.tex.addressMode[0], nc);
  y = address(y, int64_t(r.height), o.tex.addressMode[1], nc);
  if (x < 0 || y < 0) return nullptr;
  return r.base + size_t(y) * r.pitch + size_t(x) * r.element;
}

inline double texels_2d(const Object& o, float v, int axis) {
  if (!o.tex.normalizedCoords) return v;
  const double fixed = fast_floor(double(v) * 2097152.0) / 2097152.0;
  return fixed * double(axis == 0 ? o.res.width : o.res.height);
}

TexResult fast_point_2d(const Object& o, float fx, float fy) {
  const unsigned char* p =
      texel_2d(o, floor_index(texels_2d(o, fx, 0)), floor_index(texels_2d(o, fy, 1)));
  TexResult out;
  if (!p) {
    std::memcpy(out.v, o.border, sizeof out.v);
    return out;
  }
  const Texel t = read_texel<false>(o, p);
  std::memcpy(out.v, t.reg, sizeof out.v);
  return out;
}

// Linear filtering of 32-bit floats: the same arithmetic as
// Sampler::linear, without its generality.
TexResult fast_linear_2d(const Object& o, float fx, float fy) {
  const Axis ax = linear_axis(texels_2d(o, fx, 0)), ay = linear_axis(texels_2d(o, fy, 1));
  const int x1 = ax.weight, x0 = 256 - x1, y1 = ay.weight, y0 = 256 - y1;
  const int w[4] = {(x0 * y0 + 128) >> 8, (x1 * y0 + 127) >> 8, (x0 * y1 + 127) >> 8,
                    (x1 * y1 + 128) >> 8};
  double sum[4] = {-0.0, -0.0, -0.0, -0.0};
  const int n = o.channels;
  double values[4][4];
  const Resource& r = o.res;
  const bool nc = o.tex.normalizedCoords;
  // Each axis's two indices after the address mode (-1: the border).
  const int64_t xs[2] = {address(ax.i0, int64_t(r.width), o.tex.addressMode[0], nc),
                         address(ax.i0 + 1, int64_t(r.width), o.tex.addressMode[0], nc)};
  const int64_t ys[2] = {address(ay.i0, int64_t(r.height), o.tex.addressMode[1], nc),
                         address(ay.i0 + 1, int64_t(r.height), o.tex.addressMode[1], nc)};
  for (int k = 0; k < 4; ++k) {
    if (w[k] == 0) continue;
    const int64_t x = xs[k & 1], y = ys[k >> 1];
    const unsigned char* p =
        x < 0 || y < 0 ? nullptr : r.base + size_t(y) * r.pitch + size_t(x) * r.element;
    for (int c = 0; c < n; ++c) {
      float v;
      if (p)
        std::memcpy(&v, p + 4 * c, 4);
      else
        std::memcpy(&v, &o.border[c], 4);
      values[c][k] = v;
    }
  }
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k < 4; ++k)
      if (!w[k]) values[c][k] = 0;
    align_to_largest(values[c], w, 4);
    for (int k = 0; k < 4; ++k)
      if (w[k]) sum[c] += double(w[k]) * (1.0 / 256.0) * values[c][k];
  }
  TexResult out;
  for (int c = 0; c < 4; ++c) out.v[c] = c < n ? float_bits(round_half_away(sum[c])) : 0u;
  return out;
}

}  // namespace

TexResult cudalab::detail::texture_fetch(unsigned long long handle, const TexRequest& q) {
  cudalab::rt::note_launch_use(cudalab::trace::kUsesTextures);
  const Object& o = *object_in_kernel(handle, false);
  const Resource& r = o.res;
  TexResult zero{{0, 0, 0, 0}};
  if (q.op == TexOp::fetch1d) {
    if (r.kind != Resource::linear) return zero;
    if (q.index < 0 || size_t(q.index) >= r.width) return zero;
    const Texel t = read_texel<false>(o, r.base + size_t(q.index) * r.element);
    TexResult out;
    std::memcpy(out.v, t.reg, sizeof out.v);
    return out;
  }
  if (r.kind == Resource::linear) return zero;
  // The common cases first: 2D textures of one image (what image filters
  // read), point sampled, or linearly filtered when they hold floats.
  if (q.op == TexOp::sample && q.dims == 2 && q.layer < 0 && r.dims == 2 && !r.layered &&
      !r.cubemap) {
    if (o.tex.filterMode == cudaFilterModePoint) return fast_point_2d(o, q.x, q.y);
    if (o.format == Format::f32) return fast_linear_2d(o, q.x, q.y);
  }
  int layer = -1;
  float c[3] = {q.x, q.y, q.z};
  int dims = q.dims;
  if (q.op == TexOp::cubemap) {
    const int face = cube_face(q.x, q.y, q.z, &c[0], &c[1]);
    const int layers = int(r.depth / 6);
    const int l = q.layer == -1 && !r.layered
                      ? 0
                      : int(std::min<uint32_t>(uint32_t(q.layer), uint32_t(layers) - 1));
    layer = l * 6 + face;
    dims = 2;
    // Cubemap coordinates are normalized whatever the description says.
    Object cube = o;
    cube.tex.normalizedCoords = 1;
    cube.tex.addressMode[0] = cube.tex.addressMode[1] = cudaAddressModeClamp;
    Sampler s(cube, layer);
    s.set_dims(2);
    return o.tex.filterMode == cudaFilterModeLinear ? s.linear(c) : s.point(c);
  }
  // A layer index is unsigned to the GPU and clamped: -1 is the last layer.
  if (q.layer >= 0 || r.layered)
    layer = int(std::min<uint32_t>(uint32_t(q.layer), uint32_t(r.depth) - 1));
  Sampler s(o, layer);
  s.set_dims(dims);
  if (q.op == TexOp::gather) return s.gather(c, q.comp);
  return o.tex.filterMode == cudaFilterModeLinear ? s.linear(c) : s.point(c);
}
