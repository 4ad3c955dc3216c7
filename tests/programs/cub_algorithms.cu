// CUB on the simulator and on a GPU: block-, warp- and device-wide
// algorithms on awkward inputs (negative keys, floats whose sums depend on
// the order of additions, partial tiles, runs, empty segments). Each line is
// a result the H100 printed too (tests/data/cub_gpu.txt, Debian's CUB 1.17
// as the simulator uses); each also says whether it equals a CPU reference
// ("ok"), where the CPU can compute the same thing exactly.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#define CK(call) check((call), #call, __LINE__)
static void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    std::printf("line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    std::exit(1);
  }
}

static uint32_t g_seed = 2024;
static uint32_t next_random() {
  g_seed = g_seed * 1664525u + 1013904223u;
  return g_seed >> 7;
}

// FNV-1a over the bits of a result too long to print.
template <class T>
static uint32_t hash_of(const T* v, size_t n) {
  uint32_t h = 2166136261u;
  const auto* b = reinterpret_cast<const unsigned char*>(v);
  for (size_t i = 0; i < n * sizeof(T); ++i) h = (h ^ b[i]) * 16777619u;
  return h;
}

template <class T>
static void print_values(const char* name, const T* v, size_t n, size_t shown, bool ok) {
  std::printf("%s [%s]:", name, ok ? "ok" : "DIFFERS FROM THE CPU");
  for (size_t i = 0; i < std::min(n, shown); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      std::printf(" %a", double(v[i]));
    else
      std::printf(" %lld", static_cast<long long>(v[i]));
  }
  if (n > shown) std::printf(" ... hash %08x", hash_of(v, n));
  std::printf("\n");
}

template <class T>
static T* managed(size_t n) {
  T* p = nullptr;
  CK(cudaMallocManaged(&p, std::max<size_t>(n, 1) * sizeof(T)));
  return p;
}

// ---- block and warp collectives --------------------------------------------------------
constexpr int kThreads = 128;
constexpr int kItems = 4;
constexpr int kTile = kThreads * kItems;

// Operators of our own: CUB's (cub::Sum, cub::Inequality) are gone from
// CUDA 13's CUB, which the GPU build of this file may use.
struct Max {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return b > a ? b : a;
  }
};
struct Plus {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct NotEqual {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    return a != b;
  }
};

template <cub::BlockReduceAlgorithm A>
__global__ void block_reduce(const float* in, const int* ints, float* sums, int* maxima,
                             int* partial) {
  using Reduce = cub::BlockReduce<float, kThreads, A>;
  using ReduceInt = cub::BlockReduce<int, kThreads, A>;
  __shared__ typename Reduce::TempStorage tf;
  __shared__ typename ReduceInt::TempStorage ti;
  const int i = blockIdx.x * kThreads + threadIdx.x;
  const float s = Reduce(tf).Sum(in[i]);
  const int m = ReduceInt(ti).Reduce(ints[i], Max());
  __syncthreads();
  const int p = ReduceInt(ti).Sum(ints[i], int(blockIdx.x * 13 % kThreads) + 1);
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s;
    maxima[blockIdx.x] = m;
    partial[blockIdx.x] = p;
  }
}

template <cub::BlockScanAlgorithm A>
__global__ void block_scan(const int* in, int* exclusive, int* aggregate, float* fin,
                           float* inclusive) {
  using Scan = cub::BlockScan<int, kThreads, A>;
  using ScanF = cub::BlockScan<float, kThreads, A>;
  __shared__ typename Scan::TempStorage t;
  __shared__ typename ScanF::TempStorage tf;
  int items[kItems];
  float fl[kItems];
  for (int k = 0; k < kItems; ++k) {
    items[k] = in[blockIdx.x * kTile + threadIdx.x * kItems + k];
    fl[k] = fin[blockIdx.x * kTile + threadIdx.x * kItems + k];
  }
  int total;
  Scan(t).ExclusiveSum(items, items, total);
  ScanF(tf).InclusiveScan(fl, fl, Plus());
  for (int k = 0; k < kItems; ++k) {
    exclusive[blockIdx.x * kTile + threadIdx.x * kItems + k] = items[k];
    inclusive[blockIdx.x * kTile + threadIdx.x * kItems + k] = fl[k];
  }
  if (threadIdx.x == 0) aggregate[blockIdx.x] = total;
}

