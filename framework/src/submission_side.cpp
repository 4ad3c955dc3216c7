// The submission's side of the channel (channel.h): the program a student's
// file is built into answers the judge's calls, each with the buffers the
// judge sent, until it is told to stop.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "channel.h"
#include "cudalab/framework/compare.h"
#include "cudalab/framework/submission.h"
#include "wire.h"
#ifdef CUDALAB_SIMULATOR
#include "cudalab/sim.h"
#endif

namespace cudalab::grading {
namespace {

using namespace wire;  // NOLINT(google-build-using-namespace): the format's own words

// The student's functions this program serves (CUDALAB_SERVE), by name.
struct Served {
  std::string signature;
  void* function;
  detail::Invoker invoke;
};
std::map<std::string, Served>& served() {
  static std::map<std::string, Served> all;
  return all;
}

}  // namespace

namespace detail {
int serve_function(const char* name, const char* signature, void* function, Invoker invoke) {
  served()[name] = {signature, function, invoke};
  return int(served().size());
}
}  // namespace detail

namespace {

// Reads `n` bytes of the request into `p` (nullptr: reads them and drops
// them, as for a buffer that could not be allocated).
bool read_into(char* p, uint64_t n) {
  if (p) return read_exactly(3, p, n);
  std::vector<char> scratch(std::min<uint64_t>(n, 1 << 20));
  while (n) {
    const size_t piece = size_t(std::min<uint64_t>(n, scratch.size()));
    if (!read_exactly(3, scratch.data(), piece)) return false;
    n -= piece;
  }
  return true;
}

// A test's buffer, as this process has it: its device memory, and (built
// for a GPU) the host copy it crosses the channel through.
struct Buffer {
  void* device = nullptr;
  uint64_t bytes = 0;
  bool writable = false;
  std::vector<char> staged;
};

// The request's raw bytes, buffer after buffer, into their device memory:
// on the simulator straight into it (device memory is the process's own),
// for a GPU through a host copy. False when the request breaks off.
bool receive_buffers(std::vector<Buffer>& buffers) {
  for (Buffer& b : buffers) {
#ifdef CUDALAB_SIMULATOR
    if (!read_into(static_cast<char*>(b.device), b.bytes)) return false;
    if (b.device) sim::host_wrote(b.device, b.bytes);
#else
    if (!b.device) {
      if (!read_into(nullptr, b.bytes)) return false;
      continue;
    }
    b.staged.resize(b.bytes);
    if (!read_into(b.staged.data(), b.bytes)) return false;
    cudaMemcpy(b.device, b.staged.data(), b.bytes, cudaMemcpyHostToDevice);
    std::vector<char>().swap(b.staged);
#endif
  }
  return true;
}

// Whether a writable buffer can be read back (not after a kernel's fault):
// on the simulator a one-byte copy says so, and its bytes go out straight
// from device memory; for a GPU the whole buffer is copied to the host.
bool readable(Buffer& b) {
  if (b.bytes == 0) return true;
#ifdef CUDALAB_SIMULATOR
  char probe = 0;
  const bool ok = cudaMemcpy(&probe, b.device, 1, cudaMemcpyDeviceToHost) == cudaSuccess;
#else
  b.staged.resize(b.bytes);
  const bool ok =
      cudaMemcpy(b.staged.data(), b.device, b.bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
#endif
  if (!ok) cudaGetLastError();
  return ok;
}

const char* outgoing(const Buffer& b) {
#ifdef CUDALAB_SIMULATOR
  return static_cast<const char*>(b.device);
#else
  return b.staged.data();
#endif
}

}  // namespace

int answer_calls() {
  std::vector<Buffer> buffers;
  auto free_buffers = [&] {
    for (auto& b : buffers) cudaFree(b.device);
    buffers.clear();
    cudaGetLastError();
  };
  // The answer's head, then the buffers it says follow.
  auto reply = [](Out& o, const std::vector<const Buffer*>& sent = {}) {
    uint64_t raw = 0;
    for (const Buffer* b : sent) raw += b->bytes;
    const std::string& m = o.framed(raw);
    if (!write_exactly(4, m.data(), m.size())) return false;
    for (const Buffer* b : sent)
      if (!write_exactly(4, outgoing(*b), b->bytes)) return false;
    return true;
  };
  while (true) {
    Frame frame;
    std::string message;
    if (!read_head(3, &frame, &message)) return 0;
    In in(message);
    Out out;
    std::vector<const Buffer*> sent;
    bool received = false;  // the request's raw bytes read
    try {
      const char kind = char(in.u8());
      if (kind == kQuit) {
        free_buffers();
        return 0;
      }
      if (frame.raw() != 0 && kind != kCall) return 0;  // not the judge's
      if (kind == kWhoWrote) {
        const uint32_t h = in.u32();
        const uint64_t offset = in.u64();
        std::string who;
        if (h < buffers.size() && offset < buffers[h].bytes)
          who = describe_writer(static_cast<char*>(buffers[h].device) + offset);
        out.raw(who.data(), who.size());
        if (!reply(out)) return 0;
        continue;
      }
      if (kind == kAllocationNumber) {
        const uint32_t h = in.u32();
        uint32_t id = 0;
#ifdef CUDALAB_SIMULATOR
        if (h < buffers.size()) id = sim::allocation_id(buffers[h].device);
#else
        (void)h;
#endif
        out.raw(&id, sizeof(id));
        if (!reply(out)) return 0;
        continue;
      }
      if (kind != kCall) throw std::runtime_error("an unknown request");
      const std::string name = in.str(256), signature = in.str(4096);
      const bool track = in.u8();
      const int64_t deadline = int64_t(in.u64());
#ifdef CUDALAB_SIMULATOR
      sim::set_launch_deadline(deadline);
#else
      (void)deadline;
#endif
      free_buffers();
      const uint32_t count = in.u32();
      bool allocated = true;
      std::string why;
      uint64_t raw = 0;
      for (uint32_t i = 0; i < count; ++i) {
        const std::string site = in.str(512), variable = in.str(256);
        Buffer b;
        b.bytes = in.u64();
        b.writable = in.u8();
        if (b.bytes > frame.raw() - raw) return 0;  // more than the message holds
        raw += b.bytes;
#ifdef CUDALAB_SIMULATOR
        sim::name_next_allocation(site, variable);
#else
        (void)site, (void)variable;
#endif
        if (allocated && cudaMalloc(&b.device, b.bytes) != cudaSuccess) {
          b.device = nullptr;
          allocated = false;
          why = "The program could not allocate the test's " + std::to_string(b.bytes) +
                " bytes of device memory: " + cudaGetErrorString(cudaGetLastError());
        }
        buffers.push_back(std::move(b));
      }
      if (raw != frame.raw()) return 0;  // the buffers are not what follows
      const uint32_t nargs = in.u32();
      std::vector<CallArg> args(nargs);
      for (auto& a : args) {
        const uint8_t k = in.u8();
        if (k == 0) {
          a.bytes = in.str(4096);
        } else {
          a.is_pointer = true;
          if (k == 1) {
            const uint32_t h = in.u32();
            const uint64_t offset = in.u64();
            if (h >= buffers.size() || offset > buffers[h].bytes)
              throw std::runtime_error("a pointer outside its buffer");
            a.pointer = static_cast<char*>(buffers[h].device) + offset;
          }
        }
      }
      // The buffers' bytes follow the head, whatever the answer.
      if (!receive_buffers(buffers)) return 0;
      received = true;
      const auto f = served().find(name);
      if (f == served().end()) {
        out.u8(kNoSuchFunction);
        out.str(name + " is not in the program");
      } else if (f->second.signature != signature) {
        out.u8(kWrongSignature);
        out.str(name + " has other parameters than the judge's");
      } else if (!allocated) {
        out.u8(kNoMemory);
        out.str(why.substr(0, kMaxDetail));
      } else {
        if (track) track_writers();
        std::string ret;
        try {
          ret = f->second.invoke(f->second.function, args);
        } catch (const std::exception& e) {
          out.u8(kThrew);
          out.str(std::string(e.what()).substr(0, kMaxDetail));
          if (!reply(out)) return 0;
          continue;
        }
        const cudaError_t e = last_call_error();
        out.u8(kOk);
        out.str("");
        out.i32(int32_t(e));
        out.str(ret);
        // A flag for each writable buffer (0: unreadable after a fault), and
        // the readable ones' bytes after the head.
        for (Buffer& b : buffers) {
          if (!b.writable) continue;
          const bool ok = readable(b);
          out.u8(ok);
          if (ok) sent.push_back(&b);
        }
      }
    } catch (const std::exception& e) {
      // Its raw bytes still follow the head: read past them.
      if (!received && !read_into(nullptr, frame.raw())) return 0;
      out = Out();
      sent.clear();
      out.u8(kBadRequest);
      out.str(std::string(e.what()).substr(0, kMaxDetail));
    }
    if (!reply(out, sent)) return 0;
  }
}

}  // namespace cudalab::grading
