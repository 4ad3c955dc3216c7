// cudalab-viz driven as a user drives it: in a real window under Xvfb, with
// the mouse and the keys (xdotool). F12 (--snapshots DIR) saves what the
// viewer shows: the picture, every text of its windows and tooltips, and
// where its things are (heatmaps, buttons, source lines, tabs); the tests
// point at those places, then read the text and look at the pixels.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#define STB_IMAGE_IMPLEMENTATION
#include "cudalab/support/process.h"
#include "cudalab/trace/test_results.h"
#include "pictures.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

using viz_test::run;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts `command` (through sh) in a process group of its own, so that it
// and what it starts can be stopped together; returns its id, or -1.
pid_t spawn(const std::string& command) {
  cudalab::support::Child child;
  child.argv = {"/bin/sh", "-c", command};
  child.own_group = true;
  return cudalab::support::start(child);
}

// Waits up to `limit` for process `pid` to end. With `reap`, collects it
// (its exit status into *status, -1 when a signal ended it); without, it
// is left to be collected, so that its id and its process group's are not
// given to another process yet.
bool ended(pid_t pid, std::chrono::milliseconds limit, bool reap = true, int* status = nullptr) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | (reap ? 0 : WNOWAIT)) != 0)
      return false;
    if (info.si_pid == pid) {
      if (status) *status = info.si_code == CLD_EXITED ? info.si_status : -1;
      return true;
    }
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(50ms);
  }
}

// A rectangle of a snapshot's .places file: "NAME X Y W H [cell C columns N]".
struct Place {
  int x = 0, y = 0, w = 0, h = 0;
  double cell = 0;
  int columns = 0;
  bool operator==(const Place&) const = default;
  // The middle of the rectangle, or of its cell `i` (a heatmap's element).
  std::pair<int, int> middle() const { return {x + w / 2, y + h / 2}; }
  std::pair<int, int> cell_middle(int i) const {
    if (columns <= 0) return middle();
    return {x + int((i % columns + 0.5) * cell), y + int((i / columns + 0.5) * cell)};
  }
};

// What one F12 saved.
struct Snapshot {
  bool saved = false;
  std::string text, png;
  std::map<std::string, Place> places;
  bool has(const std::string& name) const { return places.count(name) > 0; }
  // The place called `name` (a failure of the test when there is none).
  Place at(const std::string& name) const {
    const auto it = places.find(name);
    EXPECT_NE(it, places.end()) << "no place " << name << " in the snapshot";
    return it == places.end() ? Place{} : it->second;
  }
};

Snapshot read_snapshot(const fs::path& base) {
  Snapshot s;
  s.saved = true;
  s.text = read_file(base.string() + ".txt");
  s.png = base.string() + ".png";
  std::istringstream places(read_file(base.string() + ".places"));
  for (std::string line; std::getline(places, line);) {
    std::istringstream in(line);
    std::string name, word;
    Place p;
    in >> name >> p.x >> p.y >> p.w >> p.h;
    while (in >> word) {
      if (word == "cell") in >> p.cell;
      if (word == "columns") in >> p.columns;
    }
    s.places[name] = p;
  }
  return s;
}

// Pixels of a PNG inside a rectangle that `keep(r, g, b)` picks.
template <class Keep>
size_t count_pixels(const std::string& png, const Place& in, Keep keep) {
  return viz_test::count_pixels(png, keep, {in.x, in.y, in.w, in.h});
}

size_t pixels_of(const std::string& png, const Place& in, int r, int g, int b) {
  return viz_test::pixels_of(png, r, g, b, {in.x, in.y, in.w, in.h});
}

// One viewer in a virtual X server of its own. Every wait has a limit: a
// viewer that does not answer fails the test, it never hangs it.
class Viewer {
 public:
  ~Viewer() { stop(); }

