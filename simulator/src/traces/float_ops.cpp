// Floating-point operations per basic block of the program, counted in its
// machine code: the instrumented build calls __sanitizer_cov_trace_pc_guard
// at the start of every basic block, so binutils' objdump, run once over the
// program at the end of a traced run, shows where each block begins, and the
// arithmetic instructions up to the next call are that block's. The
// instrumented code (the student's files, linked first) comes before the
// simulator's own: the disassembly is read only up to the last block wanted. A traced run
// knows how many lanes ran each block; lanes x operations is the FLOPs.
//
// Calls of single-precision sinf, expf, logf and the like count apart, as
// special-function operations (a GPU's special function unit computes
// them; the simulator calls the C library's).
//
// Counted as Nsight Compute counts FLOPs: an add, subtract or multiply is 1,
// a fused multiply-add 2, in single and double precision apart. Divisions
// and square roots count 1 each (a GPU computes them with several
// instructions). The instrumented build is not vectorized, so a packed
// instruction is rare; it counts once per element.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudalab/support/process.h"
#include "traces/symbols.h"
#include "traces/trace.h"

namespace cudalab::rt {
namespace {

// Operations of one instruction, by its mnemonic ("addss", "vfmadd231sd").
FloatOps ops_of(std::string m, bool wide) {
  FloatOps none;
  if (m.size() < 5) return none;
  int per = 1;  // operations per element
  if (m.rfind("vfmadd", 0) == 0 || m.rfind("vfmsub", 0) == 0 || m.rfind("vfnmadd", 0) == 0 ||
      m.rfind("vfnmsub", 0) == 0) {
    per = 2;
  } else {
    if (m[0] == 'v') m.erase(0, 1);  // the AVX form of an SSE instruction
    const std::string op = m.substr(0, m.size() - 2);
    if (op != "add" && op != "sub" && op != "mul" && op != "div" && op != "sqrt") return none;
  }
  const std::string type = m.substr(m.size() - 2);
  FloatOps r;
  if (type == "ss") r.single_ops = uint32_t(per);
  if (type == "sd") r.double_ops = uint32_t(per);
  if (type == "ps") r.single_ops = uint32_t(per * (wide ? 8 : 4));
  if (type == "pd") r.double_ops = uint32_t(per * (wide ? 4 : 2));
  return r;
}

// A call of a single-precision function a GPU computes on its special
// function unit (sinf, __expf, ...): "call   ac20 <sinf@plt>".
bool special_function(const char* operands) {
  static const char* const names[] = {"sinf", "cosf",  "tanf",   "expf", "exp2f",   "exp10f",
                                      "logf", "log2f", "log10f", "powf", "sincosf", "rsqrtf"};
  const char* open = std::strchr(operands, '<');
  if (!open) return false;
  const char* close = std::strpbrk(open, "@>");
  if (!close) return false;
  const std::string name(open + 1, close);
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace

bool count_float_ops(std::unordered_map<uintptr_t, FloatOps>& per_block, uintptr_t last_block) {
  static const bool have_objdump = !support::find_program("objdump").empty();
  if (!have_objdump) return false;
  const std::string exe = main_program_file();
  if (exe.empty()) return false;
  support::OutputOf objdump({"objdump", "-d", "--no-show-raw-insn", "-j", ".text", exe});
  FILE* p = objdump.file();
  if (!p) return false;
  const uintptr_t base = main_program_base();
  char line[1024];
  FloatOps* current = nullptr;  // the basic block whose instructions these are
  FloatOps before_first;        // a function's instructions before its first block's call
  bool call_pending = false;    // the last instruction called the block callback
  bool past_last = false;       // the last block wanted has begun
  while (std::fgets(line, sizeof(line), p)) {
    // "0000000000005c10 <kernel>:" starts a function; "    5c39:\tcall ..." is
    // an instruction.
    if (line[0] != ' ') {
      // The last block wanted ends with its function: the rest is not read
      // (objdump, left with output unread, is stopped).
      if (past_last && std::strchr(line, '<')) return true;
      if (std::strchr(line, '<')) current = nullptr, before_first = {}, call_pending = false;
      continue;
    }
    char* end = nullptr;
    const unsigned long address = std::strtoul(line, &end, 16);
    if (!end || *end != ':') continue;
    const char* text = end + 1;
    while (*text == '\t' || *text == ' ') ++text;
    if (call_pending) {  // this instruction is where the callback returns
      past_last = base + address >= last_block;
      current = &per_block[base + address];
      current->single_ops += before_first.single_ops;
      current->double_ops += before_first.double_ops;
      current->special_ops += before_first.special_ops;
      before_first = {};
      call_pending = false;
    }
    const char* word_end = text;
    while (*word_end && *word_end != ' ' && *word_end != '\t' && *word_end != '\n') ++word_end;
    const std::string mnemonic(text, word_end);
    if (mnemonic == "call" && std::strstr(word_end, "<__sanitizer_cov_trace_pc_guard>")) {
      if (past_last) return true;  // the next block: the last one wanted has ended
      call_pending = true;
      continue;
    }
    FloatOps ops = ops_of(mnemonic, std::strstr(word_end, "%ymm") != nullptr);
    if (mnemonic == "call" && special_function(word_end)) ops.special_ops = 1;
    if (!ops.single_ops && !ops.double_ops && !ops.special_ops) continue;
    FloatOps& into = current ? *current : before_first;
    into.single_ops += ops.single_ops;
    into.double_ops += ops.double_ops;
    into.special_ops += ops.special_ops;
  }
  return objdump.finish().ok();
}

}  // namespace cudalab::rt
