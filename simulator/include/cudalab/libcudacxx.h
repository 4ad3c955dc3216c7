// libcu++ (CUDA's C++ standard library, <cuda/...> and <cuda/std/...>) as
// far as kernels use it: `cuda::std` is the host's standard library, and
// the parts that make threads wait for each other or copy asynchronously
// are the simulator's: atomics with scopes (`cuda::atomic`,
// `cuda::atomic_ref`, their `wait` and `notify`), split arrive/wait
// barriers (`cuda::barrier`), latches, semaphores, `cuda::memcpy_async` and
// pipelines. A thread that waits sleeps in the scheduler until a thread of
// its block releases what it waits on, so a wait that nothing will end is
// reported as a deadlock at its line. Copies called asynchronous are done
// when they are issued (a GPU may finish them then too): data is in place
// once a program's own wait says it is. Every operation is as strong as
// sequentially consistent across the machine, stronger than any order and
// scope asked for. The cuda/ headers include this one; not for programs to
// include themselves.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "cudalab/detail/atomic.h"
#include "cudalab/detail/sync.h"

void __threadfence();

namespace cuda {
enum thread_scope {
  thread_scope_system = 0,
  thread_scope_device = 1,
  thread_scope_block = 2,
  thread_scope_thread = 3
};
// cuda::std is the host's standard library, less what is declared in it
// below (the atomics and waits, which are the simulator's).
namespace std {
using namespace ::std;
#if __cplusplus < 202002L
// What libcu++ gives in C++17 too (the host's library only in C++20).
struct identity {
  using is_transparent = void;
  template <class T>
  constexpr T&& operator()(T&& t) const noexcept {
    return static_cast<T&&>(t);
  }
};
template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of one size");
  return __builtin_bit_cast(To, from);
}
#endif
}  // namespace std
using memory_order = ::std::memory_order;
using ::std::memory_order_acq_rel;
using ::std::memory_order_acquire;
using ::std::memory_order_consume;
using ::std::memory_order_relaxed;
using ::std::memory_order_release;
using ::std::memory_order_seq_cst;
}  // namespace cuda

namespace cudalab::detail {

// The atomic operations of cuda::atomic and cuda::atomic_ref over the value
// at `Derived::address()`.
template <class T, class Derived>
class AtomicApi {
  static_assert(::std::is_trivially_copyable_v<T>, "cuda::atomic takes trivially copyable types");
  template <class U>
  static constexpr bool Arithmetic = ::std::is_integral_v<U> || ::std::is_floating_point_v<U>;
  T* at() const { return static_cast<const Derived*>(this)->address(); }

