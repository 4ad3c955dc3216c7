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

extern "C" int printf(const char* format, ...) {
  using namespace cudalab::rt;
  va_list args;
  va_start(args, format);
  int n = 0;
  if (!tl_thread) {
    n = std::vprintf(format, args);
  } else {
    stop_if_timed_out(__builtin_return_address(0));
    const RuntimeScope runtime;
    n = std::vprintf(format, args);
  }
  va_end(args);
  return n;
}

namespace {
// puts and putchar themselves: the C library's, through stdout's own
// functions (these names are the program's now).
int put_line(const char* s) {
  flockfile(stdout);
  int r = std::fputs(s, stdout);
  if (r >= 0) r = putc_unlocked('\n', stdout) == EOF ? EOF : 1;
  funlockfile(stdout);
  return r;
}
}  // namespace

extern "C" int puts(const char* s) {
  using namespace cudalab::rt;
  if (!tl_thread) return put_line(s);
  stop_if_timed_out(__builtin_return_address(0));
  const RuntimeScope runtime;
  return put_line(s);
}

extern "C" int putchar(int c) {
  using namespace cudalab::rt;
  if (!tl_thread) return std::fputc(c, stdout);
  stop_if_timed_out(__builtin_return_address(0));
  const RuntimeScope runtime;
  return std::fputc(c, stdout);
}
