// One finding of the simulator's checks as its JSON object says it: the
// object the simulator writes (simulator/src/checks/finding.cpp) into a
// CUDALAB_CHECK_JSON report and into a trace's finding records. This is its
// one reader: the trace reader, the viewer and the cudalab command's rubrics
// and diagnoses take a finding's fields from here, with one set of defaults.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace cudalab::trace {

struct FindingFields {
  std::string tool;         // "memcheck", "racecheck", "synccheck", "initcheck"
  std::string kind;         // "write", "read", "read-after-write", "divergent", ...
  std::string kernel;       // the kernel it was found in ("" when not said)
  uint64_t launch = 0;      // the program's launch it was found in, from 1 (0: not said)
  std::string space;        // an access's memory: "__global__" or "__shared__" ("" none)
  std::string where;        // "file.cu:12" ("" when unknown)
  std::string where_other;  // a race's other access ("" when there is none)
  std::string message;      // in words: where the address is, what is wrong
  std::string advice;       // racecheck: what to change ("" none)
  std::string call;         // a failed runtime call: "cudaFree" ("" none)
  std::string error;        // and its error: "cudaErrorInvalidValue"
  uint64_t size = 0;        // an access's bytes (races: 0)
  uint64_t count = 1;       // how many times it was found
  // Coordinates as the object gives them ([x, y, z]); none when absent or
  // not three unsigned numbers.
  using Triple = std::array<uint64_t, 3>;
  std::optional<Triple> thread, block, other_thread, other_block;
};

// The fields of `object`; false (and `*f` default) when it is not a JSON
// object. A field of the wrong type is taken as absent.
bool finding_fields(const nlohmann::json& object, FindingFields* f);

// "tool kind" ("memcheck write"), "check" and "finding" where not said.
std::string finding_label(const FindingFields& f);

// A coordinate as the checks print it: "(x,y,z)".
std::string triple_text(const FindingFields::Triple& t);

}  // namespace cudalab::trace
