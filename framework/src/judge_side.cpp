// The judge's side of the channel to a submission's process (channel.h).
//
// The judge starts the submission's program (in its sandbox) with two pipes:
// requests arrive on its file descriptor 3, answers leave on 4, and what it
// prints (stdout and stderr) goes to a third pipe the judge drains. A request
// is a call of one of the student's functions with the device buffers its
// pointers point into; the answer is the call's CUDA error, its return value
// and the buffers it may have written. Everything the judge reads is checked
// against what it sent (sizes, order, kinds): a wrong answer ends the test,
// it is never believed.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>

#include "channel.h"
#include "cudalab/framework/submission.h"
#include "cudalab/support/process.h"
#include "wire.h"
#ifdef CUDALAB_SIMULATOR
#include "cudalab/sim.h"
#endif

namespace cudalab::grading {
namespace {

using namespace wire;  // NOLINT(google-build-using-namespace): the format's own words
using support::now_s;

std::string signal_words(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "a segmentation fault: host code used a bad pointer, or the stack overflowed "
             "(deep recursion)";
    case SIGBUS:
      return "a bus error: host code used a bad pointer";
    case SIGABRT:
      return "abort(): a failed assert, an uncaught exception, or memory that ran out";
    case SIGFPE:
      return "an arithmetic error, such as an integer division by zero";
    case SIGKILL:
      return "killed, usually because it used more memory than it may";
    case SIGXCPU:
      return "it used up its CPU time";
    case SIGXFSZ:
      return "it wrote a file larger than it may";
    case SIGILL:
      return "an illegal instruction";
    default:
      return std::string(strsignal(sig));
  }
}

// What a test says of an answer that is not one (a field too long, a flag
// that is not 0 or 1, bytes that do not add up).
constexpr const char* kMalformedWords =
    "The program's answer to the judge was malformed. A submission must not read or write file "
    "descriptors 3 and 4 (the judge's channel).";

// The submission's program, started with its pipes: a request out, its
// answer in, what it prints drained meanwhile, within the test's time.
class SubmissionProcess {
 public:
  ~SubmissionProcess() { kill_now(); }

