// The wire format of the channel between a lesson's judge and a submission's
// process (channel.h says who sends what). A message is its length (8
// bytes, as the machine stores a uint64_t) and then its fields, written by
// Out and read by In, which checks every length against what is left and
// throws on a message that ends early or a field longer than it may be. The
// judge's side (judge_side.cpp) and the submission's (submission_side.cpp)
// both use it; tests/unit/wire_test.cpp holds it to this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cudalab::grading::wire {

// The requests the judge sends: call a student's function (with its
// buffers); which thread wrote an address of a buffer; the number the
// submission's trace gives a buffer's allocation; end.
inline constexpr char kCall = 'C', kWhoWrote = 'W', kAllocationNumber = 'A', kQuit = 'Q';
// The status an answer to a call begins with.
inline constexpr uint8_t kOk = 0, kNoSuchFunction = 1, kWrongSignature = 2, kNoMemory = 3,
                         kThrew = 4, kBadRequest = 5;
// More than any lesson sends; an answer claiming more is not read.
inline constexpr uint64_t kMaxMessage = uint64_t(8) << 30;

// A message as it is sent: its length (8 bytes, set by framed()), then its
// fields. Room for large ones is reserved up front, and buffers are copied
// into it once: a test's 16M-element arrays are not copied again on their way.
class Out {
 public:
  Out() : s_(8, '\0') {}
  void reserve(size_t body) { s_.reserve(8 + body); }
  void u8(uint8_t v) { s_.push_back(char(v)); }
  void u32(uint32_t v) { s_.append(reinterpret_cast<const char*>(&v), 4); }
  void u64(uint64_t v) { s_.append(reinterpret_cast<const char*>(&v), 8); }
  void i32(int32_t v) { s_.append(reinterpret_cast<const char*>(&v), 4); }
  void str(const std::string& v) {
    u64(v.size());
    s_ += v;
  }
  void raw(const void* p, size_t n) { s_.append(static_cast<const char*>(p), n); }
  // `n` bytes more, to be written at the pointer returned; drop(n) takes
  // them back.
  char* grow(size_t n) {
    s_.resize(s_.size() + n);
    return s_.data() + s_.size() - n;
  }
  void drop(size_t n) { s_.resize(s_.size() - n); }
  // The whole message, its length set.
  const std::string& framed() {
    const uint64_t n = s_.size() - 8;
    std::memcpy(s_.data(), &n, 8);
    return s_;
  }
  void clear() { std::string(8, '\0').swap(s_); }

 private:
  std::string s_;
};

class In {
 public:
  explicit In(const std::string& s) : s_(s) {}
  uint8_t u8() { return uint8_t(take(1)[0]); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int32_t i32() { return get<int32_t>(); }
  std::string str(uint64_t max) {
    const uint64_t n = u64();
    if (n > max) throw std::runtime_error("a field is longer than it may be");
    return std::string(take(n), n);
  }
  const char* take(uint64_t n) {
    if (n > s_.size() - at_) throw std::runtime_error("the message ends early");
    const char* p = s_.data() + at_;
    at_ += n;
    return p;
  }
  bool done() const { return at_ == s_.size(); }

 private:
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  const std::string& s_;
  size_t at_ = 0;
};

// Blocking whole-message I/O, for the submission's side (the judge's waits
// on several pipes at once, with a deadline). False at the pipe's end or on
// an error.
bool read_exactly(int fd, void* p, size_t n);
bool write_exactly(int fd, const void* p, size_t n);

}  // namespace cudalab::grading::wire
