// cudalab-viz: opens a trace recorded with CUDALAB_TRACE and shows the grid,
// the threads of a block by warp, and which thread touched each element of
// global memory.
//
//   cudalab-viz out.trace
//   cudalab-viz out.trace --screenshot shot.png [--size 1280x800]
//               [--launch N] [--block N] [--thread N]
//   cudalab-viz out.trace --snapshots DIR    (F12 saves what is shown)
#define GL_GLEXT_PROTOTYPES
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <dlfcn.h>
#include <link.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

#include "cudalab/trace/test_results.h"
#include "cudalab/trace/trace.h"
#include "places.h"
#include "views.h"

namespace {

// The sanitizer build checks the viewer for leaks at its exit, when the GL
// driver that GLFW and libGLX load on demand has been unloaded again: what
// the driver keeps for the life of the process would then be reported as
// lost, from frames no one can name. Every library loaded once the window
// is open stays loaded, so that its memory stays reachable.
void keep_libraries_loaded() {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        if (info->dlpi_name && info->dlpi_name[0])
          dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
        return 0;
      },
      nullptr);
#endif
#endif
}

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: cudalab-viz TRACE [--screenshot FILE.png] [--size WxH]\n"
               "                   [--launch N] [--block N] [--thread N] [--metrics]\n"
               "                   [--step N [--instruction K]]\n"
               "                   [--access K] [--finding N] [--source] [--line F:N]\n"
               "                   [--columns N] [--tests FILE] [--test NAME] [--snapshots DIR]\n"
               "Shows a trace recorded with CUDALAB_TRACE=TRACE ./program, or kept by\n"
               "cudalab check --trace TRACE (then with the graded tests beside it).\n"
               "  --screenshot FILE.png  draw one frame, save it, and exit\n"
               "  --size WxH             window size (default 1280x800)\n"
               "  --launch/--block/--thread N  what is selected at the start (launch from 1,\n"
               "                         block and thread as linear indices from 0; by\n"
               "                         default the thread that faulted, if one did)\n"
               "  --metrics              open the memory window on its metrics per line\n"
               "  --step N               open it on the selected block's barrier phase N\n"
               "  --instruction K        ... as far as its warp instruction K (from 0), framed\n"
               "  --access K             open it on the warp instruction of the selected\n"
               "                         thread's access K (from 0)\n"
               "  --finding N            step to the launch's check finding N (from 1):\n"
               "                         its thread, its phase, its accesses framed\n"
               "  --source               open it on the kernel's source, figures per line\n"
               "  --line FILE.cu:N       frame the cells that line touched (cyan)\n"
               "  --columns N            draw each buffer N elements a row (a matrix's width)\n"
               "  --tests FILE           the graded tests that go with the trace (by default\n"
               "                         TRACE.tests.json, which cudalab check writes beside it):\n"
               "                         listed, and the traced test's wrong values framed yellow\n"
               "  --test NAME            open on graded test NAME: what it said, and its\n"
               "                         values against the expected ones\n"
               "  --snapshots DIR        F12 saves what is shown into DIR (made if missing):\n"
               "                         snapshot-N.png (the picture), snapshot-N.txt (every\n"
               "                         text in the windows and tooltips) and\n"
               "                         snapshot-N.places (where things are: NAME X Y W H in\n"
               "                         window pixels), N from 1, skipping the numbers\n"
               "                         already taken in DIR. Attach them to a bug report.\n"
               "Keys: in 'Step through the block', Left and Right step to the previous and\n"
               "next barrier phase, Space plays; F12 saves a snapshot (with --snapshots).\n");
  return code;
}

