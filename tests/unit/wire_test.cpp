// The channel's wire format (framework/src/wire.h): what the judge writes
// reads back field by field; a message that ends early, or a field longer
// than it may be, is refused rather than read past; whole messages cross a
// pipe however the reads fall.
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

// The body of a framed message (what follows its 8-byte length).
std::string body_of(Out& out) {
  const std::string& m = out.framed();
  uint64_t n = 0;
  std::memcpy(&n, m.data(), 8);
  EXPECT_EQ(n, m.size() - 8);
  return m.substr(8);
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

TEST(Wire, ABufferGrownInPlaceOrDroppedIsWhatIsSent) {
  Out out;
  out.u8(1);
  std::memcpy(out.grow(4), "abcd", 4);
  out.u8(2);
  char* gone = out.grow(3);
  std::memcpy(gone, "xyz", 3);
  out.drop(3);
  EXPECT_EQ(body_of(out), std::string("\x01"
                                      "abcd"
                                      "\x02",
                                      6));
  out.clear();
  EXPECT_EQ(body_of(out), "");
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
  out.str(std::string(200000, 'q'));  // more than a pipe holds at once
  const std::string message = out.framed();
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
  uint64_t size = 0;
  ASSERT_TRUE(wire::read_exactly(fds[0], &size, 8));
  std::string body(size, '\0');
  ASSERT_TRUE(wire::read_exactly(fds[0], body.data(), size));
  writer.join();
  In in(body);
  EXPECT_EQ(in.str(1 << 20), std::string(200000, 'q'));
  EXPECT_TRUE(in.done());
  // The pipe's end before a whole message: false, not a short message.
  char more[8];
  EXPECT_FALSE(wire::read_exactly(fds[0], more, sizeof(more)));
  close(fds[0]);
}

}  // namespace
