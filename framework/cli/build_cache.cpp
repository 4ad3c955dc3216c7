// What is compiled once. The main that serves a lesson's judge is the same
// for every submission of the lesson, so its object is kept under a key of
// its text, the lesson's headers and the toolchain (build_key); so is a
// judge that the build did not make (lesson_judge). And a submission's file
// graded again (a regrade with a new seed, the same file handed in twice) is
// not compiled again: its objects are kept under a key of everything its
// compile read (KeptObjects).
#include <sys/stat.h>
#include <utime.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission_steps.h"

namespace cudalab::cli {

// Where the compiled main of a lesson's programs is kept: every submission
// of a lesson links the same one, so it is compiled once (outside the
// sandbox: it is the course's code, not the student's).
fs::path main_cache_root() { return fs::path(CUDALAB_BIN_DIR).parent_path() / "grade-cache"; }

namespace {

using support::publish_folder;
using support::Published;

// Folder `dir` (a new one of the grade cache) and its files made readable by
// the sandbox's user: a main its link reads. The cache's other folders stay
// this user's alone (judges hold the hidden tests; kept objects, students'
// sources).
bool readable_by_sandbox(const fs::path& dir) {
  std::error_code ec;
  const auto readable = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    fs::permissions(it->path(), readable, fs::perm_options::add, ec);
  if (!ec)
    fs::permissions(dir,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec,
                    ec);
  return !ec;
}

}  // namespace

// The object (and its instrumented twin, `.instrumented` beside it) of the
// main that serves the judge `calls`; "" when it cannot be made (the
// caller then compiles the main with the student's file).
fs::path cached_main_object(const Lesson& lesson, const std::string& main_text) {
  const std::string key = build_key({main_text, lesson_headers_text(lesson)});
  const fs::path dir = main_cache_root() / (lesson.name + "-" + key);
  const fs::path object = dir / "main.o";
  if (fs::exists(object) && fs::exists(object.string() + ".instrumented")) return object;
  publish_folder(dir, [&](const fs::path& fresh) {
    std::ofstream(fresh / "main.cu") << main_text;
    const support::ProcessResult r =
        support::run_process({CUDALAB_CC_PATH, "-c", "-O2", "-I" + lesson.dir.string(),
                              "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR, (fresh / "main.cu").string(),
                              "-o", (fresh / "main.o").string()},
                             120);
    return r.exit_code == 0 && fs::exists(fresh / "main.o.instrumented") &&
           readable_by_sandbox(fresh);
  });
  return fs::exists(object) ? object : fs::path();
}

std::vector<std::string> simulator_toolchain() {
  std::vector<std::string> paths;
  // The plugins; cuda_runtime.h precompiled (without it each build parses
  // it twice: three quarters of a small file's compile); Thrust's and CUB's
  // headers as the simulator has them (without them CUB's inline PTX does
  // not compile). The plugins and those folders are left out of builds
  // that have none.
  for (const char* path :
       {CUDALAB_CC_PATH, CUDALAB_SIM_INCLUDE_DIR, CUDALAB_SIM_LIBRARY,
        CUDALAB_FRAMEWORK_INCLUDE_DIR, CUDALAB_FRAMEWORK_LIBRARY, CUDALAB_BLOCK_LOOPS_PLUGIN,
        CUDALAB_SOURCE_ACCESSES_PLUGIN, CUDALAB_PCH_DIR, CUDALAB_THRUST_LINKS}) {
    std::error_code ec;
    if (*path && fs::exists(path, ec)) paths.emplace_back(path);
  }
  return paths;
}

std::string build_key(const std::vector<std::string>& sources) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto& s : sources) mix(s);
  auto mix_file = [&](const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    mix(path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime));
  };
  for (const std::string& tool : simulator_toolchain()) mix_file(tool);
  // The headers a program includes from the simulator and the framework
  // (a header-only change, such as the lessons' timing.h, rebuilds it too).
  for (const char* dir : {CUDALAB_SIM_INCLUDE_DIR, CUDALAB_FRAMEWORK_INCLUDE_DIR}) {
    std::error_code ec;
    std::vector<std::string> headers;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      headers.push_back(it->path().string());
    std::sort(headers.begin(), headers.end());
    for (const std::string& h : headers) mix_file(h);
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(h));
  return key;
}

namespace {

// The lesson's graded-test sources: lesson.json's "grader" files, and
// hidden.cu where the copy has it (as lessons/CMakeLists.txt builds them).
std::vector<fs::path> judge_sources(const Lesson& lesson) {
  std::vector<fs::path> sources;
  for (const auto& s : lesson.grader_sources) sources.push_back(lesson.dir / s);
  if (fs::exists(lesson.dir / "hidden.cu") &&
      std::find(lesson.grader_sources.begin(), lesson.grader_sources.end(), "hidden.cu") ==
          lesson.grader_sources.end())
    sources.push_back(lesson.dir / "hidden.cu");
  return sources;
}

// Whether the build's judge was made from the lesson's files as they are:
// the lesson is the course's own and no file of its folder is newer.
bool built_judge_is_current(const Lesson& lesson, const fs::path& built) {
  std::error_code ec;
  if (!fs::exists(built, ec) ||
      !fs::equivalent(lesson.dir, fs::path(CUDALAB_LESSONS_DIR) / lesson.name, ec))
    return false;
  const auto made = fs::last_write_time(built, ec);
  if (ec) return false;
  for (const auto& e : fs::directory_iterator(lesson.dir, ec)) {
    const std::string ext = e.path().extension().string();
    if ((ext == ".cu" || ext == ".h" || ext == ".cuh" || e.path().filename() == "lesson.json") &&
        fs::last_write_time(e.path(), ec) > made)
      return false;
  }
  return !ec;
}

}  // namespace

