// The reports written from one grading record (framework/cli/formats.cpp
// and the record's JSON in one_submission.cpp): what a hidden test lets a student
// see in every format, the summary line, scores as each platform wants
// them, XML and JSON that stay well formed whatever the submission printed.
#include <gtest/gtest.h>

#include <string>

#include "one_submission.h"

namespace {

using cudalab::cli::GradeRecord;
using cudalab::cli::TestRecord;
using nlohmann::json;

TestRecord test(const std::string& name, const std::string& status, double score, double max,
                const std::string& visibility = "visible") {
  TestRecord t;
  t.name = name;
  t.description = "adds " + name;
  t.status = status;
  t.score = score;
  t.max_score = max;
  t.visibility = visibility;
  t.verdict = status == "passed" ? "passed" : "wrong results";
  t.output = status == "passed" ? "" : "element 7: expected 42, got 0 (SECRET input 1234)\n";
  return t;
}

GradeRecord graded() {
  GradeRecord r;
  r.lesson = "vector_add";
  r.file = "exercise.cu";
  r.tests = {test("Small", "passed", 2, 2), test("Large", "failed", 0, 3),
             test("Hidden", "failed", 0, 5, "hidden")};
  r.score = 2;
  r.max_score = 10;
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Formats, AHiddenTestShowsItsVerdictButNeverItsOutputInAnyFormat) {
  GradeRecord r = graded();
  r.tests[1].output = "visible output\n";  // the visible failing test says what it says
  EXPECT_EQ(cudalab::cli::student_output(r.tests[2]), "Hidden test: wrong results.\n");
  const std::string formats[] = {
      cudalab::cli::feedback_text(r),
      cudalab::cli::gradescope_json(r).dump(),
      cudalab::cli::prairielearn_json(r).dump(),
      cudalab::cli::classroom_json(r).dump(),
      cudalab::cli::junit_xml({{"ada", r}}),
  };
  for (const std::string& f : formats) {
    EXPECT_FALSE(has(f, "SECRET")) << f;
    EXPECT_FALSE(has(f, "adds Hidden")) << f;  // nor its description
    EXPECT_TRUE(has(f, "Hidden test: wrong results")) << f;
    EXPECT_TRUE(has(f, "visible output")) << f;
  }
  // Gradescope shows a hidden test after the due date only.
  const json g = cudalab::cli::gradescope_json(r);
  EXPECT_EQ(g["tests"][2]["visibility"], "after_due_date");
  EXPECT_EQ(g["tests"][0]["visibility"], "visible");
}

TEST(Formats, TheSummaryLineSaysExtraCreditAndAFileThatDidNotCompile) {
  GradeRecord r = graded();
  EXPECT_EQ(cudalab::cli::summary_line(r), "total: 2 / 10 points");
  TestRecord extra = test("Fast", "passed", 1.5, 1.5);
  extra.extra_credit = true;
  r.tests.push_back(extra);
  r.score = 3.5;
  EXPECT_EQ(cudalab::cli::summary_line(r),
            "total: 3.5 / 10 points (1.5 of up to 1.5 extra credit included)");
  GradeRecord c;
  c.status = "did_not_compile";
  c.max_score = 10;
  EXPECT_EQ(cudalab::cli::summary_line(c), "total: 0 / 10 points (the file did not compile)");
  GradeRecord e;
  e.status = "error";
  e.error = "the judge is missing";
  EXPECT_EQ(cudalab::cli::summary_line(e),
            "The submission could not be graded: the judge is missing");
}

TEST(Formats, ARecordComesBackWholeFromItsJson) {
  GradeRecord r = graded();
  r.seed = 0xfedcba9876543210ull;  // above 2^53: kept exactly
  r.picture_test = "Large";
  r.tests[1].findings = {"memcheck out-of-bounds"};
  r.tests[1].extra_credit = true;
  const GradeRecord back =
      cudalab::cli::record_from_json(json::parse(cudalab::cli::record_json(r).dump()));
  EXPECT_EQ(cudalab::cli::record_json(back), cudalab::cli::record_json(r));
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.tests[1].findings, r.tests[1].findings);
  // A record of an older cudalab (no picture, no findings) still reads.
  const GradeRecord old = cudalab::cli::record_from_json(
      json{{"lesson", "heat"}, {"tests", json::array({{{"name", "T"}, {"status", "passed"}}})}});
  EXPECT_EQ(old.tests.at(0).name, "T");
  EXPECT_TRUE(old.picture_test.empty());
}