  // Starts an X server (xvfb-run) and cudalab-viz on `trace` with `args`,
  // saving its snapshots into `dir`; waits for its window.
  ::testing::AssertionResult start(const fs::path& dir, const std::string& trace,
                                   const std::string& args) {
    dir_ = dir;
    // xvfb-run -a picks a free display; two tests starting at once can
    // pick the same one, and one of them then fails: try again.
    for (int attempt = 0; attempt < 3 && display_.empty(); ++attempt) {
      const fs::path said = dir / ("display" + std::to_string(attempt));
      server_ = spawn(
          "exec xvfb-run -a -s '-screen 0 1400x900x24' sh -c 'echo \"$DISPLAY "
          "$XAUTHORITY $$\" > " +
          said.string() + ".tmp && mv " + said.string() + ".tmp " + said.string() +
          " && exec sleep 600' >" + said.string() + ".log 2>&1");
      const auto until = std::chrono::steady_clock::now() + 30s;
      while (!fs::exists(said) && std::chrono::steady_clock::now() < until &&
             !ended(server_, 0ms, false))
        std::this_thread::sleep_for(50ms);
      std::istringstream in(read_file(said));
      in >> display_ >> xauthority_ >> holder_;
      if (display_.empty()) stop_server();
    }
    if (display_.empty()) return ::testing::AssertionFailure() << "xvfb-run did not start";
    env_ = "DISPLAY=" + display_ + " XAUTHORITY=" + xauthority_ + " ";
    out_ = dir / "viz.out";
    viewer_ = spawn(env_ + "exec " CUDALAB_VIZ " " + trace + " --size 1280x800 --snapshots " +
                    (dir / "snaps").string() + " " + args + " >" + out_.string() + " 2>&1");
    std::string out;
    if (run(env_ + "timeout 30 xdotool search --sync --onlyvisible --name '^cudalab-viz'", &out) !=
        0)
      return ::testing::AssertionFailure()
             << "no cudalab-viz window in 30 s: " << out << read_file(out_);
    window_ = out.substr(0, out.find('\n'));
    // The pointer into the window: it gets the keys (there is no window
    // manager to give it the focus).
    return xdo("mousemove --window " + window_ + " 640 5");
  }

  // An xdotool command (with a time limit).
  ::testing::AssertionResult xdo(const std::string& command) {
    std::string out;
    if (run(env_ + "timeout 20 xdotool " + command, &out) != 0)
      return ::testing::AssertionFailure() << "xdotool " << command << ": " << out;
    return ::testing::AssertionSuccess();
  }
  // The pointer to (x, y) in window pixels; a rest for the frame it causes.
  ::testing::AssertionResult move(std::pair<int, int> at) {
    auto r = xdo("mousemove --window " + window_ + " " + std::to_string(at.first) + " " +
                 std::to_string(at.second));
    std::this_thread::sleep_for(300ms);
    return r;
  }
  ::testing::AssertionResult click(std::pair<int, int> at) {
    auto r = move(at);
    if (r) r = xdo("click 1");
    std::this_thread::sleep_for(300ms);
    return r;
  }
  ::testing::AssertionResult key(const std::string& name) {
    auto r = xdo("key " + name);
    std::this_thread::sleep_for(300ms);
    return r;
  }

  // F12, then the snapshot it saved (saved == false: none in 30 s).
  Snapshot snap() {
    const fs::path base = dir_ / "snaps" / ("snapshot-" + std::to_string(++snaps_));
    if (!xdo("key F12")) return {};
    const std::string saved = "cudalab-viz: saved " + base.string() + ".png";
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (read_file(out_).find(saved) == std::string::npos) {
      if (std::chrono::steady_clock::now() > until) {
        ADD_FAILURE() << "no snapshot " << base << " in 30 s; the viewer said:\n"
                      << read_file(out_);
        return {};
      }
      std::this_thread::sleep_for(50ms);
    }
    return read_snapshot(base);
  }
  // Snapshots until the text has `wanted` and the places stay where they
  // were in the snapshot before: what a click or a key changes takes a
  // frame or two to be drawn, and Dear ImGui lays a window out again in
  // the frame after its contents grew (a scroll bar comes, the cells
  // shrink), so a place is only pointed at once it holds still.
  Snapshot snap_until(const std::string& wanted = "", int tries = 8) {
    Snapshot s, before;
    for (int i = 0; i < tries; ++i) {
      before = std::move(s);
      s = snap();
      if (!s.saved) return s;
      if (s.text.find(wanted) != std::string::npos && before.saved && s.places == before.places)
        return s;
    }
    ADD_FAILURE() << "no snapshot shows \"" << wanted << "\" with its places still; the last one's "
                  << "text:\n"
                  << s.text;
    return s;
  }

