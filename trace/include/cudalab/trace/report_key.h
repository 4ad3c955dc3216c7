// The key a grader gives a checked run (CUDALAB_REPORT_KEY), and the keyed
// hash (SipHash-2-4) that run signs its report of the checks with, so that a
// report the student's program wrote or changed is told from the run's own.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace cudalab::trace {

using ReportKey = std::array<uint8_t, 16>;

// 32 hex digits; false when `text` is not a key.
bool parse_report_key(const std::string& text, ReportKey* key);
std::string report_key_text(const ReportKey& key);

// The 64-bit SipHash-2-4 of `data` under `key`, as 16 hex digits.
std::string report_mac(const ReportKey& key, const std::string& data);

}  // namespace cudalab::trace
