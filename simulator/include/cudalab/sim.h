// What the simulator knows that a GPU does not tell: a summary of the last
// launch and which thread last wrote a device address. Only in simulator
// builds (CUDALAB_SIMULATOR is defined); lessons use it behind that macro.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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

// A deadline for the launches that follow: each is stopped a little before
// it, as CUDALAB_TIMEOUT stops a launch, so that the program can still say
// where its threads were (a judge gives its program the time a test has
// left). A time of CLOCK_MONOTONIC in nanoseconds; 0: none.
void set_launch_deadline(int64_t monotonic_ns);

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

// The number traces give the allocation that holds `address` (its id in
// the trace's allocation records); 0 when no allocation holds it.
uint32_t allocation_id(const void* address);

// Where the allocation that holds `address` was made ("grade.cu:37") and the
// variable it went to, when its source line shows one ("d_a"; else "").
// False when no allocation holds `address`.
bool allocation_source(const void* address, std::string* site, std::string* name);

// This thread's next cudaMalloc is said to be made at `site`, into `name`:
// a buffer that stands for another program's (the judge's buffers, in the
// submission's process) keeps that program's names in checks and traces.
void name_next_allocation(const std::string& site, const std::string& name);

// The host wrote `bytes` of device memory at `device_address` itself (the
// judge's buffers, read straight into their allocation): for the checks,
// as cudaMemcpy's copy from the host would have.
void host_wrote(const void* device_address, size_t bytes);

}  // namespace cudalab::sim
