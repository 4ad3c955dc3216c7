// The sandbox's command line: cudalab-confine (confine.cpp: as root, an
// unprivileged user of its own, so that the process limit counts; the
// rlimits; no address randomization; the syscall filter) and bwrap
// (Debian's bubblewrap: the namespaces and the filesystem view).
#include "sandbox.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab/trace/refused_calls.h"
#include "cudalab_cli_config.h"

namespace cudalab::cli {
namespace fs = std::filesystem;
namespace {

constexpr int kSandboxUid = 65534;  // nobody

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

// Whether a user other than its owner can reach `path` (every folder on the
// way searchable, the file itself readable).
bool others_can_read(const fs::path& path) {
  fs::path at = "/";
  for (const auto& part : path.relative_path()) {
    at /= part;
    struct stat st {};
    if (stat(at.c_str(), &st) != 0) return false;
    const bool last = at == path;
    if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) return false;
    if (last && !(st.st_mode & S_IROTH)) return false;
  }
  return true;
}

// A folder of this process's own that the sandbox's user can read, made
// once and removed when the process ends ("" if it cannot be made).
const fs::path& kit_folder() {
  static const fs::path kit = [] {
    std::string pattern = "/tmp/cudalab-kit.XXXXXX";
    if (!mkdtemp(pattern.data())) return fs::path();
    fs::permissions(pattern, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    return fs::path(pattern);
  }();
  // Registered once `kit` is made, so that it runs before `kit` is gone.
  static const bool removed_at_exit = std::atexit([] {
                                        std::error_code ec;
                                        if (!kit_folder().empty()) fs::remove_all(kit_folder(), ec);
                                      }) == 0;
  (void)removed_at_exit;
  return kit;
}

// The copies that gradings share: /tmp/cudalab-tools-UID, a folder of this
// user's that no one else may write ("" where it is not so: each process
// then copies into its own kit).
const fs::path& shared_copies() {
  static const fs::path root = [] {
    const uid_t me = geteuid();
    const fs::path p = "/tmp/cudalab-tools-" + std::to_string(me);
    mkdir(p.c_str(), 0755);  // or it is there already
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      std::cerr << "cudalab: " << p.string()
                << " is not a folder of this user's alone: each grading copies the tools it "
                   "needs for itself\n";
      return fs::path();
    }
    if ((st.st_mode & (S_IROTH | S_IXOTH)) != (S_IROTH | S_IXOTH) && chmod(p.c_str(), 0755) != 0)
      return fs::path();
    return p;
  }();
  return root;
}

// A name for `text` (the same in every grading with this build's library).
std::string name_of(const std::string& text) {
  return std::to_string(std::hash<std::string>{}(text));
}

// What a copy of `path` must hold: each file's name (below `path`), kind,
// size, time of change and (for a link) target, in order; "" when it cannot
// be read whole. The same for `path` and a whole copy of it (copies keep
// the times; modes are left out: a copy is opened up).
std::string listing_of(const fs::path& path) {
  std::string listing;
  bool whole = true;
  const auto add = [&](const fs::path& p, const std::string& name) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) {
      whole = false;
      return;
    }
    listing += name + ':' + std::to_string(st.st_mode & S_IFMT) + ':' +
               std::to_string(S_ISDIR(st.st_mode) ? 0 : st.st_size) + ':' +
               std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      listing += "->" + fs::read_symlink(p, ec).string();
    }
    listing += '\n';
  };
  add(path, ".");
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(path, ec))) {
    std::vector<fs::path> inside;
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      inside.push_back(it->path());
    if (ec) return "";
    std::sort(inside.begin(), inside.end());
    for (const auto& p : inside) add(p, p.lexically_relative(path).string());
  }
  return whole && !ec ? listing : "";
}

