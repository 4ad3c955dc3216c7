// The reports written from one grading record: the student's feedback as
// text, Gradescope's results.json, PrairieLearn's external-grader
// results.json and JUnit XML. A hidden test shows its name, its points and a
// plain verdict, in every format a student can read.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "one_submission.h"

namespace cudalab::cli {
namespace {

using json = nlohmann::json;

std::string xml_escape(const std::string& text) {
  const std::string s = utf8_text(text);
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 has no other control characters.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

std::string base64(const std::string& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v =
        uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out += k[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += k[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace

std::string utf8_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    // The length of the sequence c begins, and the range its second byte
    // must lie in (no overlong forms, no surrogates, nothing past U+10FFFF).
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
      n = 1;
    else if (c >= 0xc2 && c <= 0xdf)
      n = 2;
    else if (c >= 0xe0 && c <= 0xef)
      n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
      n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k)
      ok = k == 1 ? b(i + 1) >= lo && b(i + 1) <= hi : b(i + k) >= 0x80 && b(i + k) <= 0xbf;
    if (!ok) {
      out += '?';
      ++i;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

json utf8_json(json j) {
  if (j.is_string()) return utf8_text(j.get<std::string>());
  if (j.is_structured())
    for (auto& v : j) v = utf8_json(std::move(v));
  return j;
}

std::string summary_line(const GradeRecord& r) {
  if (r.status == "error") return "The submission could not be graded: " + r.error;
  std::string s = "total: " + points_text(r.score) + " / " + points_text(r.max_score) + " points";
  double extra = 0, extra_max = 0;
  for (const auto& t : r.tests)
    if (t.extra_credit) extra += t.score, extra_max += t.max_score;
  if (extra_max > 0)
    s += " (" + points_text(extra) + " of up to " + points_text(extra_max) +
         " extra credit included)";
  if (r.status == "did_not_compile") s += " (the file did not compile)";
  return s;
}

std::string feedback_text(const GradeRecord& r) {
  std::ostringstream out;
  out << "cudalab: lesson " << r.lesson << "\n";
  if (r.status == "did_not_compile")
    out << "\nYour file did not compile. The compiler said:\n\n"
        << r.compiler_output
        << "\nFix the first error (its file and line are at the start of the message), then "
           "check again.\n";
  if (r.status == "error") {
    // The grading's problem, not the file's: no test was judged.
    out << "\nThis file could not be graded (a problem of the grading, not of your file): "
        << r.error << "\n";
    return out.str();
  }
  out << "\n";
  for (const auto& t : r.tests) {
    char line[512];
    std::snprintf(line, sizeof(line), "  %-4s %4.1f/%-4.1f %s: %s\n",
                  t.status == "passed" ? "pass" : "FAIL", t.score, t.max_score, t.name.c_str(),
                  t.visibility == "hidden" ? "hidden test" : t.description.c_str());
    out << line;
    if (t.status != "passed") {
      std::istringstream in(student_output(t));
      for (std::string l; std::getline(in, l);) out << "    " << l << "\n";
    }
  }
  if (!r.picture_test.empty())
    out << "\nA picture of test " << r.picture_test
        << "'s memory accesses (which block and thread touched each element) comes with "
           "this feedback.\n";
  out << "\n" << summary_line(r) << "\n";
  return utf8_text(out.str());
}

json gradescope_json(const GradeRecord& r) {
  json tests = json::array();
  if (r.status == "did_not_compile" || r.status == "error")
    tests.push_back({{"name", r.status == "error" ? "Grading" : "Compilation"},
                     {"score", 0},
                     {"max_score", 0},
                     {"status", "failed"},
                     {"output", r.status == "error" ? r.error : r.compiler_output},
                     {"output_format", "text"},
                     {"visibility", "visible"}});
  for (const auto& t : r.tests)
    tests.push_back(
        {{"name", t.name + ": " + (t.visibility == "hidden" ? "hidden test" : t.description)},
         {"score", t.score},
         {"max_score", t.max_score},
         {"status", t.status},
         {"output", student_output(t)},
         {"output_format", "text"},
         {"visibility", t.visibility == "hidden" ? "after_due_date" : "visible"}});
  return utf8_json({{"score", r.score},
                    {"execution_time", r.seconds},
                    {"output", summary_line(r)},
                    {"output_format", "text"},
                    {"tests", tests}});
}

json prairielearn_json(const GradeRecord& r, const std::string& picture_png) {
  // PrairieLearn takes results of at most 1 MB: a picture goes in when its
  // text (base64, a third larger) leaves room for the rest.
  std::string picture;
  if (!picture_png.empty() && !r.picture_test.empty()) {
    std::ifstream in(picture_png, std::ios::binary);
    std::stringstream png;
    png << in.rdbuf();
    if (!png.str().empty() && png.str().size() < 600 * 1024)
      picture = "data:image/png;base64," + base64(png.str());
  }
  json tests = json::array();
  for (const auto& t : r.tests) {
    json test = {{"name", t.name},
                 {"description", t.visibility == "hidden" ? "hidden test" : t.description},
                 {"points", t.score},
                 {"max_points", t.max_score},
                 {"message", t.status == "passed" ? "passed" : t.verdict},
                 {"output", student_output(t)}};
    if (!picture.empty() && t.name == r.picture_test && t.visibility != "hidden")
      test["images"] = json::array(
          {{{"label", "Test " + t.name +
                          " run again with its memory accesses traced: which block and thread "
                          "touched each element (cudalab-viz)"},
            {"url", picture}}});
    tests.push_back(test);
  }
  json j = {{"gradable", r.status != "error"},
            {"score", r.max_score > 0 ? std::min(1.0, r.score / r.max_score) : 0.0},
            {"message", summary_line(r)},
            {"output", r.status == "did_not_compile" ? r.compiler_output : ""},
            {"tests", tests}};
  if (r.status == "error") j["format_errors"] = json::array({r.error});
  return utf8_json(std::move(j));
}

json classroom_json(const GradeRecord& r) {
  json tests = json::array();
  for (const auto& t : r.tests)
    tests.push_back({{"name", t.name},
                     {"status", t.status == "passed" ? "pass" : "fail"},
                     {"score", t.score},
                     {"max_score", t.max_score},
                     {"message", t.status == "passed" ? "" : student_output(t)},
                     {"test_code", ""},
                     {"filename", ""},
                     {"line_no", 0},
                     {"execution_time", std::to_string(t.seconds) + "s"}});
  const bool all = r.status == "graded" && r.score == r.max_score;
  return utf8_json({{"version", 1},
                    {"status", r.status == "error" ? "error"
                               : all               ? "pass"
                                                   : "fail"},
                    {"max_score", r.max_score},
                    {"tests", tests}});
}

std::string junit_xml(const std::vector<std::pair<std::string, GradeRecord>>& records) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (const auto& [student, r] : records) {
    size_t failures = 0, errors = 0;
    double seconds = 0;
    for (const auto& t : r.tests) {
      seconds += t.seconds;
      if (t.status != "passed") (r.status == "graded" ? failures : errors)++;
    }
    out << "  <testsuite name=\"" << xml_escape(student) << "\" tests=\"" << r.tests.size()
        << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"0\" time=\""
        << seconds << "\">\n";
    for (const auto& t : r.tests) {
      out << "    <testcase name=\"" << xml_escape(t.name) << "\" classname=\""
          << xml_escape(r.lesson + "." + student) << "\" time=\"" << t.seconds << "\"";
      if (t.status == "passed") {
        out << "/>\n";
        continue;
      }
      const char* element = r.status == "graded" ? "failure" : "error";
      out << ">\n      <" << element << " message=\"" << xml_escape(t.verdict) << "\" type=\""
          << xml_escape(t.verdict) << "\">" << xml_escape(student_output(t)) << "</" << element
          << ">\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

std::string points_text(double points) {
  char s[32];
  std::snprintf(s, sizeof(s), "%g", points);
  return s;
}

}  // namespace cudalab::cli
