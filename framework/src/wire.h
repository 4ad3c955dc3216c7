// The wire format of the channel between a lesson's judge and a submission's
// process (channel.h says who sends what). A message is its length (8
// bytes, as the machine stores a uint64_t: the bytes that follow), the
// length of its head (8 bytes), the head, and then raw bytes: the test's
// buffers, which the receiver reads straight into their places (a test's
// 16M-element arrays are neither copied into a message nor out of one).
// The head's fields are written by Out and read by In, which checks every
// length against what is left and throws on a message that ends early or a
// field longer than it may be. The judge's side (judge_side.cpp) and the
// submission's (submission_side.cpp) both use it; tests/unit/wire_test.cpp
// holds it to this.
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
// What an answer says of a call that did not go through (the exception
// the student's function threw, say), at most: the judge reads no more.
inline constexpr uint64_t kMaxDetail = 400;
// A message's head: names, sizes and small values, never a buffer.
inline constexpr uint64_t kMaxHead = uint64_t(1) << 20;
// The two lengths a message starts with.
inline constexpr size_t kFrame = 16;

// A message's head as it is sent: the two lengths (set by framed()), then
// its fields.
class Out {
 public:
  Out() : s_(kFrame, '\0') {}
  void u8(uint8_t v) { s_.push_back(char(v)); }
  void u32(uint32_t v) { s_.append(reinterpret_cast<const char*>(&v), 4); }
  void u64(uint64_t v) { s_.append(reinterpret_cast<const char*>(&v), 8); }
  void i32(int32_t v) { s_.append(reinterpret_cast<const char*>(&v), 4); }
  void str(const std::string& v) {
    u64(v.size());
    s_ += v;
  }
  void raw(const void* p, size_t n) { s_.append(static_cast<const char*>(p), n); }
  // The lengths set for a message whose head this is and which `raw_bytes`
  // more follow (sent after it); the lengths and the head.
  const std::string& framed(uint64_t raw_bytes = 0) {
    const uint64_t head = s_.size() - kFrame, rest = 8 + head + raw_bytes;
    std::memcpy(s_.data(), &rest, 8);
    std::memcpy(s_.data() + 8, &head, 8);
    return s_;
  }
  void clear() { std::string(kFrame, '\0').swap(s_); }

 private:
  std::string s_;
};

// A message's two lengths, as read: `rest` (what follows the first) and
// `head`. Whether they can be a message: the head within the rest and
// within kMaxHead, the rest within kMaxMessage. `raw` is then the bytes
// after the head.
struct Frame {
  uint64_t rest = 0, head = 0;
  bool valid() const {
    return rest <= kMaxMessage && rest >= 8 && head <= rest - 8 && head <= kMaxHead;
  }
  uint64_t raw() const { return rest - 8 - head; }
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
// A message's two lengths and its head (false: the pipe's end, an error,
// or lengths that cannot be a message).
bool read_head(int fd, Frame* frame, std::string* head);

}  // namespace cudalab::grading::wire
