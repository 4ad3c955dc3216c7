// The time limit of a launch (CUDALAB_TIMEOUT; watchdog.cpp). Not a public
// header.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "grid/grid.h"

namespace cudalab::rt {

// Lives as long as a launch runs: after CUDALAB_TIMEOUT seconds, or a little
// before the deadline sim::set_launch_deadline gave, it marks the launch
// timed out and aborted, then interrupts every thread running its blocks
// (again, until they have all left). No time limit: no thread.
class Watchdog {
 public:
  explicit Watchdog(Launch& launch);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  Launch& launch_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};

}  // namespace cudalab::rt
