// cudalab grade: a whole class. Submissions (a folder with one file or
// folder per student, or the zip Gradescope or Canvas exports) are graded
// `-j` at a time into OUT/: a gradebook, each student's feedback and reports
// in the LMS formats, and a class summary (text and a picture). Every record
// is kept under a key made of the submission's content, the judge and the
// run's seed, so a second run grades only what is new or changed, and gives
// the same gradebook. With --slurm the grading is a job array on a cluster.
#include "class_grading.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli.h"
#include "cudalab/predict/predict.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

uint64_t fnv(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (const char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof(s), "%016llx", static_cast<unsigned long long>(v));
  return s;
}

// The grading run's settings, kept in OUT so that a second run uses the
// same seed (and so gives the same grades).
json run_settings(const fs::path& out, const std::string& lesson, const GradeClassOptions& o) {
  const fs::path path = out / "grading.json";
  json j;
  if (fs::exists(path)) {
    try {
      j = json::parse(support::read_file(path));
    } catch (const std::exception& e) {
      throw std::runtime_error(path.string() + " is damaged (" + e.what() +
                               "): remove it to start the grading over");
    }
    if (j.value("lesson", "") != lesson)
      throw std::runtime_error(out.string() + " holds the grading of lesson " +
                               j.value("lesson", "?") + ": use another folder");
    if (o.seed_given && j.value("seed", uint64_t(0)) != o.seed)
      throw std::runtime_error(out.string() + " was graded with seed " +
                               std::to_string(j.value("seed", uint64_t(0))) +
                               ": use that seed, or another folder");
    return j;
  }
  j = {{"lesson", lesson}, {"seed", o.seed_given ? o.seed : random_seed()}};
  std::ofstream(path) << j.dump(2) << "\n";
  return j;
}

std::string key_of(const Submission& s, const fs::path& judge, uint64_t seed,
                   const GradeClassOptions& o) {
  struct stat st {};
  stat(judge.c_str(), &st);
  uint64_t h = fnv(support::read_file(s.file));
  h = fnv(s.file.extension().string(), h);
  h = fnv(std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime) + ":" +
              std::to_string(seed) + ":" + std::to_string(o.timeout_s) + ":" +
              (o.unconfined ? "u" : "c") + (o.gpu ? "g" : "s") + (o.no_rubrics ? "t" : ""),
          h);
  return hex(h);
}

std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

class Progress {
 public:
  Progress(size_t total, bool tty) : total_(total), tty_(tty), start_(now()) {}
  void step(const std::string& who, const std::string& what) {
    std::lock_guard lock(m_);
    ++done_;
    const double elapsed = now() - start_;
    const double left = done_ ? elapsed / double(done_) * double(total_ - done_) : 0;
    const int width = 30, filled = total_ ? int(double(done_) / double(total_) * width) : width;
    char line[400];
    std::snprintf(line, sizeof(line), "[%s%s] %zu/%zu  %s: %s  (%.0f s, about %.0f s left)",
                  std::string(size_t(filled), '=').c_str(),
                  std::string(size_t(width - filled), ' ').c_str(), done_, total_,
                  who.substr(0, 30).c_str(), what.c_str(), elapsed, left);
    if (tty_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << "\n";
  }
  void end() {
    if (tty_) std::cerr << "\n";
  }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::mutex m_;
  size_t total_, done_ = 0;
  bool tty_;
  double start_;
};

// The submissions this run grades (a Slurm task's share), leaving out those
// whose record is already there under the same key (file, judge, seed,
// options).
std::vector<size_t> still_to_grade(const std::vector<Submission>& subs, const fs::path& out,
                                   const fs::path& judge, uint64_t seed,
                                   const GradeClassOptions& o) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < subs.size(); ++i) {
    if (o.chunk_count && i % size_t(o.chunk_count) != size_t(o.chunk_index)) continue;
    const fs::path rec = out / "records" / (subs[i].student + ".json");
    const std::string key = key_of(subs[i], judge, seed, o);
    bool fresh = false;
    try {
      if (fs::exists(rec)) {
        const json j = json::parse(support::read_file(rec));
        // Graded before without the pictures asked for now: again, with them.
        fresh = j.value("key", "") == key && j.value("status", "") != "error" &&
                (!o.pictures || j.value("pictures", false));
      }
    } catch (const std::exception&) {
    }
    if (!fresh && !o.gather) todo.push_back(i);
  }
  return todo;
}

