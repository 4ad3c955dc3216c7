// One finding of the checks (CUDALAB_CHECK) and its two renderings: the
// compute-sanitizer-style text a run prints, and the JSON object that
// CUDALAB_CHECK_JSON's report and a trace's finding records hold
// (finding.cpp). Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "checks/checks.h"
#include "grid/grid.h"

namespace cudalab::rt {

struct Finding {
  // What the finding is about; it decides which of the fields below are
  // part of it.
  enum class Subject : uint8_t {
    kAccess,   // a memory access of a kernel's thread (memcheck, racecheck, initcheck)
    kBarrier,  // a barrier or warp mask (synccheck)
    kApiCall,  // a runtime call that failed (memcheck)
    kLeak,     // a buffer never freed (memcheck, CUDALAB_CHECK_LEAKS)
  };
  Subject subject = Subject::kAccess;
  Tool tool = kMemcheck;
  // Its name for graders: "write", "read", "use-after-free", "misaligned",
  // "host-pointer", "read-after-write", "uninitialized", "partial",
  // "divergent", "warp-mask", "api", "leak".
  std::string kind;
  // Accesses: what memcheck found (with whether it was a write), or the two
  // accesses of a race.
  Problem problem = kOutOfBounds;
  bool write = false;
  Hazard hazard = kWriteWrite;
  const char* space = "__global__";  // "__global__" or "__shared__"
  uint64_t size = 0;                 // bytes accessed (races: 0); a leak's buffer size
  uintptr_t address = 0;             // accessed; a leak's buffer
  std::string kernel;
  uint32_t launch = 0;  // the program's launch it was found in, counted from 1 (0: none)
  std::string where;  // "file.cu:12": the access, barrier or call ("" unknown); a leak's allocation
  std::string where_other;                // racecheck: the other access
  uint3 thread{0, 0, 0}, block{0, 0, 0};  // a barrier finding has a block only
  bool other_known = false;               // racecheck: the other thread
  uint3 other_thread{0, 0, 0}, other_block{0, 0, 0};
  // In words: where the address is ("byte 4 of the 4000-byte buffer `d_a`
  // allocated at main.cu:31"), what is wrong with the barrier, or why the
  // call failed.
  std::string message;
  std::string advice;  // racecheck, initcheck: what to change ("" none)
  uint64_t count = 1;  // how many times it was found (folded into this one)
  // API calls.
  std::string call;  // "cudaFree"
  cudaError_t error = cudaSuccess;
};

// The lines a run prints on stderr for `f`, each starting "=========".
std::string finding_text(const Finding& f);
// One JSON object, the same in the CUDALAB_CHECK_JSON report and in a
// trace's finding record. Its layout is fixed (fields in one order, one
// space after each colon and comma): tests and tools match it as text.
std::string finding_json(const Finding& f);
// `v` as a JSON string (quoted; control characters other than a line break
// become spaces).
std::string json_string(const std::string& v);

}  // namespace cudalab::rt
