// Other programs, started without a shell: the one way the project's code
// starts a process, waits for it, finds a program on PATH or quotes a word
// for a shell script. (The simulator, linked into students' programs, uses
// it too: the child does only what is safe between fork and exec in a
// program with threads.)
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::support {

// Seconds on the steady clock (for measuring how long something took).
double now_s();

// A program to start, and what it is given.
struct Child {
  std::vector<std::string> argv;  // argv[0]: a path, or a name found on PATH
  std::vector<std::string> env;   // NAME=value, over this process's environment
  // Descriptors of this process the child gets, each as {its number in the
  // child, this process's descriptor}: {1, pipe} makes the pipe its stdout.
  // At most 64 (start refuses more).
  std::vector<std::pair<int, int>> fds;
  std::string output_file;        // stdout and stderr into this file (made or emptied)
  bool stdin_null = false;        // stdin reads /dev/null
  bool stderr_null = false;       // stderr goes to /dev/null
  bool only_named_fds = false;    // every descriptor above 2 not in `fds` is closed
  bool own_group = false;         // a process group of its own (kill(-pid, ...) ends it all)
  bool dies_with_parent = false;  // killed when this process ends
  std::string who;                // what starts the message when it cannot be run ("cudalab-cc: ")
};

// How a program ended.
struct Exit {
  int code = -1;   // its exit code, when it exited
  int signal = 0;  // the signal that ended it, or 0
  bool ok() const { return signal == 0 && code == 0; }
  // A shell's way of saying it: the code, or 128 + the signal.
  int status() const { return signal ? 128 + signal : code; }
};
Exit exit_of(int wait_status);

// Starts `child`; -1 with `why` when it cannot (a program not found, no
// more processes). A program that is found but cannot be executed exits
// with 127, having said why on its stderr.
pid_t start(const Child& child, std::string* why = nullptr);
// Waits for it to end (through signals that interrupt the wait).
Exit wait_for(pid_t pid);
// Whether it has ended (without waiting); its exit in `*exit` (code -1 when
// it cannot be waited for: not a child, or reaped already).
bool ended(pid_t pid, Exit* exit);

// A program run to its end (or its time limit): how it ended and the end
// of its output.
struct ProcessResult {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;  // at most `keep` bytes (the end) of stdout, and of stderr unless dropped
};
// Runs argv with a wall-clock limit, keeping the last `keep` bytes it
// prints (stdout and stderr together, or stdout alone with
// `drop_stderr`); at the limit its whole process group is killed.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          size_t keep = 1 << 20, bool drop_stderr = false);

// A program's stdout read as it runs, line by line if need be (its stderr
// dropped): popen, without a shell. Ends the program, if it has not ended,
// and waits for it when destroyed.
class OutputOf {
 public:
  explicit OutputOf(const std::vector<std::string>& argv);
  ~OutputOf();
  OutputOf(const OutputOf&) = delete;
  OutputOf& operator=(const OutputOf&) = delete;
  FILE* file() const { return file_; }  // nullptr when it could not be started
  // Once its output is read: closes it and waits for the program's end.
  Exit finish();

 private:
  FILE* file_ = nullptr;
  pid_t pid_ = -1;
};

// The full path of `name` on PATH or in one of `more` folders; "" if none.
// A name with a slash is itself, when it can be executed.
std::string find_program(const std::string& name, const std::vector<std::string>& more = {});

// `text` quoted for a POSIX shell script.
std::string shell_quote(const std::string& text);

}  // namespace cudalab::support
