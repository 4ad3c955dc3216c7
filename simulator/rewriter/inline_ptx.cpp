#include "rewriter/inline_ptx.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "cudalab/support/source_text.h"

namespace cudalab::rewriter {
using namespace support;  // the source-text helpers
namespace {

size_t skip_space(const std::string& s, size_t i) {
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? s.size() : e + 2;
    } else {
      break;
    }
  }
  return i;
}

// A translation that cannot be made: its message names the instruction.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads the string literal at s[i] ('"'), decoding escapes; `end` is one
// past its closing quote.
std::string read_literal(const std::string& s, size_t i, size_t* end) {
  std::string out;
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        break;
      case '\n':
        break;  // a continued line
      case '0':
        out += '\0';
        break;
      default:
        out += e;
        break;
    }
  }
  *end = i + 1;
  return out;
}

struct Operand {
  std::string constraint;  // "=r", "+l", "f", ...
  std::string expression;  // the C++ inside its parentheses, on one line
  std::string name;        // [name], when given
  bool output = false;
};

// The pieces of `text` between top-level commas.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty() || !parts.empty()) parts.push_back(trim(cur));
  return parts;
}

// ---- PTX text ---------------------------------------------------------------------------

// A macro's parameter made a string in an asm template (`"ld." #mod ...`)
// stands in the text as `#mod`.
bool macro_part(const std::string& piece) { return !piece.empty() && piece[0] == '#'; }

const std::set<std::string> kBareOpcodes = {"trap", "exit", "brkpt", "pmevent", "bra"};

std::string strip_ptx_comments(const std::string& t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 2, "//") == 0) {
      while (i < t.size() && t[i] != '\n') ++i;
      out += '\n';
    } else if (t.compare(i, 2, "/*") == 0) {
      const size_t e = t.find("*/", i + 2);
      i = e == std::string::npos ? t.size() : e + 1;
      out += ' ';
    } else {
      out += t[i];
    }
  }
  return out;
}

// Whether an asm statement's text is PTX: its first instruction is a dotted
// opcode (mov.u32), a PTX opcode without one that x86 does not have (trap),
// a guard (@p), a register declaration or a brace.
bool looks_like_ptx(const std::string& text) {
  const std::string t = trim(strip_ptx_comments(text));
  if (t.empty()) return false;
  if (t[0] == '{' || t[0] == '@' || t.compare(0, 4, ".reg") == 0) return true;
  size_t i = 0;
  if (t[0] == '@') {
    while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  }
  size_t e = i;
  while (e < t.size() && (ident_char(t[e]) || t[e] == '.' || t[e] == ':')) ++e;
  const std::string op = t.substr(i, e - i);
  if (kBareOpcodes.count(op)) return true;
  const size_t dot = op.find('.');
  return dot != std::string::npos && dot > 0 && std::islower(static_cast<unsigned char>(op[0]));
}

const std::map<std::string, std::string> kTypes = {
    {"b8", "uint8_t"}, {"b16", "uint16_t"}, {"b32", "uint32_t"}, {"b64", "uint64_t"},
    {"u8", "uint8_t"}, {"u16", "uint16_t"}, {"u32", "uint32_t"}, {"u64", "uint64_t"},
    {"s8", "int8_t"},  {"s16", "int16_t"},  {"s32", "int32_t"},  {"s64", "int64_t"},
    {"f32", "float"},  {"f64", "double"},   {"pred", "bool"},
};
const std::set<std::string> kUnsupportedTypes = {"f16",  "f16x2", "bf16", "bf16x2", "e4m3",
                                                 "e5m2", "tf32",  "b128", "f8x4"};

// One PTX instruction.
struct Instruction {
  std::string text;                // as written, for messages
  std::string guard;               // "p", "!p" or ""
  std::string base;                // "mad"
  std::vector<std::string> parts;  // "lo", "s32": the dotted pieces after the base
  std::vector<std::string> operands;
  bool macro_modifier = false;  // a load's or store's modifier a macro's parameter spells
  std::vector<std::string> types() const {
    std::vector<std::string> t;
    for (const auto& p : parts)
      if (kTypes.count(p)) t.push_back(p);
    return t;
  }
  bool has(const char* part) const {
    for (const auto& p : parts)
      if (p == part) return true;
    return false;
  }
};

class Translator {
 public:
  Translator(std::vector<Operand> operands, bool library)
      : operands_(std::move(operands)), library_(library) {}

  // The C++ statements for the PTX text (placeholders already replaced).
  std::string translate(const std::string& ptx) {
    std::string out;
    std::string statement;
    auto flush = [&] {
      const std::string s = trim(statement);
      statement.clear();
      if (!s.empty()) out += statement_code(s);
    };
    for (char c : strip_ptx_comments(ptx)) {
      if (c == ';') {
        flush();
      } else if (c == '{' && trim(statement).empty()) {
        out += "{ ";  // a scope of the PTX's own
      } else if (c == '}' && std::count(statement.begin(), statement.end(), '{') <=
                                 std::count(statement.begin(), statement.end(), '}')) {
        flush();
        out += "} ";
      } else {
        statement += c == '\n' || c == '\t' ? ' ' : c;
      }
    }
    flush();
    return out;
  }

 private:
  std::vector<Operand> operands_;
  bool library_;  // a library's loads and stores are relaxed atomics (ptx.h)
  std::map<std::string, std::string> registers_;  // declared name -> its C++ type

  std::string statement_code(const std::string& s) {
    if (s[0] == '.') return declaration(s);
    if (s.back() == ':' || (s.find(':') != std::string::npos && s.find(' ') == std::string::npos))
      throw Unsupported("a label (`" + s +
                        "`): branches in inline PTX are not something the simulator runs");
    Instruction in = parse(s);
    std::string code = instruction(in);
    if (!in.guard.empty()) {
      const bool negated = in.guard[0] == '!';
      const std::string p = value(negated ? in.guard.substr(1) : in.guard, "bool");
      code = std::string("if (") + (negated ? "!" : "") + p + ") { " + code + "} ";
    }
    return code;
  }

