// The submission's side of the channel (channel.h): the program a student's
// file is built into answers the judge's calls, each with the buffers the
// judge sent, until it is told to stop.
#include <cuda_runtime.h>

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

int answer_calls() {
  std::vector<std::pair<void*, size_t>> buffers;
  auto free_buffers = [&] {
    for (auto& b : buffers) cudaFree(b.first);
    buffers.clear();
    cudaGetLastError();
  };
  auto reply = [](Out& o) {
    const std::string& m = o.framed();
    return write_exactly(4, m.data(), m.size());
  };
  while (true) {
    uint64_t size = 0;
    if (!read_exactly(3, &size, 8) || size > kMaxMessage) return 0;
    std::string message(size, '\0');
    if (!read_exactly(3, message.data(), size)) return 0;
    In in(message);
    Out out;
    try {
      const char kind = char(in.u8());
      if (kind == kQuit) {
        free_buffers();
        return 0;
      }
      if (kind == kWhoWrote) {
        const uint32_t h = in.u32();
        const uint64_t offset = in.u64();
        std::string who;
        if (h < buffers.size() && offset < buffers[h].second)
          who = describe_writer(static_cast<char*>(buffers[h].first) + offset);
        out.raw(who.data(), who.size());
        if (!reply(out)) return 0;
        continue;
      }
      if (kind == kAllocationNumber) {
        const uint32_t h = in.u32();
        uint32_t id = 0;
#ifdef CUDALAB_SIMULATOR
        if (h < buffers.size()) id = sim::allocation_id(buffers[h].first);
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
      std::vector<bool> writable;
      std::vector<const char*> contents;
      bool allocated = true;
      std::string why;
      for (uint32_t i = 0; i < count; ++i) {
        const std::string site = in.str(512), variable = in.str(256);
        const uint64_t bytes = in.u64();
        writable.push_back(in.u8());
        contents.push_back(in.take(bytes));
        void* p = nullptr;
#ifdef CUDALAB_SIMULATOR
        sim::name_next_allocation(site, variable);
#else
        (void)site, (void)variable;
#endif
        if (allocated && cudaMalloc(&p, bytes) != cudaSuccess) {
          allocated = false;
          why = "The program could not allocate the test's " + std::to_string(bytes) +
                " bytes of device memory: " + cudaGetErrorString(cudaGetLastError());
        }
        buffers.push_back({p, bytes});
      }
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
            if (h >= buffers.size() || offset > buffers[h].second)
              throw std::runtime_error("a pointer outside its buffer");
            a.pointer = static_cast<char*>(buffers[h].first) + offset;
          }
        }
      }
      const auto f = served().find(name);
      if (f == served().end()) {
        out.u8(kNoSuchFunction);
        out.str(name + " is not in the program");
      } else if (f->second.signature != signature) {
        out.u8(kWrongSignature);
        out.str(name + " has other parameters than the judge's");
      } else if (!allocated) {
        out.u8(kNoMemory);
        out.str(why);
      } else {
        for (uint32_t i = 0; i < count; ++i)
          cudaMemcpy(buffers[i].first, contents[i], buffers[i].second, cudaMemcpyHostToDevice);
        if (track) track_writers();
        std::string ret;
        try {
          ret = f->second.invoke(f->second.function, args);
        } catch (const std::exception& e) {
          out.u8(kThrew);
          out.str(e.what());
          if (!reply(out)) return 0;
          continue;
        }
        const cudaError_t e = last_call_error();
        out.u8(kOk);
        out.str("");
        out.i32(int32_t(e));
        out.str(ret);
        size_t total = 1024 + ret.size();
        for (uint32_t i = 0; i < count; ++i)
          if (writable[i]) total += 1 + buffers[i].second;
        out.reserve(total);
        for (uint32_t i = 0; i < count; ++i) {
          if (!writable[i]) continue;
          out.u8(1);
          const size_t n = buffers[i].second;
          if (cudaMemcpy(out.grow(n), buffers[i].first, n, cudaMemcpyDeviceToHost) != cudaSuccess) {
            out.drop(n + 1);
            out.u8(0);
            cudaGetLastError();
          }
        }
      }
    } catch (const std::exception& e) {
      out = Out();
      out.u8(kBadRequest);
      out.str(e.what());
    }
    if (!reply(out)) return 0;
  }
}

}  // namespace cudalab::grading