// Grades subs[todo[...]] with o.jobs threads, each writing its records as
// it goes (records/STUDENT.json), with progress on stderr.
void grade_all(const Lesson& lesson, const std::vector<Submission>& subs,
               const std::vector<size_t>& todo, const GradeOptions& g, const fs::path& out,
               const fs::path& judge, const GradeClassOptions& o) {
  Progress progress(todo.size(), isatty(2));
  std::atomic<size_t> next{0};
  auto grading_thread = [&](int slot) {
    GradeOptions mine = g;
    mine.sandbox_uid = g.sandbox_uid + slot;  // its own user: process limits apart
    for (size_t k; (k = next++) < todo.size();) {
      const Submission& s = subs[todo[k]];
      GradeRecord r;
      if (o.pictures) mine.picture_path = out / "pictures" / (s.student + ".png");
      try {
        r = grade_submission(lesson, s.file, mine);
      } catch (const std::exception& e) {  // one submission never costs the class
        r.lesson = lesson.name;
        r.file = s.file.string();
        r.status = "error";
        r.error = std::string("the grading failed: ") + e.what();
      }
      json j = record_json(r);
      j["student"] = s.student;
      j["key"] = key_of(s, judge, g.seed, o);
      if (o.pictures) j["pictures"] = true;
      if (o.pictures && r.picture_test.empty()) {
        std::error_code ec;
        fs::remove(mine.picture_path, ec);  // an older picture
      }
      support::write_atomically(out / "records" / (s.student + ".json"), j.dump(1) + "\n");
      progress.step(s.student, r.status == "graded"
                                   ? points_text(r.score) + "/" + points_text(r.max_score)
                                   : r.status);
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < std::max(1, o.jobs); ++i) pool.emplace_back(grading_thread, i);
  for (auto& t : pool) t.join();
  progress.end();
}

// Every student's record (one whose grading did not finish as an error
// record); *missing counts those.
std::vector<std::pair<std::string, GradeRecord>> read_records(const Lesson& lesson,
                                                              const std::vector<Submission>& subs,
                                                              const fs::path& out,
                                                              size_t* missing) {
  std::vector<std::pair<std::string, GradeRecord>> records;
  for (const auto& s : subs) {
    const fs::path rec = out / "records" / (s.student + ".json");
    try {
      records.push_back({s.student, record_from_json(json::parse(support::read_file(rec)))});
    } catch (const std::exception&) {
      ++*missing;
      GradeRecord r;
      r.lesson = lesson.name;
      r.status = "error";
      r.error = "not graded (its grading did not finish)";
      records.push_back({s.student, r});
    }
  }
  return records;
}

// The gradebook (gradebook.csv), each student's reports (feedback/,
// gradescope/, prairielearn/) and junit.xml, from the records; what the
// summary shows.
Summary write_gradebook(const Lesson& lesson,
                        const std::vector<std::pair<std::string, GradeRecord>>& records,
                        const std::vector<std::string>& problems, const fs::path& out) {
  std::vector<std::string> columns;
  for (const auto& [student, r] : records)
    for (const auto& t : r.tests)
      if (std::find(columns.begin(), columns.end(), t.name) == columns.end())
        columns.push_back(t.name);
  std::ostringstream book;
  book << "student";
  for (const auto& c : columns) book << "," << csv(c);
  book << ",total,max,status\n";
  Summary sum;
  sum.lesson = lesson.name;
  std::map<std::string, std::pair<size_t, size_t>> passes;  // test -> passed, graded
  std::map<std::string, std::set<std::string>> finding_students;
  for (const auto& [student, r] : records) {
    book << csv(student);
    for (const auto& c : columns) {
      const auto t = std::find_if(r.tests.begin(), r.tests.end(),
                                  [&](const TestRecord& x) { return x.name == c; });
      book << "," << (t == r.tests.end() ? "" : points_text(t->score));
      if (t != r.tests.end()) {
        passes[c].second++;
        if (t->status == "passed") passes[c].first++;
        for (const auto& f : t->findings) finding_students[f].insert(student);
      }
    }
    book << "," << points_text(r.score) << "," << points_text(r.max_score) << "," << r.status
         << "\n";
    sum.totals.push_back(r.score);
    sum.max_score = std::max(sum.max_score, r.max_score);
    sum.statuses[r.status]++;
    support::write_atomically(out / "feedback" / (student + ".txt"), feedback_text(r));
    support::write_atomically(out / "feedback" / (student + ".json"),
                              gradescope_json(r).dump(2) + "\n");
    support::write_atomically(out / "gradescope" / (student + ".json"),
                              gradescope_json(r).dump(2) + "\n");
    const fs::path picture = out / "pictures" / (student + ".png");
    support::write_atomically(
        out / "prairielearn" / (student + ".json"),
        prairielearn_json(r, fs::exists(picture) ? picture.string() : "").dump(2) + "\n");
  }
  for (const auto& p : problems) {
    const std::string student = safe_name(p.substr(0, p.find(':')));
    book << csv(student);
    for (size_t i = 0; i < columns.size(); ++i) book << ",0";
    book << ",0," << points_text(sum.max_score) << ",no_submission\n";
    sum.totals.push_back(0);
    sum.statuses["no_submission"]++;
  }
  support::write_atomically(out / "gradebook.csv", book.str());
  support::write_atomically(out / "junit.xml", junit_xml(records));

  sum.students = sum.totals.size();
  for (const auto& c : columns)
    sum.pass_rate.push_back(
        {c, passes[c].second ? double(passes[c].first) / double(passes[c].second) : 0.0});
  for (const auto& [f, students] : finding_students) sum.findings.push_back({f, students.size()});
  // The class ranked by each predicted-time rubric's kernel, fastest first
  // (the students whose kernel was predicted; ties by name).
  std::ostringstream ranking;
  ranking << "rubric,kernel,gpu,rank,student,predicted_us\n";
  for (const Rubric& rb : lesson.rubrics) {
    if (!rb.predicted()) continue;
    std::vector<std::pair<std::string, double>> times;
    for (const auto& [student, r] : records)
      for (const auto& t : r.tests)
        if (t.name == rb.name && t.predicted_us >= 0) times.push_back({student, t.predicted_us});
    std::sort(times.begin(), times.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    for (size_t i = 0; i < times.size(); ++i)
      ranking << csv(rb.name) << "," << csv(rb.kernel) << "," << csv(rb.gpu) << "," << i + 1 << ","
              << csv(times[i].first) << "," << times[i].second << "\n";
    std::string no_gpu;
    const auto gpu = predict::load_gpu(rb.gpu, &no_gpu);
    sum.predicted.push_back(
        {rb.kernel + " on an " + (gpu ? gpu->name : rb.gpu) + " (rubric " + rb.name + ")", times});
  }
  if (!sum.predicted.empty()) support::write_atomically(out / "ranking.csv", ranking.str());
  std::sort(sum.findings.begin(), sum.findings.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  return sum;
}

}  // namespace

int grade_class(const GradeClassOptions& o) {
  Lesson lesson;
  std::string why;
  if (!find_lesson(o.lesson, &lesson, &why)) {
    std::cerr << why;
    return 2;
  }
  const fs::path out = fs::absolute(o.output);
  std::vector<Submission> subs;
  std::vector<std::string> problems;
  json settings;
  try {
    fs::create_directories(out / "records");
    fs::create_directories(out / "feedback");
    fs::create_directories(out / "gradescope");
    fs::create_directories(out / "prairielearn");
    if (o.pictures) fs::create_directories(out / "pictures");
    settings = run_settings(out, lesson.name, o);
    subs = collect(o.inputs, lesson, out / "unpacked", &problems);
  } catch (const std::exception& e) {
    std::cerr << "cudalab: " << e.what() << "\n";
    return 2;
  }
  if (subs.empty() && problems.empty()) {
    std::cerr << "cudalab: no submissions found in the given folders and files\n";
    return 2;
  }
  if (o.slurm) {
    try {
      return submit_to_slurm(o, out, subs.size());
    } catch (const std::exception& e) {
      std::cerr << "cudalab: " << e.what() << "\n";
      return 1;
    }
  }
  if (!o.gather && !sandbox_ready(o.unconfined)) return 2;

  GradeOptions g;
  g.test_seconds = o.timeout_s;
  g.seed = settings.at("seed").get<uint64_t>();
  g.confined = !o.unconfined;
  g.gpu = o.gpu;
  g.rubrics = !o.no_rubrics;
  g.sandbox_uid = claim_sandbox_uids();  // apart from other gradings on this machine
  // With a build per core already, each submission's two compiles go one
  // after the other: no slower, and a file that does not compile (or a
  // compile-time bomb) costs one compile rather than two.
  g.one_compile_at_a_time = 2 * std::max(1, o.jobs) > int(std::thread::hardware_concurrency());
  if (!o.gather) {
    // Which users this run's sandboxes run as (to audit what they left).
    settings["sandbox_users"] = {g.sandbox_uid, g.sandbox_uid + std::max(1, o.jobs) - 1};
    support::write_atomically(out / "grading.json", settings.dump(2) + "\n");
  }
  if (std::string why; !lesson_judge(lesson, &g.judge, &why)) {
    std::cerr << why;
    return 1;
  }
  const fs::path judge = g.judge;

  const std::vector<size_t> todo = still_to_grade(subs, out, judge, g.seed, o);
  const size_t cached = (o.chunk_count ? 0 : subs.size()) - (o.chunk_count ? 0 : todo.size());
  if (!o.gather)
    std::cerr << "grading " << todo.size() << " submission" << (todo.size() == 1 ? "" : "s")
              << " of lesson " << lesson.name << " with " << o.jobs << " at a time"
              << (cached ? " (" + std::to_string(cached) + " unchanged since the last run)" : "")
              << "\n";
  // Time limits are wall-clock time: with more tests running at once than
  // there are cores, a slow but correct submission can run out of time.
  if (const unsigned cores = std::thread::hardware_concurrency();
      !o.gather && cores > 0 && std::min<size_t>(size_t(std::max(1, o.jobs)), todo.size()) > cores)
    std::cerr << "note: -j " << o.jobs << " on " << cores << " cores: the time limits are "
              << "wall-clock time, so with more tests running at once than there are cores a "
              << "slow but correct submission can run out of time; -j " << cores
              << " (a test per core) keeps each test's time close to what it takes alone\n";
  grade_all(lesson, subs, todo, g, out, judge, o);
  if (o.chunk_count) return 0;  // a Slurm task: the gather job writes the gradebook

  size_t missing = 0;
  const auto records = read_records(lesson, subs, out, &missing);
  const Summary sum = write_gradebook(lesson, records, problems, out);
  const std::string text = summary_text(sum, g.seed, problems);
  support::write_atomically(out / "summary.txt", text);
  draw_summary(sum, out / "summary.png");
  std::cout << text << "\nwritten to " << out.string()
            << ": gradebook.csv, summary.txt, summary.png, junit.xml, feedback/, gradescope/, "
               "prairielearn/, records/"
            << (sum.predicted.empty() ? "" : ", ranking.csv") << (o.pictures ? ", pictures/" : "")
            << "\n";
  return missing ? 1 : 0;
}

}  // namespace cudalab::cli
