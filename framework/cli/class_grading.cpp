// cudalab grade: a whole class. Submissions (a folder with one file or
// folder per student, or the zip Gradescope or Canvas exports) are graded
// `-j` at a time into OUT/: a gradebook, each student's feedback and reports
// in the LMS formats, and a class summary (text and a picture). Every record
// is kept under a key made of the submission's content, the judge and the
// run's seed, so a second run grades only what is new or changed, and gives
// the same gradebook. With --slurm the grading is a job array on a cluster.
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

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

#include "cli.h"
#include "cudalab/support/files.h"
#include "cudalab/support/process.h"
#include "cudalab_cli_config.h"
#include "one_submission.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

struct Submission {
  std::string student;
  fs::path file;
};

uint64_t fnv(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (const char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof(s), "%016llx", static_cast<unsigned long long>(v));
  return s;
}

// A name safe as a file name and a CSV field.
std::string safe_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s.substr(0, 120);
}

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

std::string fmt(double v) {
  char s[32];
  std::snprintf(s, sizeof(s), "%g", v);
  return s;
}

// ---- the class summary's picture -------------------------------------------------
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(size_t(w) * h * 3, 255) {}
  void rect(int x0, int y0, int x1, int y1, uint32_t rgb) {
    for (int y = std::max(0, y0); y < std::min(h_, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(w_, x1); ++x) {
        uint8_t* p = &px_[(size_t(y) * w_ + x) * 3];
        p[0] = uint8_t(rgb >> 16), p[1] = uint8_t(rgb >> 8), p[2] = uint8_t(rgb);
      }
  }
  // Text with stb's easy font (quads), scaled up.
  void text(int x, int y, const std::string& s, int scale, uint32_t rgb) {
    static char buffer[200000];
    const int quads =
        stb_easy_font_print(0, 0, const_cast<char*>(s.c_str()), nullptr, buffer, sizeof(buffer));
    const float* v = reinterpret_cast<const float*>(buffer);
    for (int q = 0; q < quads; ++q) {
      const float* k = v + q * 16;  // 4 vertices of x, y, z, colour
      rect(x + int(k[0] * scale), y + int(k[1] * scale), x + int(k[8] * scale),
           y + int(k[9] * scale), rgb);
    }
  }
  int text_width(const std::string& s, int scale) {
    return stb_easy_font_width(const_cast<char*>(s.c_str())) * scale;
  }
  bool save(const fs::path& p) {
    return stbi_write_png(p.c_str(), w_, h_, 3, px_.data(), w_ * 3) != 0;
  }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

struct Summary {
  std::string lesson;
  size_t students = 0;
  double max_score = 0;
  std::vector<double> totals;
  std::vector<std::pair<std::string, double>> pass_rate;  // per test, in order
  std::vector<std::pair<std::string, size_t>> findings;   // most common first
  std::map<std::string, size_t> statuses;
};

void draw_summary(const Summary& s, const fs::path& png) {
  const int W = 1600, H = 900;
  Canvas c(W, H);
  c.text(40, 24, "cudalab: " + s.lesson + ", " + std::to_string(s.students) + " students", 4,
         0x202020);
  // Left: the histogram of totals, one bar per point.
  const int bins = std::max(1, int(std::ceil(s.max_score))) + 1;
  std::vector<int> count(size_t(bins), 0);
  for (double t : s.totals) count[size_t(std::clamp(int(std::floor(t)), 0, bins - 1))]++;
  const int top = *std::max_element(count.begin(), count.end());
  const int x0 = 60, y0 = 120, w = 700, h = 620;
  c.text(x0, y0 - 40, "students by total points", 3, 0x404040);
  c.rect(x0, y0 + h, x0 + w, y0 + h + 2, 0x404040);
  const int bw = w / bins;
  for (int b = 0; b < bins; ++b) {
    const int bh = top ? int(double(count[size_t(b)]) / top * (h - 30)) : 0;
    c.rect(x0 + b * bw + 3, y0 + h - bh, x0 + (b + 1) * bw - 3, y0 + h, 0x3b7dd8);
    if (count[size_t(b)])
      c.text(x0 + b * bw + bw / 2 - 6, y0 + h - bh - 22, std::to_string(count[size_t(b)]), 2,
             0x202020);
    if (bins <= 25 || b % 2 == 0)
      c.text(x0 + b * bw + bw / 2 - 6, y0 + h + 10, std::to_string(b), 2, 0x202020);
  }
  // Right: the pass rate of each test.
  const int rx = 840, rw = 720;
  c.text(rx, y0 - 40, "pass rate per test", 3, 0x404040);
  const int rows = int(s.pass_rate.size());
  const int rh = rows ? std::min(40, (h - 10) / rows) : 40;
  for (int i = 0; i < rows; ++i) {
    const auto& [name, rate] = s.pass_rate[size_t(i)];
    const int y = y0 + i * rh;
    c.text(rx, y + rh / 2 - 8, name.substr(0, 26), 2, 0x202020);
    const int bx = rx + 330, full = rw - 330 - 70;
    c.rect(bx, y + 4, bx + full, y + rh - 4, 0xe6e6e6);
    c.rect(bx, y + 4, bx + int(rate * full), y + rh - 4, rate >= 0.5 ? 0x4caf50 : 0xe8833a);
    c.text(bx + full + 8, y + rh / 2 - 8, std::to_string(int(std::lround(rate * 100))) + "%", 2,
           0x202020);
  }
  if (!s.findings.empty())
    c.text(60, H - 70,
           "most common finding: " + s.findings[0].first + " (" +
               std::to_string(s.findings[0].second) + " students)",
           2, 0x802020);
  c.save(png);
}

// ---- progress -----------------------------------------------------------------
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

int submit_to_slurm(const GradeClassOptions& o, const fs::path& out, size_t count) {
  const fs::path dir = out / "slurm";
  fs::create_directories(dir);
  const size_t tasks = std::max<size_t>(1, std::min(count, size_t(o.slurm_tasks)));
  // Every task runs this same command on its share; the last job gathers.
  std::ostringstream base;
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  base << support::shell_quote(n > 0 ? std::string(self, size_t(n)) : std::string("cudalab"))
       << " grade " << support::shell_quote(o.lesson);
  for (const auto& in : o.inputs) base << " " << support::shell_quote(fs::absolute(in).string());
  base << " -o " << support::shell_quote(fs::absolute(out).string()) << " -j 1 --timeout "
       << o.timeout_s;
  if (o.unconfined) base << " --unconfined";
  if (o.gpu) base << " --gpu";
  if (o.pictures) base << " --pictures";
  if (o.no_rubrics) base << " --no-rubrics";
  const std::string array_script = (dir / "grade-chunk.sh").string();
  std::ofstream(array_script) << "#!/bin/sh\n# A task of the grading job array: its share of "
                                 "the class.\nexec "
                              << base.str() << " --chunk \"$SLURM_ARRAY_TASK_ID/" << tasks
                              << "\"\n";
  const std::string gather_script = (dir / "gather.sh").string();
  std::ofstream(gather_script) << "#!/bin/sh\n# After every task: the gradebook from their "
                                  "records (nothing is graded twice).\nexec "
                               << base.str() << " --gather\n";
  fs::permissions(array_script, fs::perms::owner_all, fs::perm_options::add);
  fs::permissions(gather_script, fs::perms::owner_all, fs::perm_options::add);
  // The instructor's own sbatch options, a word each.
  std::vector<std::string> extra;
  std::istringstream words(o.slurm_args);
  for (std::string w; words >> w;) extra.push_back(w);
  auto sbatch = [&](std::vector<std::string> args, const std::string& script) {
    args.insert(args.begin(), {"sbatch", "--parsable"});
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(script);
    // With --wait sbatch returns when the job ends: the whole grading.
    const support::ProcessResult r = support::run_process(args, 7 * 24 * 3600.0);
    const std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    const bool waited = std::find(args.begin(), args.end(), "--wait") != args.end();
    if (r.exit_code != 0 && waited && !id.empty() &&
        id.find_first_not_of("0123456789") == std::string::npos)
      throw std::runtime_error("Slurm job " + id + " ended with an error (exit " +
                               std::to_string(r.exit_code) + "); the logs are " +
                               (dir / "gather.log").string() + " and " +
                               (dir / "task-*.log").string());
    if (r.exit_code != 0) throw std::runtime_error("sbatch failed: " + r.output);
    return id;
  };
  std::vector<std::string> array_args = {"--job-name=cudalab-grade",
                                         "--array=0-" + std::to_string(tasks - 1),
                                         "--output=" + (dir / "task-%a.log").string()};
  if (o.gpu) array_args.push_back("--gres=gpu:1");
  const std::string array = sbatch(array_args, array_script);
  std::vector<std::string> gather_args = {"--job-name=cudalab-gather",
                                          "--dependency=afterany:" + array,
                                          "--output=" + (dir / "gather.log").string()};
  if (o.slurm_wait) gather_args.push_back("--wait");
  const std::string gather = sbatch(gather_args, gather_script);
  std::cout << "submitted job array " << array << " (" << tasks << " tasks) and job " << gather
            << ", which writes " << (out / "gradebook.csv").string() << " when they end\n";
  if (o.slurm_wait) {
    std::cout << support::read_file(dir / "gather.log");
    return fs::exists(out / "gradebook.csv") ? 0 : 1;
  }
  return 0;
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
  const fs::path judge = fs::path(CUDALAB_BIN_DIR) / (lesson.name + "_judge");

  // This run's share (a Slurm task's chunk), and what is already graded.
  std::vector<size_t> todo;
  for (size_t i = 0; i < subs.size(); ++i) {
    if (o.chunk_count && i % size_t(o.chunk_count) != size_t(o.chunk_index)) continue;
    const fs::path rec = out / "records" / (subs[i].student + ".json");
    const std::string key = key_of(subs[i], judge, g.seed, o);
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
      progress.step(s.student,
                    r.status == "graded" ? fmt(r.score) + "/" + fmt(r.max_score) : r.status);
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < std::max(1, o.jobs); ++i) pool.emplace_back(grading_thread, i);
  for (auto& t : pool) t.join();
  progress.end();
  if (o.chunk_count) return 0;  // a Slurm task: the gather job writes the gradebook

  // The gradebook and every report, from the records.
  std::vector<std::pair<std::string, GradeRecord>> records;
  size_t missing = 0;
  for (const auto& s : subs) {
    const fs::path rec = out / "records" / (s.student + ".json");
    try {
      records.push_back({s.student, record_from_json(json::parse(support::read_file(rec)))});
    } catch (const std::exception&) {
      ++missing;
      GradeRecord r;
      r.lesson = lesson.name;
      r.status = "error";
      r.error = "not graded (its grading did not finish)";
      records.push_back({s.student, r});
    }
  }
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
      book << "," << (t == r.tests.end() ? "" : fmt(t->score));
      if (t != r.tests.end()) {
        passes[c].second++;
        if (t->status == "passed") passes[c].first++;
        for (const auto& f : t->findings) finding_students[f].insert(student);
      }
    }
    book << "," << fmt(r.score) << "," << fmt(r.max_score) << "," << r.status << "\n";
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
    book << ",0," << fmt(sum.max_score) << ",no_submission\n";
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
  std::sort(sum.findings.begin(), sum.findings.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream text;
  text << "cudalab: lesson " << lesson.name << ", " << sum.students << " students (seed " << g.seed
       << ")\n\n";
  double mean = 0;
  for (double t : sum.totals) mean += t;
  mean = sum.totals.empty() ? 0 : mean / double(sum.totals.size());
  std::vector<double> sorted = sum.totals;
  std::sort(sorted.begin(), sorted.end());
  text << "total points: mean " << fmt(std::round(mean * 10) / 10) << ", median "
       << fmt(sorted.empty() ? 0 : sorted[sorted.size() / 2]) << " of " << fmt(sum.max_score)
       << "\n";
  for (const auto& [status, n] : sum.statuses) text << "  " << status << ": " << n << "\n";
  text << "\npoints  students\n";
  const int bins = int(std::ceil(sum.max_score)) + 1;
  std::vector<int> hist(size_t(std::max(bins, 1)), 0);
  for (double t : sum.totals) hist[size_t(std::clamp(int(std::floor(t)), 0, bins - 1))]++;
  for (int b = 0; b < bins; ++b)
    text << (b < 10 ? "     " : "    ") << b << "  " << std::string(size_t(hist[size_t(b)]), '#')
         << " " << hist[size_t(b)] << "\n";
  text << "\npass rate per test\n";
  for (const auto& [name, rate] : sum.pass_rate) {
    char line[200];
    std::snprintf(line, sizeof(line), "  %-28s %3.0f%%\n", name.c_str(), rate * 100);
    text << line;
  }
  text << "\nmost common findings of the checks (students)\n";
  if (sum.findings.empty()) text << "  none\n";
  for (size_t i = 0; i < std::min<size_t>(10, sum.findings.size()); ++i)
    text << "  " << sum.findings[i].first << ": " << sum.findings[i].second << "\n";
  for (const auto& p : problems) text << "\nnot graded: " << p << "\n";
  support::write_atomically(out / "summary.txt", text.str());
  draw_summary(sum, out / "summary.png");
  std::cout << text.str() << "\nwritten to " << out.string()
            << ": gradebook.csv, summary.txt, summary.png, junit.xml, feedback/, gradescope/, "
               "prairielearn/, records/"
            << (o.pictures ? ", pictures/" : "") << "\n";
  return missing ? 1 : 0;
}

}  // namespace cudalab::cli
