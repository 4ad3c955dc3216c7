// What a submission printed, made fit to show a student: valid UTF-8,
// printable, bounded, and with the sandbox's folders out of its paths.
#include <sstream>

#include "one_submission_steps.h"

namespace cudalab::cli {

std::string last_chars(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  return "[... " + std::to_string(s.size() - max_chars) + " characters cut ...]\n" +
         s.substr(s.size() - max_chars);
}

// Text from the submission, made safe to show: printable, bounded.
std::string safe_text(const std::string& s, size_t max_chars) {
  std::string out = utf8_text(last_chars(s, max_chars));
  for (char& c : out)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) c = '?';
  return out;
}

std::string quoted_lines(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out += "| " + line + "\n";
  return out;
}

// What a student reads of a path: their file's name, not the sandbox's
// folder ("/submission/mine.cu:28" -> "mine.cu:28").
std::string student_paths(std::string s, const fs::path& scratch) {
  for (const std::string& dir : {std::string("/submission/"), scratch.string() + "/"})
    for (size_t at; (at = s.find(dir)) != std::string::npos;) s.erase(at, dir.size());
  return s;
}

}  // namespace cudalab::cli
