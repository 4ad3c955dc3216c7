// CUDALAB_TIMEOUT: a launch that runs longer than the time limit is stopped.
// The watchdog thread marks it timed out, then interrupts the OS threads
// running its blocks (SIGUSR2, whose handler is in fault_handlers.cpp) until
// they have all left. A thread stops where the signal finds it in the
// kernel's own code; in the runtime's, it stops at its next access hook,
// barrier or warp operation (stop_if_timed_out), and a block whose threads
// all wait is ended by its scheduler.
#include "grid/watchdog.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>

#include "grid/grid.h"
#include "runtime/settings.h"

namespace cudalab::rt {

namespace {

// steady_clock's nanoseconds (CLOCK_MONOTONIC, the judge's clock too).
std::atomic<int64_t> g_deadline_ns{0};

}  // namespace

Watchdog::Watchdog(Launch& launch) : launch_(launch) {
  double seconds = timeout_setting().seconds;
  bool by_deadline = false;
  if (const int64_t deadline = g_deadline_ns.load(); deadline > 0) {
    // Stopped before the deadline by enough to stop the threads, find the
    // line (symbolizing), print the report and send the answer back on a
    // busy machine: a quarter of the time left, at least 1.5 s, at most
    // half of it.
    const double left =
        std::chrono::duration<double>(std::chrono::nanoseconds(deadline) -
                                      std::chrono::steady_clock::now().time_since_epoch())
            .count();
    const double stop = left - std::min(std::max(1.5, 0.25 * left), 0.5 * left);
    if (seconds <= 0 || stop < seconds) {
      seconds = std::max(stop, 0.001);
      by_deadline = true;
    }
  }
  if (seconds <= 0) return;
  thread_ = std::thread([this, seconds, by_deadline] {
    std::unique_lock lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
      return;
    launch_.timed_out_by_deadline.store(by_deadline);
    launch_.timed_out.store(true);
    launch_.aborted.store(true);
    while (!done_) {
      {
        std::lock_guard runners(launch_.runners_mutex);
        for (pthread_t t : launch_.runners) pthread_kill(t, SIGUSR2);
      }
      // A thread found in the runtime's code is signalled again after a
      // millisecond, until one finds it in the kernel's own code.
      const auto wait =
          stop_put_off() ? std::chrono::milliseconds(1) : std::chrono::milliseconds(50);
      cv_.wait_for(lock, wait, [this] { return done_; });
    }
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  // No thread stopped running said where it was: one that waited does.
  if (launch_.timed_out.load() && !launch_.timeout_located.load() &&
      launch_.timeout_wait_noted.load()) {
    launch_.timeout_at = launch_.timeout_wait_at;
    launch_.timeout_located.store(true);
  }
}

}  // namespace cudalab::rt

namespace cudalab::sim {
void set_launch_deadline(int64_t monotonic_ns) { rt::g_deadline_ns.store(monotonic_ns); }
}  // namespace cudalab::sim
