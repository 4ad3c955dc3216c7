// What an instructor hands out and uploads:
//   cudalab release OUT              the student's copy of the course: everything
//                                    but solutions, hidden tests, known-wrong files
//                                    and the instructor's own tests, checked for
//                                    leftovers before it is called done
//   cudalab gradescope LESSON -o Z   Gradescope's autograder zip (setup.sh and
//                                    run_autograder at its root)
//   cudalab classroom LESSON -o DIR  a GitHub Classroom workflow for a student
//                                    repository made from the release
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"

namespace cudalab::cli {
namespace {

const fs::path kProject = CUDALAB_PROJECT_DIR;

// A file of the course: where it goes in a copy, and where it is now.
struct CourseFile {
  std::string rel;
  fs::path source;
};

// Every file under `dir` but build folders, relative to it.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::end(it); ++it) {
    const std::string rel = fs::relative(it->path(), dir).string();
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name == ".git")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && name.rfind('.', 0) != 0) files.push_back(rel);
  }
  return files;
}

// The course's files: what git tracks (plus new files it does not ignore),
// or, outside a git checkout, everything but build folders. With the lessons
// in a folder of their own (CUDALAB_LESSONS_DIR), the lessons are that
// folder's, in lessons/ beside the course's own files.
std::vector<CourseFile> course_files() {
  const support::ProcessResult git = support::run_process(
      {"git", "-C", kProject.string(), "ls-files", "--cached", "--others", "--exclude-standard"},
      120);
  std::vector<std::string> project;
  if (git.exit_code == 0 && !git.output.empty()) {
    std::istringstream in(git.output);
    for (std::string f; std::getline(in, f);)
      if (fs::is_regular_file(kProject / f)) project.push_back(f);
  } else {
    project = files_under(kProject);
  }
  std::error_code ec;
  const bool own_lessons = !fs::equivalent(lessons_root(), kProject / "lessons", ec);
  static const std::regex a_lesson_file(R"(^lessons/[^/]+/.*)");
  std::vector<CourseFile> files;
  for (const auto& f : project)
    if (!own_lessons || !std::regex_match(f, a_lesson_file)) files.push_back({f, kProject / f});
  if (own_lessons)
    for (const auto& f : files_under(lessons_root()))
      if (f.find('/') != std::string::npos)  // the lessons' folders, not loose files
        files.push_back({"lessons/" + f, lessons_root() / f});
  return files;
}

// Files only the instructor has.
bool instructor_only(const std::string& f) {
  static const std::regex only(
      R"(^lessons/[^/]+/(solution\.cu|hidden\.cu|wrong/.*)$|^tests/hostile/.*|^tests/students/.*|^tests/slurm/.*|^bench/gpu\.sh$|^bench/class.*)");
  return std::regex_match(f, only);
}

// A README's instructor-only part: between <!-- instructor --> and
// <!-- /instructor --> lines.
std::string student_text(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  bool skip = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("<!-- instructor -->") != std::string::npos) {
      skip = true;
      continue;
    }
    if (line.find("<!-- /instructor -->") != std::string::npos) {
      skip = false;
      continue;
    }
    if (!skip) out += line + "\n";
  }
  return out;
}

}  // namespace