  // Closes the viewer (SIGTERM: as its window's close button) and the X
  // server; the viewer's exit status, or -1.
  int stop() {
    int status = -1;
    if (viewer_ > 0) {
      kill(viewer_, SIGTERM);
      if (!ended(viewer_, 10s, false)) kill(-viewer_, SIGKILL);
      if (!ended(viewer_, 10s, true, &status)) status = -1;
      viewer_ = -1;
    }
    stop_server();
    return status;
  }
  bool running() const { return viewer_ > 0; }
  std::string said() const { return read_file(out_); }

 private:
  void stop_server() {
    // Ending the command that xvfb-run waits for lets it stop the server
    // and remove its files. It can fail to stop the server ("problem while
    // cleaning up temporary directory"): what is left of its process group
    // is stopped too, before xvfb-run is collected.
    if (holder_ > 0) kill(holder_, SIGTERM);
    if (server_ > 0) {
      ended(server_, 10s, false);
      kill(-server_, SIGTERM);
      if (!ended(server_, 5s)) {
        kill(-server_, SIGKILL);
        ended(server_, 5s);
      }
    }
    server_ = holder_ = -1;
    display_.clear();
  }

  fs::path dir_, out_;
  std::string display_, xauthority_, env_, window_;
  pid_t server_ = -1, viewer_ = -1, holder_ = -1;
  int snaps_ = 0;
};

class Input : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"xvfb-run", "xdotool"})
      if (run(std::string("command -v ") + tool) != 0)
        GTEST_SKIP() << tool
                     << " is not installed; these tests drive the viewer with it "
                        "(apt-get install xvfb xdotool)";
    dir_ = viz_test::test_folder("cudalab-viz-input-");
  }
  void TearDown() override {
    if (!dir_.empty()) {
      if (viewer_.running())
        EXPECT_EQ(viewer_.stop(), 0) << "the viewer should close cleanly:\n" << viewer_.said();
      viewer_.stop();
      // A failed test's snapshots are kept, to be looked at.
      if (HasFailure() || std::getenv("CUDALAB_KEEP_SNAPSHOTS"))
        std::printf("the viewer's snapshots are in %s\n", (dir_ / "snaps").c_str());
      else
        fs::remove_all(dir_);
    }
  }
  // Records a trace with one of the traced test programs.
  std::string record(const char* program) {
    const std::string trace = (dir_ / "t.trace").string();
    std::string out;
    EXPECT_EQ(run("CUDALAB_TRACE=" + trace + " " + program, &out), 0) << out;
    return trace;
  }
  fs::path dir_;
  Viewer viewer_;
};

// The first line of `text` that has both `a` and `b`, or "".
std::string line_with(const std::string& text, const std::string& a, const std::string& b) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return line;
  return "";
}

// Light pixels: text (the tooltip's words).
size_t text_pixels(const std::string& png, const Place& in) {
  return count_pixels(png, in, [](int r, int g, int b) { return r > 180 && g > 180 && b > 180; });
}

// Hovering a cell lists every access to it, in order, with the thread and
// the line, in a tooltip beside the pointer: c[70] of the vector add was
// written once, by thread 6 of block 1.
TEST_F(Input, HoveringACellListsItsAccessesInOrder) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_PROGRAM), ""));
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  const Place c = s.at("heatmap:c");
  EXPECT_EQ(c.columns, 64);
  ASSERT_TRUE(viewer_.move(c.cell_middle(70)));
  s = viewer_.snap_until("c[70]");
  EXPECT_NE(s.text.find("c[70]\n1. thread (6,0,0) of block (1,0,0) wrote at traced_add.cu:6\n"),
            std::string::npos)
      << s.text;
  EXPECT_EQ(s.text.find("2. "), std::string::npos) << "one access to c[70]:\n" << s.text;
  // The tooltip is on the picture, beside the pointer, with its words.
  ASSERT_TRUE(s.has("window:tooltip")) << s.text;
  const Place tip = s.at("window:tooltip");
  EXPECT_LT(std::abs(tip.x - c.cell_middle(70).first), 60);
  EXPECT_GT(text_pixels(s.png, tip), 100u);
}