 public:
  static constexpr bool is_always_lock_free = sizeof(T) <= 8;
  bool is_lock_free() const noexcept { return sizeof(T) <= 8; }
  T load(::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_load_value(at());
  }
  void store(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    atomic_store(at(), v);
  }
  operator T() const noexcept { return load(); }
  T exchange(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).exchange(v);
  }
  bool compare_exchange_weak(T& expected, T desired,
                             ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).compare_exchange_weak(expected, desired);
  }
  bool compare_exchange_weak(T& expected, T desired, ::std::memory_order,
                             ::std::memory_order) const noexcept {
    return atomic(at()).compare_exchange_weak(expected, desired);
  }
  bool compare_exchange_strong(T& expected, T desired,
                               ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).compare_exchange_strong(expected, desired);
  }
  bool compare_exchange_strong(T& expected, T desired, ::std::memory_order,
                               ::std::memory_order) const noexcept {
    return atomic(at()).compare_exchange_strong(expected, desired);
  }

  // Arithmetic: integers and floating-point values (an argument of another
  // type converts to T, as for std::atomic); pointers move by elements.
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T fetch_add(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).fetch_add(v);
  }
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T fetch_sub(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_update(at(), [v](T old) { return T(old - v); });
  }
  template <class U = T, ::std::enable_if_t<::std::is_pointer_v<U>, int> = 0>
  T fetch_add(ptrdiff_t d, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_update(at(), [d](T old) { return old + d; });
  }
  template <class U = T, ::std::enable_if_t<::std::is_pointer_v<U>, int> = 0>
  T fetch_sub(ptrdiff_t d, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_update(at(), [d](T old) { return old - d; });
  }
  // libcu++'s own: minimum and maximum.
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T fetch_min(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_min(at(), v);
  }
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T fetch_max(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic_max(at(), v);
  }
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T operator+=(T v) const noexcept {
    return T(fetch_add(v) + v);
  }
  template <class U = T, ::std::enable_if_t<Arithmetic<U>, int> = 0>
  T operator-=(T v) const noexcept {
    return T(fetch_sub(v) - v);
  }

  // Integers only.
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T fetch_and(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).fetch_and(v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T fetch_or(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).fetch_or(v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T fetch_xor(T v, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    return atomic(at()).fetch_xor(v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator&=(T v) const noexcept {
    return T(fetch_and(v) & v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator|=(T v) const noexcept {
    return T(fetch_or(v) | v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator^=(T v) const noexcept {
    return T(fetch_xor(v) ^ v);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator++() const noexcept {
    return T(fetch_add(T(1)) + 1);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator++(int) const noexcept {
    return fetch_add(T(1));
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator--() const noexcept {
    return T(fetch_sub(T(1)) - 1);
  }
  template <class U = T, ::std::enable_if_t<::std::is_integral_v<U>, int> = 0>
  T operator--(int) const noexcept {
    return fetch_sub(T(1));
  }

  // Waiting for the value to change from `old`, and waking those who wait.
  // (Waits are inlined and sleep in a function of their own, whose return
  // address is the caller's line: deadlock reports name it.)
  [[gnu::always_inline]] void wait(
      T old, ::std::memory_order = ::std::memory_order_seq_cst) const noexcept {
    wait_here(old);
  }
  // A notification orders memory for racecheck as a barrier does (the
  // waiter reads what the notifier wrote before it).
  void notify_one() const noexcept { release_object(at(), true); }
  void notify_all() const noexcept { release_object(at(), true); }

 private:
  [[gnu::noinline]] void wait_here(T old) const noexcept {
    const void* pc = __builtin_return_address(0);
    while (same_bits(load(), old)) wait_on_object(at(), pc);
  }
  static bool same_bits(const T& a, const T& b) { return __builtin_memcmp(&a, &b, sizeof(T)) == 0; }
};

// The word of a barrier or a pipeline's stage: the phase in the high half,
// the arrivals still missing (or made) in the low half.
inline uint32_t phase_of(uint64_t word) { return uint32_t(word >> 32); }

// `bytes` from `src` to `dst`, the share of thread `rank` of `count`
// (cooperative copies split them in words, round robin). Element by
// element, so that the checks see every access.
[[gnu::always_inline]] inline void copy_share(void* dst, const void* src, size_t bytes, size_t rank,
                                              size_t count) {
  if ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) % 4 == 0) {
    auto* d = static_cast<uint32_t*>(dst);
    const auto* s = static_cast<const uint32_t*>(src);
    for (size_t i = rank; i < bytes / 4; i += count) {
      d[i] = s[i];
#ifdef CUDALAB_INSTRUMENTED
      asm volatile("" ::: "memory");  // each access the checks' (not a memcpy call)
#endif
    }
  } else {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (size_t i = rank; i < bytes; i += count) {
      d[i] = s[i];
#ifdef CUDALAB_INSTRUMENTED
      asm volatile("" ::: "memory");
#endif
    }
  }
}

struct NoCompletion {
  void operator()() const noexcept {}
};
struct PipelineMaker;

}  // namespace cudalab::detail

namespace cuda {

template <class T, thread_scope Scope = thread_scope_system>
class atomic : public cudalab::detail::AtomicApi<T, atomic<T, Scope>> {
 public:
  using value_type = T;
  atomic() noexcept = default;
  constexpr atomic(T v) noexcept : value_(v) {}  // NOLINT(google-explicit-constructor)
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;
  T operator=(T v) noexcept {
    this->store(v);
    return v;
  }
  T* address() const { return const_cast<T*>(&value_); }

 private:
  T value_;
};

template <class T, thread_scope Scope = thread_scope_system>
class atomic_ref : public cudalab::detail::AtomicApi<T, atomic_ref<T, Scope>> {
 public:
  using value_type = T;
  static constexpr size_t required_alignment = alignof(T) > sizeof(T) ? alignof(T) : sizeof(T);
  explicit atomic_ref(T& v) noexcept : p_(&v) {}
  atomic_ref(const atomic_ref&) noexcept = default;
  atomic_ref& operator=(const atomic_ref&) = delete;
  T operator=(T v) const noexcept {
    this->store(v);
    return v;
  }
  T* address() const { return p_; }

 private:
  T* p_;
};

template <thread_scope Scope = thread_scope_system>
class atomic_flag {
 public:
  atomic_flag() noexcept = default;
  bool test(memory_order = memory_order_seq_cst) const noexcept { return ref().load() != 0; }
  bool test_and_set(memory_order = memory_order_seq_cst) noexcept { return ref().exchange(1) != 0; }
  // Releasing a spin lock: orders memory for racecheck as a barrier does
  // (the next holder reads what this one wrote), and wakes its waiters.
  void clear(memory_order = memory_order_seq_cst) noexcept {
    ref().store(0u);
    cudalab::detail::release_object(&flag_, true);
  }
  void wait(bool old, memory_order = memory_order_seq_cst) const noexcept {
    ref().wait(old ? 1 : 0);
  }
  void notify_one() noexcept { ref().notify_one(); }
  void notify_all() noexcept { ref().notify_all(); }

 private:
  atomic_ref<unsigned, Scope> ref() const { return atomic_ref<unsigned, Scope>(flag_); }
  mutable unsigned flag_;
};

inline void atomic_thread_fence(memory_order, thread_scope = thread_scope_system) {
  __threadfence();
}
inline void atomic_signal_fence(memory_order) {}

// A split barrier: `arrive` counts the caller in the current phase and
// returns its token; `wait(token)` returns once that phase has ended (every
// expected arrival made). The last arrival runs the completion function.
template <thread_scope Scope, class CompletionFunction = cudalab::detail::NoCompletion>
class barrier {
 public:
  class arrival_token {
    friend class barrier;
    uint32_t phase_ = 0;
  };
  barrier() = default;  // in __shared__ memory: init() it
  explicit barrier(ptrdiff_t expected, CompletionFunction f = CompletionFunction()) {
    init(this, expected, static_cast<CompletionFunction&&>(f));
  }
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;

  friend void init(barrier* b, ptrdiff_t expected, CompletionFunction f = CompletionFunction()) {
    ::new (static_cast<void*>(b->completion_))
        CompletionFunction(static_cast<CompletionFunction&&>(f));
    cudalab::detail::atomic_store(&b->expected_, uint32_t(expected));
    cudalab::detail::atomic_store(&b->word_, uint64_t(uint32_t(expected)));
  }

  // Inlined, so that the checks name the caller's line for the arrival's
  // accesses; the wait names it too (wait_here's return address).
  [[nodiscard, gnu::always_inline]] arrival_token arrive(ptrdiff_t update = 1) {
    arrival_token t;
    t.phase_ = arrive_for(uint32_t(update));
    return t;
  }
  [[gnu::always_inline]] void wait(arrival_token&& t) const { wait_here(t.phase_); }
  [[gnu::always_inline]] void arrive_and_wait() { wait_here(arrive_for(1)); }
  [[gnu::always_inline]] void arrive_and_drop() {
    cudalab::detail::atomic(&expected_).fetch_sub(1u);
    (void)arrive_for(1);
  }
  static constexpr ptrdiff_t max() noexcept { return INT32_MAX; }

 private:
  [[gnu::always_inline]] uint32_t arrive_for(uint32_t n) {
    const uint64_t before = cudalab::detail::atomic(&word_).fetch_sub(uint64_t(n));
    const uint32_t phase = cudalab::detail::phase_of(before);
    if (uint32_t(before) == n) {  // the last arrival: the phase ends
      // Every arrival's accesses come before the completion's.
      cudalab::detail::order_block_memory();
      (*reinterpret_cast<CompletionFunction*>(completion_))();
      const uint32_t next = cudalab::detail::atomic(&expected_).load();
      cudalab::detail::atomic_store(&word_, (uint64_t(phase + 1) << 32) | next);
      // Ordered again: what the completion wrote comes before the waiters'
      // reads.
      cudalab::detail::release_object(this, true);
    }
    return phase;
  }
  [[gnu::noinline]] void wait_here(uint32_t phase) const {
    const void* pc = __builtin_return_address(0);
    while (cudalab::detail::phase_of(
               cudalab::detail::atomic(const_cast<uint64_t*>(&word_)).load()) == phase)
      cudalab::detail::wait_on_object(this, pc);
  }
  uint64_t word_;
  uint32_t expected_;
  alignas(CompletionFunction) unsigned char completion_[sizeof(CompletionFunction)];
};

// A single-use count down: wait() returns once it reached zero.
template <thread_scope Scope>
class latch {
 public:
  latch() = default;  // in __shared__ memory: construct it with placement new
  explicit latch(ptrdiff_t expected) { cudalab::detail::atomic_store(&count_, expected); }
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;
  void count_down(ptrdiff_t n = 1) {
    if (cudalab::detail::atomic(&count_).fetch_sub(n) == n)
      cudalab::detail::release_object(this, true);
  }
  bool try_wait() const noexcept {
    return cudalab::detail::atomic(const_cast<ptrdiff_t*>(&count_)).load() == 0;
  }
  [[gnu::always_inline]] void wait() const { wait_here(); }
  [[gnu::always_inline]] void arrive_and_wait(ptrdiff_t n = 1) {
    count_down(n);
    wait_here();
  }
  static constexpr ptrdiff_t max() noexcept { return PTRDIFF_MAX; }

 private:
  [[gnu::noinline]] void wait_here() const {
    const void* pc = __builtin_return_address(0);
    while (!try_wait()) cudalab::detail::wait_on_object(this, pc);
  }
  ptrdiff_t count_;
};

template <thread_scope Scope, ptrdiff_t LeastMaxValue = INT_MAX>
class counting_semaphore {
 public:
  counting_semaphore() = default;  // in __shared__ memory: construct it with placement new
  explicit counting_semaphore(ptrdiff_t count) { cudalab::detail::atomic_store(&count_, count); }
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;
  void release(ptrdiff_t update = 1) {
    cudalab::detail::atomic(&count_).fetch_add(update);
    // Orders memory for racecheck as a barrier does: what the releasing
    // thread wrote is read by the one that acquires next.
    cudalab::detail::release_object(this, true);
  }
  bool try_acquire() noexcept {
    ptrdiff_t c = cudalab::detail::atomic(&count_).load();
    while (c > 0)
      if (cudalab::detail::atomic(&count_).compare_exchange_weak(c, c - 1)) return true;
    return false;
  }
  [[gnu::always_inline]] void acquire() { acquire_here(); }
  // Timed waits wait until they acquire: on the simulator a thread sleeps
  // until another releases (a wait nothing ends is a deadlock, reported).
  template <class Duration>
  bool try_acquire_for(const Duration&) {
    acquire_here();
    return true;
  }
  template <class TimePoint>
  bool try_acquire_until(const TimePoint&) {
    acquire_here();
    return true;
  }
  static constexpr ptrdiff_t max() noexcept { return LeastMaxValue; }

 private:
  [[gnu::noinline]] void acquire_here() {
    const void* pc = __builtin_return_address(0);
    while (!try_acquire()) cudalab::detail::wait_on_object(this, pc);
  }
  ptrdiff_t count_;
};
template <thread_scope Scope>
using binary_semaphore = counting_semaphore<Scope, 1>;

// ---- asynchronous copies ----------------------------------------------------------------

// A size whose alignment (of both pointers and the size) the caller promises.
template <size_t Alignment>
struct aligned_size_t {
  static constexpr size_t align = Alignment;
  size_t value;
  explicit constexpr aligned_size_t(size_t size) : value(size) {}
  constexpr operator size_t() const { return value; }  // NOLINT(google-explicit-constructor)
};

enum class pipeline_role { producer, consumer };

// The stages of a pipeline shared by a group: per stage, the word whose
// phase counts the times producers filled it, and the one whose phase
// counts the times consumers emptied it.
template <thread_scope Scope, uint8_t StagesCount>
class pipeline_shared_state {
 public:
  pipeline_shared_state() = default;
  pipeline_shared_state(const pipeline_shared_state&) = delete;
  pipeline_shared_state& operator=(const pipeline_shared_state&) = delete;

 private:
  friend struct cudalab::detail::PipelineMaker;
  uint64_t filled_[StagesCount];
  uint64_t emptied_[StagesCount];
  uint32_t producers_, consumers_;
};

template <thread_scope Scope>
class pipeline {
 public:
  pipeline(pipeline&&) noexcept = default;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  // Producers: wait for the next stage to be empty, then, after its copies,
  // commit it.
  [[gnu::always_inline]] void producer_acquire() {
    wait_phase(&emptied_[head_ % stages_], head_ / stages_);
  }
  void producer_commit() {
    arrive(&filled_[head_ % stages_], producers_);
    ++head_;
  }
  // Consumers: wait for the oldest stage to be filled, then release it.
  [[gnu::always_inline]] void consumer_wait() {
    wait_phase(&filled_[tail_ % stages_], tail_ / stages_ + 1);
  }
  template <class Duration>
  bool consumer_wait_for(const Duration&) {
    consumer_wait();
    return true;
  }
  template <class TimePoint>
  bool consumer_wait_until(const TimePoint&) {
    consumer_wait();
    return true;
  }
  void consumer_release() {
    arrive(&emptied_[tail_ % stages_], consumers_);
    ++tail_;
  }
  bool quit() { return true; }

 private:
  friend struct cudalab::detail::PipelineMaker;
  pipeline() = default;
  static void arrive(uint64_t* word, uint32_t expected) {
    const uint64_t before = cudalab::detail::atomic(word).fetch_add(uint64_t(1));
    if (uint32_t(before) + 1 == expected) {
      cudalab::detail::atomic_store(word, uint64_t(cudalab::detail::phase_of(before) + 1) << 32);
      cudalab::detail::release_object(word, true);
    }
  }
  [[gnu::noinline]] static void wait_phase(uint64_t* word, uint32_t phase) {
    const void* pc = __builtin_return_address(0);
    while (cudalab::detail::phase_of(cudalab::detail::atomic(word).load()) < phase)
      cudalab::detail::wait_on_object(word, pc);
  }
  uint64_t* filled_ = nullptr;
  uint64_t* emptied_ = nullptr;
  uint32_t stages_ = 1, producers_ = 0, consumers_ = 0;
  uint32_t head_ = 0, tail_ = 0;
};
// A thread's own pipeline: its copies are done when issued, so it never
// waits (and a kernel using it may still run as loops over its threads).
template <>
class pipeline<thread_scope_thread> {
 public:
  pipeline(pipeline&&) noexcept = default;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;
  void producer_acquire() {}
  void producer_commit() {}
  void consumer_wait() {}
  template <class Duration>
  bool consumer_wait_for(const Duration&) {
    return true;
  }
  template <class TimePoint>
  bool consumer_wait_until(const TimePoint&) {
    return true;
  }
  void consumer_release() {}
  bool quit() { return true; }

 private:
  friend struct cudalab::detail::PipelineMaker;
  pipeline() = default;
};
}  // namespace cuda

namespace cudalab::detail {
struct PipelineMaker {
  static cuda::pipeline<cuda::thread_scope_thread> own() { return {}; }
  // Collective: every thread of `group` calls it (and so waits for the
  // others). `role`: 0 produces, 1 consumes, 2 both.
  template <class Group, cuda::thread_scope Scope, uint8_t StagesCount>
  static cuda::pipeline<Scope> shared(const Group& group,
                                      cuda::pipeline_shared_state<Scope, StagesCount>* state,
                                      int role) {
    if (group.thread_rank() == 0) {
      for (auto& w : state->filled_) atomic_store(&w, uint64_t(0));
      for (auto& w : state->emptied_) atomic_store(&w, uint64_t(0));
      atomic_store(&state->producers_, 0u);
      atomic_store(&state->consumers_, 0u);
    }
    group.sync();
    if (role != 1) atomic(&state->producers_).fetch_add(1u);
    if (role != 0) atomic(&state->consumers_).fetch_add(1u);
    group.sync();
    cuda::pipeline<Scope> p;
    p.filled_ = state->filled_;
    p.emptied_ = state->emptied_;
    p.stages_ = StagesCount;
    p.producers_ = atomic(&state->producers_).load();
    p.consumers_ = atomic(&state->consumers_).load();
    return p;
  }
};
}  // namespace cudalab::detail

namespace cuda {
inline pipeline<thread_scope_thread> make_pipeline() {
  return cudalab::detail::PipelineMaker::own();
}
// Every thread of the group both produces and consumes.
template <class Group, thread_scope Scope, uint8_t StagesCount>
pipeline<Scope> make_pipeline(const Group& group,
                              pipeline_shared_state<Scope, StagesCount>* state) {
  return cudalab::detail::PipelineMaker::shared(group, state, 2);
}
template <class Group, thread_scope Scope, uint8_t StagesCount>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, StagesCount>* state,
                              pipeline_role role) {
  return cudalab::detail::PipelineMaker::shared(group, state,
                                                role == pipeline_role::producer ? 0 : 1);
}
// The first `producer_count` threads of the group (by rank) produce.
template <class Group, thread_scope Scope, uint8_t StagesCount>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, StagesCount>* state,
                              size_t producer_count) {
  return cudalab::detail::PipelineMaker::shared(group, state,
                                                group.thread_rank() < producer_count ? 0 : 1);
}

template <thread_scope Scope>
void pipeline_consumer_wait_prior(pipeline<Scope>& p) {
  p.consumer_wait();
}
template <uint8_t Prior, thread_scope Scope>
void pipeline_consumer_wait_prior(pipeline<Scope>& p) {
  p.consumer_wait();
}

// The copies, by the calling thread or shared by a group's threads.
// With a barrier: `none`, the copy is done and the barrier has nothing to
// wait for (`async` would mean the barrier's phase waits for it).
enum class async_contract_fulfillment { none, async };
template <class Shape, thread_scope Scope, class F>
async_contract_fulfillment memcpy_async(void* dst, const void* src, Shape size,
                                        barrier<Scope, F>&) {
  cudalab::detail::copy_share(dst, src, size_t(size), 0, 1);
  return async_contract_fulfillment::none;
}
template <class Group, class Shape, thread_scope Scope, class F>
async_contract_fulfillment memcpy_async(const Group& group, void* dst, const void* src, Shape size,
                                        barrier<Scope, F>&) {
  cudalab::detail::copy_share(dst, src, size_t(size), group.thread_rank(), group.num_threads());
  return async_contract_fulfillment::none;
}
template <class Shape, thread_scope Scope>
void memcpy_async(void* dst, const void* src, Shape size, pipeline<Scope>&) {
  cudalab::detail::copy_share(dst, src, size_t(size), 0, 1);
}
template <class Group, class Shape, thread_scope Scope>
void memcpy_async(const Group& group, void* dst, const void* src, Shape size, pipeline<Scope>&) {
  cudalab::detail::copy_share(dst, src, size_t(size), group.thread_rank(), group.num_threads());
}

namespace std {
template <class T>
using atomic = ::cuda::atomic<T, thread_scope_system>;
template <class T>
using atomic_ref = ::cuda::atomic_ref<T, thread_scope_system>;
using atomic_flag = ::cuda::atomic_flag<thread_scope_system>;
template <class CompletionFunction = cudalab::detail::NoCompletion>
using barrier = ::cuda::barrier<thread_scope_system, CompletionFunction>;
using latch = ::cuda::latch<thread_scope_system>;
template <ptrdiff_t LeastMaxValue = INT_MAX>
using counting_semaphore = ::cuda::counting_semaphore<thread_scope_system, LeastMaxValue>;
using binary_semaphore = ::cuda::counting_semaphore<thread_scope_system, 1>;
inline void atomic_thread_fence(memory_order o) { ::cuda::atomic_thread_fence(o); }
// The free functions over a cuda::std::atomic.
template <class T>
T atomic_load(const atomic<T>* a) noexcept {
  return a->load();
}
template <class T>
T atomic_load_explicit(const atomic<T>* a, memory_order o) noexcept {
  return a->load(o);
}
template <class T>
void atomic_store(atomic<T>* a, type_identity_t<T> v) noexcept {
  a->store(v);
}
template <class T>
void atomic_store_explicit(atomic<T>* a, type_identity_t<T> v, memory_order o) noexcept {
  a->store(v, o);
}
template <class T>
T atomic_exchange(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->exchange(v);
}
template <class T>
bool atomic_compare_exchange_weak(atomic<T>* a, T* expected, type_identity_t<T> v) noexcept {
  return a->compare_exchange_weak(*expected, v);
}
template <class T>
bool atomic_compare_exchange_strong(atomic<T>* a, T* expected, type_identity_t<T> v) noexcept {
  return a->compare_exchange_strong(*expected, v);
}
template <class T>
T atomic_fetch_add(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->fetch_add(v);
}
template <class T>
T atomic_fetch_sub(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->fetch_sub(v);
}
template <class T>
T atomic_fetch_and(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->fetch_and(v);
}
template <class T>
T atomic_fetch_or(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->fetch_or(v);
}
template <class T>
T atomic_fetch_xor(atomic<T>* a, type_identity_t<T> v) noexcept {
  return a->fetch_xor(v);
}
}  // namespace std
}  // namespace cuda