__global__ void block_sort_and_move(const int* keys_in, int* keys_out, int* values_out,
                                    float* descending, int* striped, int* heads) {
  using Load = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<int, kThreads, kItems, int>;
  using SortF = cub::BlockRadixSort<float, kThreads, kItems>;
  using Store = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Exchange = cub::BlockExchange<int, kThreads, kItems>;
  using Heads = cub::BlockDiscontinuity<int, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename SortF::TempStorage sortf;
    typename Store::TempStorage store;
    typename Exchange::TempStorage exchange;
    typename Heads::TempStorage heads;
  } t;
  const int base = blockIdx.x * kTile;
  int keys[kItems], values[kItems];
  Load(t.load).Load(keys_in + base, keys, kTile - int(blockIdx.x) * 7, -1);
  for (int k = 0; k < kItems; ++k) values[k] = base + int(threadIdx.x) * kItems + k;
  __syncthreads();
  Sort(t.sort).Sort(keys, values);
  __syncthreads();
  int flags[kItems];
  Heads(t.heads).FlagHeads(flags, keys, NotEqual());
  int count = 0;
  for (int k = 0; k < kItems; ++k) count += flags[k];
  atomicAdd(&heads[blockIdx.x], count);
  __syncthreads();
  Store(t.store).Store(keys_out + base, keys);
  __syncthreads();
  Store(t.store).Store(values_out + base, values);
  float f[kItems];
  for (int k = 0; k < kItems; ++k) f[k] = float(keys[k]) * 0.25f - float(values[k] % 7);
  __syncthreads();
  SortF(t.sortf).SortDescending(f);
  for (int k = 0; k < kItems; ++k) descending[base + int(threadIdx.x) * kItems + k] = f[k];
  __syncthreads();
  Exchange(t.exchange).BlockedToStriped(keys);
  for (int k = 0; k < kItems; ++k) striped[base + k * kThreads + int(threadIdx.x)] = keys[k];
}

// Logical warps of 32 and of 16 threads.
template <int kWidth>
__global__ void warp_collectives(const float* in, const int* ints, float* sums, int* scans,
                                 int* maxima) {
  using Reduce = cub::WarpReduce<float, kWidth>;
  using Scan = cub::WarpScan<int, kWidth>;
  using ReduceInt = cub::WarpReduce<int, kWidth>;
  constexpr int kWarps = kThreads / kWidth;
  __shared__ typename Reduce::TempStorage tr[kWarps];
  __shared__ typename Scan::TempStorage ts[kWarps];
  __shared__ typename ReduceInt::TempStorage ti[kWarps];
  const int w = int(threadIdx.x) / kWidth;
  const int i = blockIdx.x * kThreads + threadIdx.x;
  const float s = Reduce(tr[w]).Sum(in[i]);
  int x;
  Scan(ts[w]).ExclusiveSum(ints[i], x);
  scans[i] = x;
  const int m = ReduceInt(ti[w]).Reduce(ints[i], Max(), kWidth - w % 5);
  if (threadIdx.x % kWidth == 0) {
    sums[blockIdx.x * kWarps + w] = s;
    maxima[blockIdx.x * kWarps + w] = m;
  }
}