  void start(const std::vector<std::string>& argv, const Limits& limits) {
    limits_ = limits;
    int request[2], answer[2], output[2];
    if (pipe2(request, O_CLOEXEC) || pipe2(answer, O_CLOEXEC) || pipe2(output, O_CLOEXEC))
      throw std::runtime_error(std::string("cannot make pipes: ") + std::strerror(errno));
    // A test's buffers go through the request and answer pipes (16M floats:
    // 64 MiB each): 1 MiB at a time, not the default 64 KiB, so the two
    // processes take turns sixteen times less often. (A pipe keeps its
    // default where the system allows less.)
    for (int fd : {request[1], answer[1]}) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
    // 3: requests, 4: answers, 1 and 2: the output pipe; nothing else open.
    support::Child child;
    child.argv = argv;
    child.fds = {{1, output[1]}, {2, output[1]}, {3, request[0]}, {4, answer[1]}};
    child.stdin_null = child.only_named_fds = true;
    child.own_group = true;
    child.dies_with_parent = true;  // the judge gone: so is the submission
    std::string why;
    pid_ = support::start(child, &why);
    if (pid_ < 0) {
      for (int fd : {request[0], request[1], answer[0], answer[1], output[0], output[1]}) close(fd);
      throw std::runtime_error(why);
    }
    close(request[0]);
    close(answer[1]);
    close(output[1]);
    to_ = request[1];
    from_ = answer[0];
    output_ = output[0];
    for (int fd : {to_, from_, output_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  // A piece of a message: where its bytes are, and how many.
  using Piece = std::pair<const char*, size_t>;
  using Place = std::pair<char*, size_t>;
  // Where an answer's raw bytes go, from its head (which it may check:
  // std::runtime_error when the head is not an answer to the request).
  using Places = std::function<std::vector<Place>(const std::string& head)>;

  // Sends a request (its framed head, then `raw`: the buffers' bytes
  // straight from where they are) and waits for its answer, draining the
  // output meanwhile. Returns the answer's head; its raw bytes, if any, go
  // straight to where `places` says, which must account for every one.
  std::string exchange(const std::string& framed, const std::vector<Piece>& raw = {},
                       const Places& places = {}) {
    std::vector<Piece> pieces = {{framed.data(), framed.size()}};
    for (const Piece& p : raw)
      if (p.second) pieces.push_back(p);
    size_t piece = 0, piece_sent = 0;
    char lengths[kFrame];
    size_t lengths_got = 0;
    Frame frame;
    std::string head;
    size_t head_got = 0;
    std::vector<Place> into;  // the raw bytes' places, once the head is in
    size_t place = 0, place_got = 0;
    bool complete = false;
    const double start = now_s();
    while (!complete) {
      const double left = limits_.seconds - waited_ - (now_s() - start);
      if (left <= 0) {
        waited_ += now_s() - start;
        fail("timeout", timeout_words());
      }
      pollfd fds[3] = {{output_, POLLIN, 0}, {from_, POLLIN, 0}, {to_, POLLOUT, 0}};
      const nfds_t count = piece < pieces.size() ? 3 : 2;
      const int ready = poll(fds, count, int(std::min(left, 0.25) * 1000) + 1);
      if (ready < 0 && errno != EINTR) fail("protocol", "the judge could not wait for it");
      if (fds[0].revents) drain_output();
      if (count == 3 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
        iovec v[16];
        int n = 0;
        for (size_t k = piece; k < pieces.size() && n < 16; ++k, ++n) {
          const size_t skip = k == piece ? piece_sent : 0;
          v[n] = {const_cast<char*>(pieces[k].first) + skip, pieces[k].second - skip};
        }
        const ssize_t put = ::writev(to_, v, n);
        if (put > 0) {
          size_t left_over = size_t(put);
          while (left_over && piece < pieces.size()) {
            const size_t take = std::min(left_over, pieces[piece].second - piece_sent);
            piece_sent += take;
            left_over -= take;
            if (piece_sent == pieces[piece].second) ++piece, piece_sent = 0;
          }
        }
        if (put < 0 && errno != EAGAIN && errno != EINTR) ended(now_s() - start);
      }
      if (fds[1].revents) {
        // The two lengths, the head, then the raw bytes into their places.
        char* at;
        size_t want;
        if (lengths_got < kFrame) {
          at = lengths + lengths_got, want = kFrame - lengths_got;
        } else if (head_got < head.size()) {
          at = head.data() + head_got, want = head.size() - head_got;
        } else {
          at = into[place].first + place_got, want = into[place].second - place_got;
        }
        const ssize_t got = ::read(from_, at, want);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) ended(now_s() - start);
        if (got <= 0) continue;
        if (lengths_got < kFrame) {
          lengths_got += size_t(got);
          if (lengths_got == kFrame) {
            std::memcpy(&frame.rest, lengths, 8);
            std::memcpy(&frame.head, lengths + 8, 8);
            if (!frame.valid()) fail("protocol", kProtocolWords);
            head.assign(frame.head, '\0');
          }
        } else if (head_got < head.size()) {
          head_got += size_t(got);
        } else {
          place_got += size_t(got);
        }
        if (lengths_got == kFrame && head_got == head.size() && into.empty() && place == 0) {
          // The head is in: where its raw bytes go (every answer's head is
          // read by `places`, when given).
          if (places) {
            try {
              into = places(head);
            } catch (const std::runtime_error&) {
              fail("protocol", kMalformedWords);
            }
            into.erase(std::remove_if(into.begin(), into.end(),
                                      [](const Place& p) { return p.second == 0; }),
                       into.end());
          }
          uint64_t total = 0;
          for (const Place& p : into) total += p.second;
          if (total != frame.raw()) fail("protocol", places ? kMalformedWords : kProtocolWords);
        }
        while (place < into.size() && place_got == into[place].second) ++place, place_got = 0;
        complete = lengths_got == kFrame && head_got == head.size() && place == into.size();
      }
    }
    waited_ += now_s() - start;
    return head;
  }

  // Asks the program to end, and waits (within the time left) for it to write
  // its reports (the checks' findings, a trace) and exit.
  void finish() {
    if (pid_ <= 0) return;
    Out quit;
    quit.u8(kQuit);
    const std::string& m = quit.framed();
    const ssize_t put = ::write(to_, m.data(), m.size());
    (void)put;
    close(to_);
    to_ = -1;
    double wait = std::max(1.0, limits_.seconds - waited_);
    if (limits_.exit_seconds >= 0) wait = std::min(wait, limits_.exit_seconds);
    const double asked = now_s(), deadline = asked + wait;
    int status = 0;
    while (now_s() < deadline) {
      drain_output();
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        drain_output();
        exit_waited_ = now_s() - asked;
        return;
      }
      pollfd fd{output_, POLLIN, 0};
      poll(&fd, 1, 20);
    }
    did_not_exit_ = true;
    kill_now();
    exit_waited_ = now_s() - asked;
  }
  bool did_not_exit() const { return did_not_exit_; }
  // Seconds from asking the program to end until it ended (or was stopped).
  double exit_waited() const { return exit_waited_; }

  void kill_now() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    for (int* fd : {&to_, &from_, &output_})
      if (*fd >= 0) close(*fd), *fd = -1;
  }

