// Boost.Context's fibers, as the runtime includes them. Not a public header.
//
// In the tsan preset, Boost.Context's own code (compiled here, from its
// headers) carries no ThreadSanitizer instrumentation: a fiber switches
// away for the last time from inside its frames, which would otherwise stay
// on the record of calls of that stack's ThreadSanitizer fiber, reused for
// the next fiber on the stack (sanitizer_fibers.cpp). Every file of the
// runtime includes Boost.Context through this header, so that no copy of
// its inline functions is instrumented. The standard headers it includes
// come first, and keep their instrumentation.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDALAB_FIBERS_UNINSTRUMENTED 1
#endif
#endif

#if defined(CUDALAB_FIBERS_UNINSTRUMENTED)
#include <cxxabi.h>
#include <ucontext.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <ostream>
#include <system_error>
#include <tuple>
#include <utility>
#include <version>
#pragma clang attribute push(__attribute__((disable_sanitizer_instrumentation)), \
                             apply_to = function)
#include <boost/context/fiber.hpp>
#pragma clang attribute pop
#else
#include <boost/context/fiber.hpp>
#endif
