// printf, puts and putchar as the program's code calls them (the compiler
// turns a printf of a plain line into puts, of one character into
// putchar). From a kernel thread, a launch that timed out stops here,
// before the C library takes its lock of stdout, and the call is the
// runtime's code, which the watchdog's signal leaves alone: a thread made
// to leave printf by siglongjmp would keep that lock, and every later
// print of the program would wait for it forever (a printf in a loop that
// never ends is a common bug). From the host, the C library's own.
#include <cstdarg>
#include <cstdio>

#include "grid/grid.h"

namespace cudalab::rt {
// Called once a program launches (install_fault_handlers): the linker then
// takes this file from the runtime's library also where a sanitizer's
// library already defines printf, weakly (its interceptor), which this
// file's definitions replace.
void link_device_printf() {}
}  // namespace cudalab::rt

namespace {
// `print()` as called from `return_address`: in a kernel thread, after the
// stop of a launch that timed out, and as the runtime's code.
template <typename Print>
int guarded(void* return_address, Print print) {
  using namespace cudalab::rt;
  if (!tl_thread) return print();
  stop_if_timed_out(return_address);
  const RuntimeScope runtime;
  return print();
}

// puts itself: the C library's, through stdout's own functions (the name
// puts is the program's now).
int put_line(const char* s) {
  flockfile(stdout);
  int r = std::fputs(s, stdout);
  if (r >= 0) r = putc_unlocked('\n', stdout) == EOF ? EOF : 1;
  funlockfile(stdout);
  return r;
}
}  // namespace

extern "C" int printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = guarded(__builtin_return_address(0), [&] { return std::vprintf(format, args); });
  va_end(args);
  return n;
}

extern "C" int puts(const char* s) {
  return guarded(__builtin_return_address(0), [&] { return put_line(s); });
}

extern "C" int putchar(int c) {
  return guarded(__builtin_return_address(0), [&] { return std::fputc(c, stdout); });
}