// The tiled product reads a[0] twice, from blocks (0,0,0) and (1,0,0):
// both listed, numbered in the order they read it (the blocks run side by
// side, so either can be first).
TEST_F(Input, AnElementReadByTwoBlocksListsBoth) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_TILES), ""));
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  ASSERT_TRUE(viewer_.move(s.at("heatmap:a").cell_middle(0)));
  s = viewer_.snap_until("a[0]\n");
  const std::string first = "thread (0,0,0) of block (0,0,0) read at traced_tiles.cu:14\n",
                    second = "thread (0,0,0) of block (1,0,0) read at traced_tiles.cu:14\n";
  EXPECT_TRUE(s.text.find("a[0]\n1. " + first + "2. " + second) != std::string::npos ||
              s.text.find("a[0]\n1. " + second + "2. " + first) != std::string::npos)
      << s.text;
  EXPECT_EQ(s.text.find("3. "), std::string::npos) << s.text;
}

// A write past the end of a buffer is drawn red where the element would
// be, and named: hovering it says which element of which buffer it missed,
// and who wrote there; clicking it selects that thread, whose accesses say
// the same.
TEST_F(Input, AnOutOfBoundsWriteIsDrawnAndNamed) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_BUGS), ""));
  // The viewer opens on the launch that faulted (the second); the first
  // one, picked with a click, writes past the end of c.
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  EXPECT_NE(s.text.find("FAULTED: thread (0,0,0) of block (0,0,0) at traced_bugs.cu:12"),
            std::string::npos)
      << s.text;
  ASSERT_TRUE(viewer_.click(s.at("launch:1").middle()));
  s = viewer_.snap_until("28 outside c (listed under each buffer");
  // c has 100 elements, 64 a row; the 28 writes past its end ([100] to
  // [127]) are the rest of the second row, red.
  const Place c = s.at("heatmap:c");
  EXPECT_EQ(c.columns, 64);
  EXPECT_EQ(c.h, int(std::lround(2 * c.cell))) << "two rows: 100 elements and 28 past the end";
  const Place missed{c.cell_middle(110).first - 2, c.cell_middle(110).second - 2, 4, 4};
  const Place inside{c.cell_middle(50).first - 2, c.cell_middle(50).second - 2, 4, 4};
  EXPECT_EQ(pixels_of(s.png, missed, 235, 40, 40), 16u) << "c[110] drawn red";
  EXPECT_EQ(pixels_of(s.png, inside, 235, 40, 40), 0u) << "c[50] is in c";
  ASSERT_TRUE(viewer_.move(c.cell_middle(110)));
  s = viewer_.snap_until("c[110]: past the end of c");
  EXPECT_NE(s.text.find("c[110]: past the end of c, which has elements [0] to [99]\n"
                        "thread (46,0,0) of block (1,0,0) wrote at traced_bugs.cu:9\n"),
            std::string::npos)
      << s.text;
  ASSERT_TRUE(viewer_.click(c.cell_middle(110)));
  s = viewer_.snap_until("thread (46,0,0) of block (1,0,0)\n");
  EXPECT_NE(s.text.find("write  element [110] of c, which has elements [0] to [99]  "
                        "traced_bugs.cu:9  (out of bounds)"),
            std::string::npos)
      << s.text;
}