static void block_and_warp() {
  const int blocks = 6;
  const int n = blocks * kTile;
  float* f = managed<float>(n);
  int* ints = managed<int>(n);
  for (int i = 0; i < n; ++i) {
    f[i] = float(int(next_random() % 200001) - 100000) / 64.0f * (i % 3 ? 1.0f : 1e-3f);
    ints[i] = int(next_random() % 4001) - 2000;
  }
  float* sums = managed<float>(blocks);
  int* maxima = managed<int>(blocks);
  int* partial = managed<int>(blocks);
  auto reduce_check = [&](const char* name) {
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      const int valid = b * 13 % kThreads + 1;
      ok &= maxima[b] == *std::max_element(ints + b * kThreads, ints + (b + 1) * kThreads);
      ok &= partial[b] == std::accumulate(ints + b * kThreads, ints + b * kThreads + valid, 0);
    }
    char line[96];
    std::snprintf(line, sizeof line, "block reduce %s: float sums", name);
    print_values(line, sums, blocks, blocks, true);
    std::snprintf(line, sizeof line, "block reduce %s: max, partial sums", name);
    print_values(line, maxima, blocks, blocks, ok);
    print_values(line, partial, blocks, blocks, ok);
  };
  block_reduce<cub::BLOCK_REDUCE_WARP_REDUCTIONS><<<blocks, kThreads>>>(f, ints, sums, maxima,
                                                                        partial);
  CK(cudaDeviceSynchronize());
  reduce_check("warp reductions");
  block_reduce<cub::BLOCK_REDUCE_RAKING><<<blocks, kThreads>>>(f, ints, sums, maxima, partial);
  CK(cudaDeviceSynchronize());
  reduce_check("raking");
  block_reduce<cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>
      <<<blocks, kThreads>>>(f, ints, sums, maxima, partial);
  CK(cudaDeviceSynchronize());
  reduce_check("raking commutative");

  int* exclusive = managed<int>(n);
  int* aggregate = managed<int>(blocks);
  float* inclusive = managed<float>(n);
  auto scan_check = [&](const char* name) {
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
      int run = 0;
      for (int k = 0; k < kTile; ++k) {
        ok &= exclusive[b * kTile + k] == run;
        run += ints[b * kTile + k];
      }
      ok &= aggregate[b] == run;
    }
    char line[96];
    std::snprintf(line, sizeof line, "block scan %s: exclusive sums, aggregates", name);
    print_values(line, exclusive, n, 8, ok);
    print_values(line, aggregate, blocks, blocks, ok);
    std::snprintf(line, sizeof line, "block scan %s: inclusive float sums", name);
    print_values(line, inclusive, n, 8, true);
  };
  block_scan<cub::BLOCK_SCAN_RAKING><<<blocks, kThreads>>>(ints, exclusive, aggregate, f,
                                                          inclusive);
  CK(cudaDeviceSynchronize());
  scan_check("raking");
  block_scan<cub::BLOCK_SCAN_WARP_SCANS><<<blocks, kThreads>>>(ints, exclusive, aggregate, f,
                                                              inclusive);
  CK(cudaDeviceSynchronize());
  scan_check("warp scans");
  block_scan<cub::BLOCK_SCAN_RAKING_MEMOIZE><<<blocks, kThreads>>>(ints, exclusive, aggregate, f,
                                                                  inclusive);
  CK(cudaDeviceSynchronize());
  scan_check("raking memoize");

  int* keys_out = managed<int>(n);
  int* values_out = managed<int>(n);
  float* descending = managed<float>(n);
  int* striped = managed<int>(n);
  int* heads = managed<int>(blocks);
  std::fill(heads, heads + blocks, 0);
  block_sort_and_move<<<blocks, kThreads>>>(ints, keys_out, values_out, descending, striped,
                                            heads);
  CK(cudaDeviceSynchronize());
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    std::vector<std::pair<int, int>> ref;
    const int valid = kTile - b * 7;
    for (int k = 0; k < kTile; ++k) ref.push_back({k < valid ? ints[b * kTile + k] : -1, b * kTile + k});
    std::stable_sort(ref.begin(), ref.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    int distinct = 1;
    for (int k = 0; k < kTile; ++k) {
      ok &= keys_out[b * kTile + k] == ref[k].first && values_out[b * kTile + k] == ref[k].second;
      if (k > 0) distinct += ref[k].first != ref[k - 1].first;
    }
    ok &= heads[b] == distinct;
    for (int k = 1; k < kTile; ++k) ok &= descending[b * kTile + k - 1] >= descending[b * kTile + k];
  }
  print_values("block radix sort: keys", keys_out, n, 8, ok);
  print_values("block radix sort: values", values_out, n, 8, ok);
  print_values("block radix sort: floats descending", descending, n, 8, ok);
  print_values("block exchange: striped", striped, n, 8, true);
  print_values("block discontinuity: heads", heads, blocks, blocks, ok);

  float* wsums = managed<float>(n / 16);
  int* scans = managed<int>(n);
  int* wmax = managed<int>(n / 16);
  for (int width : {32, 16}) {
    if (width == 32)
      warp_collectives<32><<<blocks, kThreads>>>(f, ints, wsums, scans, wmax);
    else
      warp_collectives<16><<<blocks, kThreads>>>(f, ints, wsums, scans, wmax);
    CK(cudaDeviceSynchronize());
    const int warps = blocks * (kThreads / width);
    bool good = true;
    for (int w = 0; w < warps; ++w) {
      const int valid = width - (w % (kThreads / width)) % 5;
      good &= wmax[w] == *std::max_element(ints + w * width, ints + w * width + valid);
      int run = 0;
      for (int l = 0; l < width; ++l) {
        good &= scans[w * width + l] == run;
        run += ints[w * width + l];
      }
    }
    char line[96];
    std::snprintf(line, sizeof line, "warp collectives %d: float sums", width);
    print_values(line, wsums, warps, 8, true);
    std::snprintf(line, sizeof line, "warp collectives %d: scans, partial maxima", width);
    print_values(line, scans, n / kItems, 8, good);
    print_values(line, wmax, warps, 8, good);
  }
}

