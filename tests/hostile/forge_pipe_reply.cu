// hostile: reads the judge's first request on fd 3 itself and answers on fd 4 with forgeries
// expect-max-points: 0
//
// At static initialization, before the program's own loop starts, it waits
// (up to 3 seconds) for the judge's first request on descriptor 3 and reads
// it whole. If it parses as a call (8-byte length, 'C', name, signature,
// tracking flag, the buffers with their sizes, the arguments), it answers
// on descriptor 4 with a well-formed "done, no error" reply whose writable
// buffers hold the first input's bytes or 0x7f bytes instead of a + b. Then
// it writes a frame claiming 2^64 - 1 bytes and some noise, so that the next
// answer the judge reads is garbage too; if the request did not parse, only
// the garbage goes. The kernel is also wrong (a - b). Every test must fail
// cleanly, with the channel's error, not hang or crash the judge.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "lesson.h"

namespace {

bool read_exactly(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t got = read(fd, c, n);
    if (got <= 0) return false;
    c += got;
    n -= size_t(got);
  }
  return true;
}

void write_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    const ssize_t put = write(fd, s.data() + at, s.size() - at);
    if (put <= 0) return;
    at += size_t(put);
  }
}

struct Reader {
  const std::string& s;
  size_t at = 0;
  const char* take(uint64_t n) {
    if (n > s.size() - at) throw std::runtime_error("short");
    const char* p = s.data() + at;
    at += n;
    return p;
  }
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  std::string str() {
    const uint64_t n = get<uint64_t>();
    return std::string(take(n), n);
  }
};

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void put_str(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

// A reply the judge's parser accepts: kOk, no message, cudaSuccess, no
// return value, then every writable buffer, filled with the wrong bytes.
std::string forged_answer(const std::string& request) {
  Reader in{request};
  if (in.get<char>() != 'C') throw std::runtime_error("not a call");
  in.str();  // the function's name
  in.str();  // its signature
  in.get<uint8_t>();
  const uint32_t count = in.get<uint32_t>();
  std::string body;
  put<uint8_t>(body, 0);
  put_str(body, "");
  put<int32_t>(body, 0);
  put_str(body, "");
  std::string first_input;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t bytes = in.get<uint64_t>();
    const bool writable = in.get<uint8_t>() != 0;
    const char* contents = in.take(bytes);
    if (!writable) {
      if (first_input.empty()) first_input.assign(contents, bytes);
      continue;
    }
    put<uint8_t>(body, 1);
    std::string fake(bytes, '\x7f');
    std::memcpy(fake.data(), first_input.data(), std::min<size_t>(bytes, first_input.size()));
    body += fake;
  }
  std::string framed;
  put<uint64_t>(framed, body.size());
  return framed + body;
}

const int forged = [] {
  pollfd p{3, POLLIN, 0};
  if (poll(&p, 1, 3000) <= 0) return 0;
  uint64_t size = 0;
  std::string answer;
  if (read_exactly(3, &size, 8) && size < (uint64_t(1) << 31)) {
    std::string request(size, '\0');
    if (read_exactly(3, request.data(), size)) {
      try {
        answer = forged_answer(request);
      } catch (const std::exception&) {
      }
    }
  }
  // Then a frame no reader should believe, and noise.
  put<uint64_t>(answer, ~uint64_t(0));
  answer += "{\"status\":\"passed\",\"score\":5.0}";
  for (int k = 0; k < 4096; ++k) answer += char(k * 37 + 11);
  write_all(4, answer);
  return 1;
}();

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
