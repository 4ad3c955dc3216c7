#include "options.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace cudalab::viz {
namespace {

void print_usage(FILE* to) {
  std::fprintf(to,
               "usage: cudalab-viz TRACE [--screenshot FILE.png] [--size WxH]\n"
               "                   [--launch N] [--block N] [--thread N] [--metrics | --roofline]\n"
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
               "  --roofline             open it on the launch's time predicted on a GPU\n"
               "                         (CUDALAB_DEVICE's, else an H200): its bound, the\n"
               "                         time at each limit, the GPU's roofline\n"
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
}

bool parse_number(const char* s, long lo, long hi, long* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!end || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

Stop refuse(std::string message, bool usage = false) { return Stop{2, std::move(message), usage}; }

}  // namespace

std::optional<Stop> parse_options(int argc, const char* const* argv, Options* out) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    // The option's value, or null (the caller stops) when it has none.
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    auto number = [&](long lo, long hi, long* to) {
      const char* v = next();
      return v && parse_number(v, lo, hi, to);
    };
    const bool takes_value = a == "--line" || a == "--tests" || a == "--test" ||
                             a == "--screenshot" || a == "--snapshots" || a == "--size" ||
                             a == "--step" || a == "--instruction" || a == "--access" ||
                             a == "--finding" || a == "--columns" || a == "--launch" ||
                             a == "--block" || a == "--thread";
    if (takes_value && i + 1 >= argc) return refuse(a + " needs a value", true);
    if (a == "--help" || a == "-h") return Stop{0, "", true};
    if (a == "--metrics") {
      o.metrics = true;
    } else if (a == "--roofline") {
      o.roofline = true;
    } else if (a == "--source") {
      o.source = true;
    } else if (a == "--line") {
      o.line = next();
      if (o.line.find(':') == std::string::npos)
        return refuse("--line wants FILE.cu:LINE, as the Source tab names it");
    } else if (a == "--tests") {
      o.tests_path = next();
    } else if (a == "--test") {
      o.test_name = next();
    } else if (a == "--screenshot") {
      o.screenshot = next();
    } else if (a == "--snapshots") {
      o.snapshots = next();
      if (o.snapshots.empty()) return refuse("--snapshots wants a folder to save them in");
      std::error_code ec, ignored;
      const bool a_file = std::filesystem::exists(o.snapshots, ignored) &&
                          !std::filesystem::is_directory(o.snapshots, ignored);
      if (!a_file) std::filesystem::create_directories(o.snapshots, ec);
      if (a_file || ec)
        return refuse("--snapshots " + o.snapshots + ": cannot make that folder" +
                      (a_file ? " (a file has that name)" : ": " + ec.message()));
    } else if (a == "--size") {
      if (std::sscanf(next(), "%ldx%ld", &o.width, &o.height) != 2 || o.width < 320 ||
          o.height < 240 || o.width > 8192 || o.height > 8192)
        return refuse("--size wants WIDTHxHEIGHT, from 320x240 to 8192x8192");
    } else if (a == "--step") {
      if (!number(0, 65535, &o.step)) return refuse("--step wants a barrier phase from 0 to 65535");
    } else if (a == "--instruction") {
      if (!number(0, 1L << 30, &o.instruction))
        return refuse("--instruction wants a whole number from 0");
    } else if (a == "--access") {
      if (!number(0, 1L << 30, &o.access)) return refuse("--access wants a whole number from 0");
    } else if (a == "--finding") {
      if (!number(1, 1L << 30, &o.finding)) return refuse("--finding wants a whole number from 1");
    } else if (a == "--columns") {
      if (!number(1, 4096, &o.columns))
        return refuse("--columns wants a whole number from 1 to 4096");
    } else if (a == "--launch" || a == "--block" || a == "--thread") {
      long* target = a == "--launch" ? &o.launch : a == "--block" ? &o.block : &o.thread;
      o.chosen = true;
      if (!number(a == "--launch" ? 1 : 0, 1L << 31, target))
        return refuse(a + " wants a whole number" + (a == "--launch" ? " from 1" : " from 0"));
    } else if (!a.empty() && a[0] == '-') {
      return refuse("unknown option " + a, true);
    } else if (o.trace_path.empty()) {
      o.trace_path = a;
    } else {
      return refuse("one trace at a time (got " + o.trace_path + " and " + a + ")");
    }
  }
  if (o.trace_path.empty()) return refuse("", true);
  if (!o.screenshot.empty() && !o.snapshots.empty())
    return refuse(
        "--screenshot draws one frame and exits, --snapshots keeps the window open for F12: "
        "give one");
  if (o.instruction >= 0 && o.step < 0)
    return refuse("--instruction K counts in a barrier phase: give --step N too");
  if (int(o.metrics) + int(o.step >= 0) + int(o.access >= 0) + int(o.finding > 0) + int(o.source) +
          int(!o.test_name.empty()) + int(o.roofline) >
      1)
    return refuse(
        "--metrics, --roofline, --step, --access, --finding, --source and --test open different "
        "tabs: give one");
  *out = o;
  return std::nullopt;
}

int print_stop(const Stop& stop) {
  if (!stop.message.empty()) std::fprintf(stderr, "cudalab-viz: %s\n", stop.message.c_str());
  if (stop.usage) print_usage(stop.status ? stderr : stdout);
  return stop.status;
}

}  // namespace cudalab::viz