// The tiled product's block (1,1,0) step by step: phase 0 loads the tiles
// into shared memory, phase 1 (after the first __syncthreads()) only reads
// them. Right and Left step, so do the buttons; Space plays.
TEST_F(Input, KeysAndButtonsStepThroughTheBarrierPhases) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_TILES), "--block 3 --thread 0 --step 0"));
  Snapshot s = viewer_.snap_until("[ < previous ] [ play ] [ next > ] { phase 0 }");
  // Where ta[0][0] is: thread 0 writes it at line 14, and its accesses say
  // which word of the block's shared memory that is (the tiles do not
  // start at word 0, and where they start depends on the build).
  const std::string write_ta = line_with(s.text, "write  shared [", "traced_tiles.cu:14");
  ASSERT_FALSE(write_ta.empty()) << s.text;
  const int ta = std::atoi(write_ta.c_str() + write_ta.find('[') + 1);
  const std::string shared = "steps:__shared___memory_of_this_block";
  ASSERT_TRUE(s.has(shared)) << s.text;
  const size_t written0 = pixels_of(s.png, s.at(shared), 255, 190, 60);
  EXPECT_GT(written0, 100 * 100u) << "phase 0 writes both tiles (512 words) into shared memory";
  ASSERT_TRUE(viewer_.key("Right"));
  s = viewer_.snap_until("[ < previous ] [ play ] [ next > ] { phase 1 }");
  EXPECT_EQ(pixels_of(s.png, s.at(shared), 255, 190, 60), 0u) << "phase 1 writes nothing";
  EXPECT_GT(pixels_of(s.png, s.at(shared), 80, 150, 255), 100 * 100u) << "it reads the tiles";
  // Who touched ta[0][0] in phase 1: the 16 threads of the tile's first
  // row read it at line 17 (the first 8 listed).
  ASSERT_TRUE(viewer_.move(s.at(shared).cell_middle(ta)));
  const std::string hovered = "[" + std::to_string(ta) + "] in phase 1:\n";
  s = viewer_.snap_until(hovered);
  EXPECT_NE(s.text.find(hovered + "thread (0,0,0) of block (1,1,0) read at "
                                  "traced_tiles.cu:17\nthread (1,0,0) of block (1,1,0) read at "
                                  "traced_tiles.cu:17\n"),
            std::string::npos)
      << s.text;
  EXPECT_EQ(s.text.find("wrote at traced_tiles.cu"), std::string::npos) << s.text;
  // The next button, then Left: phase 2, then 1 again.
  ASSERT_TRUE(viewer_.click(s.at("steps:next").middle()));
  s = viewer_.snap_until("[ < previous ] [ play ] [ next > ] { phase 2 }");
  ASSERT_TRUE(viewer_.key("Left"));
  s = viewer_.snap_until("[ < previous ] [ play ] [ next > ] { phase 1 }");
  // Space plays, and pauses again.
  ASSERT_TRUE(viewer_.key("space"));
  s = viewer_.snap_until("[ < previous ] [ pause ] [ next > ] { phase ");
  ASSERT_TRUE(viewer_.key("space"));
  s = viewer_.snap_until("[ < previous ] [ play ] [ next > ] { phase ");
}

// Clicking a line in the Source tab picks it: the cells it touched are
// framed in cyan in 'Who touched each element'. Line 14 reads a (into
// shared memory): a's cells are framed, nothing else.
TEST_F(Input, ClickingASourceLineFramesTheCellsItTouched) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_TILES), "--source"));
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  EXPECT_EQ(s.text.find("Picked:"), std::string::npos) << "no line picked yet";
  ASSERT_TRUE(viewer_.click(s.at("source:traced_tiles.cu:14").middle()));
  s = viewer_.snap_until("Picked: traced_tiles.cu:14.");
  ASSERT_TRUE(viewer_.click(s.at("tab:Who_touched_each_element").middle()));
  s = viewer_.snap_until("allocation 1 a:");
  // The legend has a cyan frame of its own.
  const size_t in_a = pixels_of(s.png, s.at("heatmap:a"), 0, 235, 255),
               in_memory = pixels_of(s.png, s.at("window:Memory"), 0, 235, 255),
               in_legend = pixels_of(s.png, s.at("legend:the_picked_line's"), 0, 235, 255);
  EXPECT_GT(in_a, 2000u) << "a's cells framed";
  EXPECT_GT(in_legend, 0u) << "the legend's cyan frame";
  EXPECT_EQ(in_memory, in_a + in_legend) << "and nothing else";
  // Clicking the line again drops it: no frames.
  ASSERT_TRUE(viewer_.click(s.at("tab:Source").middle()));
  s = viewer_.snap_until("Picked: traced_tiles.cu:14.");
  ASSERT_TRUE(viewer_.click(s.at("source:traced_tiles.cu:14").middle()));
  s = viewer_.snap_until("(cyan).\n");  // not "(cyan). Picked: ..."
  ASSERT_TRUE(viewer_.click(s.at("tab:Who_touched_each_element").middle()));
  s = viewer_.snap_until("allocation 1 a:");
  EXPECT_EQ(pixels_of(s.png, s.at("window:Memory"), 0, 235, 255),
            pixels_of(s.png, s.at("legend:the_picked_line's"), 0, 235, 255))
      << "the legend's frame alone";
}

