// cudalab's CPU simulator: cooperative groups. Groups are views of the
// block, its warps and the grid; their collectives are the simulator's block
// barrier and warp operations.
#pragma once

#include <type_traits>

#include "cuda_runtime.h"
#include "cudalab/detail/groups.h"

namespace cooperative_groups {

class thread_group {
 public:
  // A group of `size` consecutive threads of the block (size <= 32 or the
  // whole block), as tiled_partition(block, size) makes.
  explicit thread_group(unsigned size)
      : thread_group(size, cudalab::detail::block_rank(), cudalab::detail::block_size()) {}
  // One of the groups of `size` that a parent group (this thread's rank in
  // it, its size) is cut into: its meta group rank and size, as CUDA's.
  thread_group(unsigned size, unsigned long long parent_rank, unsigned long long parent_size)
      : size_(size),
        meta_rank_(unsigned(parent_rank / size)),
        meta_size_(unsigned((parent_size + size - 1) / size)) {}
  void sync() const {
    if (size_ >= cudalab::detail::block_size())
      __syncthreads();
    else
      __syncwarp(mask());
  }
  unsigned long long thread_rank() const { return cudalab::detail::block_rank() % size_; }
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }

 protected:
  unsigned mask() const {
    const unsigned lane = cudalab::detail::block_rank() % 32;
    const unsigned bits = size_ >= 32 ? 0xffffffffu : ((1u << size_) - 1);
    return size_ >= 32 ? bits : bits << (lane / size_ * size_);
  }
  unsigned size_;
  unsigned meta_rank_, meta_size_;
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(cudalab::detail::block_size()) {}
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const { return cudalab::detail::block_rank(); }
  unsigned long long size() const { return cudalab::detail::block_size(); }
  unsigned long long num_threads() const { return cudalab::detail::block_size(); }
  dim3 group_index() const { return dim3(blockIdx); }
  dim3 thread_index() const { return dim3(threadIdx); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
 public:
  // Only a kernel launched with cudaLaunchCooperativeKernel may sync the grid.
  bool is_valid() const { return cudalab::detail::grid_is_cooperative(); }
  void sync() const { cudalab::detail::grid_sync(); }
  unsigned long long size() const {
    return (unsigned long long)cudalab::detail::block_size() * gridDim.x * gridDim.y * gridDim.z;
  }
  unsigned long long num_threads() const { return size(); }
  unsigned long long block_rank() const {
    return blockIdx.x + blockIdx.y * gridDim.x +
           (unsigned long long)blockIdx.z * gridDim.x * gridDim.y;
  }
  unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  unsigned long long thread_rank() const {
    return block_rank() * cudalab::detail::block_size() + cudalab::detail::block_rank();
  }
  dim3 group_dim() const { return gridDim; }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return dim3(blockIdx); }
};

inline grid_group this_grid() { return grid_group(); }

// A tile of Size consecutive threads (a power of two up to 1024): its
// collectives are warp operations on its lanes, or, for tiles larger than a
// warp, a barrier among its threads.
template <unsigned Size>
class thread_block_tile : public thread_group {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "thread_block_tile sizes are powers of two from 1 to 1024");

 public:
  thread_block_tile() : thread_group(Size) {}
  thread_block_tile(unsigned long long parent_rank, unsigned long long parent_size)
      : thread_group(Size, parent_rank, parent_size) {}
  void sync() const {
    if constexpr (Size <= 32)
      __syncwarp(mask());
    else
      cudalab::detail::tile_sync(cudalab::detail::block_rank() / Size * Size, Size);
  }
  unsigned long long thread_rank() const { return cudalab::detail::block_rank() % Size; }
  static constexpr unsigned long long size() { return Size; }
  static constexpr unsigned long long num_threads() { return Size; }
  template <class T>
  T shfl(T var, int src_rank) const {
    static_assert(Size <= 32, "shuffles work within a warp-sized tile");
    return __shfl_sync(mask(), var, src_rank, Size);
  }
  template <class T>
  T shfl_up(T var, unsigned delta) const {
    static_assert(Size <= 32, "shuffles work within a warp-sized tile");
    return __shfl_up_sync(mask(), var, delta, Size);
  }
  template <class T>
  T shfl_down(T var, unsigned delta) const {
    static_assert(Size <= 32, "shuffles work within a warp-sized tile");
    return __shfl_down_sync(mask(), var, delta, Size);
  }
  template <class T>
  T shfl_xor(T var, int lane_mask) const {
    static_assert(Size <= 32, "shuffles work within a warp-sized tile");
    return __shfl_xor_sync(mask(), var, lane_mask, Size);
  }
  int any(int predicate) const { return __any_sync(mask(), predicate); }
  int all(int predicate) const { return __all_sync(mask(), predicate); }
  unsigned ballot(int predicate) const {
    // Bits relative to the tile, as CUDA gives them.
    return (__ballot_sync(mask(), predicate) >>
            (cudalab::detail::block_rank() % 32 / Size * Size)) &
           (Size >= 32 ? 0xffffffffu : ((1u << Size) - 1));
  }
  template <class T>
  unsigned match_any(T value) const {
    return (__match_any_sync(mask(), value) >> (cudalab::detail::block_rank() % 32 / Size * Size));
  }
  template <class T>
  unsigned match_all(T value, int& pred) const {
    return (__match_all_sync(mask(), value, &pred) >>
            (cudalab::detail::block_rank() % 32 / Size * Size));
  }
};

