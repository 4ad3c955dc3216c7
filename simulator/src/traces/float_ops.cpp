// Floating-point operations per basic block of the program, counted in its
// machine code: the instrumented build calls __sanitizer_cov_trace_pc_guard
// at the start of every basic block, so binutils' objdump, run once over the
// program at the end of a traced run, shows where each block begins, and the
// arithmetic instructions up to the next call are that block's. The
// instrumented code (the student's files, linked first) comes before the
// simulator's own: the disassembly is read only up to the last block wanted. A traced run
// knows how many lanes ran each block; lanes x operations is the FLOPs.
//
// A call of the C library's fmaf or fma (the host's code has no FMA
// instruction) counts as the one fused multiply-add it is on a GPU.
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
//
// Each block's own work is also estimated in a GPU's instructions, for the
// predicted time's instruction issue: its arithmetic, logic, compare,
// conditional-branch, conversion and address (lea) instructions count 1
// each, an integer division 16 and a floating-point division or square
// root what nvcc's code for it takes (a GPU has no instruction for them: it
// computes them in several), a call of a math library function its
// measured instructions,
// a floating-point multiply 0 (nvcc fuses it with its add);
// moves, pushes, calls and jumps do not count (a GPU keeps values in its
// many registers), nor a compare with a constant and the branch after it
// (a loop of a count known when compiled: nvcc unrolls it), nor in such a
// loop its index arithmetic (folded_index_arithmetic, below), nor the
// instrumentation: the arguments set up for
// the simulator's hooks just before a call, and the check each use of
// threadIdx and the like makes that its thread-local storage is ready.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

