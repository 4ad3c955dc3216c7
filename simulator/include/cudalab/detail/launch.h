// Kernel launches: what the rewriter turns `kernel<<<grid, block, shmem,
// stream>>>(args)` into (make_launcher), the registry that lets
// cudaLaunchKernel call a kernel through a void pointer (register_kernel),
// and the dynamic shared memory that `extern __shared__` arrays become.
// What is not a template here is defined in simulator/src/. Not for
// programs to call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cudalab/driver_types.h"

namespace cudalab::detail {

// Address of the dynamic shared memory of the block running on this worker.
void* dynamic_shared_memory();

struct LaunchSite {
  const char* kernel;  // the kernel expression as written, e.g. "add<float>"
  const char* file;
  int line;
};

// Runs `body(closure)` once per CUDA thread of the launch; returns the launch
// error (also kept as the last error). A cooperative launch runs all its
// blocks at once, so that the grid can sync.
// kLaunchFromGraph: a graph's kernel node runs now (it is not captured again).
enum LaunchFlags : unsigned { kLaunchCooperative = 1, kLaunchFromGraph = 2 };
// [frame_low, frame_high): host memory the kernel threads read to get their
// arguments (the launch's own objects), which memcheck allows.
cudaError_t launch(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*body)(void*), void* closure, unsigned flags = 0,
                   const void* frame_low = nullptr, const void* frame_high = nullptr);
// The lowest and highest byte of the objects at `p...`.
template <class... T>
inline std::pair<const void*, const void*> span_of(const T&... objects) {
  const char* low = nullptr;
  const char* high = nullptr;
  for (auto [b, n] :
       {std::pair<const char*, size_t>(reinterpret_cast<const char*>(&objects), sizeof(T))...}) {
    if (!low || b < low) low = b;
    if (!high || b + n > high) high = b + n;
  }
  return {low, high};
}

// Dynamic parallelism. A launch made by a kernel thread is kept, with its own
// copy of the arguments, and runs after the grid that made it (before the
// host's launch returns): one order CUDA allows, since a parent cannot wait
// for its children. `run(state)` launches it; `free(state)` drops it.
bool launching_from_kernel();
void defer_child_launch(const LaunchSite& site, void (*run)(void*), void* state,
                        void (*free)(void*));

// Kernels launched through a function pointer (cudaLaunchKernel and
// cudaLaunchCooperativeKernel) need their parameter types: the rewriter
// registers every non-template __global__ function a .cu file defines.
using KernelInvoker = cudaError_t (*)(const void* kernel, void** args, const LaunchSite& site,
                                      dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                                      unsigned flags);
void register_kernel_invoker(const void* kernel, const char* name, KernelInvoker invoker);
// 0 when the kernel was not registered.
KernelInvoker find_kernel_invoker(const void* kernel, const char** name);
// Each parameter's size and alignment, for cuLaunchKernel's packed argument
// buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).
struct ParamLayout {
  size_t count;
  const size_t* sizes;
  const size_t* alignments;
};
void register_kernel_layout(const void* kernel, ParamLayout layout);
bool find_kernel_layout(const void* kernel, ParamLayout* layout);
template <class... P>
ParamLayout layout_for(void (*)(P...)) {
  static constexpr size_t sizes[] = {sizeof(std::decay_t<P>)..., 0};
  static constexpr size_t alignments[] = {alignof(std::decay_t<P>)..., 0};
  return {sizeof...(P), sizes, alignments};
}

// CUDA hands a kernel its arguments as bytes copied into the parameter
// space: no copy constructor or destructor of an argument runs on the device.
// g++ and clang pass a class with a user-written copy constructor or
// destructor ("non-trivial for the purposes of calls", Itanium C++ ABI)
// through a hidden pointer to a copy the caller owns. Such a parameter is
// given to each thread the CUDA way: the thread gets a bitwise copy of the
// launch's argument and the kernel is called with its address, so that no
// constructor or destructor runs per thread (CUDA by Example's Lock frees its
// mutex in its destructor).
template <class T>
inline constexpr bool kPassedByHiddenPointer =
    !std::is_trivially_destructible_v<T> ||
    (std::is_copy_constructible_v<T> && !std::is_trivially_copy_constructible_v<T>) ||
    (std::is_move_constructible_v<T> && !std::is_trivially_move_constructible_v<T>) ||
    (!std::is_copy_constructible_v<T> && !std::is_move_constructible_v<T>);

template <class... P>
inline constexpr bool kAnyByHiddenPointer = (kPassedByHiddenPointer<P> || ...);

