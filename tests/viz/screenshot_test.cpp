// cudalab-viz in a real window under Xvfb: record a trace, render it, and
// look at the picture (size, not blank, the warp colours are there).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#define STB_IMAGE_IMPLEMENTATION
#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "pictures.h"

namespace fs = std::filesystem;

namespace {

using viz_test::count_pixels;
using viz_test::pixels_of;
using viz_test::run;

class Viz : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(run("command -v xvfb-run"), 0) << "xvfb-run is needed (apt-get install xvfb)";
    dir_ = viz_test::test_folder("cudalab-viz-");
    trace_ = (dir_ / "t.trace").string();
    std::string out;
    ASSERT_EQ(run("CUDALAB_TRACE=" + trace_ + " " CUDALAB_TRACED_PROGRAM, &out), 0) << out;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string trace_;
};

TEST_F(Viz, ScreenshotShowsTheTrace) {
  const std::string png = (dir_ / "shot.png").string();
  std::string out;
  ASSERT_EQ(run("xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + trace_ +
                    " --screenshot " + png + " --size 1024x700 --block 1 --thread 5",
                &out),
            0)
      << out;
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
  ASSERT_NE(pixels, nullptr) << "not a PNG: " << png;
  EXPECT_EQ(w, 1024);
  EXPECT_EQ(h, 700);
  std::set<uint32_t> colours;
  size_t saturated = 0;  // warp and heatmap cells, not text or background
  for (int i = 0; i < w * h; ++i) {
    const unsigned char* p = pixels + 4 * i;
    colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
    const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
    saturated += hi > 120 && hi - lo > 60;
  }
  stbi_image_free(pixels);
  // A blank or one-colour frame fails both: the picture has text, the two
  // warps of each block in two colours, and three heatmaps.
  EXPECT_GT(colours.size(), 20u);
  EXPECT_GT(saturated, size_t(w * h / 100)) << "too little of the warp and heatmap colours";
}

// --metrics opens the memory window on the table of figures per line: a
// different picture from the heatmaps, with the table's text in it.
TEST_F(Viz, MetricsTabShowsTheFiguresPerLine) {
  const std::string heat = (dir_ / "heat.png").string(), table = (dir_ / "table.png").string();
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + trace_;
  std::string out;
  ASSERT_EQ(run(viz + " --screenshot " + heat + " --size 1024x700", &out), 0) << out;
  ASSERT_EQ(run(viz + " --screenshot " + table + " --size 1024x700 --metrics", &out), 0) << out;
  int w = 0, h = 0, channels = 0;
  unsigned char* a = stbi_load(heat.c_str(), &w, &h, &channels, 4);
  unsigned char* b = stbi_load(table.c_str(), &w, &h, &channels, 4);
  ASSERT_TRUE(a && b);
  // The lower right quarter: heatmap cells in one, a table of text in the other.
  size_t differ = 0, saturated_a = 0, saturated_b = 0;
  for (int y = h / 2; y < h; ++y)
    for (int x = w / 2; x < w; ++x) {
      const unsigned char* p = a + 4 * (y * w + x);
      const unsigned char* q = b + 4 * (y * w + x);
      differ += std::memcmp(p, q, 3) != 0;
      saturated_a += std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}) > 60;
      saturated_b += std::max({q[0], q[1], q[2]}) - std::min({q[0], q[1], q[2]}) > 60;
    }
  stbi_image_free(a);
  stbi_image_free(b);
  EXPECT_GT(differ, size_t(w * h / 40));
  EXPECT_GT(saturated_a, 10 * saturated_b) << "the table should be text, not coloured cells";
}

// Pixels of the viewer's red in a screenshot: filled cells (out of bounds)
// or, with `text`, the lighter red of the words that say what went wrong.
size_t red_pixels(const std::string& png, bool text) {
  return count_pixels(png, [text](int r, int g, int b) {
    return text ? r > 180 && r - g > 90 && r - b > 100 && g >= 60 && g > b - 10
                : r > 200 && g < 70 && b < 70;
  });
}

