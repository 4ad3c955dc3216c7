// Shuffles of each kind, and the lane a shuffle reads by the rules of PTX's
// shfl (which CUDA's __shfl*_sync compile to), for tests that check the
// simulator's shuffles (tests/programs/shuffle_lanes.cu,
// tests/unit/warp_test.cu).
#pragma once

enum ShuffleKind { kIdx, kUp, kDown, kXor };

// What `v` shuffled by `kind` gives the calling lane.
__device__ inline int shuffle_by(ShuffleKind kind, unsigned mask, int v, int a, int width) {
  switch (kind) {
    case kIdx:
      return __shfl_sync(mask, v, a, width);
    case kUp:
      return __shfl_up_sync(mask, v, unsigned(a), width);
    case kDown:
      return __shfl_down_sync(mask, v, unsigned(a), width);
    case kXor:
      return __shfl_xor_sync(mask, v, a, width);
  }
  return v;
}

// The lane that lane `l` reads when it passes `a` and the power of two
// `width`, or -1 where it keeps its own value: the source is past its
// segment's end, or before its start for up. Only the argument's low five
// bits count, and xor looks at the segment's end only.
inline int shuffle_source_lane(ShuffleKind kind, int l, int a, int width) {
  a &= 31;
  const int first = l & ~(width - 1);
  int src = l;
  bool inside = true;
  switch (kind) {
    case kIdx:
      src = first | (a & (width - 1));
      break;
    case kUp:
      src = l - a;
      inside = src >= first;
      break;
    case kDown:
      src = l + a;
      inside = src < first + width;
      break;
    case kXor:
      src = l ^ a;
      inside = src < first + width;
      break;
  }
  return inside && src >= 0 && src < 32 ? src : -1;
}