template <class T>
struct ParamBytes {
  alignas(T) unsigned char bytes[sizeof(T)];
};

template <class T>
decltype(auto) abi_argument(ParamBytes<T>& own) {
  T* object = std::launder(reinterpret_cast<T*>(own.bytes));
  if constexpr (kPassedByHiddenPointer<T>)
    return object;
  else
    return static_cast<T&>(*object);  // trivially copyable: the call copies it
}

// One thread's call of `kernel` with the parameter bytes at params[i].
template <class... P, size_t... I>
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
void call_with_param_bytes(void (*kernel)(P...), const void* const* params,
                           std::index_sequence<I...>) {
  std::tuple<ParamBytes<P>...> own;
  (std::memcpy(std::get<I>(own).bytes, params[I], sizeof(P)), ...);
  using Abi = void (*)(std::conditional_t<kPassedByHiddenPointer<P>, P*, P>...);
  const auto abi = reinterpret_cast<Abi>(reinterpret_cast<void (*)()>(kernel));
  abi(abi_argument<P>(std::get<I>(own))...);
}

// ---- stream capture and graphs (simulator/src/runtime/graphs.cpp) ----
// A kernel launch kept in a graph: it owns a copy of the arguments, made
// when the launch was captured or the node added, and runs the kernel with
// them at each launch of the graph.
class KernelCall {
 public:
  virtual ~KernelCall() = default;
  virtual cudaError_t run(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
                          cudaStream_t stream, unsigned flags) = 0;
  // Pointers to the copies of the arguments (cudaGraphKernelNodeGetParams).
  virtual void** arguments() = 0;
};
// Whether work sent to `stream` is captured into a graph now.
bool capturing_launches(cudaStream_t stream);
// Records a launch into the graph `stream` captures (which takes `call`);
// `kernel` is the kernel when its address is known.
cudaError_t capture_kernel(cudaStream_t stream, const LaunchSite& site, dim3 grid, dim3 block,
                           size_t shmem, unsigned flags, const void* kernel, KernelCall* call);
// A KernelCall of `kernel`, which `invoker` runs, with a copy of the bytes
// of its arguments at args[i], laid out as `layout` (what cudaLaunchKernel
// under capture and an explicit kernel node keep); nullptr when args is
// missing.
KernelCall* stored_kernel_call(const void* kernel, KernelInvoker invoker, ParamLayout layout,
                               void* const* args);