// The bugs are on the picture: a vector add without its bounds check draws
// the writes past the end of c as red cells, which the correct one has none
// of; a faulted launch opens on the thread that faulted and says so.
TEST_F(Viz, OutOfBoundsAccessesAndTheFaultingThreadAreShown) {
  const std::string bugs = (dir_ / "bugs.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + bugs + " " CUDALAB_TRACED_BUGS, &out), 0) << out;
  ASSERT_NE(out.find("fill: cudaErrorIllegalAddress"), std::string::npos) << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " ";
  const std::string good = (dir_ / "good.png").string(), oob = (dir_ / "oob.png").string(),
                    fault = (dir_ / "fault.png").string();
  ASSERT_EQ(run(viz + trace_ + " --screenshot " + good + " --size 1024x700", &out), 0) << out;
  ASSERT_EQ(run(viz + bugs + " --screenshot " + oob + " --size 1024x700 --launch 1", &out), 0)
      << out;
  ASSERT_EQ(run(viz + bugs + " --screenshot " + fault + " --size 1024x700", &out), 0) << out;
  // The heatmap's legend has a red square and a red frame (some 220 pixels).
  const size_t legend = 250;
  EXPECT_LT(red_pixels(good, false), legend) << "a correct kernel has nothing out of bounds";
  EXPECT_EQ(red_pixels(good, true), 0u) << "nor anything said in red";
  EXPECT_GT(red_pixels(oob, false), legend + 200) << "28 writes past the end of c, drawn red";
  // The faulted launch, opened on its faulting thread: no buffer to draw,
  // the fault and the null-pointer write said in red.
  EXPECT_GT(red_pixels(fault, true), 500u);
}

// The "Time on a GPU" tab: the launch's predicted time and bound, the
// GPU's DRAM and L2 roofs (blue, green) and the launch's point (orange);
// for a GPU without calibration data, the reason and no chart.
TEST_F(Viz, RooflineShowsTheLaunchUnderTheGpusRoofs) {
  const std::string tiles = (dir_ / "tiles.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + tiles + " " CUDALAB_TRACED_TILES, &out), 0) << out;
  const std::string roof = (dir_ / "roof.png").string(), none = (dir_ / "none.png").string();
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + tiles +
                          " --size 1024x700 --roofline --screenshot ";
  ASSERT_EQ(run(viz + roof, &out), 0) << out;
  ASSERT_EQ(run("CUDALAB_DEVICE=voodoo2 " + viz + none, &out), 0) << out;
  EXPECT_GT(pixels_of(roof, 90, 170, 255), 300u) << "the DRAM roof";
  EXPECT_GT(pixels_of(roof, 120, 220, 140), 300u) << "the L2 roof";
  EXPECT_GT(pixels_of(roof, 255, 140, 40), 100u) << "the launch's point";
  EXPECT_EQ(pixels_of(none, 90, 170, 255), 0u) << "no GPU, no roofline";
  EXPECT_EQ(pixels_of(none, 255, 140, 40), 0u);
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + tiles + " --roofline --metrics", &out), 2);
  EXPECT_NE(out.find("give one"), std::string::npos) << out;
}

// Stepping through a tiled kernel's barrier phases: in phase 0 the block
// writes its tiles into shared memory (and reads global memory), in phase 1
// it only reads them; the block's end writes c.
TEST_F(Viz, StepsShowATileLoadedThenUsed) {
  const std::string tiles = (dir_ / "tiles.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + tiles + " " CUDALAB_TRACED_TILES, &out), 0) << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + tiles +
                          " --size 1024x700 --block 3 --screenshot ";
  std::string pngs[3];
  for (int phase = 0; phase < 3; ++phase) {
    pngs[phase] = (dir_ / ("phase" + std::to_string(phase) + ".png")).string();
    ASSERT_EQ(run(viz + pngs[phase] + " --step " + std::to_string(phase), &out), 0) << out;
  }
  const size_t legend = 200;  // each legend square: about 13x13 pixels
  const size_t written0 = pixels_of(pngs[0], 255, 190, 60),
               read0 = pixels_of(pngs[0], 80, 150, 255);
  const size_t written1 = pixels_of(pngs[1], 255, 190, 60),
               read1 = pixels_of(pngs[1], 80, 150, 255);
  EXPECT_GT(written0, 10 * legend) << "phase 0 writes both tiles into shared memory";
  EXPECT_GT(read0, 10 * legend) << "and reads them from a and b";
  EXPECT_LT(written1, legend) << "phase 1 writes nothing";
  EXPECT_GT(read1, 10 * legend) << "it reads the tiles";
  EXPECT_GT(pixels_of(pngs[2], 80, 80, 92), 10 * legend) << "phase 2: phase 0's places are earlier";
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + tiles + " --step 1 --metrics", &out), 2);
  EXPECT_NE(out.find("give one"), std::string::npos) << out;
}

