// cudalab-viz's command line: what it asks for, read without a window, so
// that the unit tests reach it.
#pragma once

#include <optional>
#include <string>

namespace cudalab::viz {

struct Options {
  std::string trace_path;
  std::string screenshot;  // --screenshot FILE.png: draw one frame, save it, exit
  std::string snapshots;   // --snapshots DIR: F12 saves what is shown there
  long width = 1280, height = 800;
  // What is selected at the start: launch from 1, block and thread linear
  // from 0 (thread -1: none); `chosen` when one of them was given.
  long launch = 1, block = 0, thread = -1;
  bool chosen = false;
  bool metrics = false, source = false, roofline = false;
  long step = -1, instruction = -1, access = -1;  // -1: not asked for
  long finding = 0;                               // from 1; 0: not asked for
  long columns = 0;                               // 0: not asked for
  std::string line;                               // "file.cu:N", "" none
  std::string tests_path;                         // --tests FILE, "" none
  std::string test_name;                          // --test NAME, "" none
};

// Why the viewer stops before its window opens: the message for stderr,
// after "cudalab-viz: " (empty: none), whether the usage follows it, and
// the exit status (--help: 0, the usage on stdout).
struct Stop {
  int status = 2;
  std::string message;
  bool usage = false;
};

// Reads the command line into `*out`; a Stop when the viewer should not
// open (--help, or an option it cannot take). --snapshots DIR makes the
// folder here, so that a folder it cannot make stops it at once.
std::optional<Stop> parse_options(int argc, const char* const* argv, Options* out);

// Prints what `stop` says (the message, then the usage where it goes) and
// returns its exit status.
int print_stop(const Stop& stop);

}  // namespace cudalab::viz
