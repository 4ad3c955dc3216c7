// The course's code compiled once: the main that serves a lesson's judge is
// the same for every submission of the lesson, so its object is kept under a
// key of its text, the lesson's headers and the toolchain (build_key).
#include <sys/stat.h>

#include <fstream>

#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission_steps.h"

namespace cudalab::cli {

// Where the compiled main of a lesson's programs is kept: every submission
// of a lesson links the same one, so it is compiled once (outside the
// sandbox: it is the course's code, not the student's).
fs::path main_cache_root() { return fs::path(CUDALAB_BIN_DIR).parent_path() / "grade-cache"; }

// The object (and its instrumented twin, `.instrumented` beside it) of the
// main that serves the judge `calls`; "" when it cannot be made (the
// caller then compiles the main with the student's file).
fs::path cached_main_object(const Lesson& lesson, const std::string& main_text) {
  const std::string key = build_key({main_text, lesson_headers_text(lesson)});
  const fs::path dir = main_cache_root() / (lesson.name + "-" + key);
  const fs::path object = dir / "main.o";
  if (fs::exists(object) && fs::exists(object.string() + ".instrumented")) return object;
  std::error_code ec;
  fs::create_directories(main_cache_root(), ec);
  std::string pattern = (main_cache_root() / ("new." + lesson.name + ".XXXXXX")).string();
  if (ec || !mkdtemp(pattern.data())) return "";
  const fs::path fresh = pattern;
  std::ofstream(fresh / "main.cu") << main_text;
  const support::ProcessResult r = support::run_process(
      {CUDALAB_CC_PATH, "-c", "-O2", "-I" + lesson.dir.string(), "-I" CUDALAB_FRAMEWORK_INCLUDE_DIR,
       (fresh / "main.cu").string(), "-o", (fresh / "main.o").string()},
      120);
  // Readable by the sandbox's user; the first of two gradings to finish wins.
  fs::permissions(fresh,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  if (r.exit_code != 0 || !fs::exists(fresh / "main.o.instrumented") ||
      (rename(fresh.c_str(), dir.c_str()) != 0 && !fs::exists(object))) {
    fs::remove_all(fresh, ec);
    return fs::exists(object) ? object : fs::path();
  }
  fs::remove_all(fresh, ec);  // left when another grading's was first
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
  for (const std::string& tool : simulator_toolchain()) {
    struct stat st {};
    if (stat(tool.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // the files alone
    mix(tool + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime));
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(h));
  return key;
}

}  // namespace cudalab::cli