// Within a phase, one warp instruction at a time: phase 0 as far as its
// first instruction shows less than as far as its sixth (a warp's write of
// its tile row into shared memory, framed in white), which shows less than
// the whole phase; --instruction without --step is refused.
TEST_F(Viz, StepsGoOneWarpInstructionAtATime) {
  const std::string tiles = (dir_ / "tiles.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + tiles + " " CUDALAB_TRACED_TILES, &out), 0) << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + tiles +
                          " --size 1024x700 --step 0 --screenshot ";
  const std::string first = (dir_ / "first.png").string(), sixth = (dir_ / "sixth.png").string(),
                    whole = (dir_ / "whole.png").string();
  ASSERT_EQ(run(viz + first + " --instruction 0", &out), 0) << out;
  ASSERT_EQ(run(viz + sixth + " --instruction 5", &out), 0) << out;
  ASSERT_EQ(run(viz + whole, &out), 0) << out;
  auto touched = [](const std::string& png) {
    return pixels_of(png, 255, 190, 60) + pixels_of(png, 80, 150, 255);
  };
  EXPECT_LT(touched(first), touched(sixth));
  EXPECT_LT(touched(sixth), touched(whole));
  EXPECT_GT(pixels_of(sixth, 255, 255, 255), pixels_of(whole, 255, 255, 255) + 500)
      << "the sixth instruction's 32 cells framed in white";
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + tiles + " --instruction 2", &out), 2);
  EXPECT_NE(out.find("give --step N too"), std::string::npos) << out;
}

// A warp instruction drawn: a thread's first access (its read of a from
// global memory) against sectors, its fourth (its write of tb into shared
// memory) against the 32 banks; the figures said beside them.
TEST_F(Viz, AWarpInstructionIsDrawnAgainstSectorsOrBanks) {
  const std::string tiles = (dir_ / "tiles.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + tiles + " " CUDALAB_TRACED_TILES, &out), 0) << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + tiles +
                          " --size 1024x700 --block 0 --thread 17 --screenshot ";
  const std::string global = (dir_ / "global.png").string(),
                    shared = (dir_ / "shared.png").string();
  ASSERT_EQ(run(viz + global + " --access 0", &out), 0) << out;
  ASSERT_EQ(run(viz + shared + " --access 3", &out), 0) << out;
  // Target boxes are green: 4 sectors for the read (two rows of 16 floats),
  // all 32 banks for the write (no conflict).
  const size_t box = 100;  // pixels of one target box, at the least
  const size_t sectors = pixels_of(global, 90, 220, 120), banks = pixels_of(shared, 90, 220, 120);
  EXPECT_GT(sectors, 4 * box);
  EXPECT_LT(sectors, 8 * box * 3) << "4 sectors, not 32";
  EXPECT_GT(banks, 32 * box) << "the 32 banks, each one word";
  EXPECT_EQ(pixels_of(shared, 255, 190, 60), 0u) << "no bank holds two words: no conflict drawn";
}

// A race in global memory (threads of neighbouring blocks read what the
// others overwrite): its accesses' cells framed red on the heatmap, with
// the legend's red frame; none without the checks.
TEST_F(Viz, ARaceInGlobalMemoryIsFramedRed) {
  const std::string checked = (dir_ / "checked.trace").string(),
                    plain = (dir_ / "plain.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + checked + " " CUDALAB_TRACED_GLOBAL_RACE,
                &out),
            0)
      << out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + plain + " " CUDALAB_TRACED_GLOBAL_RACE, &out), 0) << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " ";
  const std::string framed = (dir_ / "framed.png").string(), none = (dir_ / "none.png").string();
  ASSERT_EQ(run(viz + checked + " --size 1024x700 --screenshot " + framed, &out), 0) << out;
  ASSERT_EQ(run(viz + plain + " --size 1024x700 --screenshot " + none, &out), 0) << out;
  const size_t legend = 250;  // the legend's red square and red frame
  EXPECT_GT(pixels_of(framed, 235, 40, 40), legend + 150) << "the racing cells framed red";
  EXPECT_LT(pixels_of(none, 235, 40, 40), legend) << "only the legend's red";
  // A race in shared memory is not drawn on global memory, though the line
  // that races there also reads a global buffer.
  const std::string shared = (dir_ / "shared.trace").string(),
                    shared_png = (dir_ / "shared.png").string();
  ASSERT_EQ(run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + shared + " " CUDALAB_TRACED_RACE, &out),
            0)
      << out;
  ASSERT_EQ(run(viz + shared + " --size 1024x700 --screenshot " + shared_png, &out), 0) << out;
  EXPECT_LT(pixels_of(shared_png, 235, 40, 40), legend) << "no red frame on global memory";
}