  // `.reg .u32 a, b<4>;`: C++ locals of the type (b0..b3 for b<4>).
  std::string declaration(const std::string& s) {
    size_t i = 0;
    std::vector<std::string> words;
    while (i < s.size()) {
      size_t e = i;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) && s[e] != ',') ++e;
      if (e > i) words.push_back(s.substr(i, e - i));
      i = e + 1;
    }
    if (words.size() < 3 || words[0] != ".reg" || words[1][0] != '.')
      throw Unsupported("the directive `" + s + "` (only `.reg .type name;` declarations are run)");
    const std::string type = words[1].substr(1);
    if (kUnsupportedTypes.count(type))
      throw Unsupported("a ." + type +
                        " register: half-precision and narrower floats in inline "
                        "PTX are not something the simulator runs");
    if (!kTypes.count(type)) throw Unsupported("a register of type ." + type);
    const std::string ctype = kTypes.at(type);
    std::string code;
    for (size_t w = 2; w < words.size(); ++w) {
      std::string name = words[w];
      int n = -1;
      if (const size_t lt = name.find('<'); lt != std::string::npos) {
        n = std::stoi(name.substr(lt + 1));
        name = name.substr(0, lt);
      }
      for (int k = 0; k < (n < 0 ? 1 : n); ++k) {
        const std::string full = n < 0 ? name : name + std::to_string(k);
        registers_[full] = ctype;
        code += ctype + " " + mangle(full) + " = {}; ";
      }
    }
    return code;
  }

  static std::string mangle(const std::string& reg) {
    std::string out = "cudalab_ptx_reg_";
    for (char c : reg) out += ident_char(c) ? c : '_';
    return out;
  }

  Instruction parse(const std::string& s) {
    Instruction in;
    in.text = s;
    size_t i = 0;
    if (s[0] == '@') {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      in.guard = s.substr(1, i - 1);
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    size_t e = i;
    while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
    const std::string op = s.substr(i, e - i);
    size_t start = 0;
    for (size_t d = 0; d <= op.size(); ++d) {
      if (d == op.size() || op[d] == '.') {
        const std::string piece = op.substr(start, d - start);
        if (start == 0)
          in.base = piece;
        else if (macro_part(piece) && in.base != "ld" && in.base != "st")
          throw Unsupported("`" + s + "`: its text is built from the macro parameter `" +
                            piece.substr(1) +
                            "`, which the simulator takes only as a load's or store's cache or "
                            "space modifier");
        else if (macro_part(piece))
          in.macro_modifier = true;
        else if (!piece.empty())
          in.parts.push_back(piece);
        start = d + 1;
      }
    }
    const std::string rest = trim(s.substr(e));
    if (!rest.empty()) in.operands = split_commas(rest);
    for (const auto& p : in.parts)
      if (kUnsupportedTypes.count(p))
        throw Unsupported("`" + s + "`: ." + p +
                          " values in inline PTX are not something the simulator runs");
    return in;
  }

  // ---- operands ----
  std::optional<std::string> lvalue_of(const std::string& op) {
    if (op.compare(0, 12, "cudalab_ptx_") == 0) {
      const int k = std::stoi(op.substr(12));
      if (!operands_[size_t(k)].output)
        throw Unsupported("an instruction writes %" + std::to_string(k) +
                          ", which is an input operand (make it an output, \"=r\"(x))");
      return op;
    }
    if (registers_.count(op)) return mangle(op);
    return std::nullopt;
  }

  // The operand `op` read as the C++ type `t`.
  std::string value(const std::string& raw, const std::string& t) {
    const std::string op = trim(raw);
    if (op.empty()) throw Unsupported("an empty operand");
    if (op[0] == '!') return "!" + value(op.substr(1), "bool");
    if (t == "bool" && !registers_.count(op))
      throw Unsupported("`" + op +
                        "` where PTX wants a predicate: declare one (`.reg .pred p;`) "
                        "and set it with setp; an asm operand is never a predicate");
    if (op.compare(0, 12, "cudalab_ptx_") == 0) return "::cudalab::ptx::get<" + t + ">(" + op + ")";
    if (registers_.count(op)) return "::cudalab::ptx::get<" + t + ">(" + mangle(op) + ")";
    if (op[0] == '%') return "::cudalab::ptx::get<" + t + ">(" + special(op) + ")";
    // Immediates: 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX are floats' bits.
    if (op.size() == 10 && (op.compare(0, 2, "0f") == 0 || op.compare(0, 2, "0F") == 0))
      return "::cudalab::ptx::get<" + t + ">(::cudalab::ptx::float_bits(0x" + op.substr(2) + "u))";
    if (op.size() == 18 && (op.compare(0, 2, "0d") == 0 || op.compare(0, 2, "0D") == 0))
      return "::cudalab::ptx::get<" + t + ">(::cudalab::ptx::double_bits(0x" + op.substr(2) +
             "ull))";
    if (std::isdigit(static_cast<unsigned char>(op[0])) ||
        ((op[0] == '-' || op[0] == '+') && op.size() > 1)) {
      std::string lit = op;
      while (!lit.empty() && (lit.back() == 'U' || lit.back() == 'u')) lit.pop_back();
      if (lit.compare(0, 2, "0b") == 0 || lit.compare(0, 2, "0B") == 0) {
        unsigned long long v = 0;
        for (size_t k = 2; k < lit.size(); ++k) v = v * 2 + unsigned(lit[k] == '1');
        lit = std::to_string(v) + "ull";
      } else if (lit.find_first_of(".eE") == std::string::npos || lit.compare(0, 2, "0x") == 0 ||
                 lit.compare(0, 2, "0X") == 0) {
        lit += (lit[0] == '-' ? "ll" : "ull");
      }
      return "static_cast<" + t + ">(" + lit + ")";
    }
    throw Unsupported("the operand `" + op + "` (a register the statement does not declare?)");
  }

  std::string special(const std::string& reg) {
    static const std::map<std::string, std::string> kSpecial = {
        {"%laneid", "::cudalab::ptx::laneid()"},
        {"%warpid", "::cudalab::ptx::warpid()"},
        {"%nwarpid", "::cudalab::ptx::nwarpid()"},
        {"%smid", "::cudalab::ptx::smid()"},
        {"%nsmid", "::cudalab::ptx::nsmid()"},
        {"%gridid", "::cudalab::ptx::gridid()"},
        {"%lanemask_eq", "::cudalab::ptx::lanemask(0)"},
        {"%lanemask_lt", "::cudalab::ptx::lanemask(1)"},
        {"%lanemask_le", "::cudalab::ptx::lanemask(2)"},
        {"%lanemask_gt", "::cudalab::ptx::lanemask(3)"},
        {"%lanemask_ge", "::cudalab::ptx::lanemask(4)"},
        {"%clock", "::cudalab::ptx::clock32()"},
        {"%clock64", "::cudalab::ptx::clock64()"},
        {"%globaltimer", "::cudalab::ptx::globaltimer()"},
        {"%globaltimer_lo", "unsigned(::cudalab::ptx::globaltimer())"},
        {"%globaltimer_hi", "unsigned(::cudalab::ptx::globaltimer() >> 32)"},
        {"%dynamic_smem_size", "::cudalab::ptx::dynamic_smem_size()"},
    };
    if (auto it = kSpecial.find(reg); it != kSpecial.end()) return it->second;
    static const char* kIndex[] = {"%tid", "%ntid", "%ctaid", "%nctaid"};
    for (int w = 0; w < 4; ++w) {
      const std::string name = kIndex[w];
      if (reg.compare(0, name.size() + 1, name + ".") == 0 && reg.size() == name.size() + 2) {
        const char axis = reg.back();
        if (axis >= 'x' && axis <= 'z')
          return "::cudalab::ptx::index_register(" + std::to_string(w) + ", " +
                 std::to_string(axis - 'x') + ")";
      }
    }
    throw Unsupported("the special register `" + reg + "`");
  }

  std::string put(const std::string& op, const std::string& t, const std::string& v) {
    if (trim(op) == "_") return "(void)(" + v + "); ";
    if (t == "bool" && !registers_.count(trim(op)))
      throw Unsupported("`" + op +
                        "` where PTX wants a predicate register: declare one with "
                        "`.reg .pred p;`");
    const auto lv = lvalue_of(trim(op));
    if (!lv) throw Unsupported("the destination `" + op + "` is not an output operand or register");
    return "::cudalab::ptx::put<" + t + ">(" + *lv + ", " + v + "); ";
  }

  // A vector operand `{a, b}` as its elements.
  static std::vector<std::string> elements(const std::string& op) {
    const std::string t = trim(op);
    if (t.size() < 2 || t.front() != '{' || t.back() != '}') return {t};
    return split_commas(t.substr(1, t.size() - 2));
  }

  // `[base]`, `[base+8]`, `[base-4]`: the address as a C++ pointer to `t`.
  std::string address(const std::string& op, const std::string& t) {
    std::string a = trim(op);
    if (a.size() < 2 || a.front() != '[' || a.back() != ']')
      throw Unsupported("the address `" + op + "` (written [reg] or [reg+offset])");
    a = trim(a.substr(1, a.size() - 2));
    std::string base = a, offset = "0";
    if (const size_t pm = a.find_first_of("+-", 1); pm != std::string::npos) {
      base = trim(a.substr(0, pm));
      offset = (a[pm] == '-' ? "-" : "") + trim(a.substr(pm + 1));
    }
    const std::string base_value =
        std::isdigit(static_cast<unsigned char>(base[0])) ? base + "ull" : value(base, "uint64_t");
    return "reinterpret_cast<" + t + "*>(static_cast<uintptr_t>(" + base_value + " + (" + offset +
           ")))";
  }

  void want(const Instruction& in, size_t n) {
    if (in.operands.size() != n)
      throw Unsupported("`" + in.text + "` has " + std::to_string(in.operands.size()) +
                        " operands; the simulator expects " + std::to_string(n));
  }
  std::string type_of(const Instruction& in, size_t which = 0) {
    const auto t = in.types();
    if (t.size() <= which) throw Unsupported("`" + in.text + "` names no type (.u32, .f32, ...)");
    return t[t.size() - 1 - which];
  }
  static int rounding(const Instruction& in, bool* integer = nullptr) {
    static const std::map<std::string, std::pair<int, bool>> kModes = {
        {"rn", {0, false}}, {"rz", {1, false}}, {"rm", {2, false}}, {"rp", {3, false}},
        {"rni", {0, true}}, {"rzi", {1, true}}, {"rmi", {2, true}}, {"rpi", {3, true}},
    };
    for (const auto& p : in.parts)
      if (auto it = kModes.find(p); it != kModes.end()) {
        if (integer) *integer = it->second.second;
        return it->second.first;
      }
    if (integer) *integer = false;
    return 0;
  }
  static bool is_float(const std::string& t) { return t == "f32" || t == "f64"; }
  static std::string flag(bool b) { return b ? "true" : "false"; }

  // The C++ of one instruction.
  std::string instruction(const Instruction& in) {
    const std::string& b = in.base;
    if (b == "mov") return mov(in);
    if (b == "add" || b == "sub" || b == "mul" || b == "mad" || b == "fma" || b == "div" ||
        b == "rem" || b == "min" || b == "max" || b == "abs" || b == "neg")
      return arithmetic(in);
    if (b == "and" || b == "or" || b == "xor" || b == "not" || b == "cnot" || b == "shl" ||
        b == "shr" || b == "popc" || b == "clz" || b == "brev" || b == "bfind" || b == "bfe" ||
        b == "bfi" || b == "prmt" || b == "lop3" || b == "shf")
      return bits(in);
    if (b == "setp" || b == "selp") return compare(in);
    if (b == "cvt") return convert(in);
    if (b == "rcp" || b == "sqrt" || b == "rsqrt" || b == "sin" || b == "cos" || b == "lg2" ||
        b == "ex2" || b == "tanh")
      return math(in);
    if (b == "ld" || b == "st") return memory(in);
    if (b == "atom" || b == "red") return atomic(in);
    if (b == "vabsdiff4" || b == "vadd4" || b == "vsub4" || b == "vmin4" || b == "vmax4")
      return video(in);
    if (b == "vadd" || b == "vsub" || b == "vabsdiff" || b == "vmin" || b == "vmax" ||
        b == "vshl" || b == "vshr")
      return video_scalar(in);
    return control(in);
  }

  std::string mov(const Instruction& in) {
    want(in, 2);
    const std::string t = type_of(in), ct = kTypes.at(t);
    const auto dst = elements(in.operands[0]), src = elements(in.operands[1]);
    if (dst.size() == 1 && src.size() == 1) return put(dst[0], ct, value(src[0], ct));
    // Packing and unpacking: mov.b64 d, {lo, hi}; mov.b64 {lo, hi}, s.
    const int width = t == "b64" ? 64 : t == "b32" ? 32 : 0;
    if (width == 0 || (dst.size() != 1 && src.size() != 1))
      throw Unsupported("`" + in.text + "`: vector moves are run for .b32 and .b64");
    const auto n = dst.size() == 1 ? src.size() : dst.size();
    if (n != 2 && n != 4) throw Unsupported("`" + in.text + "`: two or four pieces");
    const int piece = width / int(n);
    const std::string pt = piece == 32 ? "uint32_t" : piece == 16 ? "uint16_t" : "uint8_t";
    std::string code;
    if (dst.size() == 1) {
      std::string v = "(" + ct + "(0)";
      for (size_t k = 0; k < n; ++k)
        v += " | (" + ct + "(" + value(src[k], pt) + ") << " + std::to_string(piece * int(k)) + ")";
      return put(dst[0], ct, v + ")");
    }
    for (size_t k = 0; k < n; ++k)
      code += put(dst[k], pt,
                  pt + "(" + value(src[0], ct) + " >> " + std::to_string(piece * int(k)) + ")");
    return code;
  }

  std::string arithmetic(const Instruction& in) {
    const std::string& b = in.base;
    const std::string t = type_of(in), ct = kTypes.at(t);
    const size_t n = b == "abs" || b == "neg" ? 2 : b == "mad" || b == "fma" ? 4 : 3;
    want(in, n);
    std::vector<std::string> v;
    for (size_t k = 1; k < n; ++k) v.push_back(value(in.operands[k], ct));
    if (is_float(t)) {
      const int r = rounding(in);
      const bool ftz = in.has("ftz"), sat = in.has("sat");
      if (in.has("approx") || in.has("full")) {
        if (b != "div") throw Unsupported("`" + in.text + "`");
      }
      auto op = [&](const char* lambda) {
        std::string args;
        for (const auto& x : v) args += ", " + x;
        return "::cudalab::ptx::float_op<" + ct + ">(" + std::to_string(r) + ", " + flag(ftz) +
               ", " + flag(sat) + ", " + lambda + args + ")";
      };
      const std::string l2 = "[](" + ct + " x, " + ct + " y) { return ";
      if (b == "add") return put(in.operands[0], ct, op((l2 + "x + y; }").c_str()));
      if (b == "sub") return put(in.operands[0], ct, op((l2 + "x - y; }").c_str()));
      if (b == "mul") return put(in.operands[0], ct, op((l2 + "x * y; }").c_str()));
      if (b == "div") return put(in.operands[0], ct, op((l2 + "x / y; }").c_str()));
      if (b == "min" || b == "max")
        return put(in.operands[0], ct, op((l2 + "::cudalab::ptx::" + b + "(x, y); }").c_str()));
      if (b == "abs" || b == "neg")
        return put(in.operands[0], ct,
                   "::cudalab::ptx::canonical(::cudalab::ptx::flush(::cudalab::ptx::" + b + "<" +
                       ct + ">(::cudalab::ptx::flush(" + v[0] + ", " + flag(ftz) + ")), " +
                       flag(ftz) + "))");
      if (b == "fma" || b == "mad")
        return put(in.operands[0], ct,
                   "::cudalab::ptx::fma<" + ct + ">(" + std::to_string(r) + ", " + flag(ftz) +
                       ", " + flag(sat) + ", " + v[0] + ", " + v[1] + ", " + v[2] + ")");
      throw Unsupported("`" + in.text + "` on floats");
    }
    if (in.has("cc") || b == "addc" || b == "subc")
      throw Unsupported("`" + in.text + "`: carry-chain arithmetic (.cc)");
    const std::string f = "::cudalab::ptx::";
    if (b == "add" || b == "sub") {
      const std::string fn = in.has("sat") ? b + "_sat" : b;
      return put(in.operands[0], ct, f + fn + "<" + ct + ">(" + v[0] + ", " + v[1] + ")");
    }
    if (b == "mul" || b == "mad") {
      std::string product;
      std::string rt = ct;
      if (in.has("hi")) {
        product = f + "mul_hi<" + ct + ">(" + v[0] + ", " + v[1] + ")";
      } else if (in.has("wide")) {
        product = f + "mul_wide<" + ct + ">(" + v[0] + ", " + v[1] + ")";
        rt = "decltype(" + product + ")";
      } else {
        product = f + "mul_lo<" + ct + ">(" + v[0] + ", " + v[1] + ")";
      }
      if (b == "mad") {
        const std::string c = in.has("wide") ? value(in.operands[3], rt) : v[2];
        product = f + "add<" + rt + ">(" + product + ", " + c + ")";
      }
      return put(in.operands[0], rt, product);
    }
    if (b == "abs" || b == "neg")
      return put(in.operands[0], ct, f + b + "<" + ct + ">(" + v[0] + ")");
    return put(in.operands[0], ct, f + b + "<" + ct + ">(" + v[0] + ", " + v[1] + ")");
  }

  std::string bits(const Instruction& in) {
    const std::string& b = in.base;
    const std::string t = type_of(in), ct = kTypes.at(t);
    const std::string f = "::cudalab::ptx::";
    auto ops = [&](size_t n) { want(in, n); };
    if (b == "and" || b == "or" || b == "xor") {
      ops(3);
      const char* o = b == "and" ? " & " : b == "or" ? " | " : " ^ ";
      return put(in.operands[0], ct,
                 ct + "(" + value(in.operands[1], ct) + o + value(in.operands[2], ct) + ")");
    }
    if (b == "not") {
      ops(2);
      return put(in.operands[0], ct,
                 t == "pred" ? "!" + value(in.operands[1], ct)
                             : ct + "(~" + value(in.operands[1], ct) + ")");
    }
    if (b == "cnot") {
      ops(2);
      return put(in.operands[0], ct, ct + "(" + value(in.operands[1], ct) + " == 0 ? 1 : 0)");
    }
    if (b == "shl" || b == "shr") {
      ops(3);
      return put(in.operands[0], ct,
                 f + b + "<" + ct + ">(" + value(in.operands[1], ct) + ", " +
                     value(in.operands[2], "uint32_t") + ")");
    }
    if (b == "popc" || b == "clz") {
      ops(2);
      return put(in.operands[0], "uint32_t",
                 f + b + "<" + ct + ">(" + value(in.operands[1], ct) + ")");
    }
    if (b == "bfind") {
      ops(2);
      return put(in.operands[0], "uint32_t",
                 f + "bfind<" + ct + ">(" + value(in.operands[1], ct) + ", " +
                     flag(in.has("shiftamt")) + ")");
    }
    if (b == "brev") {
      ops(2);
      return put(in.operands[0], ct, f + "brev<" + ct + ">(" + value(in.operands[1], ct) + ")");
    }
    if (b == "bfe") {
      ops(4);
      return put(in.operands[0], ct,
                 f + "bfe<" + ct + ">(" + value(in.operands[1], ct) + ", " +
                     value(in.operands[2], "uint32_t") + ", " + value(in.operands[3], "uint32_t") +
                     ")");
    }
    if (b == "bfi") {
      ops(5);
      return put(in.operands[0], ct,
                 f + "bfi<" + ct + ">(" + value(in.operands[1], ct) + ", " +
                     value(in.operands[2], ct) + ", " + value(in.operands[3], "uint32_t") + ", " +
                     value(in.operands[4], "uint32_t") + ")");
    }
    if (b == "prmt") {
      ops(4);
      static const char* kModes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
      int mode = 0;
      for (int m = 0; m < 6; ++m)
        if (in.has(kModes[m])) mode = m + 1;
      return put(in.operands[0], "uint32_t",
                 f + "prmt(" + value(in.operands[1], "uint32_t") + ", " +
                     value(in.operands[2], "uint32_t") + ", " + value(in.operands[3], "uint32_t") +
                     ", " + std::to_string(mode) + ")");
    }
    if (b == "lop3") {
      ops(5);
      return put(in.operands[0], "uint32_t",
                 f + "lop3(" + value(in.operands[1], "uint32_t") + ", " +
                     value(in.operands[2], "uint32_t") + ", " + value(in.operands[3], "uint32_t") +
                     ", " + value(in.operands[4], "uint32_t") + ")");
    }
    // shf.l / shf.r with .wrap or .clamp
    ops(4);
    if (!in.has("l") && !in.has("r")) throw Unsupported("`" + in.text + "`: shf.l or shf.r");
    return put(in.operands[0], "uint32_t",
               f + "shf(" + value(in.operands[1], "uint32_t") + ", " +
                   value(in.operands[2], "uint32_t") + ", " + value(in.operands[3], "uint32_t") +
                   ", " + flag(in.has("l")) + ", " + flag(in.has("clamp")) + ")");
  }

  std::string compare(const Instruction& in) {
    const std::string t = type_of(in), ct = kTypes.at(t);
    if (in.base == "selp") {
      want(in, 4);
      return put(in.operands[0], ct,
                 "(" + value(in.operands[3], "bool") + " ? " + value(in.operands[1], ct) + " : " +
                     value(in.operands[2], ct) + ")");
    }
    static const std::map<std::string, std::string> kCompare = {
        {"eq", "kEq"},   {"ne", "kNe"},   {"lt", "kLt"},   {"le", "kLe"},   {"gt", "kGt"},
        {"ge", "kGe"},   {"lo", "kLt"},   {"ls", "kLe"},   {"hi", "kGt"},   {"hs", "kGe"},
        {"equ", "kEqu"}, {"neu", "kNeu"}, {"ltu", "kLtu"}, {"leu", "kLeu"}, {"gtu", "kGtu"},
        {"geu", "kGeu"}, {"num", "kNum"}, {"nan", "kNan"},
    };
    std::string cmp, combine;
    for (const auto& p : in.parts) {
      if (kCompare.count(p) && cmp.empty()) cmp = kCompare.at(p);
      if (p == "and" || p == "or" || p == "xor") combine = p;
    }
    if (cmp.empty()) throw Unsupported("`" + in.text + "`: which comparison?");
    if (in.operands.size() != (combine.empty() ? 3u : 4u)) want(in, combine.empty() ? 3 : 4);
    const bool ftz = in.has("ftz");
    std::string a = value(in.operands[1], ct), b = value(in.operands[2], ct);
    if (ftz) {
      a = "::cudalab::ptx::flush(" + a + ", true)";
      b = "::cudalab::ptx::flush(" + b + ", true)";
    }
    std::string r =
        "::cudalab::ptx::compare<" + ct + ">(::cudalab::ptx::" + cmp + ", " + a + ", " + b + ")";
    std::string q;
    if (!combine.empty()) {
      const std::string c = value(in.operands[3], "bool");
      const char* o = combine == "and" ? " && " : combine == "or" ? " || " : " != ";
      q = c;
      r = "(" + r + o + c + ")";
    }
    const auto dests = split_bar(in.operands[0]);
    std::string code =
        "{ const bool cudalab_ptx_p = " + r + "; " + put(dests[0], "bool", "cudalab_ptx_p");
    if (dests.size() == 2) {
      // p|q: q is the complement, combined the same way.
      std::string nq =
          "!::cudalab::ptx::compare<" + ct + ">(::cudalab::ptx::" + cmp + ", " + a + ", " + b + ")";
      if (!combine.empty()) {
        const char* o = combine == "and" ? " && " : combine == "or" ? " || " : " != ";
        nq = "(" + nq + o + q + ")";
      }
      code += put(dests[1], "bool", nq);
    }
    return code + "} ";
  }

  static std::vector<std::string> split_bar(const std::string& op) {
    const size_t bar = op.find('|');
    if (bar == std::string::npos) return {trim(op)};
    return {trim(op.substr(0, bar)), trim(op.substr(bar + 1))};
  }

  std::string convert(const Instruction& in) {
    want(in, 2);
    const auto types = in.types();
    if (types.size() != 2) throw Unsupported("`" + in.text + "`: cvt names two types");
    const std::string d = kTypes.at(types[0]), s = kTypes.at(types[1]);
    bool integer = false;
    const int r = rounding(in, &integer);
    return put(in.operands[0], d,
               "::cudalab::ptx::cvt<" + d + ", " + s + ">(" + value(in.operands[1], s) + ", " +
                   std::to_string(r) + ", " + flag(integer) + ", " + flag(in.has("ftz")) + ", " +
                   flag(in.has("sat")) + ")");
  }

  std::string math(const Instruction& in) {
    want(in, 2);
    const std::string t = type_of(in), ct = kTypes.at(t);
    if (!is_float(t)) throw Unsupported("`" + in.text + "` on integers");
    const bool ftz = in.has("ftz");
    static const std::map<std::string, std::string> kFn = {
        {"rcp", "1 / x"},        {"sqrt", "std::sqrt(x)"}, {"rsqrt", "1 / std::sqrt(x)"},
        {"sin", "std::sin(x)"},  {"cos", "std::cos(x)"},   {"lg2", "std::log2(x)"},
        {"ex2", "std::exp2(x)"}, {"tanh", "std::tanh(x)"},
    };
    const int r = in.has("approx") ? 0 : rounding(in);
    return put(in.operands[0], ct,
               "::cudalab::ptx::float_op<" + ct + ">(" + std::to_string(r) + ", " + flag(ftz) +
                   ", false, [](" + ct + " x) { return " + ct + "(" + kFn.at(in.base) + "); }, " +
                   value(in.operands[1], ct) + ")");
  }

  // Whether an address operand (`[%1]`) is an "r" (32-bit) operand.
  bool takes_32_bit_address(const Instruction& in) const {
    for (const auto& o : in.operands)
      if (o.front() == '[' && o.find("cudalab_ptx_") != std::string::npos) {
        const size_t k = size_t(std::stoi(o.substr(o.find("cudalab_ptx_") + 12)));
        if (operands_[k].constraint.find('r') != std::string::npos) return true;
      }
    return false;
  }

  std::string memory(const Instruction& in) {
    want(in, 2);
    const std::string t = type_of(in), ct = kTypes.at(t);
    // Shared memory has generic addresses on the simulator: a 32-bit address
    // (an "r" operand in brackets) is refused where the space is .shared, or
    // where a macro's parameter spells it and may say .shared. Such a
    // parameter may also say .acquire or .release: fences on both sides in a
    // program's own asm (a library's loads and stores are atomics).
    const bool shared = std::any_of(in.parts.begin(), in.parts.end(), [](const std::string& p) {
      return p.compare(0, 6, "shared") == 0;
    });
    const bool unknown = in.macro_modifier && !library_;
    if ((shared || unknown) && takes_32_bit_address(in))
      throw Unsupported("`" + in.text + "` takes a 32-bit " +
                        (shared ? "shared-memory address"
                                : "address and names its space "
                                  "through a macro") +
                        "; on the simulator shared memory has generic addresses: pass the "
                        "pointer with \"l\"");
    const bool acquire = in.has("acquire") || unknown, release = in.has("release") || unknown;
    const bool load = in.base == "ld";
    const auto values = elements(load ? in.operands[0] : in.operands[1]);
    const std::string addr = address(load ? in.operands[1] : in.operands[0], "volatile " + ct);
    std::string mnemonic = in.base;
    for (const auto& p : in.parts) mnemonic += "." + p;
    std::string code = "{ auto* cudalab_ptx_a = ::cudalab::ptx::aligned(" + addr + ", " +
                       std::to_string(values.size()) + " * sizeof(" + ct + "), \"" + mnemonic +
                       "\"); ";
    if (release) code += "__threadfence(); ";
    if (library_ && values.size() > 1) {
      // One access for the whole vector (ptx.h's vector_access).
      const std::string n = std::to_string(values.size());
      code += ct + " cudalab_ptx_v[" + n + "]; ";
      if (load) {
        code += "::cudalab::ptx::vector_access<false>(cudalab_ptx_a, cudalab_ptx_v); ";
        for (size_t k = 0; k < values.size(); ++k)
          code += put(values[k], ct, "cudalab_ptx_v[" + std::to_string(k) + "]");
      } else {
        for (size_t k = 0; k < values.size(); ++k)
          code += "cudalab_ptx_v[" + std::to_string(k) + "] = " + value(values[k], ct) + "; ";
        code += "::cudalab::ptx::vector_access<true>(cudalab_ptx_a, cudalab_ptx_v); ";
      }
      if (acquire) code += "__threadfence(); ";
      return code + "} ";
    }
    for (size_t k = 0; k < values.size(); ++k) {
      const std::string at = "cudalab_ptx_a[" + std::to_string(k) + "]";
      if (library_ && load)
        code += put(values[k], ct, "::cudalab::ptx::atomic_load(&" + at + ")");
      else if (library_)
        code += "::cudalab::ptx::atomic_store(&" + at + ", " + value(values[k], ct) + "); ";
      else if (load)
        code += put(values[k], ct, ct + "(" + at + ")");
      else
        code += at + " = " + value(values[k], ct) + "; ";
    }
    if (acquire) code += "__threadfence(); ";
    return code + "} ";
  }

  std::string atomic(const Instruction& in) {
    static const std::map<std::string, std::string> kOps = {
        {"add", "atomicAdd"},   {"min", "atomicMin"}, {"max", "atomicMax"}, {"inc", "atomicInc"},
        {"dec", "atomicDec"},   {"and", "atomicAnd"}, {"or", "atomicOr"},   {"xor", "atomicXor"},
        {"exch", "atomicExch"}, {"cas", "atomicCAS"},
    };
    std::string fn;
    for (const auto& p : in.parts)
      if (kOps.count(p)) fn = kOps.at(p);
    if (fn.empty()) throw Unsupported("`" + in.text + "`: which atomic operation?");
    const std::string t = type_of(in);
    static const std::map<std::string, std::string> kPointee = {
        {"u32", "unsigned int"},
        {"s32", "int"},
        {"b32", "unsigned int"},
        {"u64", "unsigned long long"},
        {"b64", "unsigned long long"},
        {"s64", "long long"},
        {"f32", "float"},
        {"f64", "double"},
    };
    if (!kPointee.count(t)) throw Unsupported("`" + in.text + "` on ." + t);
    const std::string pt = kPointee.at(t);
    const bool red = in.base == "red";
    const size_t first = red ? 0 : 1;
    want(in, first + (fn == "atomicCAS" ? 3 : 2));
    std::string call =
        fn + "(" + address(in.operands[first], pt) + ", " + value(in.operands[first + 1], pt);
    if (fn == "atomicCAS") call += ", " + value(in.operands[first + 2], pt);
    call += ")";
    return red ? "(void)" + call + "; " : put(in.operands[0], pt, call);
  }

  std::string video(const Instruction& in) {
    want(in, 4);
    for (const auto& o : in.operands)
      if (o.find('.') != std::string::npos && o.find_first_of("0123456789") != 0)
        throw Unsupported("`" + in.text + "`: byte selectors and masks (.b3210) are not run");
    static const std::map<std::string, std::string> kOp = {{"vabsdiff4", "kVAbsdiff"},
                                                           {"vadd4", "kVAdd"},
                                                           {"vsub4", "kVSub"},
                                                           {"vmin4", "kVMin"},
                                                           {"vmax4", "kVMax"}};
    const auto types = in.types();
    const bool is_signed = !types.empty() && types.back()[0] == 's';
    const int second = in.has("add") ? 1 : in.has("min") ? 2 : in.has("max") ? 3 : 0;
    return put(in.operands[0], "uint32_t",
               "::cudalab::ptx::video4(::cudalab::ptx::" + kOp.at(in.base) + ", " +
                   value(in.operands[1], "uint32_t") + ", " + value(in.operands[2], "uint32_t") +
                   ", " + value(in.operands[3], "uint32_t") + ", " + flag(is_signed) + ", " +
                   flag(in.has("sat")) + ", " + std::to_string(second) + ")");
  }

  // vadd.u32.u32.u32.add d, a, b, c and the like: 32-bit operands only.
  std::string video_scalar(const Instruction& in) {
    const auto types = in.types();
    if (types.size() != 3)
      throw Unsupported("`" + in.text + "`: a video instruction names three types (d, a, b)");
    for (const auto& t : types)
      if (t != "u32" && t != "s32")
        throw Unsupported("`" + in.text + "`: video instructions on ." + t +
                          " (only .u32 and .s32 are run)");
    for (const auto& o : in.operands)
      if (o.find('.') != std::string::npos && o.find_first_of("0123456789") != 0)
        throw Unsupported("`" + in.text + "`: byte and half selectors (.b0, .h1) are not run");
    const int second = in.has("add") ? 1 : in.has("min") ? 2 : in.has("max") ? 3 : 0;
    want(in, second ? 4 : 3);
    static const std::map<std::string, std::string> kOp = {
        {"vadd", "kVAdd"}, {"vsub", "kVSub"}, {"vabsdiff", "kVAbsdiff"}, {"vmin", "kVMin"},
        {"vmax", "kVMax"}, {"vshl", "kVShl"}, {"vshr", "kVShr"}};
    const std::string c = second ? value(in.operands[3], "uint32_t") : "0u";
    return put(in.operands[0], "uint32_t",
               "::cudalab::ptx::video1(::cudalab::ptx::" + kOp.at(in.base) + ", " +
                   value(in.operands[1], "uint32_t") + ", " + value(in.operands[2], "uint32_t") +
                   ", " + c + ", " + flag(types[0] == "s32") + ", " + flag(types[1] == "s32") +
                   ", " + flag(types[2] == "s32") + ", " + flag(in.has("sat")) + ", " +
                   std::to_string(second) + ", " + flag(in.has("clamp")) + ")");
  }

  // Warps, barriers, fences and the rest.
  std::string control(const Instruction& in) {
    const std::string& b = in.base;
    if (b == "shfl") {
      int mode = -1;
      for (int m = 0; m < 4; ++m)
        if (in.has(std::array{"up", "down", "bfly", "idx"}[size_t(m)])) mode = m;
      if (mode < 0) throw Unsupported("`" + in.text + "`: which shuffle (up, down, bfly, idx)?");
      // Without .sync (PTX before sm_70) the lanes that take part are the
      // active ones.
      const bool sync = in.has("sync");
      want(in, sync ? 5 : 4);
      const std::string mask = sync ? value(in.operands[4], "uint32_t") : "__activemask()";
      const auto dests = split_bar(in.operands[0]);
      if (dests.size() > 2) throw Unsupported("`" + in.text + "`: a destination d or d|p");
      const std::string call = "::cudalab::ptx::shuffle(" + std::to_string(mode) + ", " + mask +
                               ", " + value(in.operands[1], "uint32_t") + ", " +
                               value(in.operands[2], "uint32_t") + ", " +
                               value(in.operands[3], "uint32_t");
      if (dests.size() == 1) return put(dests[0], "uint32_t", call + ")");
      return "{ bool cudalab_ptx_p = false; const uint32_t cudalab_ptx_d = " + call +
             ", &cudalab_ptx_p); " + put(dests[0], "uint32_t", "cudalab_ptx_d") +
             put(dests[1], "bool", "cudalab_ptx_p") + "} ";
    }
    if (b == "vote") {
      const bool sync = in.has("sync");
      want(in, sync ? 3 : 2);
      const std::string mask = sync ? value(in.operands[2], "uint32_t") : "__activemask()";
      const std::string p = value(in.operands[1], "bool");
      if (in.has("ballot"))
        return put(in.operands[0], "uint32_t", "__ballot_sync(" + mask + ", " + p + ")");
      if (in.has("all"))
        return put(in.operands[0], "bool", "(__all_sync(" + mask + ", " + p + ") != 0)");
      if (in.has("any"))
        return put(in.operands[0], "bool", "(__any_sync(" + mask + ", " + p + ") != 0)");
      if (in.has("uni"))
        return put(in.operands[0], "bool",
                   "(__all_sync(" + mask + ", " + p + ") != 0 || __any_sync(" + mask + ", " + p +
                       ") == 0)");
      throw Unsupported("`" + in.text + "`");
    }
    if (b == "activemask") {
      want(in, 1);
      return put(in.operands[0], "uint32_t", "__activemask()");
    }
    if (b == "bar" || b == "barrier") {
      if (in.has("warp")) {
        want(in, 1);
        return "__syncwarp(" + value(in.operands[0], "uint32_t") + "); ";
      }
      const bool sync = in.parts.empty() || in.has("sync") || in.has("aligned");
      if (!sync || in.operands.size() > 1 ||
          (in.operands.size() == 1 && trim(in.operands[0]) != "0"))
        throw Unsupported("`" + in.text +
                          "`: named barriers and thread counts are not run; bar.sync 0 is "
                          "__syncthreads()");
      return "__syncthreads(); ";
    }
    if (b == "membar" || b == "fence")
      return in.has("cta") ? "__threadfence_block(); " : "__threadfence(); ";
    if (b == "trap") return "__trap(); ";
    if (b == "brkpt" || b == "pmevent") return "; ";
    if (b == "nanosleep") {
      want(in, 1);
      return "__nanosleep(" + value(in.operands[0], "uint32_t") + "); ";
    }
    if (b == "exit") return "cudalab_exit_thread(); ";
    if (b == "bra" || b == "call" || b == "ret")
      throw Unsupported("`" + in.text +
                        "`: branches, calls and exits in inline PTX are not "
                        "something the simulator runs");
    throw Unsupported("the instruction `" + in.text + "`");
  }
};

