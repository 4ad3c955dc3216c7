// The student's functions, as graded tests call them.
//
// A lesson's graded tests name the functions of the student's file they call
// (the launchers declared in lesson.h):
//
//   const auto launch = CUDALAB_SUBMISSION(launch_vector_add);
//   launch(d_a, d_b, d_c, n, blocks, threads);
//
// In a grader built with the student's file (running a lesson's tests by
// hand) the call is a plain call. In the judge (built with CUDALAB_JUDGE, no
// student code in it) the call goes to the submission's own process: the
// device buffers its pointer arguments point into are sent there, the
// function runs there, and the buffers it may have written come back. The
// judge keeps the inputs and the references and compares; the submission's
// process only ever hands back buffers, never a verdict.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace cudalab::grading {

// One argument of a call, as it crosses to the submission's process.
struct CallArg {
  bool is_pointer = false;
  bool writable = false;          // a pointer to non-const: the buffer may come back changed
  const void* pointer = nullptr;  // is_pointer: a device address, or null
  std::string bytes;              // !is_pointer: the value's bytes
};

namespace detail {
// Judge side: runs `name` in the submission's process; returns the bytes of
// its return value. Throws SubmissionLost when that process does not answer.
std::string call_submission(const char* name, const char* signature,
                            const std::vector<CallArg>& args, size_t return_size);

// Submission side: a function the judge may call, by name.
using Invoker = std::string (*)(void* function, const std::vector<CallArg>& args);
int serve_function(const char* name, const char* signature, void* function, Invoker invoke);

// Judge side: the functions the graded tests call, so that the submission's
// program can be made to serve them (`judge --list` names them).
const char* note_called(const char* name);

template <typename T>
CallArg to_arg(T value) {
  CallArg a;
  if constexpr (std::is_pointer_v<T>) {
    a.is_pointer = true;
    a.writable = !std::is_const_v<std::remove_pointer_t<T>>;
    a.pointer = value;
  } else {
    static_assert(std::is_trivially_copyable_v<T>,
                  "a graded function's arguments must be pointers or plain values");
    a.bytes.assign(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  return a;
}

template <typename T>
T from_arg(const CallArg& a) {
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<T>(const_cast<void*>(a.pointer));
  } else {
    if (a.is_pointer || a.bytes.size() != sizeof(T))
      throw std::runtime_error("an argument does not match the function's parameter");
    T value;
    std::memcpy(static_cast<void*>(&value), a.bytes.data(), sizeof(T));
    return value;
  }
}

template <typename R, typename... A, size_t... I>
std::string invoke_with(R (*f)(A...), const std::vector<CallArg>& args, std::index_sequence<I...>) {
  if (args.size() != sizeof...(A))
    throw std::runtime_error("the call has the wrong number of arguments");
  if constexpr (std::is_void_v<R>) {
    f(from_arg<A>(args[I])...);
    return {};
  } else {
    const R r = f(from_arg<A>(args[I])...);
    return std::string(reinterpret_cast<const char*>(&r), sizeof(R));
  }
}

template <typename R, typename... A>
std::string invoke(void* function, const std::vector<CallArg>& args) {
  return invoke_with(reinterpret_cast<R (*)(A...)>(function), args,
                     std::index_sequence_for<A...>{});
}
}  // namespace detail

template <typename Signature>
class Submitted;

// A function of the student's file: called directly (`local` set) or in the
// submission's process.
template <typename R, typename... A>
class Submitted<R(A...)> {
 public:
  Submitted(const char* name, R (*local)(A...)) : name_(name), local_(local) {}
  R operator()(A... args) const {
    if (local_) return local_(args...);
    const std::string ret = detail::call_submission(name_, typeid(R(A...)).name(),
                                                    {detail::to_arg<A>(args)...}, sizeof_return());
    if constexpr (!std::is_void_v<R>) {
      static_assert(std::is_trivially_copyable_v<R>, "a graded function returns a plain value");
      R r;
      std::memcpy(static_cast<void*>(&r), ret.data(), sizeof(R));
      return r;
    }
  }
  const char* name() const { return name_; }

 private:
  static constexpr size_t sizeof_return() {
    if constexpr (std::is_void_v<R>)
      return 0;
    else
      return sizeof(R);
  }
  const char* name_;
  R (*local_)(A...);
};

// The submission's side: lets the judge call `function` by `name`.
template <typename R, typename... A>
int serve(const char* name, R (*function)(A...)) {
  return detail::serve_function(name, typeid(R(A...)).name(), reinterpret_cast<void*>(function),
                                &detail::invoke<R, A...>);
}

}  // namespace cudalab::grading

// Use it at namespace scope, so that the judge knows every function before a
// test runs.
#ifdef CUDALAB_JUDGE
#define CUDALAB_SUBMISSION(fn)                                                              \
  ::cudalab::grading::Submitted<decltype(fn)>(::cudalab::grading::detail::note_called(#fn), \
                                              static_cast<decltype(fn)*>(nullptr))
#else
#define CUDALAB_SUBMISSION(fn) ::cudalab::grading::Submitted<decltype(fn)>(#fn, &fn)
#endif

// In the submission's generated main: one line per function the judge calls.
#define CUDALAB_SERVE(fn) \
  [[maybe_unused]] static const int cudalab_serve_##fn = ::cudalab::grading::serve(#fn, &fn);