// A copy of `path` at `copy` (a new folder's entry) that the sandbox's user
// can read (and, where the owner may, run) but no one else may write, with
// the times of what it copies (a precompiled header checks its headers'
// times); false on any error: a copy short of a file is never used. Links
// are copied as links, never followed.
bool copy_for_sandbox(const std::string& path, const fs::path& copy, const fs::path& top) {
  std::error_code failed;
  const auto note = [&](const std::error_code& ec) {
    if (ec && !failed) failed = ec;
  };
  std::error_code ec;
  // Its folder is only this user's while it is filled (a copy has its
  // source's modes until it is opened up below, the folder last).
  if (mkdir(copy.parent_path().c_str(), 0700) != 0 && errno != EEXIST)
    note(std::error_code(errno, std::generic_category()));
  fs::copy(path, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  note(ec);
  const auto open_up = [&](const fs::path& p, const fs::path& from) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) return note(std::error_code(errno, std::generic_category()));
    if (!S_ISLNK(st.st_mode)) {
      const bool search = S_ISDIR(st.st_mode) || (st.st_mode & S_IXUSR);
      const mode_t mode = (st.st_mode & 07755 & ~mode_t(S_ISUID | S_ISGID)) | S_IRUSR | S_IROTH |
                          S_IRGRP | (search ? S_IXOTH | S_IXGRP : 0);
      if (chmod(p.c_str(), mode) != 0) note(std::error_code(errno, std::generic_category()));
    }
    struct stat was {};
    if (!from.empty() && lstat(from.c_str(), &was) == 0) {
      const timespec times[2] = {was.st_atim, was.st_mtim};
      if (utimensat(AT_FDCWD, p.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
        note(std::error_code(errno, std::generic_category()));
    }
  };
  if (fs::is_directory(fs::symlink_status(copy, ec))) {
    // Deepest first: setting a folder's time before its files' would not hold.
    std::vector<fs::path> inside;
    for (auto it = fs::recursive_directory_iterator(copy, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      inside.push_back(it->path());
    note(ec);
    std::sort(inside.rbegin(), inside.rend());
    for (const auto& p : inside) open_up(p, fs::path(path) / p.lexically_relative(copy));
  }
  open_up(copy, path);
  for (fs::path up = copy.parent_path(); up != top && up.has_relative_path(); up = up.parent_path())
    open_up(up, fs::path());
  return !failed;
}

// Removes `entry` of the shared copies: first out of the way (renamed), so
// that no grading takes it for whole while it goes.
void drop_copy(const fs::path& root, const fs::path& entry) {
  std::string dead = (root / "dead.XXXXXX").string();
  std::error_code ec;
  if (mkdtemp(dead.data()) && rename(entry.c_str(), (fs::path(dead) / "x").c_str()) == 0)
    fs::remove_all(dead, ec);
  else if (!dead.empty())
    fs::remove(dead, ec);
}

// The shared copy of `path` as it is now ("" when there is none to be had):
// made by the first grading that needs it, put in place whole (a folder
// filled beside it, then renamed), checked against `path` when a grading
// first takes it (one short of a file, as an aged /tmp leaves it, is made
// again) and marked used at each use. Copies not used for an hour go when
// another copy of the same path is made or taken, any copy after a day.
std::string shared_copy(const std::string& path) {
  const fs::path& root = shared_copies();
  if (root.empty()) return "";
  const std::string listing = listing_of(path);
  if (listing.empty()) return "";
  const std::string which = name_of(path) + "-";
  const fs::path dir = root / (which + name_of(listing));
  const fs::path copy = dir / fs::path(path).filename();
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    const std::string has = listing_of(copy);
    if (has.empty()) return "";  // cannot tell (another grading moving it away): the kit's
    if (has != listing) drop_copy(root, dir);  // short of a file: made again
  }
  if (!fs::is_directory(dir, ec)) {
    support::publish_folder(dir, [&](const fs::path& fresh) {
      return copy_for_sandbox(path, fresh / copy.filename(), fresh) &&
             chmod(fresh.c_str(), 0755) == 0 && listing_of(fresh / copy.filename()) == listing;
    });
    if (!fs::is_directory(dir, ec)) return "";  // neither this copy nor another's
  }
  if (utime(dir.c_str(), nullptr) != 0) return "";  // gone since: the kit's
  const auto now = fs::file_time_type::clock::now();
  std::vector<fs::path> unused;
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code when;
    const auto used = fs::last_write_time(it->path(), when);
    if (when || it->path() == dir) continue;
    const bool same_path =
        name.rfind(which, 0) == 0 || name.rfind("new.", 0) == 0 || name.rfind("dead.", 0) == 0;
    if (used < now - (same_path ? std::chrono::hours(1) : std::chrono::hours(24)))
      unused.push_back(it->path());
  }
  for (const auto& e : unused) {
    // Looked at again just before: a grading may have taken it since.
    std::error_code when;
    const auto used = fs::last_write_time(e, when);
    if (!when && used < now - std::chrono::hours(1)) drop_copy(root, e);
  }
  return copy.string();
}

// CUDALAB_SANDBOX_COPIES=1 (for the tests): the sandbox sees copies even of
// what its user could reach, as where the course lies in a private folder;
// a copy that cannot be made then fails the step, as it would there.
bool copies_for_all() {
  static const bool all = [] {
    const char* v = std::getenv("CUDALAB_SANDBOX_COPIES");
    return v && std::string(v) == "1";
  }();
  return all;
}

// The sandbox's user sees a toolchain file that only its owner can reach
// (a course in a private folder) through a copy: the one gradings share
// where it can be had, else one in a folder of this process's own, made
// once and removed when it ends. When neither can be made, `path` itself
// (the sandbox then says it cannot reach it), and tried again next time.
std::string reachable_copy(const std::string& path) {
  static std::mutex m;
  static std::map<std::string, std::string> copies;
  std::lock_guard lock(m);
  if (auto it = copies.find(path); it != copies.end()) {
    const fs::path folder = fs::path(it->second).parent_path();
    // Used again: not to be taken for an unused copy by another grading.
    if (utime(folder.c_str(), nullptr) == 0) return it->second;
    copies.erase(it);  // gone (removed by hand, or a day unused)
  }
  if (std::string shared = shared_copy(path); !shared.empty()) return copies[path] = shared;
  static int made = 0;  // the kit's copies so far, each in a folder of its own
  const fs::path& kit = kit_folder();
  const fs::path copy = kit / std::to_string(made++) / fs::path(path).filename();
  if (!kit.empty() && copy_for_sandbox(path, copy, kit)) return copies[path] = copy.string();
  std::cerr << "cudalab: cannot copy " << path << " where the sandbox's user can read it\n";
  return copies_for_all() ? "/nonexistent" + path : path;
}

// The seccomp filter bubblewrap installs before the program starts (its
// --seccomp takes it from a file descriptor): the system calls of
// cudalab/trace/refused_calls.h raise SIGSYS instead of running (the
// simulator's runtime then names the call and makes it fail with EPERM); so
// does clone() with a new namespace's flag; clone3 answers ENOSYS (the C
// library falls back to clone); a system call of another ABI (32-bit x86 on
// x86-64) ends the process. Written once, readable by the sandbox's user; ""
// on a machine this does not know.
std::string syscall_filter_file() {
  static std::mutex m;
  static std::string path;
  static bool made = false;
  std::lock_guard lock(m);
  if (made) return path;
  made = true;
#if defined(__x86_64__)
  constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
  return path;
#endif
  std::vector<sock_filter> f;
  const auto stmt = [&](uint16_t code, uint32_t k) { f.push_back(BPF_STMT(code, k)); };
  const auto jump = [&](uint16_t code, uint32_t k, uint8_t yes, uint8_t no) {
    f.push_back(BPF_JUMP(code, k, yes, no));
  };
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // the x32 ABI
  stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
#ifdef SYS_clone3
  jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
#endif
  for (const trace::RefusedCall& c : trace::kRefusedCalls) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(c.number), 0, 1);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
  }
  // clone(flags, ...): the flags' low 32 bits (little-endian), the first argument.
  jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3);
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args));
  jump(BPF_JMP | BPF_JSET | BPF_K, uint32_t(trace::kRefusedCloneFlags), 0, 1);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  if (kit_folder().empty()) return path;
  const std::string file = (kit_folder() / "syscalls.bpf").string();
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return path;
  fchmod(fd, 0644);  // read by the sandbox's user, whatever the umask
  const auto bytes = f.size() * sizeof(sock_filter);
  const bool written = write(fd, f.data(), bytes) == ssize_t(bytes);
  close(fd);
  if (!written) return path;
  return path = file;
}

}  // namespace