// A race finding, stepped to: the viewer opens on the finding's thread, in
// the step view at the phase of its access (the shared memory drawn), and
// frames the two racing accesses in white; a finding that is not there is
// a clear error.
TEST_F(Viz, AFindingIsSteppedToWithItsAccessesFramed) {
  const std::string race = (dir_ / "race.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + race + " " CUDALAB_TRACED_RACE, &out), 0)
      << out;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + race;
  const std::string found = (dir_ / "found.png").string(), plain = (dir_ / "plain.png").string();
  ASSERT_EQ(run(viz + " --size 1024x700 --finding 1 --screenshot " + found, &out), 0) << out;
  // The same block, thread and tab without the finding: no frames.
  ASSERT_EQ(
      run(viz + " --size 1024x700 --block 0 --thread 32 --step 0 --screenshot " + plain, &out), 0)
      << out;
  EXPECT_GT(pixels_of(found, 90, 220, 120), 1000u) << "the step view, shared memory drawn";
  // A white frame covers the edge of the racing shared-memory cell (read and
  // written in this phase: green), about 50 pixels of it.
  const size_t framed_green = pixels_of(found, 90, 220, 120),
               plain_green = pixels_of(plain, 90, 220, 120);
  EXPECT_GE(plain_green, framed_green + 30) << "a frame over the racing cell";
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + race + " --finding 9", &out), 2);
  EXPECT_NE(out.find("--finding 9, but launch 1 has 2 findings"), std::string::npos) << out;
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + trace_ + " --finding 1", &out), 2);
  EXPECT_NE(out.find("record the trace with CUDALAB_CHECK set"), std::string::npos) << out;
}

// A source line picked: the cells it touched are framed in cyan (line 14
// reads all of a, which is drawn first); the Source tab shows the kernel's
// lines with their figures.
TEST_F(Viz, APickedSourceLineFramesTheCellsItTouched) {
  const std::string tiles = (dir_ / "tiles.trace").string();
  std::string out;
  ASSERT_EQ(run("CUDALAB_TRACE=" + tiles + " " CUDALAB_TRACED_TILES, &out), 0) << out;
  const std::string viz =
      "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + tiles + " --size 1024x700 ";
  const std::string picked = (dir_ / "picked.png").string(), none = (dir_ / "none.png").string(),
                    source = (dir_ / "source.png").string();
  ASSERT_EQ(run(viz + "--line traced_tiles.cu:14 --screenshot " + picked, &out), 0) << out;
  ASSERT_EQ(run(viz + "--screenshot " + none, &out), 0) << out;
  ASSERT_EQ(run(viz + "--source --screenshot " + source, &out), 0) << out;
  EXPECT_GT(pixels_of(picked, 0, 235, 255), 2000u) << "a's cells framed";
  EXPECT_LT(pixels_of(none, 0, 235, 255), 100u) << "no line picked, no frames (the legend's)";
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + tiles + " --line fourteen", &out), 2);
  EXPECT_NE(out.find("--line wants FILE.cu:LINE"), std::string::npos) << out;
}

