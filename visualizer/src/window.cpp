#include "window.h"

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
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "places.h"
#include "views.h"

namespace cudalab::viz {
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
bool save_snapshot(const std::string& dir, int* number, const FrameRecord& frame, int w, int h) {
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

int run_window(const Options& options, const trace::Trace& trace, const trace::TestResults* results,
               Selection& sel) {
  const std::string& screenshot = options.screenshot;
  const std::string& snapshots = options.snapshots;
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
  std::string title = "cudalab-viz: " + options.trace_path;
  GLFWwindow* window =
      glfwCreateWindow(int(options.width), int(options.height), title.c_str(), nullptr, nullptr);
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

  Views views(trace, results);
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
    if (snap) begin_frame_record();
    views.draw(sel, fw, fh);
    FrameRecord record;
    if (snap) record = end_frame_record();
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

}  // namespace cudalab::viz
