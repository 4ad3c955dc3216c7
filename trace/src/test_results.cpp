// The graded tests beside a trace (test_results.h): one JSON object,
// written by the grader, read by the viewer.
#include "cudalab/trace/test_results.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cudalab/trace/comparison_json.h"
#include "cudalab/trace/trace.h"

namespace cudalab::trace {

using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "cudalab graded tests 1";
constexpr uint64_t kMaxBytes = uint64_t(256) << 20;

// A value of a comparison as a student reads it: 9 significant digits, so
// that 4.25 and 4.2500005 differ; NaN and infinity as words.
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) throw std::runtime_error("a value is neither a number nor a word");
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v.get<double>());
  return buf;
}

Comparison comparison_of(const json& c) {
  Comparison r;
  r.name = c.at("name").get<std::string>();
  r.allocation = c.value("allocation", 0u);
  r.offset = c.value("offset", uint64_t(0));
  r.element_bytes = c.value("element_bytes", 4u);
  r.row_length = c.value("row_length", uint64_t(0));
  r.count = c.at("count").get<uint64_t>();
  r.wrong = c.at("wrong").get<uint64_t>();
  if (const auto t = c.find("tolerance"); t != c.end() && t->is_array() && t->size() == 2) {
    r.absolute = t->at(0).get<double>();
    r.relative = t->at(1).get<double>();
  }
  if (r.element_bytes == 0 || r.element_bytes > 16)
    throw std::runtime_error("element_bytes is " + std::to_string(r.element_bytes));
  for (const json& e : c.value("elements", json::array())) {
    if (!e.is_array() || e.size() != 3)
      throw std::runtime_error("an element is not [i, got, want]");
    const uint64_t index = e[0].get<uint64_t>();
    if (index >= r.count) throw std::runtime_error("an element's index is past the array's end");
    r.elements.push_back({index, value_text(e[1]), value_text(e[2])});
  }
  for (const json& run : c.value("runs", json::array())) {
    if (!run.is_array() || run.size() != 2) throw std::runtime_error("a run is not [first, count]");
    const uint64_t first = run[0].get<uint64_t>(), count = run[1].get<uint64_t>();
    if (first >= r.count || count == 0 || count > r.count - first)
      throw std::runtime_error("a run goes past the array's end");
    r.runs.emplace_back(first, count);
  }
  return r;
}

std::vector<Comparison> comparisons_of(const json& a) {
  if (!a.is_array()) throw std::runtime_error("\"compared\" is not a list");
  std::vector<Comparison> all;
  for (const json& c : a) all.push_back(comparison_of(c));
  return all;
}

}  // namespace

std::string test_results_path(const std::string& trace_path) { return trace_path + ".tests.json"; }

uint64_t file_fingerprint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  uint64_t h = 1469598103934665603ull;
  std::vector<char> buf(size_t(1) << 16);
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i)
      h = (h ^ uint8_t(buf[size_t(i)])) * 1099511628211ull;
    if (!in) break;
  }
  return h;
}

TestResults read_test_results(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw TraceError(path + " is a folder, not a file of graded tests");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw TraceError("cannot read " + path + ": " + ec.message());
  if (size > kMaxBytes)
    throw TraceError(path + " is larger than 256 MiB: not a file of graded tests");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  TestResults r;
  try {
    const json j = json::parse(text.str());
    if (!j.is_object() || j.value("format", "") != kFormat)
      throw std::runtime_error(std::string("it does not say \"format\": \"") + kFormat + "\"");
    r.lesson = j.value("lesson", "");
    r.file = j.value("file", "");
    r.traced_test = j.value("traced_test", "");
    r.shown = j.value("shown", r.traced_test);
    if (const auto t = j.find("trace"); t != j.end() && t->is_object()) {
      r.trace_bytes = t->value("bytes", uint64_t(0));
      r.trace_fingerprint = t->value("fingerprint", uint64_t(0));
    }
    for (const json& t : j.value("tests", json::array())) {
      GradedTestResult g;
      g.name = t.at("name").get<std::string>();
      g.description = t.value("description", "");
      g.kind = t.value("kind", "test");
      g.visibility = t.value("visibility", "visible");
      g.status = t.value("status", "");
      g.verdict = t.value("verdict", "");
      g.output = t.value("output", "");
      g.score = t.value("score", 0.0);
      g.max_score = t.value("max_score", 0.0);
      r.tests.push_back(std::move(g));
    }
    r.compared = comparisons_of(j.value("compared", json::array()));
    if (const auto s = j.find("sources"); s != j.end())
      for (const auto& [path, text] : s->items()) r.sources[path] = text.get<std::string>();
    for (const json& f : j.value("findings", json::array())) {
      if (!f.is_object()) throw std::runtime_error("a finding is not an object");
      r.findings.push_back(f.dump());
    }
  } catch (const std::exception& e) {
    throw TraceError(path + " is not a file of graded tests that cudalab check wrote (" + e.what() +
                     ")");
  }
  return r;
}

bool write_test_results(const std::string& path, const TestResults& r, std::string* why) {
  json tests = json::array(), compared = json::array(), findings = json::array();
  for (const auto& f : r.findings)
    if (json o = json::parse(f, nullptr, false); o.is_object()) findings.push_back(std::move(o));
  for (const auto& t : r.tests)
    tests.push_back({{"name", t.name},
                     {"description", t.description},
                     {"kind", t.kind},
                     {"visibility", t.visibility},
                     {"status", t.status},
                     {"verdict", t.verdict},
                     {"output", t.output},
                     {"score", t.score},
                     {"max_score", t.max_score}});
  for (const auto& c : r.compared) {
    json elements = json::array();
    for (const auto& e : c.elements) elements.push_back({e.index, e.got, e.want});
    compared.push_back(comparison_json(c, std::move(elements)));
  }
  const json j = {{"format", kFormat},
                  {"lesson", r.lesson},
                  {"file", r.file},
                  {"traced_test", r.traced_test},
                  {"shown", r.shown},
                  {"trace", {{"bytes", r.trace_bytes}, {"fingerprint", r.trace_fingerprint}}},
                  {"tests", std::move(tests)},
                  {"compared", std::move(compared)},
                  {"findings", std::move(findings)},
                  {"sources", r.sources}};
  // Text from a submission may be any bytes: replaced, not refused.
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const std::string temporary = path + ".part";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) {
      *why = "cannot write " + temporary;
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    *why = "cannot write " + path + ": " + ec.message();
    return false;
  }
  return true;
}

std::vector<Comparison> comparisons_from_json(const std::string& json_text) {
  try {
    return comparisons_of(json::parse(json_text));
  } catch (const std::exception& e) {
    throw TraceError(std::string("the judge's comparisons are not readable (") + e.what() + ")");
  }
}

}  // namespace cudalab::trace