  std::string printed() const {
    if (dropped_ == 0) return head_ + tail_;
    return head_ + "\n[... " + std::to_string(dropped_) + " bytes of output left out ...]\n" +
           tail_;
  }
  double waited() const { return waited_; }
  // When the submission's time runs out if the next exchange starts now:
  // steady_clock's (CLOCK_MONOTONIC's) nanoseconds.
  int64_t deadline_ns() const {
    const auto left = std::chrono::duration<double>(std::max(0.0, limits_.seconds - waited_));
    return int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now().time_since_epoch() + left)
                       .count());
  }

 private:
  static constexpr const char* kProtocolWords =
      "The program sent the judge something that is not an answer to its request. A "
      "submission must not read or write file descriptors 3 and 4 (the judge's channel).";

  std::string timeout_words() const {
    char s[400];
    std::snprintf(s, sizeof(s),
                  "The test ran for more than %.0f second%s and was stopped. A kernel that "
                  "never ends usually has a loop whose index does not advance (a grid-stride "
                  "loop must add the stride), or a barrier that some threads never reach.",
                  limits_.seconds, limits_.seconds < 1.5 ? "" : "s");
    return s;
  }

  [[noreturn]] void fail(const std::string& kind, const std::string& why) {
    kill_now();
    throw SubmissionLost(kind, why);
  }

  // The answer pipe closed: the program ended. Why, in a student's words.
  [[noreturn]] void ended(double waited_now) {
    waited_ += waited_now;
    int status = 0;
    const double deadline = now_s() + 2;
    pid_t done = 0;
    while ((done = waitpid(pid_, &status, WNOHANG)) == 0 && now_s() < deadline) {
      drain_output();
      usleep(5000);
    }
    drain_output();
    if (done != pid_) fail("protocol", kProtocolWords);
    pid_ = -1;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // A sandbox passes a signal on as 128 + its number.
    if (limits_.signal_as_exit_code && code > 128 && code < 160) sig = code - 128, code = -1;
    if (sig)
      fail("crashed", "The program crashed: " + signal_words(sig) + " (signal " +
                          std::to_string(sig) + ", " + strsignal(sig) + ").");
    fail("exited", "The program ended (exit code " + std::to_string(code) +
                       ") before the test was over. Your file must not end the program itself: no "
                       "exit() or abort(), no main(); the test calls your functions and ends it.");
  }

  void drain_output() {
    char buffer[1 << 16];
    while (output_ >= 0) {
      const ssize_t got = ::read(output_, buffer, sizeof(buffer));
      if (got <= 0) break;
      keep_output(buffer, size_t(got));
      total_output_ += size_t(got);
      if (total_output_ > limits_.output_bytes) {
        char s[300];
        std::snprintf(s, sizeof(s),
                      "The program printed more than %zu MiB and was stopped. A printf in a "
                      "kernel prints once per thread: print from one thread, or only a few "
                      "lines.",
                      limits_.output_bytes >> 20);
        fail("output", s);
      }
    }
  }

  void keep_output(const char* p, size_t n) {
    constexpr size_t kHead = 8 << 10, kTail = 24 << 10;
    if (head_.size() < kHead) {
      const size_t take = std::min(n, kHead - head_.size());
      head_.append(p, take);
      p += take;
      n -= take;
    }
    tail_.append(p, n);
    if (tail_.size() > kTail) {
      dropped_ += tail_.size() - kTail;
      tail_.erase(0, tail_.size() - kTail);
    }
  }

  Limits limits_;
  bool did_not_exit_ = false;
  double exit_waited_ = 0;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1, output_ = -1;
  double waited_ = 0;
  size_t total_output_ = 0, dropped_ = 0;
  std::string head_, tail_;
};