// The operand list after a colon: `"=r"(x), [name] "r"(y)`.
bool parse_operands(const std::string& text, bool outputs, bool library,
                    std::vector<Operand>* out) {
  for (const std::string& piece : split_commas(text)) {
    if (piece.empty()) continue;
    Operand o;
    size_t i = 0;
    // A library's macro for an input, `_CUB_ASM_PTR_(ptr)` for "l"(ptr): the
    // value of its argument.
    const size_t first = skip_space(piece, 0);
    if (library && !outputs && first < piece.size() &&
        (std::isupper(static_cast<unsigned char>(piece[first])) || piece[first] == '_')) {
      const size_t open = piece.find('('), close = piece.rfind(')');
      if (open == std::string::npos || close == std::string::npos || close < open) return false;
      for (size_t k = first; k < open; ++k)
        if (!ident_char(piece[k]) && !std::isspace(static_cast<unsigned char>(piece[k])))
          return false;
      o.constraint = "l";
      o.expression = one_line(piece.substr(open + 1, close - open - 1));
      out->push_back(o);
      continue;
    }
    if (piece[0] == '[') {
      const size_t e = piece.find(']');
      if (e == std::string::npos) return false;
      o.name = trim(piece.substr(1, e - 1));
      i = e + 1;
    }
    i = skip_space(piece, i);
    if (i >= piece.size() || piece[i] != '"') return false;
    size_t end = 0;
    o.constraint = read_literal(piece, i, &end);
    const size_t open = piece.find('(', end);
    const size_t close = piece.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return false;
    o.expression = one_line(piece.substr(open + 1, close - open - 1));
    o.output = outputs;
    out->push_back(o);
  }
  return true;
}