// The graded tests beside a trace (as cudalab check --trace writes them):
// the wrong elements of c framed yellow on the heatmap, the test's values
// against the expected ones in its tab; a tests file of another recording
// of the trace is not believed.
TEST_F(Viz, AFailingTestsWrongElementsAreFramedAndListed) {
  namespace tr = cudalab::trace;
  tr::TestResults r = viz_test::c_left_wrong(trace_);
  r.tests.push_back({"Hidden", "", "test", "hidden", "passed", "passed", "", 1, 1});
  std::string why;
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  const std::string viz =
      "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + trace_ + " --size 1024x700 ";
  const std::string framed = (dir_ / "framed.png").string(), table = (dir_ / "table.png").string(),
                    plain = (dir_ / "plain.png").string();
  std::string out;
  ASSERT_EQ(run(viz + "--screenshot " + framed, &out), 0) << out;
  ASSERT_EQ(run(viz + "--test Small --screenshot " + table, &out), 0) << out;
  auto yellow = [](int r, int g, int b) { return r > 240 && g > 185 && g < 230 && b < 40; };
  // 20 cells framed: each frame is some 40 pixels.
  EXPECT_GT(count_pixels(framed, yellow), 500u) << "the wrong elements are framed yellow";
  EXPECT_GT(count_pixels(table, yellow), 200u) << "the values the kernel left, in yellow";
  EXPECT_EQ(run(viz + "--test Nonesuch --screenshot " + plain, &out), 2);
  EXPECT_NE(out.find("no graded test named Nonesuch; the tests are: Small Hidden"),
            std::string::npos)
      << out;
  // A tests file of another recording of the trace (its bytes differ).
  r.trace_fingerprint ^= 1;
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  ASSERT_EQ(run(viz + "--screenshot " + plain, &out), 0) << out;
  EXPECT_NE(out.find("is of another recording"), std::string::npos) << out;
  EXPECT_LT(count_pixels(plain, yellow), 100u)
      << "a stale tests file is not shown (the legend's yellow frame alone)";
  EXPECT_EQ(
      run(viz + "--tests " + (dir_ / "missing.json").string() + " --screenshot " + plain, &out), 2);
  EXPECT_NE(out.find("cannot read"), std::string::npos) << out;
}

// A trace kept for a method rubric that measured a figure (as cudalab check
// keeps it): the viewer opens on the figures per line with the rubric's
// line picked (its row in cyan); a test that failed with nothing drawn
// opens on what the test said.
TEST_F(Viz, AFailingRubricOpensOnItsFigures) {
  namespace tr = cudalab::trace;
  tr::TestResults r = viz_test::graded_tests_of(trace_);
  r.shown = "CoalescedStores";
  r.tests = {{"Small", "100 elements", "test", "visible", "passed", "passed", "", 2, 2},
             {"CoalescedStores", "at most 4.5 sectors a store", "rubric", "visible", "failed",
              "metric out of bounds",
              "Measured in a trace of test Small: 16.0\n  traced_add.cu:6: 16\n", 0, 1}};
  std::string why;
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  const std::string viz =
      "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " " + trace_ + " --size 1024x700 ";
  const std::string figures = (dir_ / "figures.png").string(), said = (dir_ / "said.png").string();
  std::string out;
  ASSERT_EQ(run(viz + "--screenshot " + figures, &out), 0) << out;
  EXPECT_GT(pixels_of(figures, 0, 90, 110), 1000u) << "the rubric's line picked in the figures";
  // The same trace kept for a test that failed with nothing to draw.
  r.shown = "Small";
  r.tests[0] = {"Small",
                "100 elements",
                "test",
                "visible",
                "failed",
                "wrong results",
                "alpha = 0.3 was not refused\n",
                0,
                2};
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  ASSERT_EQ(run(viz + "--screenshot " + said, &out), 0) << out;
  EXPECT_EQ(pixels_of(said, 0, 90, 110), 0u);
  // The memory window holds the test's text, not the heatmap's cells.
  const std::string cells = (dir_ / "cells.png").string();
  fs::remove(tr::test_results_path(trace_));
  ASSERT_EQ(run(viz + "--screenshot " + cells, &out), 0) << out;
  // Coloured pixels in the memory window's lower part (the grid and the
  // block's threads are coloured either way), of the 1024x700 pictures.
  auto coloured = [](const std::string& png) {
    return count_pixels(png,
                        [](int r, int g, int b) {
                          const int hi = std::max({r, g, b}), lo = std::min({r, g, b});
                          return hi > 120 && hi - lo > 60;
                        },
                        {1024 / 3, 700 * 3 / 4});
  };
  EXPECT_GT(coloured(cells), 5 * coloured(said) + 1000)
      << "the heatmap's cells without the tests file; the test's words with it";
}