// Whether a call's operands ("ac20 <sinf@plt>") name one of `names`.
template <size_t N>
bool calls_one_of(const char* operands, const char* const (&names)[N]) {
  const char* open = std::strchr(operands, '<');
  if (!open) return false;
  const char* close = std::strpbrk(open, "@>");
  if (!close) return false;
  const std::string name(open + 1, close);
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// A call of a single-precision function a GPU computes on its special
// function unit (sinf, __expf, ...): "call   ac20 <sinf@plt>".
bool special_function(const char* operands) {
  static const char* const names[] = {"sinf",
                                      "cosf",
                                      "tanf",
                                      "expf",
                                      "exp2f",
                                      "exp10f",
                                      "logf",
                                      "log2f",
                                      "log10f",
                                      "powf",
                                      "sincosf",
                                      "rsqrtf",
                                      "cudalab_fast_expf",
                                      "cudalab_fast_exp10f",
                                      "cudalab_fast_logf",
                                      "cudalab_fast_log2f",
                                      "cudalab_fast_log10f",
                                      "cudalab_fast_powf",
                                      "cudalab_fast_sinf",
                                      "cudalab_fast_cosf",
                                      "cudalab_fast_tanf",
                                      "cudalab_fast_rsqrtf",
                                      "cudalab_fast_fdividef"};
  return calls_one_of(operands, names);
}

// A GPU's instructions for a call of a math library function (nvcc -O3 for
// sm_90: what Nsight Compute counts for a call, less a kernel without it;
// predict/calibration/math_instructions.cu and its figures in
// math_instructions.txt, which the simulator's tests hold this table to).
// 0: not measured (the call counts as a special function's 2, or nothing).
uint32_t gpu_instructions_of_call(const char* operands) {
  static const std::pair<const char*, uint32_t> table[] = {
      {"sinf", 28},  {"cosf", 29},  {"tanf", 25},   {"expf", 10}, {"exp2f", 4},  {"exp10f", 10},
      {"logf", 26},  {"log2f", 30}, {"log10f", 27}, {"powf", 72}, {"rsqrtf", 4}, {"atanf", 19},
      {"tanhf", 17}, {"erff", 30},  {"sin", 45},    {"cos", 46},  {"exp", 49},   {"log", 84},
      {"pow", 187},  {"sqrtf", 10}, {"sqrt", 18}};
  const char* open = std::strchr(operands, '<');
  if (!open) return 0;
  const char* close = std::strpbrk(open, "@>");
  if (!close) return 0;
  const std::string name(open + 1, close);
  for (const auto& [n, instructions] : table)
    if (name == n) return instructions;
  return 0;
}

// A call of the C library's fused multiply-add (the host has no FMA
// instruction without -mfma; a GPU's is one instruction, 2 FLOPs): 1 for
// fmaf, 2 for fma (double), 0 for another call.
int fused_multiply_add(const char* operands) {
  static const char* const single[] = {"fmaf"};
  static const char* const dbl[] = {"fma"};
  return calls_one_of(operands, single) ? 1 : calls_one_of(operands, dbl) ? 2 : 0;
}

// A GPU's instructions for a division or square root, which it computes in
// several (the same measurements): a float's 12 and 10, a double's 17
// and 18.
uint32_t gpu_instructions_of_division(const std::string& m) {
  const bool sqrt = m.find("sqrt") != std::string::npos;
  const bool dbl = m.size() >= 2 && m.compare(m.size() - 2, 2, "sd") == 0;
  return sqrt ? (dbl ? 18 : 10) : (dbl ? 17 : 12);
}

// A GPU's instructions for one machine instruction of the block's own work
// (0 for moves, calls, jumps and the like).
uint32_t work_of(const std::string& m) {
  static const char* const none[] = {"mov",  "push", "pop",      "call", "ret",   "jmp",
                                     "nop",  "xchg", "data",     "cs",   "endbr", "leave",
                                     "ud2",  "int3", "hlt",      "cqo",  "cdq",   "cltq",
                                     "cltd", "cqto", "prefetch", "lock", "rep",   "vzeroupper"};
  if (m.rfind("popcnt", 0) == 0) return 1;
  for (const char* n : none)
    if (m.rfind(n, 0) == 0) return 0;
  if (m == "div" || m == "idiv" || m.rfind("divl", 0) == 0 || m.rfind("divq", 0) == 0 ||
      m.rfind("idivl", 0) == 0 || m.rfind("idivq", 0) == 0)
    return 16;
  if (m.find("div") != std::string::npos || m.find("sqrt") != std::string::npos)
    return gpu_instructions_of_division(m);
  // A floating-point multiply: nvcc fuses it with the add that follows
  // (one FMA instruction), where the host's code has two.
  if (m.rfind("mul", 0) == 0 || m.rfind("vmul", 0) == 0)
    return m.size() > 3 && (m.back() == 's' || m.back() == 'd') && m[m.size() - 2] != 'u' ? 0 : 1;
  return 1;
}

// The register an instruction writes, for AT&T syntax its last operand:
// "%edi" in "lea 0x8(%rbx),%edi".
bool writes_argument_register(const char* operands) {
  const char* comma = std::strrchr(operands, ',');
  const char* last = comma ? comma + 1 : operands;
  while (*last == ' ' || *last == '\t') ++last;
  static const char* const args[] = {"%rdi", "%edi", "%rsi", "%esi", "%rdx",
                                     "%edx", "%rcx", "%ecx", "%r8",  "%r9"};
  for (const char* a : args)
    if (std::strncmp(last, a, std::strlen(a)) == 0) return true;
  return false;
}

// A call of a double-precision function a GPU computes in its library
// (exp, log, sin, pow, ...: tens of FP64 instructions each).
bool double_function(const char* operands) {
  static const char* const names[] = {
      "exp",  "exp2", "exp10",  "expm1", "log",  "log2", "log10",  "log1p",  "sin",
      "cos",  "tan",  "sincos", "asin",  "acos", "atan", "atan2",  "sinh",   "cosh",
      "tanh", "pow",  "cbrt",   "hypot", "erf",  "erfc", "lgamma", "tgamma", "fmod"};
  return calls_one_of(operands, names);
}

// One instruction of the disassembly: its address, and its text from the
// mnemonic on ("add    $0x4,%r15").
struct Insn {
  uintptr_t address;
  std::string text;
};

// The register's name without its width: "bx" for %rbx, %ebx and %bx;
// "r8" for %r8 and %r8d.
std::string register_family(std::string r) {
  if (!r.empty() && r[0] == '%') r.erase(0, 1);
  if (r.size() >= 2 && r[0] == 'r' && std::isdigit(static_cast<unsigned char>(r[1]))) {
    while (!r.empty() && !std::isdigit(static_cast<unsigned char>(r.back()))) r.pop_back();
    return r;
  }
  if (r.size() == 3 && (r[0] == 'r' || r[0] == 'e')) return r.substr(1);
  return r;
}

// The register an instruction's last operand names ("" if it is not a
// register): what an integer instruction writes, in AT&T syntax.
std::string destination_register(const std::string& operands) {
  const size_t comma = operands.rfind(',');
  std::string last = operands.substr(comma == std::string::npos ? 0 : comma + 1);
  const size_t b = last.find_first_not_of(" \t");
  if (b == std::string::npos || last[b] != '%') return "";
  last = last.substr(b);
  last = last.substr(0, last.find_first_of(" \t\n#"));
  return register_family(last);
}

// The register families `operands` address memory with: those inside a
// memory operand's parentheses ("0x4(%rbx,%rax,4)": bx and ax).
std::vector<std::string> address_registers(const std::string& operands) {
  std::vector<std::string> found;
  for (size_t open = operands.find('('); open != std::string::npos;
       open = operands.find('(', open + 1)) {
    const size_t close = operands.find(')', open);
    if (close == std::string::npos) break;
    for (size_t r = operands.find('%', open); r != std::string::npos && r < close;
         r = operands.find('%', r + 1))
      found.push_back(register_family(operands.substr(r, operands.find_first_of(",)", r) - r)));
  }
  return found;
}

// Whether `operands` address memory with register family `r`.
bool addresses_with(const std::string& operands, const std::string& r) {
  const std::vector<std::string> used = address_registers(operands);
  return std::find(used.begin(), used.end(), r) != used.end();
}

// A jump's target address ("jne    10950 <f+0x450>"), 0 if none is given.
uintptr_t jump_target(const std::string& operands) {
  const char* text = operands.c_str();
  char* end = nullptr;
  const unsigned long target = std::strtoul(text, &end, 16);
  return end && end != text && (*end == ' ' || *end == '\0' || *end == '\n') ? target : 0;
}

// The mnemonic and the operands of an instruction's text, each without the
// blanks around it.
std::pair<std::string, std::string> split(const std::string& text) {
  const size_t end = text.find_first_of(" \t\n");
  if (end == std::string::npos) return {text, ""};
  const size_t first = text.find_first_not_of(" \t", end);
  if (first == std::string::npos) return {text.substr(0, end), ""};
  std::string operands = text.substr(first);
  while (!operands.empty() && (operands.back() == '\n' || operands.back() == ' '))
    operands.pop_back();
  return {text.substr(0, end), operands};
}

// Which of a function's instructions are a loop's index arithmetic that
// nvcc folds away. A loop whose count is known when compiled (a compare
// with a constant controls it) nvcc unrolls: its induction steps and the
// address arithmetic on them become the loads' constant offsets. Such a
// loop is found in the code as the smallest span of a backward jump that
// holds the compare. In it, every step by a constant (an add or subtract
// of one, an increment, a decrement) and every lea counts nothing (nvcc's
// unrolled copies take the constant into their own instructions), and so
// does a shift, multiply or add of two registers that writes one of the
// loop's index registers (those it addresses memory with or compares with
// the constant) or a register next used to address memory in the block.
// The loop's other work (a hash's shifts, xors and multiplies) counts as
// before. The code spans [first, last] of the loops a compare of a
// register with a constant controls go to `spans`.
std::vector<bool> folded_index_arithmetic(const std::vector<Insn>& fn,
                                          std::vector<std::pair<uintptr_t, uintptr_t>>& spans) {
  std::vector<bool> folded(fn.size(), false);
  if (fn.empty()) return folded;
  std::vector<std::pair<std::string, std::string>> parts;  // each one's mnemonic and operands
  parts.reserve(fn.size());
  for (const Insn& i : fn) parts.push_back(split(i.text));
  std::vector<std::pair<uintptr_t, uintptr_t>> loops;  // [first, last] of each backward jump
  std::vector<uintptr_t> constant_compares, counter_compares;
  for (size_t k = 0; k < fn.size(); ++k) {
    const auto& [m, operands] = parts[k];
    if (m.size() > 1 && m[0] == 'j') {
      const uintptr_t target = jump_target(operands);
      if (target && target <= fn[k].address && target >= fn.front().address)
        loops.emplace_back(target, fn[k].address);
    }
    if (m.rfind("cmp", 0) == 0 && !operands.empty() && operands[0] == '$') {
      constant_compares.push_back(fn[k].address);
      // A counter's compare: of a register (not of memory, as the check
      // that a thread-local variable is set up compares its address).
      if (const size_t comma = operands.find(',');
          comma != std::string::npos && operands.compare(comma + 1, 1, "%") == 0)
        counter_compares.push_back(fn[k].address);
    }
  }
  // The smallest span of a backward jump that holds `at` (null if none).
  const auto innermost = [&](uintptr_t at) {
    const std::pair<uintptr_t, uintptr_t>* inner = nullptr;
    for (const auto& l : loops)
      if (l.first <= at && at <= l.second &&
          (!inner || l.second - l.first < inner->second - inner->first))
        inner = &l;
    return inner;
  };
  std::vector<std::pair<uintptr_t, uintptr_t>> unrolled;
  for (const uintptr_t at : constant_compares)
    if (const auto* inner = innermost(at)) unrolled.push_back(*inner);
  std::sort(unrolled.begin(), unrolled.end());
  unrolled.erase(std::unique(unrolled.begin(), unrolled.end()), unrolled.end());
  // The spans of the loops a counter's compare controls: each reaches the
  // last backward jump to its start (a branch in its body, a load only
  // some lanes make, may jump back from further down).
  for (const uintptr_t at : counter_compares) {
    const auto* inner = innermost(at);
    if (!inner) continue;
    uintptr_t last = inner->second;
    for (const auto& l : loops)
      if (l.first == inner->first) last = std::max(last, l.second);
    spans.emplace_back(inner->first, last);
  }
  std::sort(spans.begin(), spans.end());
  spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
  // The instructions of [first, last], by their index in `fn` (in address order).
  const auto indices = [&](uintptr_t first, uintptr_t last) {
    const auto at = [&](uintptr_t a) {
      return size_t(std::lower_bound(fn.begin(), fn.end(), a,
                                     [](const Insn& i, uintptr_t v) { return i.address < v; }) -
                    fn.begin());
    };
    return std::pair<size_t, size_t>(at(first), at(last + 1));
  };
  for (const auto& loop : unrolled) {
    const auto [begin, end] = indices(loop.first, loop.second);
    // The loop's index registers: those it addresses memory with, and
    // those it compares with a constant (its counter).
    std::vector<std::string> index;
    for (size_t k = begin; k < end; ++k) {
      const auto& [m, operands] = parts[k];
      if (m.rfind("cmp", 0) == 0 && !operands.empty() && operands[0] == '$')
        index.push_back(destination_register(operands));
      for (std::string& r : address_registers(operands)) index.push_back(std::move(r));
    }
    const auto is_index = [&](const std::string& r) {
      return !r.empty() && r != "ip" && std::find(index.begin(), index.end(), r) != index.end();
    };
    for (size_t k = begin; k < end; ++k) {
      const auto& [m, operands] = parts[k];
      const std::string r = destination_register(operands);
      if (r.empty()) continue;
      const bool integer_step =
          (m.rfind("add", 0) == 0 || m.rfind("sub", 0) == 0) && m.find("ss") == std::string::npos &&
          m.find("sd") == std::string::npos && m.find("ps") == std::string::npos &&
          m.find("pd") == std::string::npos;
      const bool immediate = !operands.empty() && operands[0] == '$';
      // An induction step, or index arithmetic (a lea, a shift, a
      // multiply, an add of registers) on a register the loop addresses
      // with or that is next used to address memory in its block.
      const bool step = (integer_step && immediate) || m.rfind("inc", 0) == 0 ||
                        m.rfind("dec", 0) == 0 || m.rfind("lea", 0) == 0;
      const bool arithmetic = m.rfind("shl", 0) == 0 || m.rfind("sal", 0) == 0 ||
                              m.rfind("imul", 0) == 0 ||
                              (integer_step && !operands.empty() && operands[0] == '%');
      if (step) {
        folded[k] = true;
        continue;
      }
      if (!arithmetic) continue;
      bool address = is_index(r);
      for (size_t n = k + 1; !address && n < fn.size(); ++n) {
        const auto& [nm, nops] = parts[n];
        if (addresses_with(nops, r)) address = true;
        if (nm.empty() || nm[0] == 'j' || nm == "call" || nm == "ret" ||
            destination_register(nops) == r)
          break;
      }
      if (address) folded[k] = true;
    }
  }
  return folded;
}

// The longest chain of dependent work in a basic block, as its machine
// code's registers show it: an instruction's chain is the longest of those
// of the registers it reads (those it addresses memory with included) plus
// its own work, and it leaves that chain in the register it writes. A move
// passes a chain on; a load from memory starts one (its wait is the
// latency term's); a call of the simulator's own (no work) starts one in
// what it returns. The chain is counted in a GPU's instructions, single
// precision and integer apart from double precision (whose dependent
// instructions take about twice as long: the longest is picked with that
// weight). A GPU warp that has nothing else to issue waits this long in
// the block whatever the multiprocessor's throughput.
class DependentChain {
 public:
  void reset() {
    depth_.clear();
    longest_ = {};
  }
  void add(const std::string& m, const std::string& operands, uint32_t work) {
    if (m.empty() || m[0] == 'j' || m == "ret" || m.rfind("cmp", 0) == 0 ||
        m.rfind("test", 0) == 0 || m.rfind("ucomis", 0) == 0 || m.rfind("comis", 0) == 0 ||
        m.rfind("vucomis", 0) == 0 || m.rfind("vcomis", 0) == 0 || m == "push" || m == "nop")
      return;
    std::vector<std::string> regs = registers_of(operands);
    const std::string dst = destination(operands);
    if (dst.empty()) return;  // it writes memory (or nothing a chain follows)
    // Instructions that write their destination without reading it: moves,
    // address arithmetic, conversions, the three-operand AVX forms (all but
    // the fused multiply-adds, which add into it), a zeroing xor.
    size_t operand_count = 1;  // commas outside a memory operand's parentheses, and one
    for (int depth = 0; const char c : operands) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      operand_count += c == ',' && depth == 0;
    }
    const bool write_only =
        m.rfind("mov", 0) == 0 || m.rfind("vmov", 0) == 0 || m == "lea" || m.rfind("cvt", 0) == 0 ||
        m.rfind("vcvt", 0) == 0 || m.rfind("set", 0) == 0 || m == "pop" ||
        m.rfind("vbroadcast", 0) == 0 ||
        (m[0] == 'v' && m.rfind("vfm", 0) != 0 && m.rfind("vfnm", 0) != 0 && operand_count >= 3) ||
        (m.rfind("imul", 0) == 0 && operands[0] == '$');
    const bool zeroing = (m.find("xor") != std::string::npos || m.rfind("sub", 0) == 0) &&
                         regs.size() >= 2 && regs[regs.size() - 1] == regs[regs.size() - 2];
    if (zeroing) {
      depth_[dst] = {};
      return;
    }
    const bool loads = operands.find('(') != std::string::npos &&
                       m.rfind("lea", 0) != 0;  // a value from memory: a new chain
    Depth in;
    for (size_t k = 0; k < regs.size(); ++k) {
      const bool is_dst_operand =
          k + 1 == regs.size() && regs[k] == dst && !ends_in_memory(operands);
      if (is_dst_operand && write_only) continue;
      if (loads && m.rfind("mov", 0) == 0) continue;  // a load: its address is not its value
      const Depth d = depth_[regs[k]];
      if (d.weighted > in.weighted) in = d;
    }
    if (work) {
      const bool fp64 = m.size() > 2 && (m.compare(m.size() - 2, 2, "sd") == 0 ||
                                         m.compare(m.size() - 2, 2, "pd") == 0);
      (fp64 ? in.dbl : in.single) += work;
      in.weighted += fp64 ? 2 * work : work;
    }
    depth_[dst] = in;
    if (in.weighted > longest_.weighted) longest_ = in;
  }
  // A call: `work` its GPU instructions (0: one of the simulator's, or
  // one not counted), its result after its arguments' chains.
  void call(uint32_t work, bool fp64) {
    Depth in;
    if (work)
      for (const char* r : {"xmm0", "xmm1", "xmm2", "di", "si", "dx"})
        if (const Depth& d = depth_[r]; d.weighted > in.weighted) in = d;
    (fp64 ? in.dbl : in.single) += work;
    in.weighted += fp64 ? 2 * work : work;
    depth_["xmm0"] = in;
    depth_["ax"] = in;
    if (in.weighted > longest_.weighted) longest_ = in;
  }
  uint32_t single() const { return longest_.single; }
  uint32_t dbl() const { return longest_.dbl; }

 private:
  struct Depth {
    uint32_t weighted = 0, single = 0, dbl = 0;
  };
  // A register's name for the chain: "xmm3" for %xmm3 and %ymm3, else its
  // family ("ax" for %rax and %eax).
  static std::string name_of(const std::string& r) {
    std::string n = r[0] == '%' ? r.substr(1) : r;
    if (n.size() > 3 &&
        (n.rfind("xmm", 0) == 0 || n.rfind("ymm", 0) == 0 || n.rfind("zmm", 0) == 0))
      return "xmm" + n.substr(3);
    return register_family(n);
  }
  static std::vector<std::string> registers_of(const std::string& operands) {
    std::vector<std::string> found;
    for (size_t at = operands.find('%'); at != std::string::npos; at = operands.find('%', at + 1)) {
      const size_t end = operands.find_first_of(",) \t#:", at);
      found.push_back(name_of(operands.substr(at, end == std::string::npos ? end : end - at)));
    }
    return found;
  }
  static bool ends_in_memory(const std::string& operands) {
    const size_t comma = operands.rfind(',');
    return operands.find('(', comma == std::string::npos ? 0 : comma) != std::string::npos;
  }
  static std::string destination(const std::string& operands) {
    if (ends_in_memory(operands)) return "";
    const std::string r = destination_register(operands);
    return r.empty() ? r : name_of(r);
  }
  std::unordered_map<std::string, Depth> depth_;
  Depth longest_;
};