struct JudgeState {
  SubmissionProcess process;
  bool started = false;
  bool track_writers = false;
  cudaError_t last_error = cudaSuccess;
  // The allocations of the last call, in the order the program numbered them.
  std::vector<std::pair<const char*, size_t>> allocations;
};
JudgeState* g_judge = nullptr;

std::vector<std::string>& called() {
  static std::vector<std::string> all;
  return all;
}

}  // namespace

SubmissionLost::SubmissionLost(std::string kind, const std::string& why)
    : std::runtime_error(why), kind_(std::move(kind)) {}

void start_submission(const std::vector<std::string>& argv, const Limits& limits) {
  static JudgeState state;
  g_judge = &state;
  state.process.start(argv, limits);
  state.started = true;
}

void finish_submission() {
  if (g_judge && g_judge->started) g_judge->process.finish();
}

std::string submission_output() { return g_judge ? g_judge->process.printed() : ""; }
double submission_seconds() { return g_judge ? g_judge->process.waited() : 0; }
bool submission_exited() { return !g_judge || !g_judge->process.did_not_exit(); }
double submission_exit_seconds() { return g_judge ? g_judge->process.exit_waited() : 0; }
const std::vector<std::string>& called_functions() { return called(); }

bool judging() { return g_judge != nullptr; }

namespace detail {

const char* note_called(const char* name) {
  if (std::find(called().begin(), called().end(), name) == called().end()) called().push_back(name);
  return name;
}

std::string call_submission(const char* name, const char* signature,
                            const std::vector<CallArg>& args, size_t return_size) {
  if (!g_judge)
    throw std::logic_error(std::string("the judge called ") + name + " with no submission started");
#ifdef CUDALAB_SIMULATOR
  JudgeState& j = *g_judge;
  // The buffers the pointers point into, each once.
  struct Buffer {
    char* base;
    size_t size;
    bool writable;
  };
  std::vector<Buffer> buffers;
  std::vector<std::pair<uint32_t, uint64_t>> where(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_pointer || !args[i].pointer) continue;
    void* base = nullptr;
    size_t size = 0;
    if (!sim::find_allocation(args[i].pointer, &base, &size))
      throw std::logic_error(std::string("argument ") + std::to_string(i + 1) + " of " + name +
                             " is not device memory");
    auto it = std::find_if(buffers.begin(), buffers.end(),
                           [&](const Buffer& b) { return b.base == base; });
    if (it == buffers.end()) {
      buffers.push_back({static_cast<char*>(base), size, false});
      it = buffers.end() - 1;
    }
    it->writable |= args[i].writable;
    where[i] = {uint32_t(it - buffers.begin()),
                uint64_t(static_cast<const char*>(args[i].pointer) - it->base)};
  }
  Out req;
  req.u8(kCall);
  req.str(name);
  req.str(signature);
  req.u8(j.track_writers);
  // The test's deadline: the simulator stops a launch a little before it
  // and says where its threads were, whatever the inputs took to arrive.
  req.u64(uint64_t(j.process.deadline_ns()));
  req.u32(uint32_t(buffers.size()));
  std::vector<std::pair<const char*, size_t>> raw;  // the buffers' bytes, after the head
  uint64_t raw_bytes = 0;
  for (const Buffer& b : buffers) {
    // Its site and variable in the judge's test ("grade.cu:37", "d_a"), so
    // that the submission's checks and traces name it as the test does.
    std::string site, variable;
    sim::allocation_source(b.base, &site, &variable);
    req.str(site.substr(site.rfind('/') + 1));
    req.str(variable);
    req.u64(b.size);
    req.u8(b.writable);
    raw.push_back({b.base, b.size});
    raw_bytes += b.size;
  }
  req.u32(uint32_t(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const CallArg& a = args[i];
    if (!a.is_pointer) {
      req.u8(0);
      req.str(a.bytes);
    } else if (!a.pointer) {
      req.u8(2);
    } else {
      req.u8(1);
      req.u32(where[i].first);
      req.u64(where[i].second);
    }
  }
  // The answer's head: its status, then (answered) the call's error, its
  // return value and a flag for each writable buffer; the flagged buffers'
  // bytes follow it, straight into the judge's buffers. (So an answer that
  // breaks off or lies has written part of them: it ends the test, which
  // never reads them after a SubmissionLost.)
  uint8_t status = 0;
  std::string detail, ret;
  int32_t error = 0;
  auto places = [&](const std::string& head) {
    In in(head);
    status = in.u8();
    detail = in.str(kMaxDetail);
    std::vector<std::pair<char*, size_t>> into;
    if (status != kOk) return into;  // nothing follows
    error = in.i32();
    ret = in.str(64);
    for (const Buffer& b : buffers) {
      if (!b.writable) continue;
      const uint8_t flag = in.u8();
      if (flag > 1) throw std::runtime_error("a flag that is not 0 or 1");
      if (flag) into.push_back({b.base, b.size});  // 0: unreadable after a fault: kept as sent
    }
    if (!in.done()) throw std::runtime_error("extra bytes");
    return into;
  };
  j.process.exchange(req.framed(raw_bytes), raw, places);
  j.allocations.clear();
  for (const Buffer& b : buffers) j.allocations.push_back({b.base, b.size});
  try {
    // The answer's fields were read by `places` (its raw bytes are in place).
    if (status == kNoSuchFunction || status == kWrongSignature || status == kBadRequest)
      throw SubmissionLost("protocol", "The program could not run " + std::string(name) + ": " +
                                           detail + ". Does your file define it as lesson.h says?");
    if (status == kNoMemory) throw SubmissionLost("memory", detail);
    if (status == kThrew)
      throw SubmissionLost("crashed", std::string(name) + " threw an exception: " + detail);
    if (status != kOk) throw std::runtime_error("unknown status");
    j.last_error = cudaError_t(error);
    if (ret.size() != return_size) throw std::runtime_error("a return value of the wrong size");
    return ret;
  } catch (const SubmissionLost&) {
    throw;
  } catch (const std::exception&) {
    j.process.kill_now();
    throw SubmissionLost("protocol", kMalformedWords);
  }
#else
  (void)name, (void)signature, (void)args, (void)return_size;
  throw std::logic_error("the judge is built for the simulator only");
#endif
}

}  // namespace detail

