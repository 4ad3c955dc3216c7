// Blocking whole-message I/O of the channel's wire format (wire.h).
#include "wire.h"

#include <unistd.h>

#include <cerrno>

namespace cudalab::grading::wire {

bool read_exactly(int fd, void* p, size_t n) {
  auto* c = static_cast<char*>(p);
  while (n) {
    const ssize_t got = ::read(fd, c, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    c += got;
    n -= size_t(got);
  }
  return true;
}

bool write_exactly(int fd, const void* p, size_t n) {
  const auto* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t put = ::write(fd, c, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    c += put;
    n -= size_t(put);
  }
  return true;
}

bool read_head(int fd, Frame* frame, std::string* head) {
  uint64_t lengths[2];
  if (!read_exactly(fd, lengths, sizeof(lengths))) return false;
  *frame = {lengths[0], lengths[1]};
  if (!frame->valid()) return false;
  head->assign(frame->head, '\0');
  return read_exactly(fd, head->data(), frame->head);
}

}  // namespace cudalab::grading::wire