// A `<<<...>>>` launch's own copy of its arguments with the call that runs
// the kernel on them (the rewriter's lambda): each thread runs `run`, a
// graph keeps a copy (`clone`), and so does a launch made by a kernel until
// it runs. One such type per launch site; what is done with it is not a
// template (launch_bound), so that each site costs its compile little.
struct BoundOps {
  size_t size;                                 // bytes of the object
  size_t count;                                // arguments
  void (*run)(void* bound);                    // one thread's call of the kernel
  void* (*clone)(const void* bound);           // a copy, made with new
  void (*destroy)(void* bound);                // deletes a copy
  void (*arguments)(void* bound, void** out);  // each argument's address
  uint64_t (*digest)(void* bound);             // of the arguments' bytes (a prediction's)
};
// FNV-1a over `n` bytes, from `h`.
inline uint64_t digest_more(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
template <size_t I, class T>
struct ArgSlot {
  template <class U>
  explicit ArgSlot(U&& u) : value(std::forward<U>(u)) {}
  T value;
};
template <class Call, class Seq, class... A>
struct BoundArgs;
template <class Call, size_t... I, class... A>
struct BoundArgs<Call, std::index_sequence<I...>, A...> : ArgSlot<I, A>... {
  template <class... U>
  explicit BoundArgs(const Call& c, U&&... u) : ArgSlot<I, A>(std::forward<U>(u))..., call(c) {}
  static void run(void* b) {
    auto& self = *static_cast<BoundArgs*>(b);
    self.call(static_cast<ArgSlot<I, A>&>(self).value...);
  }
  static void* clone(const void* b) { return new BoundArgs(*static_cast<const BoundArgs*>(b)); }
  static void destroy(void* b) { delete static_cast<BoundArgs*>(b); }
  static void arguments(void* b, void** out) {
    auto& self = *static_cast<BoundArgs*>(b);
    // A C-style cast: only it drops a `__restrict` that a kernel template's
    // parameter type keeps (`T* __restrict__ p`: the slot is a restrict
    // pointer, its address a pointer to one).
    ((out[I] = (void*)(&static_cast<ArgSlot<I, A>&>(self).value)), ...);
    (void)self;
    (void)out;
  }
  static uint64_t digest(void* b) {
    auto& self = *static_cast<BoundArgs*>(b);
    uint64_t h = 0xcbf29ce484222325ull;
    // (A C-style cast again: a slot may be a restrict pointer.)
    ((h = digest_more(h, (const void*)&static_cast<ArgSlot<I, A>&>(self).value, sizeof(A))), ...);
    (void)self;
    return h;
  }
  static constexpr size_t kCount = sizeof...(A);
  Call call;
};
template <class Call, class... A>
using Bound = BoundArgs<Call, std::index_sequence_for<A...>, A...>;
template <class B>
inline constexpr BoundOps kBoundOps{sizeof(B),   B::kCount,     &B::run,   &B::clone,
                                    &B::destroy, &B::arguments, &B::digest};
// Runs the launch whose arguments `bound` holds: now, or kept in the graph
// its stream captures, or (made by a kernel thread) after the grid that
// made it. `kernel` is the kernel when its exact type is known (a graph's
// node names it).
cudaError_t launch_bound(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
                         cudaStream_t stream, const BoundOps& ops, void* bound, const void* kernel);

template <class... P>
KernelInvoker invoker_for(void (*)(P...));

template <class... P, size_t... I>
cudaError_t invoke_with_args(void (*kernel)(P...), void** args, const LaunchSite& site, dim3 grid,
                             dim3 block, size_t shmem, cudaStream_t stream, unsigned flags,
                             std::index_sequence<I...> seq) {
  if (!(flags & kLaunchFromGraph) && capturing_launches(stream))
    return capture_kernel(stream, site, grid, block, shmem, flags,
                          reinterpret_cast<const void*>(kernel),
                          stored_kernel_call(reinterpret_cast<const void*>(kernel),
                                             invoker_for(kernel), layout_for(kernel), args));
  if constexpr (kAnyByHiddenPointer<std::decay_t<P>...>) {
    // The argument bytes as the caller left them at the launch, not copied
    // with constructors.
    std::tuple<ParamBytes<std::decay_t<P>>...> launch_copy;
    (std::memcpy(std::get<I>(launch_copy).bytes, args[I], sizeof(std::decay_t<P>)), ...);
    const void* params[] = {std::get<I>(launch_copy).bytes...};
    auto run_one_thread = [&] { call_with_param_bytes(kernel, params, seq); };
    using Body = decltype(run_one_thread);
    const auto frame = span_of(launch_copy, params, run_one_thread, kernel);
    return launch(
        site, grid, block, shmem, stream, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread, flags, frame.first, frame.second);
  } else {
    // Each argument is read from the address the caller gave, as CUDA does.
    std::tuple<std::decay_t<P>...> params(*static_cast<std::decay_t<P>*>(args[I])...);
    auto run_one_thread = [&] { std::apply(kernel, params); };
    using Body = decltype(run_one_thread);
    const auto frame = span_of(params, run_one_thread, kernel);
    return launch(
        site, grid, block, shmem, stream, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread, flags, frame.first, frame.second);
  }
}

template <class... P>
KernelInvoker invoker_for(void (*)(P...)) {
  return [](const void* k, void** args, const LaunchSite& site, dim3 grid, dim3 block, size_t shmem,
            cudaStream_t stream, unsigned flags) {
    auto kernel = reinterpret_cast<void (*)(P...)>(const_cast<void*>(k));
    if (sizeof...(P) > 0 && !args) return cudaErrorInvalidValue;
    return invoke_with_args(kernel, args, site, grid, block, shmem, stream, flags,
                            std::index_sequence_for<P...>{});
  };
}

template <class... P>
int register_kernel(void (*kernel)(P...), const char* name) {
  register_kernel_invoker(reinterpret_cast<const void*>(kernel), name, invoker_for(kernel));
  register_kernel_layout(reinterpret_cast<const void*>(kernel), layout_for(kernel));
  return 0;
}

// A launch argument written `0` or `NULL` (the rewriter puts this in its
// place). Called directly, the kernel would take it as a null pointer for a
// pointer parameter and as 0 for a number; forwarded through the launch it
// would be an int, which no pointer parameter takes. So it converts to
// both, and call_kernel passes each such argument as the int 0 or as
// itself (which becomes a null pointer), the first choice that calls the
// kernel, ints first: a parameter whose type a template deduces from it
// gets int, as with nvcc.
struct LiteralZero {
  constexpr operator int() const { return 0; }
  template <class T>
  constexpr operator T*() const {
    return nullptr;
  }
  template <class T, class C>
  constexpr operator T C::*() const {
    return nullptr;
  }
};
template <class T>
struct ZeroAsInt {
  using type = T;
};
template <>
struct ZeroAsInt<LiteralZero> {
  using type = int;
};
template <class T>
using zero_as_int_t = typename ZeroAsInt<T>::type;
template <class T>
constexpr bool kIsLiteralZero = std::is_same_v<std::decay_t<T>, LiteralZero>;

// Argument `value`, the `ordinal`-th LiteralZero or another: a LiteralZero
// stays one where bit `ordinal` of `Mask` is set, else becomes the int 0.
template <size_t Mask, size_t Ordinal, class T>
decltype(auto) zero_choice(T&& value) {
  if constexpr (!kIsLiteralZero<T>)
    return std::forward<T>(value);
  else if constexpr (((Mask >> Ordinal) & 1) != 0)
    return LiteralZero{};
  else
    return int(0);
}
template <class... A>
constexpr size_t zero_ordinal(size_t position) {
  const bool zero[] = {kIsLiteralZero<A>..., false};
  size_t n = 0;
  for (size_t i = 0; i < position; ++i) n += zero[i];
  return n;
}
template <size_t Mask, class Call, class Args, size_t... I>
constexpr bool calls_with(std::index_sequence<I...>) {
  return std::is_invocable_v<
      Call&, decltype(zero_choice<Mask, zero_ordinal<std::tuple_element_t<I, Args>...>(I)>(
                 std::declval<std::tuple_element_t<I, Args>>()))...>;
}
template <size_t Mask, class Call, class Args, size_t... I>
void call_with(Call& call, Args& args, std::index_sequence<I...>) {
  call(zero_choice<Mask, zero_ordinal<std::tuple_element_t<I, Args>...>(I)>(
      std::forward<std::tuple_element_t<I, Args>>(std::get<I>(args)))...);
}
// The first choice of masks that calls the kernel; none: all null pointers
// (for the compiler's message).
template <class Call, class Args, size_t... Mask>
constexpr size_t first_that_calls(std::index_sequence<Mask...>) {
  constexpr auto each = std::make_index_sequence<std::tuple_size_v<Args>>{};
  size_t found = ~size_t(0);
  ((found = found == ~size_t(0) && calls_with<Mask, Call, Args>(each) ? Mask : found), ...);
  return found;
}
template <class Call, class... A>
void call_kernel(Call call, A&&... args) {
  constexpr size_t zeros = (size_t(0) + ... + size_t(kIsLiteralZero<A>));
  using Args = std::tuple<A&&...>;
  Args forwarded(std::forward<A>(args)...);
  constexpr size_t mask = first_that_calls<Call, Args>(
      std::make_index_sequence<(size_t(1) << (zeros < 6 ? zeros : 6))>{});
  call_with<mask>(call, forwarded, std::make_index_sequence<sizeof...(A)>{});
}

// Given a null `void (*)(A...)`, returns the kernel as that type when the
// kernel expression names a function of exactly those parameters (the
// rewriter's lambda), or nullptr. (Programs may be C++17: no `requires`.)
template <class Exact>
struct KernelPointer : Exact {
  using Exact::operator();
  std::nullptr_t operator()(...) const { return nullptr; }
};
template <class Exact>
KernelPointer(Exact) -> KernelPointer<Exact>;

// `Call` calls the kernel with the arguments; `Pointer` is a KernelPointer.
template <class Call, class Pointer>
class Launcher {
 public:
  Launcher(Call call, Pointer pointer, LaunchSite site, dim3 grid, dim3 block, size_t shmem = 0,
           cudaStream_t stream = nullptr)
      : call_(call),
        pointer_(pointer),
        site_(site),
        grid_(grid),
        block_(block),
        shmem_(shmem),
        stream_(stream) {}

  // Arguments are copied once at the launch, as CUDA copies them into the
  // kernel's parameter space; each thread then gets its own copy of them.
  template <class... Args>
  void operator()(Args&&... args) {
    using Exact = void (*)(zero_as_int_t<std::decay_t<Args>>...);
    using Found = decltype(pointer_(Exact{}));
    constexpr bool exact = !std::is_same_v<Found, std::nullptr_t>;
    // Such an argument's bytes are copied once only through the kernel's
    // exact type, which a 0 going to a pointer parameter hides.
    static_assert(
        !(kAnyByHiddenPointer<std::decay_t<Args>...> && !exact && (kIsLiteralZero<Args> || ...)),
        "this launch passes 0 or NULL to a pointer parameter of a kernel that also takes "
        "an argument with a copy constructor or destructor: write nullptr there");
    if constexpr (kAnyByHiddenPointer<std::decay_t<Args>...> && exact) {
      if (launching_from_kernel()) {
        using Child = std::pair<Launcher, std::tuple<std::decay_t<Args>...>>;
        auto* child =
            new Child(*this, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...));
        defer_child_launch(
            site_,
            [](void* c) {
              Child& child = *static_cast<Child*>(c);
              std::apply(
                  [&](auto&... a) {
                    child.first.launch_with_param_bytes(child.first.pointer_(Exact{}),
                                                        std::index_sequence_for<Args...>{}, a...);
                  },
                  child.second);
            },
            child, [](void* c) { delete static_cast<Child*>(c); });
        return;
      }
      launch_with_param_bytes(pointer_(Exact{}), std::index_sequence_for<Args...>{},
                              std::forward<Args>(args)...);
    } else {
      // A 0 the kernel takes as an int is an int from here on.
      using Kept = std::conditional_t<exact, Bound<Call, zero_as_int_t<std::decay_t<Args>>...>,
                                      Bound<Call, std::decay_t<Args>...>>;
      Kept bound(call_, std::forward<Args>(args)...);
      const void* kernel = nullptr;
      if constexpr (exact) kernel = reinterpret_cast<const void*>(pointer_(Exact{}));
      launch_bound(site_, grid_, block_, shmem_, stream_, kBoundOps<Kept>, &bound, kernel);
    }
  }

 private:
  // The host's copy of the arguments is made once here (its copy
  // constructors run, and its destructors after the launch, as with nvcc);
  // each thread gets the bytes of it.
  template <class... P, size_t... I, class... Args>
  void launch_with_param_bytes(void (*kernel)(P...), std::index_sequence<I...> seq,
                               Args&&... args) {
    std::tuple<P...> host_copy(std::forward<Args>(args)...);
    if (capturing_launches(stream_)) {
      // Kept in the graph: the bytes of the host's copy, made now.
      void* kept[] = {static_cast<void*>(&std::get<I>(host_copy))..., nullptr};
      capture_kernel(stream_, site_, grid_, block_, shmem_, 0,
                     reinterpret_cast<const void*>(kernel),
                     stored_kernel_call(reinterpret_cast<const void*>(kernel), invoker_for(kernel),
                                        layout_for(kernel), kept));
      return;
    }
    const void* params[] = {static_cast<const void*>(&std::get<I>(host_copy))...};
    auto run_one_thread = [&] { call_with_param_bytes(kernel, params, seq); };
    using Body = decltype(run_one_thread);
    const auto frame = span_of(host_copy, params, run_one_thread, *this);
    launch(
        site_, grid_, block_, shmem_, stream_, [](void* c) { (*static_cast<Body*>(c))(); },
        &run_one_thread, 0, frame.first, frame.second);
  }

  Call call_;
  Pointer pointer_;
  LaunchSite site_;
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

template <class... P>
cudaError_t launch_typed(void (*func)(P...), dim3 grid, dim3 block, void** args, size_t shmem,
                         cudaStream_t stream, unsigned flags, const char* file, int line) {
  const char* name = "kernel";
  find_kernel_invoker(reinterpret_cast<const void*>(func), &name);
  const LaunchSite site{name, file, line};
  return invoker_for(func)(reinterpret_cast<const void*>(func), args, site, grid, block, shmem,
                           stream, flags);
}

// make_launcher(call, pointer, site)(grid, block[, shmem[, stream]])(args...):
// the configuration goes through a plain function call so that it converts
// as in CUDA (a literal 0 is a null stream, an int is a dim3).
template <class Call, class Pointer>
struct LaunchBuilder {
  Call call;
  Pointer pointer;
  LaunchSite site;
  Launcher<Call, Pointer> operator()(dim3 grid, dim3 block, size_t shmem = 0,
                                     cudaStream_t stream = nullptr) const {
    return Launcher<Call, Pointer>(call, pointer, site, grid, block, shmem, stream);
  }
};

template <class Call, class Pointer>
LaunchBuilder<Call, Pointer> make_launcher(Call call, Pointer pointer, LaunchSite site) {
  return LaunchBuilder<Call, Pointer>{call, pointer, site};
}

}  // namespace cudalab::detail