// ---- device-wide algorithms -----------------------------------------------------------
struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};
struct Less {
  __host__ __device__ bool operator()(const float& a, const float& b) const { return a < b; }
};

static void* g_temp = nullptr;
static size_t g_temp_bytes = 0;
static void* temp(size_t bytes) {
  if (bytes > g_temp_bytes) {
    CK(cudaFree(g_temp));
    CK(cudaMalloc(&g_temp, bytes));
    g_temp_bytes = bytes;
  }
  return g_temp;
}
// Runs a CUB device algorithm as its documentation says: once to ask for the
// temporary storage, then with it.
#define DEVICE(call)                         \
  do {                                       \
    size_t bytes = 0;                        \
    void* storage = nullptr;                 \
    CK(call);                                \
    storage = temp(bytes);                   \
    CK(call);                                \
    CK(cudaDeviceSynchronize());             \
  } while (0)

static void device_wide() {
  const int n = 100003;
  int* keys = managed<int>(n);
  int* keys_out = managed<int>(n);
  int* values = managed<int>(n);
  int* values_out = managed<int>(n);
  float* f = managed<float>(n);
  float* f_out = managed<float>(n);
  int* flags = managed<int>(n);
  int* out = managed<int>(16);
  float* fout = managed<float>(16);
  for (int i = 0; i < n; ++i) {
    keys[i] = int(next_random() % 70001) - 20000;
    values[i] = i;
    f[i] = float(int(next_random() % 2000001) - 1000000) / 1024.0f;
    flags[i] = next_random() % 4 == 0;
  }
  std::vector<int> hk(keys, keys + n);

  DEVICE(cub::DeviceReduce::Sum(storage, bytes, keys, out, n));
  print_values("device reduce: sum", out, 1, 1, out[0] == std::accumulate(hk.begin(), hk.end(), 0));
  DEVICE(cub::DeviceReduce::Sum(storage, bytes, f, fout, n));
  print_values("device reduce: float sum", fout, 1, 1, true);
  DEVICE(cub::DeviceReduce::Min(storage, bytes, keys, out, n));
  print_values("device reduce: min", out, 1, 1, out[0] == *std::min_element(hk.begin(), hk.end()));
  auto* arg = managed<cub::KeyValuePair<int, float>>(1);
  // (CUDA 13's CUB calls this form deprecated; CUB 1.17 has no other.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  DEVICE(cub::DeviceReduce::ArgMax(storage, bytes, f, arg, n));
#pragma GCC diagnostic pop
  std::printf("device reduce: argmax [%s]: %d %a\n",
              arg->key == int(std::max_element(f, f + n) - f) ? "ok" : "DIFFERS FROM THE CPU",
              arg->key, double(arg->value));
  DEVICE(cub::DeviceReduce::Reduce(storage, bytes, keys, out, n, Max(), -1000000));
  print_values("device reduce: custom max", out, 1, 1,
               out[0] == *std::max_element(hk.begin(), hk.end()));

  DEVICE(cub::DeviceScan::ExclusiveSum(storage, bytes, keys, keys_out, n));
  bool ok = true;
  for (int i = 0, run = 0; i < n; run += keys[i], ++i) ok &= keys_out[i] == run;
  print_values("device scan: exclusive sum", keys_out, n, 8, ok);
  // Decimal and marked `~`: each tile adds the partial sums of the tiles
  // before it that it finds done, which on a GPU depends on timing (so the
  // last bits may differ from run to run there).
  DEVICE(cub::DeviceScan::InclusiveSum(storage, bytes, f, f_out, n));
  std::printf("device scan: inclusive float sum~: %.8e %.8e %.8e %.8e\n", double(f_out[n - 4]),
              double(f_out[n - 3]), double(f_out[n - 2]), double(f_out[n - 1]));
  DEVICE(cub::DeviceScan::InclusiveScan(storage, bytes, keys, keys_out, Max(), n));
  ok = true;
  for (int i = 0, m = keys[0]; i < n; ++i) ok &= keys_out[i] == (m = std::max(m, keys[i]));
  print_values("device scan: running max", keys_out, n, 8, ok);

  DEVICE(cub::DeviceRadixSort::SortPairs(storage, bytes, keys, keys_out, values, values_out, n));
  std::vector<std::pair<int, int>> ref;
  for (int i = 0; i < n; ++i) ref.push_back({keys[i], i});
  std::stable_sort(ref.begin(), ref.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  ok = true;
  for (int i = 0; i < n; ++i) ok &= keys_out[i] == ref[i].first && values_out[i] == ref[i].second;
  print_values("device radix sort: keys", keys_out, n, 8, ok);
  print_values("device radix sort: values", values_out, n, 8, ok);
  DEVICE(cub::DeviceRadixSort::SortKeysDescending(storage, bytes, f, f_out, n));
  std::vector<float> fs(f, f + n);
  std::sort(fs.begin(), fs.end(), [](float a, float b) { return a > b; });
  print_values("device radix sort: floats descending", f_out, n, 8,
               std::memcmp(fs.data(), f_out, n * sizeof(float)) == 0);
  // Keys whose upper bits agree: the one-sweep sort's short cut for a tile
  // whose keys all share a digit (its threads leave with PTX's exit).
  for (int i = 0; i < n; ++i) flags[i] = 0x3f000000 | (keys[i] & 0xfff);
  DEVICE(cub::DeviceRadixSort::SortKeys(storage, bytes, flags, keys_out, n));
  print_values("device radix sort: shared upper bits", keys_out, n, 8,
               std::is_sorted(keys_out, keys_out + n));
  for (int i = 0; i < n; ++i) flags[i] = next_random() % 4 == 0;

  DEVICE(cub::DeviceSelect::Flagged(storage, bytes, values, flags, values_out, out, n));
  int expected = 0;
  ok = true;
  for (int i = 0; i < n; ++i)
    if (flags[i]) ok &= values_out[expected++] == i;
  print_values("device select: flagged", values_out, out[0], 8, ok && out[0] == expected);
  DEVICE(cub::DeviceSelect::If(storage, bytes, keys, keys_out, out, n, IsMultipleOf3()));
  expected = int(std::count_if(hk.begin(), hk.end(), IsMultipleOf3()));
  print_values("device select: if", keys_out, out[0], 8, out[0] == expected);
  DEVICE(cub::DevicePartition::If(storage, bytes, keys, keys_out, out, n, IsMultipleOf3()));
  print_values("device partition: if", keys_out, n, 8, out[0] == expected);
  std::vector<int> sorted_keys(hk);
  std::sort(sorted_keys.begin(), sorted_keys.end());
  std::copy(sorted_keys.begin(), sorted_keys.end(), keys);
  DEVICE(cub::DeviceSelect::Unique(storage, bytes, keys, keys_out, out, n));
  const int unique = int(std::unique(sorted_keys.begin(), sorted_keys.end()) - sorted_keys.begin());
  print_values("device select: unique", keys_out, out[0], 8, out[0] == unique);
  DEVICE(cub::DeviceRunLengthEncode::Encode(storage, bytes, keys, keys_out, values_out, out, n));
  ok = out[0] == unique && std::accumulate(values_out, values_out + out[0], 0) == n;
  print_values("device run-length encode: counts", values_out, out[0], 8, ok);
  for (int i = 0; i < n; ++i) keys[i] = hk[size_t(i)];

  int offsets[6] = {0, 1000, 1000, 50000, 50001, n};
  int* off = managed<int>(6);
  std::copy(offsets, offsets + 6, off);
  DEVICE(cub::DeviceSegmentedReduce::Sum(storage, bytes, keys, out, 5, off, off + 1));
  ok = true;
  for (int s = 0; s < 5; ++s)
    ok &= out[s] == std::accumulate(hk.begin() + offsets[s], hk.begin() + offsets[s + 1], 0);
  print_values("device segmented reduce: sums", out, 5, 5, ok);
  int* hist = managed<int>(16);
  // Bins of 4375 keys from -20000 up to 50000 (left out: the key 50000);
  // levels whose range the bins divide evenly, as CUB's versions bin
  // integers differently otherwise.
  DEVICE(cub::DeviceHistogram::HistogramEven(storage, bytes, keys, hist, 17, -20000, 50000, n));
  std::vector<int> hist_ref(16);
  for (int k : hk)
    if (k < 50000) ++hist_ref[size_t((k + 20000) / 4375)];
  print_values("device histogram: even", hist, 16, 16, std::equal(hist, hist + 16, hist_ref.begin()));
  for (int i = 0; i < n; ++i) values_out[i] = i;
  std::vector<std::pair<float, int>> fref;
  for (int i = 0; i < n; ++i) fref.push_back({f[i], i});
  std::stable_sort(fref.begin(), fref.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  DEVICE(cub::DeviceMergeSort::StableSortPairs(storage, bytes, f, values_out, n, Less()));
  ok = true;
  for (int i = 0; i < n; ++i) ok &= f[i] == fref[size_t(i)].first && values_out[i] == fref[size_t(i)].second;
  print_values("device merge sort: values", values_out, n, 8, ok);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  block_and_warp();
  device_wide();
  std::printf("done\n");
  return 0;
}

// The tests of this program (tests/lit/README.md). What an H100 printed
// with the same CUB (1.17), data/cub_gpu.txt; every result the CPU can
// check says "ok".
// REQUIRES: cub
// BUILD:
// TEST: unit.cub_match_gpu
// LABELS: unit
// RUN: %bin > cub_sim.txt
// RUN: %python %programs/compare_with_gpu.py cub_sim.txt %data/cub_gpu.txt
//
// CUB's own synchronization (blocks passing partial results in global
// memory, its shared-memory collectives) is no finding.
// TEST: unit.cub_no_finding
// LABELS: unit
// PROPERTIES: COST 15
// RUN: CUDALAB_CHECK=all %bin
// CHECK-NOT: DIFFERS
// CHECK: ERROR SUMMARY: 0 errors
// CHECK-NOT: DIFFERS
//
// The GPU build uses the CUDA toolkit's CUB, another version: its results
// are checked against the CPU, not against the H100's file.
// TEST: gpu.cub_algorithms_as_cuda
// LABELS: gpu
// REQUIRES: nvcc, gpu
// RUN: %bin_gpu
// CHECK-NOT: DIFFERS
// CHECK: {{^}}done