bool parse_number(const char* s, long lo, long hi, long* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!end || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool save_png(const std::string& path, int w, int h) {
  std::vector<unsigned char> pixels(size_t(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows go bottom to top; PNG's top to bottom.
  stbi_flip_vertically_on_write(1);
  return stbi_write_png(path.c_str(), w, h, 4, pixels.data(), w * 4) != 0;
}

// SIGTERM, or SIGINT (Ctrl-C where it was started): the viewer closes as
// its window's close button would close it.
volatile std::sig_atomic_t stop_asked = 0;

// Keys, given to Dear ImGui one change of each key a frame. Dear ImGui
// 1.86 looks at which keys are down once a frame: a press and its release
// that come in together (a quick tap on a busy machine, or keys sent by a
// test) would not be seen at all, nor a release and the next press. The
// changes wait here; each frame takes the first waiting change of each key.
struct KeyChange {
  int key, scancode, action, mods;
};
std::vector<KeyChange> key_changes;

void on_key(GLFWwindow*, int key, int scancode, int action, int mods) {
  if (action != GLFW_REPEAT) key_changes.push_back({key, scancode, action, mods});
}

// Returns whether changes still wait (for the next frame, at once).
bool give_key_changes(GLFWwindow* window) {
  std::vector<int> changed;
  std::vector<KeyChange> later;
  for (const KeyChange& c : key_changes) {
    if (std::find(changed.begin(), changed.end(), c.key) != changed.end()) {
      later.push_back(c);
      continue;
    }
    changed.push_back(c.key);
    ImGui_ImplGlfw_KeyCallback(window, c.key, c.scancode, c.action, c.mods);
  }
  key_changes = std::move(later);
  return !key_changes.empty();
}

// F12 with --snapshots DIR: the frame's picture, text and places, as
// DIR/snapshot-N.png, .txt and .places; the "saved" line comes last, once
// all three are written.
bool save_snapshot(const std::string& dir, int* number, const cudalab::viz::FrameRecord& frame,
                   int w, int h) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string base;
  do {
    base = (fs::path(dir) / ("snapshot-" + std::to_string(++*number))).string();
  } while (fs::exists(base + ".png", ec));
  for (const auto& [file, text] :
       {std::pair{base + ".txt", &frame.text}, std::pair{base + ".places", &frame.places}}) {
    std::ofstream out(file, std::ios::binary);
    if (!(out << *text) || !out.flush()) {
      std::fprintf(stderr, "cudalab-viz: cannot write %s\n", file.c_str());
      return false;
    }
  }
  if (!save_png(base + ".png", w, h)) {
    std::fprintf(stderr, "cudalab-viz: cannot write %s.png\n", base.c_str());
    return false;
  }
  std::printf("cudalab-viz: saved %s.png, .txt and .places\n", base.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path, screenshot, snapshots;
  long width = 1280, height = 800, launch = 1, block = 0, thread = -1, columns = 0, step = -1,
       access = -1, finding = 0, instruction = -1;
  bool metrics = false, chosen = false, source = false;
  std::string line, tests_path, test_name;  // chosen: --launch, --block or --thread given
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cudalab-viz: %s needs a value\n", a.c_str());
        std::exit(usage(2));
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") return usage(0);
    if (a == "--metrics") {
      metrics = true;
    } else if (a == "--source") {
      source = true;
    } else if (a == "--line") {
      line = next();
      if (line.find(':') == std::string::npos) {
        std::fprintf(stderr,
                     "cudalab-viz: --line wants FILE.cu:LINE, as the Source tab names it\n");
        return 2;
      }
    } else if (a == "--tests") {
      tests_path = next();
    } else if (a == "--test") {
      test_name = next();
    } else if (a == "--screenshot") {
      screenshot = next();
    } else if (a == "--snapshots") {
      snapshots = next();
      if (snapshots.empty()) {
        std::fprintf(stderr, "cudalab-viz: --snapshots wants a folder to save them in\n");
        return 2;
      }
      std::error_code ec, ignored;
      const bool a_file = std::filesystem::exists(snapshots, ignored) &&
                          !std::filesystem::is_directory(snapshots, ignored);
      if (!a_file) std::filesystem::create_directories(snapshots, ec);
      if (a_file || ec) {
        std::fprintf(stderr, "cudalab-viz: --snapshots %s: cannot make that folder%s%s\n",
                     snapshots.c_str(), a_file ? " (a file has that name)" : ": ",
                     a_file ? "" : ec.message().c_str());
        return 2;
      }
    } else if (a == "--size") {
      const char* v = next();
      if (std::sscanf(v, "%ldx%ld", &width, &height) != 2 || width < 320 || height < 240 ||
          width > 8192 || height > 8192) {
        std::fprintf(stderr, "cudalab-viz: --size wants WIDTHxHEIGHT, from 320x240 to 8192x8192\n");
        return 2;
      }
    } else if (a == "--step") {
      if (!parse_number(next(), 0, 65535, &step)) {
        std::fprintf(stderr, "cudalab-viz: --step wants a barrier phase from 0 to 65535\n");
        return 2;
      }
    } else if (a == "--instruction") {
      if (!parse_number(next(), 0, 1L << 30, &instruction)) {
        std::fprintf(stderr, "cudalab-viz: --instruction wants a whole number from 0\n");
        return 2;
      }
    } else if (a == "--access") {
      if (!parse_number(next(), 0, 1L << 30, &access)) {
        std::fprintf(stderr, "cudalab-viz: --access wants a whole number from 0\n");
        return 2;
      }
    } else if (a == "--finding") {
      if (!parse_number(next(), 1, 1L << 30, &finding)) {
        std::fprintf(stderr, "cudalab-viz: --finding wants a whole number from 1\n");
        return 2;
      }
    } else if (a == "--columns") {
      if (!parse_number(next(), 1, 4096, &columns)) {
        std::fprintf(stderr, "cudalab-viz: --columns wants a whole number from 1 to 4096\n");
        return 2;
      }
    } else if (a == "--launch" || a == "--block" || a == "--thread") {
      long* target = a == "--launch" ? &launch : a == "--block" ? &block : &thread;
      chosen = true;
      if (!parse_number(next(), a == "--launch" ? 1 : 0, 1L << 31, target)) {
        std::fprintf(stderr, "cudalab-viz: %s wants a whole number%s\n", a.c_str(),
                     a == "--launch" ? " from 1" : " from 0");
        return 2;
      }
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "cudalab-viz: unknown option %s\n", a.c_str());
      return usage(2);
    } else if (trace_path.empty()) {
      trace_path = a;
    } else {
      std::fprintf(stderr, "cudalab-viz: one trace at a time (got %s and %s)\n", trace_path.c_str(),
                   a.c_str());
      return 2;
    }
  }
  if (trace_path.empty()) return usage(2);
  if (!screenshot.empty() && !snapshots.empty()) {
    std::fprintf(stderr,
                 "cudalab-viz: --screenshot draws one frame and exits, --snapshots keeps the "
                 "window open for F12: give one\n");
    return 2;
  }
  if (instruction >= 0 && step < 0) {
    std::fprintf(stderr,
                 "cudalab-viz: --instruction K counts in a barrier phase: give --step N too\n");
    return 2;
  }
  if (int(metrics) + int(step >= 0) + int(access >= 0) + int(finding > 0) + int(source) +
          int(!test_name.empty()) >
      1) {
    std::fprintf(stderr,
                 "cudalab-viz: --metrics, --step, --access, --finding, --source and --test open "
                 "different tabs: give one\n");
    return 2;
  }

  cudalab::trace::Trace trace;
  try {
    trace = cudalab::trace::read_trace(trace_path);
  } catch (const cudalab::trace::TraceError& e) {
    std::fprintf(stderr, "cudalab-viz: %s\n", e.what());
    return 1;
  }
  // The graded tests beside it, when they are of this recording of it.
  std::optional<cudalab::trace::TestResults> results;
  const bool tests_asked = !tests_path.empty();
  if (!tests_asked) tests_path = cudalab::trace::test_results_path(trace_path);
  std::error_code ec;
  if (tests_asked || std::filesystem::exists(tests_path, ec)) {
    try {
      results = cudalab::trace::read_test_results(tests_path);
    } catch (const cudalab::trace::TraceError& e) {
      std::fprintf(stderr, "cudalab-viz: %s\n", e.what());
      return tests_asked ? 2 : 1;
    }
    if (results->trace_bytes != std::filesystem::file_size(trace_path, ec) ||
        results->trace_fingerprint != cudalab::trace::file_fingerprint(trace_path)) {
      std::fprintf(stderr,
                   "cudalab-viz: %s is of another recording of %s (the trace was written again "
                   "since): the graded tests are not shown. Run cudalab check --trace again.\n",
                   tests_path.c_str(), trace_path.c_str());
      if (tests_asked) return 2;
      results.reset();
    }
  }
  if (!test_name.empty() && !results) {
    std::fprintf(stderr, "cudalab-viz: --test %s, but no graded tests go with %s\n",
                 test_name.c_str(), trace_path.c_str());
    return 2;
  }
  cudalab::viz::Selection sel;
  if (!test_name.empty()) {
    const auto& tests = results->tests;
    const auto it = std::find_if(tests.begin(), tests.end(),
                                 [&](const auto& t) { return t.name == test_name; });
    if (it == tests.end()) {
      std::string names;
      for (const auto& t : tests) names += " " + t.name;
      std::fprintf(stderr, "cudalab-viz: no graded test named %s; the tests are:%s\n",
                   test_name.c_str(), names.c_str());
      return 2;
    }
    sel.test = int(it - tests.begin());
    sel.show_test = true;
  }
  sel.show_metrics = metrics;
  sel.show_steps = step >= 0;
  sel.phase = int(std::max(step, 0L));
  sel.instruction = int(instruction);
  sel.show_warp = access >= 0;
  sel.show_source = source;
  sel.line = line;
  sel.columns = int(columns);
  // Unless told otherwise: a test's wrong values open on the launch that
  // last touched them, in the rows of the test's matrix or grid (and a
  // faulted launch, below, on the thread that faulted).
  if (!chosen && results)
    for (const auto& c : results->compared)
      if (c.wrong && c.allocation)
        if (const int at = cudalab::viz::last_launch_touching(trace, c.allocation); at >= 0) {
          launch = at + 1;
          if (columns == 0 && c.row_length > 0 && c.row_length <= 4096 && c.offset == 0)
            sel.columns = int(c.row_length);
          break;
        }
  // The traced test's findings (from its run under the checks) go on the
  // launch opened when it is of their kernel, else on their kernel's first.
  if (results && !trace.launches.empty())
    for (const std::string& text : results->findings) {
      auto& launches = trace.launches;
      cudalab::trace::Finding f;
      if (!cudalab::trace::finding_from_json(text, launches[0], &f)) continue;
      auto of_its_kernel = [&](size_t i) {
        return f.kernel.empty() || launches[i].kernel == f.kernel;
      };
      size_t at = size_t(launch - 1);
      if (at >= launches.size() || !of_its_kernel(at))
        for (at = 0; at < launches.size() && !of_its_kernel(at); ++at) {
        }
      if (at < launches.size() && cudalab::trace::finding_from_json(text, launches[at], &f))
        launches[at].findings.push_back(std::move(f));
    }
  if (!chosen)
    for (size_t i = 0; i < trace.launches.size(); ++i)
      if (const auto& l = trace.launches[i]; l.faulted && l.fault.known) {
        launch = long(i) + 1;
        block = long(l.fault.block);
        thread = long(l.fault.thread);
        break;
      }
  if (!trace.launches.empty()) {
    if (launch > long(trace.launches.size())) {
      std::fprintf(stderr, "cudalab-viz: --launch %ld, but the trace has %zu launches\n", launch,
                   trace.launches.size());
      return 2;
    }
    sel.launch = int(launch - 1);
    const auto& l = trace.launches[size_t(sel.launch)];
    if (block >= long(l.grid.count()) || thread >= long(l.block.count())) {
      std::fprintf(stderr, "cudalab-viz: launch %ld has %llu blocks of %llu threads\n", launch,
                   (unsigned long long)l.grid.count(), (unsigned long long)l.block.count());
      return 2;
    }
    sel.block = int(block);
    sel.thread = int(thread);
    sel.access = int(access);
    if (finding > 0) {
      if (finding > long(l.findings.size())) {
        std::fprintf(stderr, "cudalab-viz: --finding %ld, but launch %ld has %zu findings%s\n",
                     finding, launch, l.findings.size(),
                     l.findings.empty() ? " (record the trace with CUDALAB_CHECK set)" : "");
        return 2;
      }
      const auto& f = l.findings[size_t(finding - 1)];
      if (f.block < 0) {
        std::fprintf(stderr, "cudalab-viz: finding %ld names no block to step through\n", finding);
        return 2;
      }
      // A barrier finding names a block alone: its phases, no thread.
      sel.finding = int(finding - 1);
      sel.finding_asked = true;
      sel.block = int(f.block);
      sel.thread = int(f.thread);
    }
    // Unless told otherwise: the first finding's thread (where a check saw
    // the bug), when no thread faulted.
    if (!chosen && finding == 0 && !(l.faulted && l.fault.known))
      for (const auto& f : l.findings)
        if (f.block >= 0 && f.thread >= 0) {
          sel.block = int(f.block);
          sel.thread = int(f.thread);
          break;
        }
  }
  // The tab the graded tests call for, unless one was asked for: a method
  // rubric's figure out of bounds opens the figures per line, its line
  // picked; a test with wrong results but nothing drawn that shows them
  // (no wrong element kept, no finding) opens on what the test said.
  const bool tab_asked = metrics || step >= 0 || access >= 0 || finding > 0 || source ||
                         !test_name.empty() || !line.empty();
  if (results && !tab_asked)
    for (size_t i = 0; i < results->tests.size(); ++i) {
      const auto& t = results->tests[i];
      if (t.name != results->shown || t.status == "passed") continue;
      if (t.kind == "rubric" && t.verdict == "metric out of bounds") {
        sel.show_metrics = true;
        // "file.cu:67" in what the rubric said, in its short form.
        static const std::regex where(R"(([A-Za-z0-9_.+-]+\.(cu|cuh|h)):([0-9]+))");
        if (std::smatch m; std::regex_search(t.output, m, where))
          sel.line = m[1].str() + ":" + m[3].str();
      } else {
        const bool wrong_drawn = std::any_of(results->compared.begin(), results->compared.end(),
                                             [](const auto& c) { return c.wrong > 0; });
        const bool found = std::any_of(trace.launches.begin(), trace.launches.end(),
                                       [](const auto& l) { return !l.findings.empty(); });
        if (t.kind == "test" && !wrong_drawn && !found) {
          sel.show_test = true;
          sel.test = int(i);
        }
      }
    }

  glfwSetErrorCallback(
      [](int, const char* msg) { std::fprintf(stderr, "cudalab-viz: %s\n", msg); });
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "cudalab-viz: cannot open a window (no display?). Set DISPLAY, or for "
                 "--screenshot run under xvfb-run.\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_RESIZABLE, screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
  std::string title = "cudalab-viz: " + trace_path;
  GLFWwindow* window = glfwCreateWindow(int(width), int(height), title.c_str(), nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "cudalab-viz: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  keep_libraries_loaded();
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; keep no state file
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  glfwSetKeyCallback(window, on_key);  // Dear ImGui's, through give_key_changes
  ImGui_ImplOpenGL3_Init("#version 330 core");

  cudalab::viz::Views views(trace, results ? &*results : nullptr);
  std::signal(SIGTERM, [](int) { stop_asked = 1; });
  std::signal(SIGINT, [](int) { stop_asked = 1; });
  int frames = 0, status = 0, snapshot = 0;
  bool keys_waiting = false;
  while (!glfwWindowShouldClose(window) && !stop_asked) {
    // Idle until something happens (a key, the mouse, a resize): a still
    // picture costs almost no CPU (a frame a second; ten while the steps
    // play). A screenshot draws its frames at once, and so do keys that
    // wait for their frame.
    if (screenshot.empty() && !keys_waiting)
      glfwWaitEventsTimeout(sel.playing ? 0.1 : 1.0);
    else
      glfwPollEvents();
    keys_waiting = give_key_changes(window);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // A screenshot shows what the options selected, not a tooltip of
    // wherever the pointer happens to rest on the screen.
    if (!screenshot.empty()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    // F12: this frame is saved, its text and places recorded as it is drawn.
    const bool snap = !snapshots.empty() && ImGui::IsKeyPressed(GLFW_KEY_F12, false);
    if (snap) cudalab::viz::begin_frame_record();
    views.draw(sel, fw, fh);
    cudalab::viz::FrameRecord record;
    if (snap) record = cudalab::viz::end_frame_record();
    ImGui::Render();
    glViewport(0, 0, fw, fh);
    glClearColor(0.08f, 0.08f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // A few frames first, so that windows have settled their sizes.
    if (!screenshot.empty() && ++frames == 3) {
      if (!save_png(screenshot, fw, fh)) {
        std::fprintf(stderr, "cudalab-viz: cannot write %s\n", screenshot.c_str());
        status = 1;
      } else {
        std::printf("cudalab-viz: saved %s (%dx%d)\n", screenshot.c_str(), fw, fh);
      }
      break;
    }
    if (snap) save_snapshot(snapshots, &snapshot, record, fw, fh);
    glfwSwapBuffers(window);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return status;
}
