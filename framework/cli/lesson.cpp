// The lessons: their lesson.json, their order, and the exercise each makes
// from its solution.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cli.h"
#include "cudalab/predict/predict.h"
#include "cudalab/support/files.h"
#include "cudalab_cli_config.h"

namespace cudalab::cli {

using json = nlohmann::json;

fs::path lessons_root() {
  if (const char* env = std::getenv("CUDALAB_LESSONS_DIR"); env && *env) return env;
  return CUDALAB_LESSONS_DIR;
}

bool load_lesson(const fs::path& dir, Lesson* l, std::string* why) {
  const fs::path meta = dir / "lesson.json";
  if (!fs::exists(meta)) {
    *why = meta.string() + " is missing";
    return false;
  }
  try {
    json j = json::parse(support::read_file(meta));
    l->dir = dir;
    l->name = j.at("name").get<std::string>();
    l->title = j.at("title").get<std::string>();
    l->summary = j.at("summary").get<std::string>();
    l->order = j.at("order").get<int>();
    l->student_file = j.value("student_file", l->student_file);
    l->solution_file = j.value("solution_file", l->solution_file);
    l->grader_sources = j.at("grader").get<std::vector<std::string>>();
    for (const auto& r : j.value("rubrics", json::array())) {
      Rubric x;
      x.name = r.at("name").get<std::string>();
      x.description = r.at("description").get<std::string>();
      x.test = r.at("test").get<std::string>();
      x.points = r.at("points").get<double>();
      x.hint = r.value("hint", "");
      x.checks = r.value("checks", "");
      x.kernel = r.value("kernel", "");
      x.metric = r.value("metric", "");
      x.at_least = r.value("at_least", x.at_least);
      x.at_most = r.value("at_most", x.at_most);
      if (x.checks.empty() == (x.kernel.empty() || x.metric.empty()))
        throw std::runtime_error("rubric " + x.name +
                                 " needs either \"checks\" or \"kernel\" and \"metric\"");
      // Predicted on one GPU named in the file, whatever machine grades.
      x.gpu = r.value("gpu", "h200");
      x.faster_than = r.value("faster_than", "");
      if (x.predicted()) {
        if (x.metric != "predicted_us" && x.metric != "predicted_speedup")
          throw std::runtime_error("rubric " + x.name +
                                   ": a predicted time is \"predicted_us\" or "
                                   "\"predicted_speedup\", not \"" +
                                   x.metric + "\"");
        if ((x.metric == "predicted_speedup") == x.faster_than.empty())
          throw std::runtime_error("rubric " + x.name +
                                   ": \"faster_than\" (the kernel it is "
                                   "compared with) goes with \"predicted_speedup\" alone");
        std::string no_gpu;
        if (!predict::load_gpu(x.gpu, &no_gpu))
          throw std::runtime_error("rubric " + x.name + ": " + no_gpu);
      }
      l->rubrics.push_back(x);
    }
    l->race_checked = j.value("race_checked", std::vector<std::string>{});
  } catch (const std::exception& e) {
    *why = meta.string() + ": " + e.what();
    return false;
  }
  return true;
}

std::string lesson_headers_text(const Lesson& l) {
  std::vector<fs::path> headers;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(l.dir, ec)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".h" || ext == ".cuh")) headers.push_back(e.path());
  }
  std::sort(headers.begin(), headers.end());
  std::string text;
  for (const auto& h : headers) text += h.filename().string() + "\n" + support::read_file(h) + "\n";
  return text;
}

nlohmann::json lessons_json(const std::vector<Lesson>& lessons) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& l : lessons)
    all.push_back({{"name", l.name},
                   {"title", l.title},
                   {"summary", l.summary},
                   {"order", l.order},
                   {"folder", l.dir.string()}});
  return all;
}