int release(const std::string& out_arg, bool force) {
  const fs::path out = fs::absolute(out_arg);
  if (fs::exists(out) && !fs::is_empty(out)) {
    if (!force) {
      std::cerr << "cudalab: " << out.string()
                << " is not empty: give a new folder, or --force to replace it\n";
      return 2;
    }
    if (!fs::exists(out / "lessons")) {
      std::cerr << "cudalab: " << out.string()
                << " does not look like a release (no lessons/): not replacing it\n";
      return 2;
    }
    fs::remove_all(out);
  }
  if (out.string().rfind(kProject.string() + "/", 0) == 0 && !fs::exists(kProject / ".gitignore")) {
    std::cerr << "cudalab: put the release outside the course's folder\n";
    return 2;
  }
  const std::vector<Lesson> lessons = all_lessons();
  size_t copied = 0, left_out = 0;
  for (const auto& [f, source] : course_files()) {
    if (instructor_only(f)) {
      ++left_out;
      continue;
    }
    const fs::path to = out / f;
    fs::create_directories(to.parent_path());
    if (fs::path(f).extension() == ".md") {
      std::ofstream(to) << student_text(support::read_file(source));
    } else {
      fs::copy_file(source, to, fs::copy_options::overwrite_existing);
    }
    fs::permissions(to, fs::status(source).permissions());
    ++copied;
  }
  // Nothing of the answers may be left: no solution or hidden-test file, no
  // solution marker in any file.
  std::vector<std::string> leaks;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name == "solution.cu" || name == "hidden.cu" || e.path().extension() == ".diff")
      leaks.push_back(e.path().string());
    else if (e.path().extension() == ".cu" &&
             support::read_file(e.path()).find("// BEGIN SOL"
                                               "UTION") != std::string::npos)
      leaks.push_back(e.path().string() + " (a solution marker)");
  }
  if (!leaks.empty()) {
    std::cerr << "cudalab: the release would give answers away; not done:\n";
    for (const auto& l : leaks) std::cerr << "  " << l << "\n";
    fs::remove_all(out);
    return 1;
  }
  std::cout << "student release written to " << out.string() << ": " << copied
            << " files (left out: " << left_out
            << " solutions, hidden tests, known-wrong files and instructor tests).\n"
               "Students start with its README: ./setup.sh, then ./build/bin/cudalab check "
            << (lessons.empty() ? std::string("LESSON") : lessons.front().name) << ".\n";
  return 0;
}

int gradescope_bundle(const std::string& lesson_name, const std::string& zip_arg) {
  Lesson lesson;
  std::string why;
  if (!find_lesson(lesson_name, &lesson, &why)) {
    std::cerr << why;
    return 2;
  }
  const fs::path zip = fs::absolute(zip_arg);
  char pattern[] = "/tmp/cudalab-bundle.XXXXXX";
  if (!mkdtemp(pattern)) {
    std::cerr << "cudalab: cannot make a temporary folder\n";
    return 1;
  }
  const fs::path stage = pattern;
  // The course as the grader needs it: the release plus the hidden tests
  // (no solutions, no known-wrong files).
  if (int rc = release((stage / "course").string(), false); rc != 0) return rc;
  for (const auto& l : all_lessons())
    if (fs::exists(l.dir / "hidden.cu"))
      fs::copy_file(l.dir / "hidden.cu", stage / "course/lessons" / l.dir.filename() / "hidden.cu");
  std::ofstream(stage / "setup.sh")
      << "#!/usr/bin/env bash\n"
         "# Gradescope runs this once, as root, when it builds the autograder's image: the\n"
         "# packages cudalab needs, then what grading this lesson needs of the course,\n"
         "# built in place.\n"
         "set -euo pipefail\n"
         "cd \"$(dirname \"$0\")/course\"\n"
         "bash ./setup.sh --grader "
      << lesson.name << "\n";
  std::ofstream(stage / "run_autograder")
      << "#!/usr/bin/env bash\n"
         "# Gradescope runs this for each submission: the student's file from\n"
         "# /autograder/submission, graded into /autograder/results/results.json.\n"
         "set -uo pipefail\n"
         "course=/autograder/source/course\n"
         "lesson="
      << lesson.name
      << "\n"
         "file=$(find /autograder/submission -name "
      << lesson.student_file
      << " -type f | head -n 1)\n"
         "[ -n \"$file\" ] || file=$(find /autograder/submission -name '*.cu' -type f | head -n "
         "1)\n"
         "mkdir -p /autograder/results\n"
         "if [ -z \"$file\" ]; then\n"
         "  printf '%s\\n' '{\"score\": 0, \"output\": \"No .cu file was submitted: upload "
      << lesson.student_file
      << ".\", \"tests\": []}' > /autograder/results/results.json\n"
         "  exit 0\n"
         "fi\n"
         "# Gradescope's container may not allow the sandbox's user namespaces; each\n"
         "# submission has a container of its own, so then it runs unconfined there.\n"
         "confine=\n"
         "if ! bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev true 2>/dev/null; then\n"
         "  echo 'bubblewrap cannot run in this container: grading unconfined'\n"
         "  confine=--unconfined\n"
         "fi\n"
         "\"$course/build/bin/cudalab\" check \"$lesson\" --file \"$file\" $confine \\\n"
         "  ${CUDALAB_SEED:+--seed \"$CUDALAB_SEED\"} --json /autograder/results/results.json\n"
         "exit 0\n";
  fs::permissions(stage / "setup.sh", fs::perms::owner_all | fs::perms::group_read |
                                          fs::perms::group_exec | fs::perms::others_read |
                                          fs::perms::others_exec);
  fs::permissions(stage / "run_autograder", fs::status(stage / "setup.sh").permissions());
  std::error_code ec;
  fs::remove(zip, ec);
  // Names in the zip are as given: relative to the stage.
  const support::ProcessResult zipped =
      support::run_process({"env", "-C", stage.string(), "python3", "-m", "zipfile", "-c",
                            zip.string(), "setup.sh", "run_autograder", "course"},
                           600);
  fs::remove_all(stage, ec);
  if (zipped.exit_code != 0) {
    std::cerr << "cudalab: could not write " << zip.string() << ": " << zipped.output << "\n";
    return 1;
  }
  std::cout << "Gradescope autograder for " << lesson.name << " written to " << zip.string()
            << ".\nUpload it as a zip file in the assignment's Configure Autograder page; "
               "students upload "
            << lesson.student_file << ".\n";
  return 0;
}

