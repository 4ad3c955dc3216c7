// cudalab-confine: what a sandboxed step needs before bubblewrap, in one
// process, then the program (bwrap, or env for an unconfined run). It
// stands for four programs run one after another (setpriv, prlimit,
// setarch and a shell that opened the syscall filter), each a process to
// start: about 4 ms of CPU for every test a submission runs.
//
//   cudalab-confine [--user=UID] [--no-new-privs] [--cpu=S] [--fsize=B]
//                   [--nofile=N] [--core=B] [--as=B] [--nproc=N]
//                   [--no-aslr] [--fd9=FILE] -- PROGRAM ARGS...
//
// In this order: as root, --user runs the rest as UID (its group too, no
// supplementary groups); every limit is set, soft and hard; with
// --no-new-privs the program cannot gain privileges (no set-user-ID);
// --no-aslr turns address randomization off (so a program's buffers land
// at the same addresses every run); --fd9 opens FILE as descriptor 9
// (bwrap's --seccomp 9).
// Anything wrong is said on stderr, with exit status 127, before the
// program runs.
#include <fcntl.h>
#include <grp.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void fail(const char* what, const char* detail) {
  std::fprintf(stderr, "cudalab-confine: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  std::exit(127);
}

// The value of `--name=VALUE` when `arg` is that option, else nullptr.
const char* value_of(const char* arg, const char* name) {
  const size_t n = std::strlen(name);
  return std::strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
}

unsigned long long number(const char* text, const char* option) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text || *end || text[0] == '-') fail("not a number", option);
  return v;
}

struct Limit {
  const char* name;
  int resource;
};
constexpr Limit kLimits[] = {{"--cpu", RLIMIT_CPU},       {"--fsize", RLIMIT_FSIZE},
                             {"--nofile", RLIMIT_NOFILE}, {"--core", RLIMIT_CORE},
                             {"--as", RLIMIT_AS},         {"--nproc", RLIMIT_NPROC}};

}  // namespace

int main(int argc, char** argv) {
  long long user = -1;
  bool no_aslr = false, no_new_privs = false;
  const char* fd9 = nullptr;
  struct {
    int resource;
    rlim_t value;
  } limits[sizeof(kLimits) / sizeof(kLimits[0])];
  int limit_count = 0;
  int at = 1;
  for (; at < argc; ++at) {
    const char* a = argv[at];
    if (std::strcmp(a, "--") == 0) {
      ++at;
      break;
    }
    if (const char* v = value_of(a, "--user")) {
      const unsigned long long id = number(v, a);
      // (uid_t)-1 would change nothing: no such user.
      if (id >= 0xffffffffull) fail("not a user id", a);
      user = (long long)id;
      continue;
    }
    if (std::strcmp(a, "--no-aslr") == 0) {
      no_aslr = true;
      continue;
    }
    if (std::strcmp(a, "--no-new-privs") == 0) {
      no_new_privs = true;
      continue;
    }
    if (const char* v = value_of(a, "--fd9")) {
      fd9 = v;
      continue;
    }
    bool known = false;
    for (const Limit& l : kLimits)
      if (const char* v = value_of(a, l.name)) {
        for (int i = 0; i < limit_count; ++i)
          if (limits[i].resource == l.resource) fail("a limit given twice", a);
        limits[limit_count++] = {l.resource, rlim_t(number(v, a))};
        known = true;
        break;
      }
    if (!known) fail("unknown option", a);
  }
  if (at >= argc)
    fail("no program to run (usage: cudalab-confine [OPTIONS] -- PROGRAM ARGS...)", nullptr);

  if (user >= 0) {
    const auto id = static_cast<uid_t>(user);
    if (setgroups(0, nullptr) != 0) fail("cannot drop the groups", std::strerror(errno));
    if (setresgid(id, id, id) != 0) fail("cannot change group", std::strerror(errno));
    if (setresuid(id, id, id) != 0) fail("cannot change user", std::strerror(errno));
    uid_t r = 0, e = 0, saved = 0;
    if (getresuid(&r, &e, &saved) != 0 || r != id || e != id || saved != id)
      fail("still another user after changing user", nullptr);
  }
  for (int i = 0; i < limit_count; ++i) {
    const rlimit r{limits[i].value, limits[i].value};
    if (setrlimit(limits[i].resource, &r) != 0) fail("cannot set a limit", std::strerror(errno));
  }
  if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    fail("cannot forbid new privileges", std::strerror(errno));
  // As `setarch ARCH -R` sets it: Linux's own, without randomization, and
  // no other flag the caller may have had.
  if (no_aslr && personality(static_cast<unsigned long>(PER_LINUX) |
                             static_cast<unsigned long>(ADDR_NO_RANDOMIZE)) == -1)
    fail("cannot turn address randomization off", std::strerror(errno));
  if (fd9) {
    const int fd = open(fd9, O_RDONLY);
    if (fd < 0) fail("cannot open the syscall filter", std::strerror(errno));
    if (fd != 9 && (dup2(fd, 9) != 9 || close(fd) != 0))
      fail("cannot hand the syscall filter over", std::strerror(errno));
  }
  execvp(argv[at], argv + at);
  std::fprintf(stderr, "cudalab-confine: cannot run %s: %s\n", argv[at], std::strerror(errno));
  return 127;
}