Sandbox::Sandbox(fs::path scratch, std::vector<std::string> read_only,
                 std::vector<std::string> hidden, bool confined, bool gpu, int uid)
    : scratch_(std::move(scratch)),
      read_only_(std::move(read_only)),
      hidden_(std::move(hidden)),
      confined_(confined),
      gpu_(gpu),
      uid_(uid) {}

void Sandbox::hand_over() const {
  if (geteuid() != 0 || !confined_) return;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(scratch_, ec))
    if (chown(entry.path().c_str(), uid_, uid_) != 0) {
    }
  if (chown(scratch_.c_str(), uid_, uid_) != 0) {
  }
}

std::vector<std::string> Sandbox::wrap(const std::vector<std::string>& program,
                                       const std::vector<std::string>& env,
                                       const SandboxLimits& l) const {
  // cudalab-confine (confine.cpp) sets up what bwrap cannot, in one
  // process: as root, the sandbox's own user, so that the process limit
  // counts, without root's groups and without gaining privileges; the
  // rlimits; no address randomization (the program's buffers land at the
  // same addresses every run, so what lies past a buffer, and what memcheck
  // says of a read past its end, is the same: the same file, the same grade;
  // set before the sandbox, whose filter refuses personality(), and kept by
  // the processes started from there); and the syscall filter as bwrap's
  // descriptor 9 (the judge closes every descriptor it did not open).
  std::vector<std::string> cmd = {CUDALAB_CONFINE_PATH};
  if (confined_ && geteuid() == 0)
    cmd.insert(cmd.end(), {"--user=" + std::to_string(uid_), "--no-new-privs"});
  cmd.insert(cmd.end(), {"--cpu=" + std::to_string(long(l.cpu_seconds) + 1),
                         "--fsize=" + std::to_string(l.file_mib << 20),
                         "--nofile=" + std::to_string(l.open_files), "--core=0"});
  // CUDA's driver reserves far more address space than it uses: on a GPU
  // the host memory is bounded by the machine, not by an address-space limit.
  if (!gpu_) cmd.push_back("--as=" + std::to_string(l.memory_mib << 20));
  // The process limit counts every process of the user: only the sandbox's
  // own user can be given one that means something.
  if (confined_) cmd.push_back("--nproc=" + std::to_string(l.processes));
  cmd.push_back("--no-aslr");
  std::vector<std::string> environment = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=/tmp"};
  environment.insert(environment.end(), env.begin(), env.end());
  if (!confined_) {
    // Unconfined: the scratch folder is the real one, and so are its paths.
    // Every /submission in an argument or a variable (-I/submission,
    // CUDALAB_TRACE=/submission/x.trace) is the scratch folder.
    auto real = [&](std::string s) {
      for (size_t at = s.find("/submission"); at != std::string::npos;
           at = s.find("/submission", at + 1)) {
        const size_t end = at + std::strlen("/submission");
        if (end < s.size() && s[end] != '/') continue;
        s.replace(at, end - at, scratch_.string());
      }
      return s;
    };
    environment.push_back("HOME=" + scratch_.string());
    cmd.insert(cmd.end(), {"--", "env", "-i", "-C", scratch_.string()});
    for (const auto& e : environment) cmd.push_back(real(e));
    for (const auto& a : program) cmd.push_back(real(a));
    return cmd;
  }
  environment.push_back("HOME=/submission");
  const std::string filter = syscall_filter_file();
  if (!filter.empty()) cmd.push_back("--fd9=" + filter);
  cmd.push_back("--");
  cmd.insert(cmd.end(), {"bwrap",         "--unshare-all", "--die-with-parent",
                         "--new-session", "--cap-drop",    "ALL",
                         "--hostname",    "submission",    "--ro-bind",
                         "/usr",          "/usr",          "--symlink",
                         "usr/bin",       "/bin",          "--symlink",
                         "usr/sbin",      "/sbin",         "--symlink",
                         "usr/lib",       "/lib",          "--symlink",
                         "usr/lib64",     "/lib64"});
  for (const char* etc : {"/etc/ld.so.cache", "/etc/alternatives"})
    if (fs::exists(etc)) cmd.insert(cmd.end(), {"--ro-bind", etc, etc});
  cmd.insert(cmd.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  if (gpu_) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev", ec))
      if (e.path().filename().string().rfind("nvidia", 0) == 0)
        cmd.insert(cmd.end(), {"--dev-bind", e.path().string(), e.path().string()});
    for (const char* d : {"/usr/local/cuda", "/proc/driver/nvidia", "/sys"})
      if (fs::exists(d)) cmd.insert(cmd.end(), {"--ro-bind", d, d});
  }
  // Seen at their own paths, which the toolchain has built in.
  for (const auto& p : read_only_) {
    if (under(p, "/usr")) continue;
    const bool as_other = geteuid() == 0;  // the sandbox's user is not the owner
    cmd.insert(cmd.end(),
               {"--ro-bind",
                as_other && (copies_for_all() || !others_can_read(p)) ? reachable_copy(p) : p, p});
  }
  // What must stay out of sight although a folder around it is seen.
  for (const auto& h : hidden_) {
    bool seen = under(h, "/usr");
    for (const auto& p : read_only_) seen |= under(h, p);
    if (seen && fs::is_directory(h)) cmd.insert(cmd.end(), {"--tmpfs", h});
    if (seen && fs::is_regular_file(h)) cmd.insert(cmd.end(), {"--ro-bind", "/dev/null", h});
  }
  cmd.insert(cmd.end(),
             {"--bind", scratch_.string(), "/submission", "--chdir", "/submission", "--clearenv"});
  for (const auto& e : environment) {
    const size_t eq = e.find('=');
    cmd.insert(cmd.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
  }
  if (!filter.empty()) cmd.insert(cmd.end(), {"--seccomp", "9"});
  cmd.push_back("--");
  cmd.insert(cmd.end(), program.begin(), program.end());
  return cmd;
}

int claim_sandbox_uids() {
  constexpr int kFirst = 60000, kRange = 256;  // users of one run (-j 256 at most)
  for (int base = kFirst; base + kRange <= 65000; base += kRange) {
    const std::string lock = "/tmp/cudalab-sandbox-users-" + std::to_string(base) + ".lock";
    const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return base;  // the lock stays with this process
    close(fd);
  }
  return kFirst;  // all held: share, as before there were locks
}

std::string sandbox_problem() {
  if (support::find_program("bwrap").empty())
    return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap";
  std::vector<std::string> probe;
  if (geteuid() == 0) probe = {CUDALAB_CONFINE_PATH, "--user=" + std::to_string(kSandboxUid), "--"};
  // What every sandbox needs, mounts included (a sandbox inside another
  // may have user namespaces but no right to mount /proc).
  probe.insert(probe.end(), {"bwrap",        "--unshare-all", "--die-with-parent",
                             "--ro-bind",    "/usr",          "/usr",
                             "--symlink",    "usr/lib",       "/lib",
                             "--symlink",    "usr/lib64",     "/lib64",
                             "--symlink",    "usr/bin",       "/bin",
                             "--proc",       "/proc",         "--dev",
                             "/dev",         "--tmpfs",       "/tmp",
                             "/usr/bin/true"});
  const support::ProcessResult r = support::run_process(probe, 60);
  if (r.exit_code == 0) return "";
  const std::string why = r.output.empty() ? "exit status " + std::to_string(r.exit_code)
                                           : r.output.substr(0, r.output.find('\n'));
  return "bwrap cannot make a sandbox here (" + why +
         "): user namespaces are probably not allowed (an unprivileged container)";
}

}  // namespace cudalab::cli