// Marks the blocks of the jumps through a table that are a switch's: those
// whose source line says `switch` (the host compiler makes a table of an
// if / else-if ladder on one value too, which nvcc leaves as branches).
void mark_switches(std::unordered_map<uintptr_t, FloatOps>& per_block,
                   const std::vector<std::pair<uintptr_t, uintptr_t>>& table_jumps) {
  if (table_jumps.empty()) return;
  std::vector<uintptr_t> at;
  for (const auto& j : table_jumps) at.push_back(j.second);
  const std::vector<std::string> lines = symbolize(at);
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (size_t k = 0; k < lines.size() && k < table_jumps.size(); ++k) {
    const size_t colon = lines[k].rfind(':');
    if (colon == std::string::npos) continue;
    const std::string text =
        source_line(lines[k].substr(0, colon), std::atol(lines[k].c_str() + colon + 1));
    for (size_t w = text.find("switch"); w != std::string::npos; w = text.find("switch", w + 1))
      if ((w == 0 || !word_char(text[w - 1])) && (w + 6 >= text.size() || !word_char(text[w + 6])))
        if (auto it = per_block.find(table_jumps[k].first); it != per_block.end())
          it->second.indirect_jump = true;
  }
}

}  // namespace

bool count_float_ops(std::unordered_map<uintptr_t, FloatOps>& per_block, uintptr_t last_block,
                     std::vector<std::pair<uintptr_t, uintptr_t>>* unrolled_loops) {
  static const bool have_objdump = !support::find_program("objdump").empty();
  if (!have_objdump) return false;
  const std::string exe = main_program_file();
  if (exe.empty()) return false;
  auto objdump = std::make_unique<support::OutputOf>(
      std::vector<std::string>{"objdump", "-d", "--no-show-raw-insn", "-j", ".text", exe});
  FILE* p = objdump->file();
  if (!p) return false;
  const uintptr_t base = main_program_base();
  bool past_last = false;  // the last block wanted has begun
  // Jumps through a table (the code address of each, and of its block).
  std::vector<std::pair<uintptr_t, uintptr_t>> table_jumps;
  // One function's instructions, counted once it is read whole (its loops
  // are known then). Returns whether the last block wanted has ended.
  const auto count_function = [&](const std::vector<Insn>& fn) {
    if (fn.empty()) return false;
    std::vector<std::pair<uintptr_t, uintptr_t>> spans;
    const std::vector<bool> folded = folded_index_arithmetic(fn, spans);
    if (unrolled_loops)
      for (const auto& [first, last] : spans)
        unrolled_loops->emplace_back(base + first, base + last);
    FloatOps* current = nullptr;  // the basic block whose instructions these are
    uintptr_t block_pc = 0;       // its code address
    FloatOps before_first;        // a function's instructions before its first block's call
    bool call_pending = false;    // the last instruction called the block callback
    uint32_t argument_setup = 0;  // counted instructions just before this that set up a call's
    bool tls_check = false;       // the last instruction: a TLS check or a constant-bound compare
    std::string tls_registers;    // registers holding a TLS init function's address ("%r14 ")
    DependentChain chain;         // the current block's
    for (size_t k = 0; k < fn.size(); ++k) {
      const uintptr_t address = fn[k].address;
      const char* text = fn[k].text.c_str();
      if (call_pending) {  // this instruction is where the callback returns
        past_last = base + address >= last_block;
        block_pc = base + address;
        current = &per_block[block_pc];
        current->single_ops += before_first.single_ops;
        current->double_ops += before_first.double_ops;
        current->special_ops += before_first.special_ops;
        current->instructions += before_first.instructions;
        current->double_calls += before_first.double_calls;
        before_first = {};
        call_pending = false;
        chain.reset();
      }
      const char* word_end = text;
      while (*word_end && *word_end != ' ' && *word_end != '\t' && *word_end != '\n') ++word_end;
      const std::string mnemonic(text, word_end);
      FloatOps& into = current ? *current : before_first;
      if (mnemonic == "call") {
        // A call's arguments are not the block's work.
        into.instructions -= std::min(into.instructions, argument_setup);
        argument_setup = 0;
      }
      if (mnemonic == "call" && std::strstr(word_end, "<__sanitizer_cov_trace_pc_guard>")) {
        if (past_last) return true;  // the next block: the last one wanted has ended
        call_pending = true;
        continue;
      }
      // Work: not the thread-local storage's check (a compare of its init
      // function's address, and the branch after it), nor an address taken
      // relative to the code (a hook's data: arithmetic on a constant read
      // from there counts).
      // ("<_ZTH9threadIdx>": a TLS init function's symbol, not demangled).
      bool tls = std::strstr(word_end, "<_ZTH") != nullptr;
      if (tls && mnemonic.rfind("mov", 0) == 0)  // its address kept in a register
        if (const char* comma = std::strrchr(word_end, ','))
          tls_registers += std::string(comma + 1, std::strcspn(comma + 1, " \t\n#")) + " ";
      if (mnemonic == "test" && !tls_registers.empty()) {  // "test %r14,%r14" of that register
        const char* r = word_end + std::strspn(word_end, " \t");
        tls = tls_registers.find(std::string(r, std::strcspn(r, ",")) + " ") != std::string::npos;
      }
      // A compare with a constant and its branch: a loop's count known when
      // it is compiled, which nvcc unrolls (no compare, no branch).
      const bool constant_bound =
          mnemonic.rfind("cmp", 0) == 0 && word_end[std::strspn(word_end, " \t")] == '$';
      // A compare not counted makes the branch after it not counted.
      const bool checked = tls_check && mnemonic[0] == 'j';
      tls_check = tls || constant_bound;
      const bool code_address = mnemonic == "lea" && std::strstr(word_end, "(%rip)");
      uint32_t work = tls_check || checked || code_address || folded[k] ? 0 : work_of(mnemonic);
      if (work) {
        into.instructions += work;
        argument_setup = writes_argument_register(word_end) ? argument_setup + work : 0;
      } else if (folded[k] && writes_argument_register(word_end)) {
        argument_setup = 0;
      }
      FloatOps ops = ops_of(mnemonic, std::strstr(word_end, "%ymm") != nullptr);
      const int fma_call = mnemonic == "call" ? fused_multiply_add(word_end) : 0;
      if (fma_call) (fma_call == 1 ? ops.single_ops : ops.double_ops) = 2;
      const uint32_t call_cost =
          mnemonic == "call" ? (fma_call ? 1 : gpu_instructions_of_call(word_end)) : 0;
      if (mnemonic == "call" && special_function(word_end)) {
        ops.special_ops = 1;
        // A GPU's instructions for it (without a measurement: a multiply
        // to scale the argument, the unit's own).
        into.instructions += call_cost ? call_cost : 2;
      } else {
        into.instructions += call_cost;
      }
      if (mnemonic == "call" && double_function(word_end)) ++into.double_calls;
      if (current) {
        if (mnemonic == "call") {
          chain.call(special_function(word_end) && !call_cost ? 2 : call_cost,
                     double_function(word_end) || fma_call == 2);
        } else {
          chain.add(mnemonic, split(fn[k].text).second, work);
        }
        current->chain_single = chain.single();
        current->chain_double = chain.dbl();
        // A jump through a table: "jmp *%rax", "notrack jmp *%rax".
        const char* target = word_end + std::strspn(word_end, " \t");
        if ((mnemonic == "jmp" && *target == '*') || mnemonic == "notrack")
          table_jumps.emplace_back(block_pc, base + address);
      }
      if (!ops.single_ops && !ops.double_ops && !ops.special_ops) continue;
      into.single_ops += ops.single_ops;
      into.double_ops += ops.double_ops;
      into.special_ops += ops.special_ops;
    }
    return false;
  };
  std::vector<Insn> fn;
  char line[1024];
  while (std::fgets(line, sizeof(line), p)) {
    // "0000000000005c10 <kernel>:" starts a function; "    5c39:\tcall ..." is
    // an instruction.
    if (line[0] != ' ') {
      if (std::strchr(line, '<')) {
        // The last block wanted ends with its function: the rest is not
        // read (objdump, left with output unread, is stopped).
        if (count_function(fn) || past_last) {
          objdump.reset();  // stopped before a symbolizer runs
          mark_switches(per_block, table_jumps);
          return true;
        }
        fn.clear();
      }
      continue;
    }
    char* end = nullptr;
    const unsigned long address = std::strtoul(line, &end, 16);
    if (!end || *end != ':') continue;
    const char* text = end + 1;
    while (*text == '\t' || *text == ' ') ++text;
    fn.push_back({address, text});
  }
  count_function(fn);
  const bool ok = objdump->finish().ok();
  objdump.reset();
  mark_switches(per_block, table_jumps);
  return ok;
}

}  // namespace cudalab::rt