// The picture leads with the bug, in each situation a failing submission
// can be in: a line of words across the top says what is wrong and where
// (red for a fault or a check's finding, yellow for wrong values, white for
// what a test said), and the view opens where the bug is: the wrong values
// framed, an access out of bounds in red, a race in shared memory or a
// barrier reached by part of a block on the steps at its phase. A trace
// with nothing wrong has no headline.
TEST_F(Viz, ThePictureLeadsWithTheBug) {
  namespace tr = cudalab::trace;
  const std::string viz = "xvfb-run -a -s '-screen 0 1400x900x24' " CUDALAB_VIZ " ";
  const viz_test::Region headline{0, 0, 1024, 30};
  auto red = [](int r, int g, int b) { return r > 200 && g < 140 && b < 130; };
  auto yellow = [](int r, int g, int b) { return r > 200 && g > 150 && b < 90; };
  auto white = [](int r, int g, int b) { return r > 220 && g > 220 && b > 220; };
  std::string out;
  // shot(TRACE, NAME): the picture of TRACE as a grader draws it.
  auto shot = [&](const std::string& trace, const std::string& name) {
    const std::string png = (dir_ / (name + ".png")).string();
    EXPECT_EQ(run(viz + trace + " --size 1024x640 --screenshot " + png, &out), 0) << out;
    return png;
  };
  // Nothing wrong: no headline (the launches window's title is at the top).
  const std::string clean = shot(trace_, "clean");
  EXPECT_LT(count_pixels(clean, red, headline) + count_pixels(clean, yellow, headline), 20u);

  // Wrong values: a yellow headline, the wrong cells framed yellow.
  tr::TestResults r = viz_test::c_left_wrong(trace_);
  std::string why;
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  const std::string wrong = shot(trace_, "wrong");
  EXPECT_GT(count_pixels(wrong, yellow, headline), 150u) << "the headline, in yellow";
  EXPECT_GT(count_pixels(wrong, yellow, {0, 30, 1024, 610}), 500u) << "the wrong cells framed";

  // Nothing drawable: the test's own words, in white; the graded test's tab.
  r.compared.clear();
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace_), r, &why)) << why;
  const std::string said = shot(trace_, "said");
  EXPECT_GT(count_pixels(said, white, headline), 100u) << "what the test said, in white";
  fs::remove(tr::test_results_path(trace_));

  // Out of bounds: a red headline, the missed cells red past the buffer.
  const std::string bugs = (dir_ / "bugs.trace").string();
  ASSERT_EQ(run("CUDALAB_CHECK=memcheck CUDALAB_TRACE=" + bugs + " " CUDALAB_TRACED_BUGS, &out), 0)
      << out;
  const std::string missed = shot(bugs, "missed");
  EXPECT_GT(count_pixels(missed, red, headline), 150u) << "the headline, in red";

  // A race in global memory: a red headline.
  const std::string global = (dir_ / "global.trace").string();
  ASSERT_EQ(
      run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + global + " " CUDALAB_TRACED_GLOBAL_RACE, &out),
      0)
      << out;
  EXPECT_GT(count_pixels(shot(global, "global"), red, headline), 150u);
  // A race on a one-word total allocated after a large input: the total is
  // drawn first, one big cell framed red with the racing threads under it,
  // in view without scrolling (the input comes after it).
  const std::string total = (dir_ / "total.trace").string();
  ASSERT_EQ(
      run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + total + " " CUDALAB_TRACED_TOTAL_RACE, &out),
      0)
      << out;
  const std::string total_png = shot(total, "total");
  EXPECT_GT(count_pixels(total_png, red, headline), 150u) << "the headline, in red";
  EXPECT_GT(count_pixels(total_png, red, {310, 455, 714, 185}), 400u)
      << "the total's cell framed red and its races named, at the top of the memory view";

  // A race in shared memory and a barrier reached by part of the block: the
  // steps, their shared memory drawn (green: read and written in the phase).
  const std::string race = (dir_ / "race.trace").string(),
                    barrier = (dir_ / "barrier.trace").string();
  ASSERT_EQ(run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + race + " " CUDALAB_TRACED_RACE, &out), 0)
      << out;
  ASSERT_EQ(
      run("CUDALAB_CHECK=synccheck CUDALAB_TRACE=" + barrier + " " CUDALAB_TRACED_BARRIER, &out), 0)
      << out;
  for (const auto& [trace, name] : {std::pair{race, "race"}, std::pair{barrier, "barrier"}}) {
    const std::string png = shot(trace, name);
    EXPECT_GT(count_pixels(png, red, headline), 150u) << name << ": the headline, in red";
    // The steps' colours: read (blue), written (orange), both (green).
    EXPECT_GT(
        pixels_of(png, 80, 150, 255) + pixels_of(png, 255, 190, 60) + pixels_of(png, 90, 220, 120),
        1000u)
        << name << ": the steps, the block's memory phase by phase";
  }

  // A kernel that never ends, stopped: the trace names the thread and its
  // line; the picture says so in red and lists what the thread went round.
  const std::string stopped = (dir_ / "stopped.trace").string();
  ASSERT_EQ(run("CUDALAB_TIMEOUT=1 CUDALAB_TRACE_MAX_ACCESSES=20000 CUDALAB_TRACE=" + stopped +
                    " " CUDALAB_TRACED_NEVER_ENDS,
                &out),
            0)
      << out;
  const tr::Trace t = tr::read_trace(stopped);
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_TRUE(t.launches[0].faulted && t.launches[0].fault.never_ended);
  const std::string& where = t.launches[0].fault.where;
  const size_t colon = where.rfind(':');
  ASSERT_NE(colon, std::string::npos) << where;
  EXPECT_NE(where.find("traced_never_ends.cu:"), std::string::npos) << where;
  const int line = std::atoi(where.c_str() + colon + 1);
  EXPECT_TRUE(line >= 10 && line <= 13) << where << ": a line of the loop";
  const std::string stopped_png = shot(stopped, "stopped");
  EXPECT_GT(count_pixels(stopped_png, red, headline), 150u) << "the headline, in red";
  EXPECT_GT(count_pixels(stopped_png, white, {0, 380, 300, 250}), 300u)
      << "the selected thread's accesses, listed";
}

TEST_F(Viz, BadTracesAndArgumentsEndWithAMessage) {
  std::ofstream(dir_ / "junk.trace") << "not a trace";
  std::string out;
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + (dir_ / "junk.trace").string(), &out), 1);
  EXPECT_NE(out.find("is not a cudalab trace"), std::string::npos) << out;
  fs::copy_file(trace_, dir_ / "cut.trace");
  fs::resize_file(dir_ / "cut.trace", fs::file_size(trace_) / 2);
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + (dir_ / "cut.trace").string(), &out), 1);
  EXPECT_NE(out.find("truncated"), std::string::npos) << out;
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + trace_ + " --launch 9", &out), 2);
  EXPECT_NE(out.find("the trace has 1 launches"), std::string::npos) << out;
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + trace_ + " --size big", &out), 2);
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " " + trace_ + " --columns 0", &out), 2);
  EXPECT_NE(out.find("--columns wants a whole number"), std::string::npos) << out;
  EXPECT_EQ(run(std::string(CUDALAB_VIZ), &out), 2);
}

}  // namespace
