// cudalab grade's submissions: one file per student, from folders (a file
// or a folder per student) and from the zips Gradescope and Canvas export.
#include <algorithm>
#include <cctype>
#include <set>

#include "class_grading.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"

namespace cudalab::cli {

std::string safe_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s.substr(0, 120);
}

namespace {

// The file to grade in a student's folder: the lesson's exercise file name,
// else its only .cu (or .diff) file.
bool pick_file(const fs::path& dir, const Lesson& lesson, fs::path* file, std::string* why) {
  std::vector<fs::path> cu;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    if (e.path().filename() == lesson.student_file) {
      *file = e.path();
      return true;
    }
    if (e.path().extension() == ".cu" || e.path().extension() == ".diff") cu.push_back(e.path());
  }
  if (cu.size() == 1) {
    *file = cu[0];
    return true;
  }
  *why = cu.empty()
             ? "no .cu file in it"
             : std::to_string(cu.size()) + " .cu files and none named " + lesson.student_file;
  return false;
}

// Unpacks an LMS export (zip) into `into`, with Python's zipfile (which
// keeps every name inside the folder).
void unzip(const fs::path& zip, const fs::path& into) {
  const support::ProcessResult r =
      support::run_process({"python3", "-m", "zipfile", "-e", zip.string(), into.string()}, 600);
  if (r.exit_code != 0)
    throw std::runtime_error(zip.string() + " is not a zip file that can be unpacked: " + r.output);
}

}  // namespace

std::vector<Submission> collect(const std::vector<std::string>& inputs, const Lesson& lesson,
                                const fs::path& unpacked, std::vector<std::string>* problems) {
  std::vector<Submission> subs;
  std::vector<fs::path> roots;
  for (const auto& in : inputs) {
    const fs::path p = fs::absolute(in);
    if (fs::is_regular_file(p) && p.extension() == ".zip") {
      const fs::path dest = unpacked / safe_name(p.stem().string());
      fs::create_directories(dest);
      unzip(p, dest);
      // A zip of one folder: its entries are the students.
      std::vector<fs::path> entries;
      for (const auto& e : fs::directory_iterator(dest)) entries.push_back(e.path());
      roots.push_back(entries.size() == 1 && fs::is_directory(entries[0]) &&
                              !fs::exists(entries[0] / lesson.student_file)
                          ? entries[0]
                          : dest);
    } else if (fs::is_directory(p)) {
      roots.push_back(p);
    } else if (fs::is_regular_file(p)) {
      subs.push_back({safe_name(p.stem().string()), p});
    } else {
      throw std::runtime_error(in + ": no such file or folder");
    }
  }
  for (const auto& root : roots) {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(root)) entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
      const std::string name = e.filename().string();
      if (name.empty() || name[0] == '.' || name == "submission_metadata.yml") continue;
      if (fs::is_directory(e)) {
        fs::path file;
        std::string why;
        if (pick_file(e, lesson, &file, &why))
          subs.push_back({safe_name(name), file});
        else
          problems->push_back(name + ": " + why);
      } else if (e.extension() == ".cu" || e.extension() == ".diff") {
        subs.push_back({safe_name(e.stem().string()), e});
      }
    }
  }
  std::set<std::string> seen;
  for (const auto& s : subs)
    if (!seen.insert(s.student).second)
      throw std::runtime_error("two submissions are both named " + s.student +
                               ": give each student one file or folder");
  return subs;
}

}  // namespace cudalab::cli
