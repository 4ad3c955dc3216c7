// The two renderings of a finding of the checks: the text a run prints, in
// compute-sanitizer's layout and words, and the JSON object of the
// CUDALAB_CHECK_JSON report and of a trace. What a finding holds is in
// finding.h; the checks that make findings are memcheck.cpp, shadow.cpp
// (racecheck, initcheck) and barriers.cpp and warp_ops.cpp (synccheck), and
// check_reports.cpp gathers and prints them.
#include "checks/finding.h"

#include <cinttypes>
#include <cstdio>

#include "checks/checks.h"
#include "grid/grid.h"

namespace cudalab::rt {

namespace {

std::string triple(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string hex(uintptr_t address) {
  char s[32];
  std::snprintf(s, sizeof(s), "0x%" PRIxPTR, address);
  return s;
}

const char* tool_name(Tool t) {
  return t == kMemcheck    ? "memcheck"
         : t == kRacecheck ? "racecheck"
         : t == kSynccheck ? "synccheck"
                           : "initcheck";
}

// compute-sanitizer's names for the two accesses of a hazard, earlier first.
const char* first_access(Hazard h) { return h == kReadWrite ? "Read" : "Write"; }
const char* second_access(Hazard h) { return h == kWriteRead ? "Read" : "Write"; }

// "Address 0x... is out of bounds"
const char* problem_words(Problem p) {
  return p == kFreed        ? "in memory that was freed"
         : p == kMisaligned ? "misaligned"
         : p == kHostMemory ? "host memory, not device memory"
                            : "out of bounds";
}

std::string access_text(const Finding& f) {
  const std::string at = f.kernel + " in " + (f.where.empty() ? "(unknown line)" : f.where);
  const std::string by =
      "=========     by thread " + triple(f.thread) + " in block " + triple(f.block) + "\n";
  const std::string count = std::to_string(f.count);
  std::string s;
  if (f.tool == kRacecheck) {
    const std::string at_other =
        f.kernel + " in " + (f.where_other.empty() ? "(line not known)" : f.where_other);
    const std::string earlier =
        f.other_known ? "thread " + triple(f.other_thread) + " in block " + triple(f.other_block)
                      : std::string("another thread");
    s += std::string("========= Error: Race reported between ") + first_access(f.hazard) +
         " access at " + at_other + "\n";
    s += std::string("=========     and ") + second_access(f.hazard) + " access at " + at + " [" +
         count + " hazard" + (f.count == 1 ? "" : "s") + "]\n";
    s += std::string("=========     on ") + f.space + " memory: " + f.message + "\n";
    s += "=========     " + earlier + (f.hazard == kReadWrite ? " read" : " wrote") +
         " it and thread " + triple(f.thread) + " in block " + triple(f.block) +
         (f.hazard == kWriteRead ? " read" : " wrote") + " it; " + f.advice + "\n";
  } else if (f.tool == kInitcheck) {
    s += std::string("========= Uninitialized ") + f.space + " memory read of size " +
         std::to_string(f.size) + " bytes\n";
    s += "=========     at " + at + "\n" + by;
    s += "=========     Address " + hex(f.address) + " is " + f.message + "\n";
    if (f.count > 1) s += "=========     (" + count + " reads like it at this line)\n";
    if (!f.advice.empty()) s += "=========     " + f.advice + "\n";
  } else {
    s += std::string("========= Invalid ") + f.space + (f.write ? " write" : " read") +
         " of size " + std::to_string(f.size) + " bytes\n";
    s += "=========     at " + at + "\n" + by;
    s += "=========     Address " + hex(f.address) + " is " + problem_words(f.problem) + "\n";
    s += "=========     and is " + f.message + "\n";
    if (f.count > 1) s += "=========     (" + count + " accesses like it at this line)\n";
  }
  return s;
}

std::string json_triple(uint3 v) {
  return "[" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + "]";
}

}  // namespace

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out + "\"";
}

std::string finding_text(const Finding& f) {
  using Subject = Finding::Subject;
  switch (f.subject) {
    case Subject::kAccess:
      return access_text(f);
    case Subject::kBarrier:
      return "========= Barrier error detected. " + f.message + "\n=========     at " + f.kernel +
             " in " + (f.where.empty() ? "(unknown line)" : f.where) + "\n=========     in block " +
             triple(f.block) +
             (f.count > 1 ? " (found " + std::to_string(f.count) + " times in this launch)" : "") +
             "\n";
    case Subject::kApiCall:
      return std::string("========= Program hit ") + cudaGetErrorName(f.error) + " (error " +
             std::to_string(int(f.error)) + ") due to \"" + cudaGetErrorString(f.error) +
             "\" on CUDA API call to " + f.call + ".\n=========     at " + f.where +
             "\n=========     " + f.message + "\n";
    case Subject::kLeak:
      return "========= Leaked " + std::to_string(f.size) + " bytes at " + hex(f.address) +
             " (allocated at " + f.where + " and never freed)\n";
  }
  return "";
}

std::string finding_json(const Finding& f) {
  using Subject = Finding::Subject;
  const bool access = f.subject == Subject::kAccess;
  const bool in_kernel = access || f.subject == Subject::kBarrier;
  std::string j =
      std::string("{\"tool\": \"") + tool_name(f.tool) + "\", \"kind\": " + json_string(f.kind);
  if (f.subject == Subject::kApiCall)
    j += ", \"call\": " + json_string(f.call) +
         ", \"error\": " + json_string(cudaGetErrorName(f.error));
  if (access) j += ", \"space\": " + json_string(f.space) + ", \"size\": " + std::to_string(f.size);
  if (in_kernel) j += ", \"kernel\": " + json_string(f.kernel);
  if (in_kernel && f.launch > 0) j += ", \"launch\": " + std::to_string(f.launch);
  j += ", \"where\": " + json_string(f.where);
  if (access && f.tool == kRacecheck) j += ", \"where_other\": " + json_string(f.where_other);
  if (access) j += ", \"thread\": " + json_triple(f.thread);
  if (in_kernel) j += ", \"block\": " + json_triple(f.block);
  if (f.other_known)
    j += ", \"other_thread\": " + json_triple(f.other_thread) +
         ", \"other_block\": " + json_triple(f.other_block);
  j += ", \"message\": " + json_string(f.message);
  if (!f.advice.empty()) j += ", \"advice\": " + json_string(f.advice);
  return j + ", \"count\": " + std::to_string(f.count) + "}";
}

}  // namespace cudalab::rt
