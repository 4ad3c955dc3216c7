/* cudalab's CPU simulator: assert. Outside kernels it is the C library's;
   inside a kernel a failed assert prints what a GPU prints (file, line,
   function, block and thread) and ends the launch with cudaErrorAssert.
   Like the C library's, this header may be included again with NDEBUG
   changed, so it has no include guard for `assert` itself. */
#include_next <assert.h>

#ifndef CUDALAB_ASSERT_DECLARED
#define CUDALAB_ASSERT_DECLARED
#ifdef __cplusplus
extern "C"
#endif
    void
    cudalab_assert_fail(const char* expression, const char* file, unsigned line,
                        const char* function);
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : cudalab_assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
