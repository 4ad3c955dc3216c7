// Running other programs (see process.h).
#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab::cli {
namespace fs = std::filesystem;
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t keep) {
  ProcessResult r;
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    r.output = std::string("cannot make a pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    dup2(out[1], 1);
    dup2(out[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  const double deadline = now_s() + timeout_s;
  int status = 0;
  bool open = true;
  while (true) {
    pollfd fd{out[0], POLLIN, 0};
    if (open && poll(&fd, 1, 20) > 0) {
      char buffer[1 << 16];
      const ssize_t got = read(out[0], buffer, sizeof(buffer));
      if (got > 0) {
        r.output.append(buffer, size_t(got));
        if (r.output.size() > 2 * keep) r.output.erase(0, r.output.size() - keep);
      } else {
        open = false;
      }
    } else if (!open) {
      usleep(5000);
    }
    if (waitpid(pid, &status, WNOHANG) == pid) {
      while (open) {  // what is left in the pipe
        char buffer[1 << 16];
        const ssize_t got = read(out[0], buffer, sizeof(buffer));
        if (got <= 0) break;
        r.output.append(buffer, size_t(got));
      }
      break;
    }
    if (now_s() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
  }
  close(out[0]);
  if (r.output.size() > keep) r.output.erase(0, r.output.size() - keep);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string find_program(const std::string& name, const std::vector<std::string>& more) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  for (const auto& m : more) path += ":" + m;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0)
      return fs::absolute(fs::path(dir) / name).string();
  return "";
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_atomically(const fs::path& path, const std::string& text) {
  // A name of this process's own: the tasks of a Slurm array may write the
  // same file at once (the last rename wins, and each is whole).
  const fs::path tmp = path.string() + ".partial-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush())
      throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  fs::rename(tmp, path);
}

TempFile::TempFile(const std::string& suffix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/cudalab-XXXXXX" + suffix;
  const int fd = mkstemps(pattern.data(), int(suffix.size()));
  if (fd < 0)
    throw std::runtime_error("cannot make a temporary file in " + pattern + ": " +
                             std::strerror(errno));
  close(fd);
  path = pattern;
}

TempFile::~TempFile() {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

}  // namespace cudalab::cli
