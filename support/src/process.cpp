// Starting other programs (see process.h).
#include "cudalab/support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace cudalab::support {
namespace fs = std::filesystem;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Exit exit_of(int wait_status) {
  Exit e;
  if (WIFEXITED(wait_status)) e.code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) e.signal = WTERMSIG(wait_status);
  return e;
}

std::string find_program(const std::string& name, const std::vector<std::string>& more) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? fs::absolute(name).string() : "";
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  for (const auto& m : more) path += ":" + m;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir) / name;
    std::error_code ec;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, ec))
      return fs::absolute(candidate).string();
  }
  return "";
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// The environment the child gets: this process's, with `added` over it.
std::vector<std::string> environment_with(const std::vector<std::string>& added) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(added.begin(), added.end(), [&](const std::string& a) {
      return name_of(a) == name_of(entry);
    });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), added.begin(), added.end());
  return env;
}

void close_descriptors_from(int first) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first), UINT_MAX, 0u) == 0) return;
#endif
  const long most = std::min(sysconf(_SC_OPEN_MAX), 65536L);
  for (long fd = first; fd < most; ++fd) close(int(fd));
}

// The most descriptors a child can be given (become() moves them on its
// stack, where it cannot allocate).
constexpr size_t kMostMappedFds = 64;

// In the child, between fork and exec: system calls only (the parent may
// have threads, one of which may hold malloc's lock).
[[noreturn]] void become(const Child& c, pid_t parent, const char* path, char* const* argv,
                         char* const* envp, const std::string& cannot_run) {
  if (c.own_group) setpgid(0, 0);
  if (c.dies_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);  // it ended before the line above
  }
  int highest = 2;
  for (const auto& [to, from] : c.fds) highest = std::max(highest, to);
  // Out of the way first, so that one's number being another's target
  // does not matter.
  int moved[kMostMappedFds];
  const size_t n = c.fds.size();  // at most kMostMappedFds (start refuses more)
  for (size_t i = 0; i < n; ++i) moved[i] = fcntl(c.fds[i].second, F_DUPFD_CLOEXEC, highest + 1);
  for (size_t i = 0; i < n; ++i)
    if (moved[i] >= 0) dup2(moved[i], c.fds[i].first);
  if (!c.output_file.empty()) {
    const int fd = open(c.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
  }
  if (c.stdin_null || c.stderr_null) {
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0 && c.stdin_null) dup2(null, 0);
    if (null >= 0 && c.stderr_null) dup2(null, 2);
  }
  if (c.only_named_fds) {
    for (int fd = 3; fd <= highest; ++fd)
      if (std::none_of(c.fds.begin(), c.fds.begin() + long(n),
                       [&](const std::pair<int, int>& f) { return f.first == fd; }))
        close(fd);
    close_descriptors_from(highest + 1);
  }
  execve(path, argv, envp);
  // One write: parallel children that fail alike do not interleave.
  const char* why = strerror(errno);
  char message[4096];
  const size_t head = std::min(cannot_run.size(), sizeof(message) - 256);
  std::memcpy(message, cannot_run.data(), head);
  const size_t tail = std::min(std::strlen(why), sizeof(message) - head - 2);
  std::memcpy(message + head, why, tail);
  message[head + tail] = '\n';
  if (write(2, message, head + tail + 1) < 0) _exit(127);
  _exit(127);
}

}  // namespace

