// `cudalab new NAME`: a lesson folder made from the lesson kit (lesson_kit/,
// each file a template with @NAME@, @TITLE@, @SUMMARY@ and @ORDER@ in it)
// that builds, checks, grades, releases and bundles for Gradescope as it
// stands: a kernel with its solution markers, the exercise made from it, a
// driver with --bench, one CPU reference, one graded and one hidden test,
// one rubric, one known-wrong variant, lesson.json and a README skeleton.
#include <cctype>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"

namespace cudalab::cli {
namespace {

// Each file of the kit and where it goes in the lesson's folder.
struct KitFile {
  const char* kit;
  const char* lesson;
};
constexpr KitFile kKitFiles[] = {
    {"lesson.json.in", "lesson.json"}, {"CMakeLists.txt.in", "CMakeLists.txt"},
    {"README.md.in", "README.md"},     {"lesson.h.in", "lesson.h"},
    {"reference.h.in", "reference.h"}, {"cases.h.in", "cases.h"},
    {"solution.cu.in", "solution.cu"}, {"driver.cu.in", "driver.cu"},
    {"grade.cu.in", "grade.cu"},       {"hidden.cu.in", "hidden.cu"},
};

// The known-wrong change: what it is (its note, with its expect-failed
// line), and the lines that take the place of the kernel's answer (the last
// BEGIN SOLUTION ... END SOLUTION of solution.cu). The diff is made from
// the solution as written, so that it fits the solution's layout.
constexpr const char* kWrongNote = "no_bounds_check.note.in";
constexpr const char* kWrongBody = "no_bounds_check.body.in";
constexpr const char* kWrongName = "no_bounds_check";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// A string as it goes inside JSON's quotes.
std::string json_inside(const std::string& s) {
  const std::string quoted = nlohmann::json(s).dump();
  return quoted.substr(1, quoted.size() - 2);
}

// "prefix_sum" -> "Prefix sum".
std::string title_of(const std::string& name) {
  std::string t = replace_all(name, "_", " ");
  t[0] = char(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

bool one_line(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

// One after the last lesson of `root`, in steps of one.
int next_order(const fs::path& root) {
  int last = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    Lesson l;
    std::string why;
    if (e.is_directory() && fs::exists(e.path() / "lesson.json") && load_lesson(e.path(), &l, &why))
      last = std::max(last, l.order);
  }
  return last + 1;
}

// wrong/NAME.diff in `lesson`: `note`, then the change that puts `body` in
// place of the last BEGIN SOLUTION ... END SOLUTION lines of `solution`, as
// `diff -u` writes it. Throws when the solution has no such lines or diff
// cannot run.
void write_wrong_change(const std::string& solution, const std::string& note,
                        const std::string& body, const fs::path& lesson) {
  const size_t begin = solution.rfind("// BEGIN SOLUTION"),
               end = solution.find("// END SOLUTION", begin == std::string::npos ? 0 : begin);
  if (begin == std::string::npos || end == std::string::npos)
    throw std::runtime_error("solution.cu has no BEGIN/END SOLUTION lines");
  const size_t from = solution.rfind('\n', begin) + 1, to = solution.find('\n', end) + 1;
  const fs::path mine = lesson / "wrong" / (std::string(kWrongName) + ".cu");
  fs::create_directories(mine.parent_path());
  support::write_atomically(mine, solution.substr(0, from) + body + solution.substr(to));
  const support::ProcessResult d =
      support::run_process({"diff", "-u", "--label", "solution.cu", "--label",
                            "wrong/" + std::string(kWrongName) + ".cu",
                            (lesson / "solution.cu").string(), mine.string()},
                           60);
  fs::remove(mine);
  if (d.exit_code != 1) throw std::runtime_error("diff -u could not compare the two files");
  support::write_atomically(lesson / "wrong" / (std::string(kWrongName) + ".diff"),
                            note + d.output);
}

// The course's layout (its .clang-format) on the lesson's C++ files, where
// clang-format is installed: the name and title change line lengths, and
// CI checks the layout of the lessons in the course.
void lay_out(const fs::path& lesson) {
  const std::string clang_format = support::find_program("clang-format");
  const fs::path style = fs::path(CUDALAB_PROJECT_DIR) / ".clang-format";
  if (clang_format.empty() || !fs::exists(style)) return;
  std::vector<std::string> cmd = {clang_format, "-i", "--style=file:" + style.string()};
  for (const auto& e : fs::directory_iterator(lesson)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".cu" || ext == ".h") cmd.push_back(e.path().string());
  }
  support::run_process(cmd, 60);
}

}  // namespace

int new_lesson(const NewLessonOptions& o) {
  static const std::regex valid("[a-z][a-z0-9_]{0,23}");
  if (!std::regex_match(o.name, valid)) {
    std::cerr << "cudalab: '" << o.name
              << "' cannot name a lesson: a lesson's name is its folder's and its program's, "
                 "lowercase letters, digits and _ starting with a letter, at most 24 (e.g. "
                 "prefix_sum)\n";
    return 2;
  }
  if (!one_line(o.title) || !one_line(o.summary)) {
    std::cerr << "cudalab: --title and --summary are one line each\n";
    return 2;
  }
  if (o.title.size() > 72) {
    std::cerr << "cudalab: --title is " << o.title.size()
              << " characters: at most 72 (it heads the lesson's files and `cudalab list`; "
                 "--summary says more)\n";
    return 2;
  }
  const fs::path root = o.dir.empty() ? lessons_root() : fs::absolute(o.dir);
  const fs::path kit = CUDALAB_LESSON_KIT_DIR;
  const fs::path dest = root / o.name;
  std::error_code ec;
  if (fs::exists(dest, ec)) {
    std::cerr << "cudalab: " << dest.string()
              << " already exists: give the new lesson another name, or remove that folder\n";
    return 2;
  }
  if (!fs::is_directory(kit, ec)) {
    std::cerr << "cudalab: the lesson kit (" << kit.string() << ") is missing from this copy\n";
    return 1;
  }
  fs::create_directories(root, ec);
  const int order = next_order(root);
  const std::string title = o.title.empty() ? title_of(o.name) : o.title;
  const std::string summary =
      o.summary.empty()
          ? "out[i] = a * x[i] + y[i], the kit's example: replace it with your lesson's"
          : o.summary;
  // Written next to the lesson's place and moved there whole: a failure
  // leaves no half-made lesson that CMake and `cudalab list` would pick up.
  const fs::path staging = root / ("." + o.name + ".new");
  fs::remove_all(staging, ec);
  try {
    const auto fill = [&](std::string text, bool json = false) {
      text = replace_all(text, "@NAME@", o.name);
      text = replace_all(text, "@TITLE@", json ? json_inside(title) : title);
      text = replace_all(text, "@SUMMARY@", json ? json_inside(summary) : summary);
      return replace_all(text, "@ORDER@", std::to_string(order));
    };
    for (const KitFile& f : kKitFiles) {
      const std::string text =
          fill(support::read_file(kit / f.kit), std::string(f.lesson) == "lesson.json");
      const fs::path to = staging / f.lesson;
      fs::create_directories(to.parent_path());
      std::ofstream out(to, std::ios::binary);
      out << text;
      if (!out) throw std::runtime_error("cannot write " + to.string());
    }
    lay_out(staging);
    const std::string solution = support::read_file(staging / "solution.cu");
    std::ofstream(staging / "exercise.cu", std::ios::binary) << exercise_from_solution(solution);
    write_wrong_change(solution, fill(support::read_file(kit / kWrongNote)),
                       fill(support::read_file(kit / kWrongBody)), staging);
    fs::rename(staging, dest);
  } catch (const std::exception& e) {
    fs::remove_all(staging, ec);
    std::cerr << "cudalab: could not write the lesson: " << e.what() << "\n";
    return 1;
  }
  // The command as the instructor can type it here: ./build/bin/cudalab.
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (const fs::path rel = fs::relative(self, fs::current_path(ec), ec);
      !ec && !rel.empty() && *rel.begin() != "..")
    self = fs::path(".") / rel;
  const std::string command = self.empty() ? "cudalab" : self.string();
  const std::string env = o.dir.empty() || fs::equivalent(root, lessons_root(), ec)
                              ? ""
                              : "CUDALAB_LESSONS_DIR=" + root.string() + " ";
  std::cout << "lesson " << o.name << " (\"" << title << "\", number " << order
            << " in the course) written to " << dest.string()
            << ":\n"
               "  solution.cu     the kernel, the student's part between BEGIN/END SOLUTION\n"
               "  exercise.cu     what students start from (cudalab exercise "
            << o.name
            << " remakes it)\n"
               "  driver.cu       the lesson's program: runs, checks, --bench\n"
               "  reference.h     the CPU reference the program and the tests share\n"
               "  grade.cu        a graded test (2 points); hidden.cu: a hidden one (1)\n"
               "  lesson.json     title, order, points, a method rubric (memcheck, 1 point)\n"
               "  wrong/          a known-wrong change and the tests it must fail\n"
               "  README.md       the text students read, as a skeleton\n"
               "Try it:\n  "
            << env << command << " check " << o.name << " --solution   (4 of 4 points)\n  " << env
            << command << " check " << o.name << "              (the exercise: 0)\n  " << env
            << command << " run " << o.name << " --solution -- 1000\n  " << env << command
            << " verify " << o.name
            << "               (what CI checks of a lesson)\n"
               "Then make it yours: docs/authoring.md walks through each file.\n";
  return 0;
}

}  // namespace cudalab::cli