bool remote_track_writers() {
  if (!g_judge) return false;
  g_judge->track_writers = true;
  return true;
}

cudaError_t remote_last_error() {
  const cudaError_t e = g_judge ? g_judge->last_error : cudaSuccess;
  if (g_judge) g_judge->last_error = cudaSuccess;
  return e;
}

namespace {
bool g_keep_comparisons = false;
nlohmann::json& comparisons() {
  static nlohmann::json all = nlohmann::json::array();
  return all;
}
}  // namespace

void keep_comparisons() { g_keep_comparisons = true; }
bool keeping_comparisons() { return g_keep_comparisons && g_judge; }
void note_comparison(nlohmann::json comparison) {
  if (keeping_comparisons()) comparisons().push_back(std::move(comparison));
}
nlohmann::json take_comparisons() {
  nlohmann::json all = std::move(comparisons());
  comparisons() = nlohmann::json::array();
  return all;
}

namespace {
// Which of the last call's buffers holds `device_address` (its number, in
// the order the program numbered them) and the address's offset in it.
bool find_buffer(const void* device_address, uint32_t* buffer, uint64_t* offset) {
  const char* p = static_cast<const char*>(device_address);
  for (uint32_t h = 0; h < g_judge->allocations.size(); ++h) {
    const auto& [base, size] = g_judge->allocations[h];
    if (p < base || p >= base + size) continue;
    *buffer = h;
    *offset = uint64_t(p - base);
    return true;
  }
  return false;
}
}  // namespace

uint32_t remote_allocation_id(const void* device_address, uint64_t* offset) {
  uint32_t h = 0;
  uint64_t at = 0;
  if (!g_judge || !find_buffer(device_address, &h, &at)) return 0;
  Out req;
  req.u8(kAllocationNumber);
  req.u32(h);
  const std::string answer = g_judge->process.exchange(req.framed());
  uint32_t id = 0;
  if (answer.size() != sizeof(id)) return 0;
  std::memcpy(&id, answer.data(), sizeof(id));
  *offset = at;
  return id;
}

std::string remote_writer(const void* device_address) {
  uint32_t h = 0;
  uint64_t at = 0;
  if (!g_judge || !g_judge->track_writers || !find_buffer(device_address, &h, &at)) return "";
  Out req;
  req.u8(kWhoWrote);
  req.u32(h);
  req.u64(at);
  std::string words = g_judge->process.exchange(req.framed());
  if (words.size() > 200) words.resize(200);
  for (char& c : words)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return words;
}

}  // namespace cudalab::grading
