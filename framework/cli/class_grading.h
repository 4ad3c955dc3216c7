// The pieces of `cudalab grade` (class_grading.cpp) that have files of
// their own: the submissions collected from folders and LMS exports
// (class_submissions.cpp), the class summary in words and as a picture
// (class_summary.cpp) and the grading as a Slurm job array (class_slurm.cpp).
// Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"

namespace cudalab::cli {

namespace fs = std::filesystem;

// One student's file to grade.
struct Submission {
  std::string student;
  fs::path file;
};

// A name safe as a file name and a CSV field.
std::string safe_name(std::string s);

// Every student's file in `inputs` (folders of files or of folders, LMS
// zips, unpacked into `unpacked`), named for the student; what could not be
// taken goes into `problems`, in words.
std::vector<Submission> collect(const std::vector<std::string>& inputs, const Lesson& lesson,
                                const fs::path& unpacked, std::vector<std::string>* problems);

// What the class summary shows: the totals' histogram, each test's pass
// rate and the most common findings (in the picture and in summary.txt),
// and the records' statuses (in summary.txt alone).
struct Summary {
  std::string lesson;
  size_t students = 0;
  double max_score = 0;
  std::vector<double> totals;
  std::vector<std::pair<std::string, double>> pass_rate;  // per test, in order
  std::vector<std::pair<std::string, size_t>> findings;   // most common first
  std::map<std::string, size_t> statuses;
  // Each predicted-time rubric's kernel ("matmul_tiled on an NVIDIA H200,
  // rubric TiledFast") and the students' predicted times, fastest first.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> predicted;
};

// The summary drawn as a PNG picture.
void draw_summary(const Summary& s, const fs::path& png);
// The summary in words (summary.txt, and what `cudalab grade` prints): the
// totals' mean, median and histogram, the statuses, each test's pass rate,
// the most common findings and the files that could not be graded.
std::string summary_text(const Summary& s, uint64_t seed, const std::vector<std::string>& problems);

// The grading of `count` submissions into `out` as a Slurm job array: its
// tasks each grade a share, and a last job gathers the gradebook.
int submit_to_slurm(const GradeClassOptions& o, const fs::path& out, size_t count);

}  // namespace cudalab::cli