// The top-level colons of an asm statement's parentheses (code only).
std::vector<size_t> section_colons(const std::string& s, const std::vector<bool>& code, size_t open,
                                   size_t close) {
  std::vector<size_t> colons;
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (!code[i]) continue;
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ':' && depth == 0) {
      if (i + 1 < close && s[i + 1] == ':' && code[i + 1]) {
        colons.push_back(i);
        colons.push_back(i + 1);
        ++i;
      } else {
        colons.push_back(i);
      }
    }
  }
  return colons;
}

}  // namespace

std::string translate_inline_ptx(const std::string& source, const std::vector<bool>& code,
                                 int* count, bool library) {
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    if (!code[i] || (source[i] != 'a' && source[i] != '_')) continue;
    const char* word = nullptr;
    for (const char* w : {"asm", "__asm__", "__asm"})
      if (word_at(source, code, i, w)) word = w;
    if (!word) continue;
    size_t j = skip_space(source, i + std::strlen(word));
    for (bool more = true; more;) {
      more = false;
      for (const char* q : {"volatile", "__volatile__", "__volatile", "inline", "goto"})
        if (word_at(source, code, j, q)) {
          j = skip_space(source, j + std::strlen(q));
          more = true;
        }
    }
    if (j >= source.size() || source[j] != '(') continue;
    const size_t close = matching(source, code, j);
    if (close == std::string::npos) continue;
    const std::vector<size_t> colons = section_colons(source, code, j, close);
    // The template: string literals, nothing else; or one group of
    // preprocessor branches among them (`"a" #ifdef X "b" #else "c" #endif`),
    // each branch translated on its own.
    const size_t template_end = colons.empty() ? close : colons[0];
    std::string prefix, suffix;
    std::vector<std::pair<std::string, std::string>> branches;  // directive, text
    int group = 0;  // 0 before the group, 1 in it, 2 after it
    bool has_else = false;
    bool literal_only = true;
    auto at_line_start = [&](size_t k) {
      size_t b = k;
      while (b > 0 && (source[b - 1] == ' ' || source[b - 1] == '\t')) --b;
      return b == 0 || source[b - 1] == '\n';
    };
    auto append = [&](const std::string& t) {
      (group == 0 ? prefix : group == 1 ? branches.back().second : suffix) += t;
    };
    for (size_t k = skip_space(source, j + 1); k < template_end; k = skip_space(source, k)) {
      if (source[k] == '"') {
        size_t e = 0;
        append(read_literal(source, k, &e));
        k = e;
      } else if (source[k] == '#' && at_line_start(k)) {
        size_t e = source.find('\n', k);
        if (e == std::string::npos || e > template_end) e = template_end;
        const std::string directive = trim(source.substr(k, e - k));
        size_t w = 1;
        while (w < directive.size() && (directive[w] == ' ' || directive[w] == '\t')) ++w;
        const std::string word = directive.substr(w, directive.find_first_of(" \t(", w) - w);
        if ((word == "if" || word == "ifdef" || word == "ifndef") && group == 0) {
          group = 1;
          branches.push_back({directive, ""});
        } else if ((word == "elif" || word == "else") && group == 1 && !has_else) {
          has_else = word == "else";
          branches.push_back({directive, ""});
        } else if (word == "endif" && group == 1) {
          group = 2;
          if (!has_else) branches.push_back({"#else", ""});  // what no branch names
        } else {
          literal_only = false;  // a second group, nesting, #define, ...
        }
        k = e;
      } else if (source[k] == '#' && k + 1 < template_end && source[k + 1] != '#' &&
                 ident_char(source[skip_space(source, k + 1)])) {
        // A macro's parameter made a string (`"ld."#modifier".u32 ..."`): the
        // translation takes it as a load's or store's cache or space modifier.
        k = skip_space(source, k + 1);
        const size_t name = k;
        while (k < template_end && ident_char(source[k])) ++k;
        append("#" + source.substr(name, k - name));
      } else {
        literal_only = false;
        ++k;
      }
    }
    if (group == 1) literal_only = false;
    if (branches.empty()) branches.push_back({"", ""});
    if (!looks_like_ptx(prefix + branches[0].second + suffix)) continue;
    std::string operand_error;
    std::vector<Operand> operands;
    if (!literal_only) {
      operand_error =
          "its text is built from macros or expressions; the simulator translates asm "
          "statements written as string literals";
    } else {
      bool ok = true;
      for (size_t c = 0; c < colons.size() && c < 2; ++c) {
        const size_t from = colons[c] + 1;
        const size_t to = c + 1 < colons.size() ? colons[c + 1] : close;
        ok = ok && parse_operands(source.substr(from, to - from), c == 0, library, &operands);
      }
      if (!ok)
        operand_error =
            "an operand list the simulator cannot read (each is \"constraint\"(expression))";
    }
    // One branch's C++: the translation, or what stops the build (or, in a
    // library, the thread) with the reason.
    bool translated = false;
    auto statement = [&](const std::string& text) -> std::string {
      std::string error = operand_error;
      // Placeholders: %0, %[name], %% (a literal %).
      std::string ptx;
      for (size_t k = 0; error.empty() && k < text.size(); ++k) {
        if (text[k] != '%') {
          ptx += text[k];
        } else if (k + 1 < text.size() && text[k + 1] == '%') {
          ptx += '%';
          ++k;
        } else if (k + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[k + 1]))) {
          size_t e = k + 1;
          while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
          const size_t n = std::stoul(text.substr(k + 1, e - k - 1));
          if (n >= operands.size()) error = "%" + std::to_string(n) + " names no operand";
          ptx += "cudalab_ptx_" + std::to_string(n);
          k = e - 1;
        } else if (k + 1 < text.size() && text[k + 1] == '[') {
          const size_t e = text.find(']', k);
          const std::string name = e == std::string::npos ? "" : text.substr(k + 2, e - k - 2);
          size_t n = 0;
          while (n < operands.size() && operands[n].name != name) ++n;
          if (n == operands.size()) error = "%[" + name + "] names no operand";
          ptx += "cudalab_ptx_" + std::to_string(n);
          k = e == std::string::npos ? text.size() : e;
        } else {
          ptx += '%';
        }
      }
      std::string body;
      if (error.empty()) {
        try {
          body = Translator(operands, library).translate(ptx);
        } catch (const Unsupported& e) {
          error = e.what();
        } catch (const std::exception&) {
          error = "an instruction the simulator cannot read";
        }
      }
      if (!error.empty()) {
        // A compile error at the statement's line, naming the instruction
        // with the operands as the source writes them; a static_assert rather
        // than a rewriter's problem, so that an asm statement the
        // preprocessor drops (in an #if for another architecture) does not
        // stop the build.
        std::string shown;
        for (size_t k = 0; k < error.size(); ++k) {
          if (error.compare(k, 12, "cudalab_ptx_") == 0) {
            shown += '%';
            k += 11;
          } else {
            shown += error[k] == '"' || error[k] == '\\' ? std::string("\\") + error[k]
                                                         : std::string(1, error[k]);
          }
        }
        return library ? "do { ::cudalab::ptx::not_run(\"" + shown + "\"); } while (0)"
                       : "do { static_assert(false, \"inline PTX: " + shown + "\"); } while (0)";
      }
      translated = true;
      std::string bind;
      for (size_t n = 0; n < operands.size(); ++n) {
        const std::string v = "cudalab_ptx_" + std::to_string(n);
        bind += operands[n].output ? "auto& " + v + " = (" + operands[n].expression + "); "
                                   : "const auto " + v + " = (" + operands[n].expression + "); ";
        bind += "(void)" + v + "; ";
      }
      return "do { " + bind + body + "} while (0)";
    };
    out.append(source, copied, i - copied);
    if (branches.size() == 1) {
      out += statement(prefix + branches[0].second + suffix);
      out += line_breaks(source, i, close + 1);
    } else {
      // Each branch on lines of its own, then the numbering as it was.
      // Each branch on lines of its own, numbered as the asm statement's
      // first line; then the numbering as it was.
      auto line_at = [&](size_t at) {
        return std::to_string(std::count(source.begin(), source.begin() + long(at), '\n') + 1);
      };
      out += "\n";
      for (const auto& [directive, text] : branches)
        out +=
            directive + "\n#line " + line_at(i) + "\n" + statement(prefix + text + suffix) + "\n";
      out += "#endif\n#line " + line_at(close) + "\n";
    }
    copied = close + 1;
    i = close;
    if (translated) ++*count;
  }
  out.append(source, copied, std::string::npos);
  return out;
}

}  // namespace cudalab::rewriter
