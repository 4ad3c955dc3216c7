// What the simulator knows that a GPU does not tell: a summary of the last
// launch and which thread last wrote a device address. Only in simulator
// builds (CUDALAB_SIMULATOR is defined); lessons use it behind that macro.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudalab/runtime_api.h"

namespace cudalab::sim {

struct LaunchSummary {
  bool valid = false;     // false before the first launch
  char kernel[128] = {};  // the kernel as written at the launch
  dim3 grid, block;
  uint64_t threads = 0;
  uint64_t warps = 0;
  // Threads that neither read nor wrote global memory; counted only in an
  // instrumented build (instrumented == true), else 0.
  uint64_t idle_threads = 0;
  bool instrumented = false;
  double seconds = 0;    // wall time of the launch on the simulator
  unsigned workers = 0;  // CPU threads that ran the blocks
};

LaunchSummary last_launch();

// Whether this program was built with memory-access instrumentation (what
// checks, traces and writer tracking need).
bool instrumented();

// Writer tracking: while on, the simulator remembers, for every byte of device
// memory a kernel stores to, the block and thread that stored it last.
void track_writers(bool on);

struct Writer {
  bool known = false;  // false: no kernel thread wrote this byte while tracking
  uint3 block{0, 0, 0};
  uint3 thread{0, 0, 0};
};
Writer last_writer(const void* device_address);

// The device allocation (cudaMalloc) that holds `address`: its start and
// size. False when no allocation does.
bool find_allocation(const void* address, void** base, size_t* size);

}  // namespace cudalab::sim