template <unsigned Size, class Parent>
thread_block_tile<Size> tiled_partition(const Parent& parent) {
  return thread_block_tile<Size>(parent.thread_rank(), parent.size());
}

inline thread_group tiled_partition(const thread_block&, unsigned size) {
  return thread_group(size);
}

// The lanes of the warp that are here together now.
class coalesced_group {
 public:
  coalesced_group() : mask_(__activemask()) {}
  explicit coalesced_group(unsigned mask) : mask_(mask) {}
  unsigned long long meta_group_rank() const { return 0; }
  void sync() const { __syncwarp(mask_); }
  unsigned long long size() const { return __builtin_popcount(mask_); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    return __builtin_popcount(mask_ & ((1u << (cudalab::detail::block_rank() % 32)) - 1));
  }
  template <class T>
  T shfl(T var, unsigned src_rank) const {
    return __shfl_sync(mask_, var, lane_of(src_rank));
  }
  int any(int predicate) const { return __any_sync(mask_, predicate); }
  int all(int predicate) const { return __all_sync(mask_, predicate); }
  unsigned ballot(int predicate) const {
    // Compacted to ranks, as CUDA does for coalesced groups.
    const unsigned raw = __ballot_sync(mask_, predicate);
    unsigned out = 0, rank = 0;
    for (unsigned l = 0; l < 32; ++l)
      if ((mask_ >> l) & 1u) out |= ((raw >> l) & 1u) << rank++;
    return out;
  }

  unsigned mask() const { return mask_; }

 private:
  unsigned lane_of(unsigned rank) const {
    unsigned m = mask_;
    for (unsigned r = 0; r < rank && m; ++r) m &= m - 1;
    return m ? unsigned(__builtin_ctz(m)) : 0;
  }
  unsigned mask_;
};

inline coalesced_group coalesced_threads() { return coalesced_group(); }

// The lanes of a group that have the same label (or predicate) as this one.
template <unsigned Size, class Label>
coalesced_group labeled_partition(const thread_block_tile<Size>&, Label label) {
  return coalesced_group(__match_any_sync(cudalab::detail::tile_lanes<Size>(), label));
}
template <class Label>
coalesced_group labeled_partition(const coalesced_group& group, Label label) {
  return coalesced_group(__match_any_sync(group.mask(), label));
}
template <class Group>
coalesced_group binary_partition(const Group& group, bool predicate) {
  return labeled_partition(group, int(predicate));
}

// Scratch memory for tiles larger than a warp: accepted; such tiles are not
// supported by the simulator.
template <unsigned Size>
struct block_tile_memory {};
template <unsigned Size>
thread_block this_thread_block(block_tile_memory<Size>&) {
  return thread_block();
}

// cg::reduce and its operators.
template <class T>
struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};

template <unsigned Size, class T, class Op>
T reduce(const thread_block_tile<Size>& tile, T value, Op op) {
  if constexpr (Size <= 32) {
    for (unsigned offset = Size / 2; offset > 0; offset /= 2)
      value = op(value, tile.shfl_xor(value, int(offset)));
    return value;
  } else {
    // Through per-thread scratch memory: every thread of the tile writes,
    // all meet, each adds up the tile in rank order, all meet again.
    T* slots = static_cast<T*>(cudalab::detail::tile_scratch(sizeof(T)));
    const unsigned first = cudalab::detail::block_rank() / Size * Size;
    slots[cudalab::detail::block_rank()] = value;
    tile.sync();
    T result = slots[first];
    for (unsigned r = 1; r < Size && first + r < cudalab::detail::block_size(); ++r)
      result = op(result, slots[first + r]);
    tile.sync();
    return result;
  }
}

template <class T, class Op>
T reduce(const coalesced_group& group, T value, Op op) {
  // Every member gets the reduction over all members, in rank order.
  T result = group.shfl(value, 0);
  for (unsigned r = 1; r < group.size(); ++r) result = op(result, group.shfl(value, r));
  return result;
}

// Free-function forms, as CUDA has them.
template <class Group>
void sync(const Group& g) {
  g.sync();
}
template <class Group>
unsigned long long thread_rank(const Group& g) {
  return g.thread_rank();
}
template <class Group>
unsigned long long group_size(const Group& g) {
  return g.size();
}

// Scans over a tile or a coalesced group: lane r gets op over ranks 0..r
// (inclusive) or 0..r-1 (exclusive; rank 0 gets T()).
template <class Group, class T, class Op = plus<T>>
T inclusive_scan(const Group& g, T value, Op op = Op()) {
  T result = value;
  const unsigned rank = unsigned(g.thread_rank());
  for (unsigned d = 1; d < g.size(); d *= 2) {
    const T other = g.shfl_up(result, d);
    if (rank >= d) result = op(result, other);
  }
  return result;
}
template <class Group, class T, class Op = plus<T>>
T exclusive_scan(const Group& g, T value, Op op = Op()) {
  const T inclusive = inclusive_scan(g, value, op);
  const T shifted = g.shfl_up(inclusive, 1);
  return g.thread_rank() == 0 ? T() : shifted;
}

}  // namespace cooperative_groups
