// The channel's wire format (framework/src/wire.h): what the judge writes
// reads back field by field; a message that ends early, or a field longer
// than it may be, is refused rather than read past; lengths that cannot be
// a message are refused before anything is read; whole messages (a head,
// then raw bytes) cross a pipe however the reads fall.
#include "wire.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

namespace {

using cudalab::grading::wire::In;
using cudalab::grading::wire::Out;
namespace wire = cudalab::grading::wire;

// The head of a framed message with no raw bytes (what follows its two
// lengths).
std::string body_of(Out& out) {
  const std::string& m = out.framed();
  uint64_t rest = 0, head = 0;
  std::memcpy(&rest, m.data(), 8);
  std::memcpy(&head, m.data() + 8, 8);
  EXPECT_EQ(rest, m.size() - 8);
  EXPECT_EQ(head, m.size() - wire::kFrame);
  return m.substr(wire::kFrame);
}

TEST(Wire, WhatIsWrittenReadsBackFieldByField) {
  Out out;
  out.u8(wire::kCall);
  out.u32(0xdeadbeef);
  out.u64(uint64_t(1) << 40);
  out.i32(-7);
  out.str("vector_add");
  out.str("");
  const float values[3] = {1.5f, -2.0f, 3.25f};
  out.raw(values, sizeof(values));
  const std::string body = body_of(out);
  In in(body);
  EXPECT_EQ(in.u8(), uint8_t(wire::kCall));
  EXPECT_EQ(in.u32(), 0xdeadbeefu);
  EXPECT_EQ(in.u64(), uint64_t(1) << 40);
  EXPECT_EQ(in.i32(), -7);
  EXPECT_EQ(in.str(64), "vector_add");
  EXPECT_EQ(in.str(64), "");
  float back[3];
  std::memcpy(back, in.take(sizeof(back)), sizeof(back));
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[2], 3.25f);
  EXPECT_TRUE(in.done());
}

TEST(Wire, RawBytesAfterTheHeadAreCountedInItsLengthOnly) {
  Out out;
  out.u8(1);
  out.u64(12);
  const std::string& m = out.framed(12);
  uint64_t rest = 0, head = 0;
  std::memcpy(&rest, m.data(), 8);
  std::memcpy(&head, m.data() + 8, 8);
  EXPECT_EQ(head, 9u);
  EXPECT_EQ(rest, 8u + 9u + 12u);
  const wire::Frame f{rest, head};
  EXPECT_TRUE(f.valid());
  EXPECT_EQ(f.raw(), 12u);
  out.clear();
  EXPECT_EQ(body_of(out), "");
}

TEST(Wire, LengthsThatCannotBeAMessageAreRefused) {
  EXPECT_TRUE((wire::Frame{8, 0}.valid()));     // an empty head
  EXPECT_FALSE((wire::Frame{7, 0}.valid()));    // no room for the head's length
  EXPECT_FALSE((wire::Frame{20, 13}.valid()));  // a head past the message
  EXPECT_FALSE(
      (wire::Frame{8 + (uint64_t(2) << 20), uint64_t(2) << 20}.valid()));  // a head too large
  EXPECT_FALSE((wire::Frame{wire::kMaxMessage + 1, 0}.valid()));           // a message too large
  EXPECT_FALSE((wire::Frame{~uint64_t(0), ~uint64_t(0) - 7}.valid()));     // no wrap-around
}

TEST(Wire, AMessageThatEndsEarlyOrClaimsTooMuchIsRefused) {
  Out out;
  out.u32(5);
  const std::string body = body_of(out);
  {
    In in(body);
    EXPECT_THROW(in.u64(), std::runtime_error);  // 4 bytes, not 8
  }
  {
    // A string whose length says more than the message holds.
    Out lying;
    lying.u64(1000);
    lying.raw("abc", 3);
    const std::string b = body_of(lying);
    In in(b);
    EXPECT_THROW(in.str(4096), std::runtime_error);
  }
  {
    // A string longer than the reader allows, though it is all there.
    Out long_one;
    long_one.str(std::string(300, 'x'));
    const std::string b = body_of(long_one);
    In in(b);
    EXPECT_THROW(in.str(256), std::runtime_error);
  }
  {
    // A length near 2^64 does not wrap around the bounds check.
    Out huge;
    huge.u64(~uint64_t(0));
    const std::string b = body_of(huge);
    In in(b);
    EXPECT_THROW(in.str(~uint64_t(0)), std::runtime_error);
  }
}

TEST(Wire, WholeMessagesCrossAPipeInPieces) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Out out;
  out.str(std::string(200000, 'q'));   // more than a pipe holds at once
  const std::string raw(300000, 'r');  // and raw bytes after the head
  std::string message = out.framed(raw.size());
  message += raw;
  std::thread writer([&] {
    // In uneven pieces, as a slow writer would.
    size_t at = 0, piece = 1;
    while (at < message.size()) {
      const size_t n = std::min(piece, message.size() - at);
      ASSERT_TRUE(wire::write_exactly(fds[1], message.data() + at, n));
      at += n;
      piece = piece * 3 + 1;
    }
    close(fds[1]);
  });
  wire::Frame frame;
  std::string head;
  ASSERT_TRUE(wire::read_head(fds[0], &frame, &head));
  ASSERT_EQ(frame.raw(), raw.size());
  std::string back(frame.raw(), '\0');
  ASSERT_TRUE(wire::read_exactly(fds[0], back.data(), back.size()));
  writer.join();
  In in(head);
  EXPECT_EQ(in.str(1 << 20), std::string(200000, 'q'));
  EXPECT_TRUE(in.done());
  EXPECT_EQ(back, raw);
  // The pipe's end before a whole message: false, not a short message.
  EXPECT_FALSE(wire::read_head(fds[0], &frame, &head));
  close(fds[0]);
}

TEST(Wire, AHeadWhoseLengthsCannotBeAMessageIsNotRead) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const uint64_t lengths[2] = {uint64_t(1) << 40, 8};  // past kMaxMessage
  ASSERT_TRUE(wire::write_exactly(fds[1], lengths, sizeof(lengths)));
  close(fds[1]);
  wire::Frame frame;
  std::string head;
  EXPECT_FALSE(wire::read_head(fds[0], &frame, &head));
  EXPECT_TRUE(head.empty());
  close(fds[0]);
}

}  // namespace