pid_t start(const Child& c, std::string* why) {
  if (c.argv.empty()) {
    if (why) *why = "no program to run";
    return -1;
  }
  if (c.fds.size() > kMostMappedFds) {
    if (why) *why = "cannot start " + c.argv[0] + ": more than 64 descriptors to give it";
    return -1;
  }
  const std::string path = find_program(c.argv[0]);
  if (path.empty()) {
    if (why) *why = "cannot run " + c.argv[0] + ": no such program";
    return -1;
  }
  // Everything the child needs, made before the fork.
  std::vector<char*> argv;
  for (const auto& a : c.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::vector<std::string> env = environment_with(c.env);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cannot_run = c.who + "cannot run " + c.argv[0] + ": ";
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) become(c, parent, path.c_str(), argv.data(), envp.data(), cannot_run);
  if (pid < 0 && why) *why = "cannot start " + c.argv[0] + ": " + std::strerror(errno);
  // The child's group made here too: a kill(-pid, ...) right after this
  // finds it even before the child has run (EACCES once it has exec'd,
  // when it made the group itself).
  if (pid > 0 && c.own_group) setpgid(pid, pid);
  return pid;
}

Exit wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Exit{};
  return exit_of(status);
}

bool ended(pid_t pid, Exit* exit) {
  int status = 0;
  const pid_t got = waitpid(pid, &status, WNOHANG);
  if (got < 0 && errno != EINTR) {
    *exit = Exit{};  // it cannot be waited for (reaped already: SIGCHLD ignored)
    return true;
  }
  if (got != pid) return false;
  *exit = exit_of(status);
  return true;
}

OutputOf::OutputOf(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return;
  Child child;
  child.argv = argv;
  child.fds = {{1, out[1]}};
  child.stderr_null = child.stdin_null = true;
  pid_ = start(child);
  close(out[1]);
  if (pid_ < 0 || !(file_ = fdopen(out[0], "r"))) close(out[0]);
}

Exit OutputOf::finish() {
  if (file_) fclose(file_), file_ = nullptr;
  Exit exit;
  if (pid_ > 0) exit = wait_for(pid_), pid_ = -1;
  return exit;
}

OutputOf::~OutputOf() {
  if (file_) fclose(file_);  // a program still writing ends with SIGPIPE
  Exit exit;
  if (pid_ > 0 && !ended(pid_, &exit)) {
    kill(pid_, SIGKILL);  // one that is not read to its end
    wait_for(pid_);
  }
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t keep,
                          bool drop_stderr) {
  ProcessResult r;
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    r.output = std::string("cannot make a pipe: ") + std::strerror(errno);
    return r;
  }
  Child child;
  child.argv = argv;
  child.fds = {{1, out[1]}};
  if (drop_stderr)
    child.stderr_null = true;
  else
    child.fds.push_back({2, out[1]});
  child.own_group = child.dies_with_parent = true;
  std::string why;
  const pid_t pid = start(child, &why);
  close(out[1]);
  if (pid < 0) {
    close(out[0]);
    r.exit_code = 127;
    r.output = why + "\n";
    return r;
  }
  const double deadline = now_s() + timeout_s;
  Exit exit;
  bool open = true;
  auto keep_end = [&] {
    if (r.output.size() > 2 * keep) r.output.erase(0, r.output.size() - keep);
  };
  while (true) {
    pollfd fd{out[0], POLLIN, 0};
    if (open && poll(&fd, 1, 20) > 0) {
      char buffer[1 << 16];
      const ssize_t got = read(out[0], buffer, sizeof(buffer));
      if (got > 0) {
        r.output.append(buffer, size_t(got));
        keep_end();
      } else {
        open = false;
      }
    } else if (!open) {
      usleep(5000);
    }
    if (ended(pid, &exit)) {
      while (open) {  // what is left in the pipe
        char buffer[1 << 16];
        const ssize_t got = read(out[0], buffer, sizeof(buffer));
        if (got <= 0) break;
        r.output.append(buffer, size_t(got));
        keep_end();
      }
      break;
    }
    if (now_s() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      exit = wait_for(pid);
      r.timed_out = true;
      break;
    }
  }
  close(out[0]);
  if (r.output.size() > keep) r.output.erase(0, r.output.size() - keep);
  r.exit_code = exit.code;
  r.signal = exit.signal;
  return r;
}

}  // namespace cudalab::support
