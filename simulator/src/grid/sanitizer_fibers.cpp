// The sanitizer build's fibers and leak checking. With CUDALAB_SANITIZE,
// Boost.Context runs
// fibers on ucontext with AddressSanitizer's fiber annotations
// (BOOST_USE_UCONTEXT, BOOST_USE_ASAN), so that ASan follows each switch of
// stacks. Debian's Boost.Context library is built for its assembly backend
// and lacks the one function that backend needs from it: the record of the
// fiber running on this thread, defined here.
#if defined(BOOST_USE_UCONTEXT)
#include <dlfcn.h>
#include <ucontext.h>

#include <boost/context/fiber.hpp>
#include <cstdlib>

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
  // At first the thread runs on its own stack: a record of that context.
  thread_local fiber_activation_record thread_context;
  thread_local fiber_activation_record* running = &thread_context;
  return running;
}

}  // namespace boost::context::detail

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
#endif

// A simulated program stops a CUDA thread that faults, asserts or runs out
// of time by jumping out of its stack, as a GPU ends it: what that thread's
// frames held (a string of the runtime's, a stream it was reading) is never
// freed, by design. Programs that link the simulator are left out of
// LeakSanitizer's check; its other checks stay on, and the tools (cudalab,
// cudalab-cc, the rewriter, the viewer, the trace library's users) keep it.
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