int classroom_workflow(const std::string& lesson_name, const std::string& out_arg) {
  std::vector<Lesson> lessons;
  if (lesson_name == "all") {
    lessons = all_lessons();
  } else {
    Lesson l;
    std::string why;
    if (!find_lesson(lesson_name, &l, &why)) {
      std::cerr << why;
      return 2;
    }
    lessons.push_back(l);
  }
  const fs::path dir = fs::absolute(out_arg) / ".github" / "workflows";
  fs::create_directories(dir);
  std::ostringstream y;
  y << "# GitHub Classroom autograding for cudalab (made by `cudalab classroom`).\n"
       "# Each lesson is one grader step worth its points: cudalab grades the\n"
       "# student's exercise.cu in its sandbox and writes the result in the JSON the\n"
       "# Classroom reporter reads, so a lesson can earn part of its points.\n"
       "name: Autograding Tests\n"
       "on: [push, repository_dispatch, workflow_dispatch]\n"
       "permissions:\n  checks: write\n  actions: read\n  contents: read\n"
       "jobs:\n  run-autograding-tests:\n    runs-on: ubuntu-latest\n"
       "    if: github.actor != 'github-classroom[bot]'\n    steps:\n"
       "      - uses: actions/checkout@v4\n"
       "      - name: Build cudalab\n"
       "        run: sudo ./setup.sh\n";
  std::string runners;
  for (const auto& l : lessons) {
    const std::string id = l.name;
    runners += (runners.empty() ? "" : ",") + id;
    y << "      - name: " << l.title << "\n        id: " << id << "\n"
      << "        run: |\n"
         "          ./build/bin/cudalab check "
      << l.name
      << " --classroom result.json || true\n"
         "          echo \"result=$(base64 -w0 result.json)\" >> \"$GITHUB_OUTPUT\"\n";
  }
  y << "      - name: Autograding Reporter\n"
       "        uses: classroom-resources/autograding-grading-reporter@v1\n        env:\n";
  for (const auto& l : lessons) {
    std::string upper = l.name;
    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    y << "          " << upper << "_RESULTS: \"${{steps." << l.name << ".outputs.result}}\"\n";
  }
  y << "        with:\n          runners: " << runners << "\n";
  std::ofstream(dir / "classroom.yml") << y.str();
  std::cout << "GitHub Classroom workflow written to " << (dir / "classroom.yml").string()
            << "\nCommit it to the assignment's template repository (made from `cudalab "
               "release`).\n";
  return 0;
}

}  // namespace cudalab::cli