// Clicking one of the selected thread's accesses opens its warp
// instruction: thread 17's write of tb (its fourth access) against the 32
// banks of shared memory, then its read of a against the sectors it moves.
TEST_F(Input, ClickingAnAccessOpensItsWarpInstruction) {
  ASSERT_TRUE(viewer_.start(dir_, record(CUDALAB_TRACED_TILES), "--block 0 --thread 17"));
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  EXPECT_TRUE(line_with(s.text, "write  shared [", "traced_tiles.cu:15").size()) << s.text;
  ASSERT_TRUE(viewer_.click(s.at("access:3").middle()));
  s = viewer_.snap_until("banks (4-byte words;");
  EXPECT_NE(s.text.find("traced_tiles.cu:15: a write of 4 bytes a lane by 32 of the 32 lanes of "
                        "warp 0 (threads 0 to 31) of block (0,0,0), in shared memory"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("1 wavefront (the least it could take: 1): no bank conflict"),
            std::string::npos)
      << s.text;
  EXPECT_GT(pixels_of(s.png, s.at("window:Memory"), 90, 220, 120), 32 * 100u)
      << "the 32 banks, each one word";
  ASSERT_TRUE(viewer_.click(s.at("access:0").middle()));
  s = viewer_.snap_until("32-byte sectors moved");
  EXPECT_NE(s.text.find("traced_tiles.cu:14: a read of 4 bytes a lane by 32 of the 32 lanes"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("4 sectors of 32 bytes moved for 128 bytes asked: 100 % of what moved "
                        "was used"),
            std::string::npos)
      << s.text;
}

// The failing test's view (the graded tests beside the trace, as cudalab
// check --trace writes them): clicking the test in the list opens what it
// said and its values against the expected ones; clicking a wrong element's
// writer selects that thread.
TEST_F(Input, AFailingTestIsShownBesideItsTrace) {
  const std::string trace = record(CUDALAB_TRACED_PROGRAM);
  namespace tr = cudalab::trace;
  tr::TestResults r = viz_test::graded_tests_of(trace);
  r.tests = {{"Passing", "one element", "test", "visible", "passed", "passed", "", 1, 1},
             {"Small", "100 elements", "test", "visible", "failed", "wrong results",
              "c[40] is 0, expected 1\n", 0, 2}};
  tr::Comparison c;
  c.name = "c";
  c.allocation = 3;  // a, b, c: the third cudaMalloc of traced_add
  c.count = 100;
  c.wrong = 2;
  c.runs = {{40, 2}};
  c.elements = {{40, "0", "1"}, {41, "0", "1.5"}};
  r.compared = {c};
  std::string why;
  ASSERT_TRUE(tr::write_test_results(tr::test_results_path(trace), r, &why)) << why;
  ASSERT_TRUE(viewer_.start(dir_, trace, ""));
  Snapshot s = viewer_.snap_until("Graded tests of mine.cu: 1 of 2 passed");
  ASSERT_TRUE(s.saved) << s.text;
  EXPECT_NE(s.text.find("Wrong at the end of test Small: 2 of the 100 elements of c"),
            std::string::npos)
      << s.text;
  ASSERT_TRUE(viewer_.click(s.at("test:Small").middle()));
  s = viewer_.snap_until("c: 2 of 100 elements wrong");
  EXPECT_NE(s.text.find("FAIL  0.0/2.0  Small: 100 elements"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("c[40] is 0, expected 1"), std::string::npos) << "what the test said";
  EXPECT_FALSE(line_with(s.text, "c[41]", "1.5").empty()) << s.text;
  // c[41] was written by thread 41 of block 0 (traced_add.cu:6).
  ASSERT_TRUE(viewer_.click(s.at("writer:c[41]").middle()));
  s = viewer_.snap_until("thread (41,0,0) of block (0,0,0)\n");
  EXPECT_TRUE(s.saved) << s.text;
}

// A bank conflict drawn as `cudalab stats` counts it: a warp reads a column
// of a 32x32 shared tile (access_patterns.cu:28, thread 0's sixth access in
// shared_patterns, the seventh launch). stats gives that line 32 wavefronts
// a request; the warp's drawing says the same and the 32 words in one bank.
TEST_F(Input, ABankConflictIsDrawnAsCudalabStatsCountsIt) {
  const std::string trace = record(CUDALAB_TRACED_PATTERNS);
  std::string stats;
  ASSERT_EQ(run(std::string(CUDALAB_CLI) + " stats " + trace, &stats), 0) << stats;
  const std::string row = line_with(stats, "load   access_patterns.cu:28", "");
  ASSERT_FALSE(row.empty()) << stats;
  // "load   access_patterns.cu:28   32   1024   32.00   992": requests,
  // wavefronts, wavefronts a request, conflicts.
  std::istringstream in(row.substr(row.find(":28") + 3));
  double requests = 0, wavefronts = 0, per_request = 0, conflicts = 0;
  in >> requests >> wavefronts >> per_request >> conflicts;
  ASSERT_EQ(per_request, 32.0) << row;
  ASSERT_TRUE(viewer_.start(dir_, trace, "--launch 7 --block 0 --thread 0"));
  Snapshot s = viewer_.snap_until();
  ASSERT_TRUE(s.saved);
  ASSERT_TRUE(viewer_.click(s.at("access:5").middle()));
  s = viewer_.snap_until("banks (4-byte words;");
  EXPECT_NE(s.text.find("access_patterns.cu:28: a read of 4 bytes a lane by 32 of the 32 lanes"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find(std::to_string(int(per_request)) + " wavefronts (the least it could take: "
                                                           "1)"),
            std::string::npos)
      << s.text;
  // The 32 words in one bank: drawn as a conflict (the written colour), no
  // bank of one word.
  EXPECT_GT(pixels_of(s.png, s.at("window:Memory"), 255, 190, 60), 31 * 20u)
      << "one bank holding the 32 words";
}

// --snapshots: a folder it can make or use; not with --screenshot.
TEST(InputOptions, SnapshotsWantAFolder) {
  const fs::path dir =
      fs::temp_directory_path() / ("cudalab-viz-options-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "not a folder";
  std::ofstream(dir / "t.trace") << "not a trace";
  const std::string viz = std::string(CUDALAB_VIZ) + " " + (dir / "t.trace").string();
  std::string out;
  EXPECT_EQ(run(viz + " --snapshots " + (dir / "file").string(), &out), 2);
  EXPECT_NE(out.find("cannot make that folder (a file has that name)"), std::string::npos) << out;
  EXPECT_EQ(run(viz + " --snapshots " + (dir / "file" / "under").string(), &out), 2);
  EXPECT_NE(out.find("cannot make that folder: "), std::string::npos) << out;
  EXPECT_EQ(run(viz + " --snapshots ''", &out), 2);
  EXPECT_NE(out.find("--snapshots wants a folder"), std::string::npos) << out;
  EXPECT_EQ(run(viz + " --snapshots", &out), 2);
  EXPECT_NE(out.find("--snapshots needs a value"), std::string::npos) << out;
  EXPECT_EQ(run(viz + " --snapshots " + (dir / "new").string() + " --screenshot x.png", &out), 2);
  EXPECT_NE(out.find("give one"), std::string::npos) << out;
  EXPECT_TRUE(fs::is_directory(dir / "new")) << "made when missing";
  EXPECT_EQ(run(std::string(CUDALAB_VIZ) + " --help", &out), 0);
  EXPECT_NE(out.find("--snapshots DIR"), std::string::npos) << out;
  EXPECT_NE(out.find("F12 saves"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