std::vector<Lesson> all_lessons() {
  std::vector<Lesson> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(lessons_root(), ec)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "lesson.json")) continue;
    Lesson l;
    std::string why;
    if (load_lesson(entry.path(), &l, &why))
      out.push_back(l);
    else
      std::cerr << "cudalab: skipping a lesson: " << why << "\n";
  }
  std::sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

bool find_lesson(const std::string& name, Lesson* l, std::string* why) {
  const fs::path dir = lessons_root() / name;
  std::string reason;
  if (!name.empty() && name.find('/') == std::string::npos && fs::is_directory(dir) &&
      load_lesson(dir, l, &reason))
    return true;
  *why = "cudalab: there is no lesson '" + name + "' in " + lessons_root().string();
  if (!reason.empty()) *why += " (" + reason + ")";
  const std::vector<Lesson> there = all_lessons();
  *why += there.empty() ? ": it has no lesson folders.\n" : ". The lessons there are:\n";
  for (const auto& x : there) *why += "  " + x.name + "\n";
  *why +=
      "(CUDALAB_LESSONS_DIR=FOLDER finds lessons in another folder, such as one `cudalab new "
      "--dir FOLDER` wrote.)\n";
  return false;
}

// A solution marks what the student writes:
//
//     // BEGIN SOLUTION
//     const int i = blockIdx.x * blockDim.x + threadIdx.x;
//     // EXERCISE: int i = 0;  // TODO step 1
//     // END SOLUTION
//
// The exercise keeps every line outside the markers, drops the lines
// between them, and turns `// EXERCISE: text` lines into `text` (at the same
// indentation; `// EXERCISE:` alone gives an empty line).
std::string exercise_from_solution(const std::string& solution) {
  std::istringstream in(solution);
  std::string out, line;
  bool inside = false;
  int number = 0, began = 0;
  auto trimmed = [](const std::string& s) {
    const size_t a = s.find_first_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a);
  };
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trimmed(line);
    if (t == "// BEGIN SOLUTION") {
      if (inside)
        throw std::runtime_error("line " + std::to_string(number) +
                                 ": BEGIN SOLUTION inside the one of line " +
                                 std::to_string(began));
      inside = true;
      began = number;
      continue;
    }
    if (t == "// END SOLUTION") {
      if (!inside)
        throw std::runtime_error("line " + std::to_string(number) +
                                 ": END SOLUTION without a BEGIN SOLUTION");
      inside = false;
      continue;
    }
    if (!inside) {
      out += line + "\n";
      continue;
    }
    const std::string marker = "// EXERCISE:";
    if (t.rfind(marker, 0) == 0) {
      std::string text = t.substr(marker.size());
      if (!text.empty() && text[0] == ' ') text.erase(0, 1);
      out += text.empty() ? "\n" : line.substr(0, line.size() - t.size()) + text + "\n";
    }
  }
  if (inside)
    throw std::runtime_error("line " + std::to_string(began) +
                             ": BEGIN SOLUTION is never ended (END SOLUTION)");
  return out;
}

int exercise(const std::string& name, bool check_only) {
  Lesson l;
  std::string why;
  if (!find_lesson(name, &l, &why)) {
    std::cerr << why;
    return 2;
  }
  const fs::path solution = l.dir / l.solution_file, student = l.dir / l.student_file;
  std::string made;
  try {
    made = exercise_from_solution(support::read_file(solution));
  } catch (const std::exception& e) {
    std::cerr << "cudalab: " << solution.string() << ": " << e.what() << "\n";
    return 1;
  }
  if (check_only) {
    if (fs::exists(student) && support::read_file(student) == made) {
      std::cout << student.string() << " is what " << l.solution_file << " makes\n";
      return 0;
    }
    std::cerr << "cudalab: " << student.string() << " is not what " << solution.string()
              << " makes: run `cudalab exercise " << l.name << "` and commit the result\n";
    return 1;
  }
  std::ofstream(student, std::ios::binary) << made;
  std::cout << "wrote " << student.string() << "\n";
  return 0;
}

}  // namespace cudalab::cli