bool lesson_judge(const Lesson& lesson, fs::path* judge, std::string* why) {
  const fs::path built = fs::path(CUDALAB_BIN_DIR) / (lesson.name + "_judge");
  if (built_judge_is_current(lesson, built)) {
    *judge = built;
    return true;
  }
  const std::vector<fs::path> sources = judge_sources(lesson);
  std::vector<std::string> texts = {lesson_headers_text(lesson)};
  for (const auto& s : sources) {
    if (!fs::exists(s)) {
      *why = "cudalab: " + s.string() + " (a graded-test file lesson.json names) is missing\n";
      return false;
    }
    texts.push_back(s.filename().string() + "\n" + support::read_file(s));
  }
  const fs::path dir = main_cache_root() / ("judge-" + lesson.name + "-" + build_key(texts));
  *judge = dir / (lesson.name + "_judge");
  if (fs::exists(*judge)) return true;
  std::cerr << "cudalab: building lesson " << lesson.name << "'s graded tests ("
            << (fs::exists(built) ? "its files changed since the build made them"
                                  : "the build did not make them")
            << ") ..." << std::endl;
  support::ProcessResult r;
  const Published p = publish_folder(dir, [&](const fs::path& fresh) {
    std::vector<std::string> cmd = {CUDALAB_CC_PATH,
                                    "--fast",
                                    "-O2",
                                    "-DCUDALAB_JUDGE=1",
                                    "-I" + lesson.dir.string(),
                                    "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR};
    for (const auto& s : sources) cmd.push_back(s.string());
    cmd.insert(cmd.end(), {CUDALAB_FRAMEWORK_LIBRARY, "-o", (fresh / judge->filename()).string()});
    r = support::run_process(cmd, 600);
    return r.exit_code == 0;  // run by this user, outside the sandbox
  });
  if (p == Published::kNoFolder) {
    *why = "cudalab: cannot make a folder in " + main_cache_root().string() + "\n";
    return false;
  }
  if (p == Published::kNotFilled) {
    *why = "cudalab: lesson " + lesson.name +
           "'s graded tests do not build (fix the first error below, in its file and line):\n" +
           r.output;
    return false;
  }
  return fs::exists(*judge);
}

namespace {

// How many submissions' objects are kept (the least recently used go first):
// a class's files for a lesson, at about 300 KB each.
constexpr size_t kKeptObjectsMax = 512;
const char* const kTwin = ".instrumented";

fs::path kept_objects_root() { return main_cache_root() / "objects"; }

// The least recently used entries removed until at most kKeptObjectsMax are
// left.
void forget_old_objects() {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(kept_objects_root(), ec))
    if (e.path().filename().string().rfind("new.", 0) != 0)
      entries.emplace_back(fs::last_write_time(e.path(), ec), e.path());
  if (entries.size() <= kKeptObjectsMax) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i + kKeptObjectsMax < entries.size(); ++i)
    fs::remove_all(entries[i].second, ec);
}

}  // namespace

KeptObjects::KeptObjects(std::string what)
    : what_(std::move(what)),
      dir_(kept_objects_root() / build_key({"objects of a submission", what_})) {}

bool KeptObjects::take(const fs::path& object) const {
  const fs::path& dir = dir_;
  std::error_code ec;
  // The key is a 64-bit hash: the whole of what was compiled must match too,
  // or a file made to collide would get another file's objects.
  if (!fs::is_regular_file(dir / "compiled_from", ec) ||
      support::read_file(dir / "compiled_from") != what_)
    return false;
  fs::copy_file(dir / "student.o", object, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::copy_file(dir / (std::string("student.o") + kTwin), object.string() + kTwin,
                  fs::copy_options::overwrite_existing, ec);
  // Read by the link in the sandbox, as its own user, whatever the umask
  // the objects were kept with.
  for (const std::string& f : {object.string(), object.string() + kTwin})
    if (!ec)
      fs::permissions(f, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read,
                      fs::perm_options::add, ec);
  if (ec) {
    fs::remove(object, ec);
    fs::remove(object.string() + kTwin, ec);
    return false;
  }
  utime(dir.c_str(), nullptr);  // used now: the last to be forgotten
  return true;
}

void KeptObjects::keep(const fs::path& object) const {
  // What the sandboxed compile left: plain files only (a link would have
  // this process read, as its own user, whatever the link names).
  for (const std::string& f : {object.string(), object.string() + kTwin}) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(f, ec))) return;
  }
  const Published p = publish_folder(dir_, [&](const fs::path& fresh) {
    std::error_code ec;
    fs::copy_file(object, fresh / "student.o", ec);
    if (!ec) fs::copy_file(object.string() + kTwin, fresh / (std::string("student.o") + kTwin), ec);
    if (ec) return false;
    std::ofstream(fresh / "compiled_from", std::ios::binary) << what_;
    return true;
  });
  if (p == Published::kMade) forget_old_objects();  // kept or not, the grading goes on
}

}  // namespace cudalab::cli