TEST(Formats, ScoresAreWhatEachPlatformExpects) {
  GradeRecord r = graded();
  EXPECT_DOUBLE_EQ(cudalab::cli::prairielearn_json(r)["score"].get<double>(), 0.2);
  EXPECT_TRUE(cudalab::cli::prairielearn_json(r)["gradable"].get<bool>());
  EXPECT_EQ(cudalab::cli::gradescope_json(r)["score"], 2);
  EXPECT_EQ(cudalab::cli::classroom_json(r)["status"], "fail");
  // Extra credit above the maximum: PrairieLearn's share stops at 1.
  r.score = 12;
  EXPECT_DOUBLE_EQ(cudalab::cli::prairielearn_json(r)["score"].get<double>(), 1.0);
  // Everything passed.
  for (auto& t : r.tests) t.status = "passed", t.score = t.max_score;
  r.score = r.max_score;
  EXPECT_EQ(cudalab::cli::classroom_json(r)["status"], "pass");
  // The grading failed: not gradable, and said so.
  GradeRecord e;
  e.status = "error";
  e.error = "no judge";
  EXPECT_FALSE(cudalab::cli::prairielearn_json(e)["gradable"].get<bool>());
  EXPECT_EQ(cudalab::cli::prairielearn_json(e)["format_errors"][0], "no judge");
  EXPECT_EQ(cudalab::cli::classroom_json(e)["status"], "error");
  EXPECT_EQ(cudalab::cli::gradescope_json(e)["tests"][0]["name"], "Grading");
}

TEST(Formats, JUnitXmlEscapesWhatASubmissionOrANameHolds) {
  GradeRecord r = graded();
  r.tests[1].output = "a < b && c > \"d\"\x01\x02 end\n";
  const std::string xml = cudalab::cli::junit_xml({{"o'brien <&>", r}});
  EXPECT_TRUE(has(xml, "name=\"o'brien &lt;&amp;&gt;\"")) << xml;
  EXPECT_TRUE(has(xml, "a &lt; b &amp;&amp; c &gt; &quot;d&quot;?? end")) << xml;
  EXPECT_TRUE(has(xml, "tests=\"3\" failures=\"2\" errors=\"0\"")) << xml;
  // A grading that did not run its tests counts them as errors.
  r.status = "did_not_compile";
  EXPECT_TRUE(has(cudalab::cli::junit_xml({{"x", r}}), "failures=\"0\" errors=\"2\""));
}

TEST(Formats, BytesThatAreNotUtf8StillMakeValidJsonAndXml) {
  // A submission prints whatever bytes it likes, and a long output is cut
  // to its end, perhaps inside a character: every format stays readable.
  GradeRecord r = graded();
  r.tests[1].output = "bad \xff\xfe bytes, a cut character \xc3 and a whole one \xc3\xa9\n";
  r.compiler_output = "exercise.cu:3: error: stray '\\377' \xff in program\n";
  std::string dumped;
  ASSERT_NO_THROW(dumped = cudalab::cli::gradescope_json(r).dump());
  ASSERT_NO_THROW(cudalab::cli::record_json(r).dump());
  ASSERT_NO_THROW(cudalab::cli::prairielearn_json(r).dump());
  ASSERT_NO_THROW(cudalab::cli::classroom_json(r).dump());
  EXPECT_TRUE(has(dumped, "a whole one \xc3\xa9")) << dumped;  // valid UTF-8 is kept
  const std::string xml = cudalab::cli::junit_xml({{"s", r}});
  EXPECT_FALSE(has(xml, "\xff")) << xml;
  EXPECT_TRUE(has(xml, "\xc3\xa9")) << xml;
}

}  // namespace
