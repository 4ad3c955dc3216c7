// CUDALAB_TIMEOUT: a launch that runs longer than the time limit is stopped.
// The watchdog thread marks it timed out, then interrupts the OS threads
// running its blocks (SIGUSR2, whose handler is in fault_handlers.cpp) until
// they have all left.
#include "watchdog.h"

#include <pthread.h>

#include <chrono>
#include <csignal>

namespace cudalab::rt {

Watchdog::Watchdog(Launch& launch) : launch_(launch) {
  const double seconds = timeout_setting().seconds;
  if (seconds <= 0) return;
  thread_ = std::thread([this, seconds] {
    std::unique_lock lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
      return;
    launch_.timed_out.store(true);
    launch_.aborted.store(true);
    while (!done_) {
      {
        std::lock_guard runners(launch_.runners_mutex);
        for (pthread_t t : launch_.runners) pthread_kill(t, SIGUSR2);
      }
      cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; });
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
}

}  // namespace cudalab::rt
