// cudalab: cooperative groups' memcpy_async and wait. A group's threads share
// the copy; it is done when they return (a GPU may finish it then too), and
// wait() is the group's sync(), after which every thread sees all of it.
#pragma once
#include "../cooperative_groups.h"
#include "../cudalab/libcudacxx.h"

namespace cooperative_groups {
template <class Group>
void memcpy_async(const Group& group, void* dst, const void* src, size_t bytes) {
  cudalab::detail::copy_share(dst, src, bytes, group.thread_rank(), group.num_threads());
}
template <class Group, size_t Alignment>
void memcpy_async(const Group& group, void* dst, const void* src,
                  cuda::aligned_size_t<Alignment> bytes) {
  memcpy_async(group, dst, src, size_t(bytes));
}
// Elements: `src_count` of them, into room for `dst_count`.
template <class Group, class T>
void memcpy_async(const Group& group, T* dst, size_t dst_count, const T* src, size_t src_count) {
  memcpy_async(group, static_cast<void*>(dst), static_cast<const void*>(src),
               (src_count < dst_count ? src_count : dst_count) * sizeof(T));
}
template <class Group>
void wait(const Group& group) {
  group.sync();
}
template <unsigned NumStages, class Group>
void wait_prior(const Group& group) {
  group.sync();
}
}  // namespace cooperative_groups
