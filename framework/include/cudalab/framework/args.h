// What the lessons' programs share to read their command lines: a whole
// number in a range, or a clear no (the caller prints its usage and exits
// 2), never a crash or a silent default.
#pragma once

#include <cstdlib>

namespace cudalab {

// Reads `s` as a whole number from lo to hi into *out; false (and *out
// unchanged) when `s` is not one ("12x", "", out of range).
inline bool parse_int(const char* s, long lo, long hi, long* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (!end || end == s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace cudalab
