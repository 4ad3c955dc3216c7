// The sanitizer builds' fibers. With CUDALAB_SANITIZE or CUDALAB_TSAN,
// Boost.Context runs fibers on ucontext with AddressSanitizer's fiber
// annotations (BOOST_USE_UCONTEXT, BOOST_USE_ASAN): it calls
// __sanitizer_start_switch_fiber before each switch of stacks and
// __sanitizer_finish_switch_fiber after it. AddressSanitizer defines those
// two; for ThreadSanitizer, which has a fiber API of its own and no support
// in Debian's Boost.Context, this file defines them (below). Debian's
// Boost.Context library is built for its assembly backend and lacks the one
// function the ucontext backend needs from it: the record of the fiber
// running on this thread, defined here.
#if defined(BOOST_USE_UCONTEXT)
#include <dlfcn.h>
#include <ucontext.h>

#include <cstdlib>

#include "grid/fiber.h"

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
  // At first the thread runs on its own stack: a record of that context.
  thread_local fiber_activation_record thread_context;
  thread_local fiber_activation_record* running = &thread_context;
  return running;
}

}  // namespace boost::context::detail

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDALAB_FIBERS_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define CUDALAB_FIBERS_TSAN 1
#endif
#endif

#if defined(CUDALAB_FIBERS_ASAN)
// AddressSanitizer's stand-in for fibers that do not say when they switch
// (its swapcontext interceptor) prints a warning, with the process id, into
// every simulated program's output, so that no two runs print the same. These
// fibers do say (BOOST_USE_ASAN), and the stack pool cleans a stack when it
// takes it back (stack_pool.cpp): the switch goes straight to the C
// library's swapcontext.
extern "C" int swapcontext(ucontext_t* from, const ucontext_t* to) {
  using Swap = int (*)(ucontext_t*, const ucontext_t*);
  static const Swap libc_swap = [] {
    void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    return libc ? reinterpret_cast<Swap>(dlsym(libc, "swapcontext")) : nullptr;
  }();
  if (!libc_swap) abort();
  return libc_swap(from, to);
}

// A simulated program stops a CUDA thread that faults, asserts or runs out
// of time by jumping out of its stack, as a GPU ends it: what that thread's
// frames held (a string of the runtime's, a stream it was reading) is never
// freed, by design. Programs that link the simulator are left out of
// LeakSanitizer's check; its other checks stay on, and the tools (cudalab,
// cudalab-cc, the rewriter, the viewer, the trace library's users) keep it.
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
#endif

#if defined(CUDALAB_FIBERS_TSAN)
// ThreadSanitizer follows fibers when told which of its fibers runs from
// now on (__tsan_switch_to_fiber, right before the switch), each fiber with
// its own record of calls and of what it has done, as if it were a thread.
//
// Boost.Context names the stack it switches to by its lowest address and
// size, and keeps the lowest address and size of the stack it came from as
// __sanitizer_finish_switch_fiber reports them. A fiber's stack maps to a
// ThreadSanitizer fiber, made when Boost.Context first switches to it and
// kept for the next fibers on the same stack (the stack pool reuses its
// stacks); the thread's own stack (the main context, which Boost.Context
// knows by what finish reported: nullptr here) maps to the fiber
// ThreadSanitizer had on this thread at first. A block's fibers never move
// to another OS thread (block_fibers.cpp), so each OS thread keeps its own
// map. A stack is released for good only when its thread ends (the pool's
// destructor), and so are the thread's ThreadSanitizer fibers (below).
//
// A stack's ThreadSanitizer fiber is reused only because a fiber that ends
// leaves nothing on its record of calls: Boost.Context's own code, in whose
// frames a fiber switches away for the last time, is compiled without
// ThreadSanitizer's instrumentation (grid/fiber.h). Otherwise each fiber
// that ended would leave those frames on the record, until it overflowed.
//
// The fibers of one OS thread run one at a time, in the order the block's
// scheduler chooses: each switch is ordered after everything before it on
// that thread (a release and an acquire on the thread's own object), so
// that what ThreadSanitizer checks is the simulator's OS threads against
// each other. Not through __tsan_switch_to_fiber's own synchronization,
// which uses the address of the fiber's state: once a thread ends, that
// address (its thread-local storage, or a destroyed fiber's) may come back
// for another thread, which would then inherit the dead thread's history
// and hide races. The thread's own object is on the heap, and freeing it
// when the thread ends clears what ThreadSanitizer kept for it.
//
// The two functions carry no instrumentation at all: the first switches
// ThreadSanitizer's fiber before it returns, and an instrumented function's
// exit would be counted on the new fiber's record.
#include <sanitizer/tsan_interface.h>

#include <memory>
#include <unordered_map>

namespace {

struct TsanFibers {
  void* own = nullptr;  // the thread's own: ThreadSanitizer's fiber at first
  std::unordered_map<const void*, void*> by_stack;  // lowest address: fiber
  // What each switch releases and acquires (see above).
  std::unique_ptr<char> order = std::make_unique<char>();
  // The stack running now (nullptr: the thread's own), and the one a switch
  // is going to.
  const void* bottom = nullptr;
  size_t size = 0;
  const void* next_bottom = nullptr;
  size_t next_size = 0;
  ~TsanFibers() {
    // The thread ends, and the stack pool unmaps its stacks.
    void* running = __tsan_get_current_fiber();
    for (const auto& [stack, fiber] : by_stack)
      if (fiber != running) __tsan_destroy_fiber(fiber);
  }
};
thread_local TsanFibers tl_tsan_fibers;

}  // namespace

extern "C" __attribute__((disable_sanitizer_instrumentation)) void __sanitizer_start_switch_fiber(
    void**, const void* bottom, size_t size) {
  TsanFibers& f = tl_tsan_fibers;
  if (!f.own) f.own = __tsan_get_current_fiber();
  void* to = f.own;
  if (bottom) {
    void*& fiber = f.by_stack[bottom];
    if (!fiber) fiber = __tsan_create_fiber(0);
    to = fiber;
  }
  f.next_bottom = bottom;
  f.next_size = size;
  __tsan_release(f.order.get());
  __tsan_switch_to_fiber(to, __tsan_switch_to_fiber_no_sync);
  __tsan_acquire(f.order.get());
}

extern "C" __attribute__((disable_sanitizer_instrumentation)) void __sanitizer_finish_switch_fiber(
    void*, const void** bottom_old, size_t* size_old) {
  TsanFibers& f = tl_tsan_fibers;
  if (bottom_old) *bottom_old = f.bottom;
  if (size_old) *size_old = f.size;
  f.bottom = f.next_bottom;
  f.size = f.next_size;
}
#endif
#endif
