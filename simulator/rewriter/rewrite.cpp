#include "rewriter/rewrite.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "cudalab/support/source_text.h"
#include "rewriter/inline_ptx.h"
#include "rewriter/thrust_headers.h"

namespace cudalab::rewriter {
using namespace support;  // the source-text helpers
namespace {

// Marks which bytes of the source are code (not comment, string or char
// literal), so that searches below only look at code.
std::vector<bool> code_mask(const std::string& s) {
  std::vector<bool> code(s.size(), true);
  size_t i = 0;
  const size_t n = s.size();
  auto mark = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k) code[k] = false;
  };
  while (i < n) {
    const char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      size_t e = i;
      while (e < n && s[e] != '\n') e += (s[e] == '\\' && e + 1 < n) ? 2 : 1;
      mark(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      mark(i, e);
      i = e;
    } else if (c == 'R' && i + 1 < n && s[i + 1] == '"' &&
               (i == 0 || !ident_char(s[i - 1]) || s[i - 1] == 'u' || s[i - 1] == 'U' ||
                s[i - 1] == 'L' || s[i - 1] == '8')) {
      // Raw string literal R"delim( ... )delim"
      size_t open = s.find('(', i + 2);
      if (open == std::string::npos) break;
      std::string end = ")" + s.substr(i + 2, open - i - 2) + "\"";
      size_t e = s.find(end, open + 1);
      e = e == std::string::npos ? n : e + end.size();
      mark(i, e);
      i = e;
    } else if (c == '"' ||
               (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) &&
                               i + 1 < n && std::isxdigit(static_cast<unsigned char>(s[i + 1]))))) {
      // String or character literal (a ' between hex digits is a digit separator).
      size_t e = i + 1;
      while (e < n && s[e] != c && s[e] != '\n') e += (s[e] == '\\') ? 2 : 1;
      e = std::min(n, e + 1);
      mark(i, e);
      i = e;
    } else {
      ++i;
    }
  }
  return code;
}

// The first code character at or after `pos` that is not white space.
size_t skip_space_forward(const std::string& s, const std::vector<bool>& code, size_t pos) {
  while (pos < s.size() && (!code[pos] || std::isspace(static_cast<unsigned char>(s[pos])))) ++pos;
  return pos;
}

int line_of(const std::string& s, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

size_t skip_space_back(const std::string& s, const std::vector<bool>& code, size_t pos) {
  // pos: one past the candidate; returns one past the last non-space code
  // char. A backslash that continues a #define's line is space too.
  auto space = [&](size_t k) {
    const char c = s[k];
    return std::isspace(static_cast<unsigned char>(c)) || !code[k] ||
           (c == '\\' && k + 1 < s.size() &&
            (s[k + 1] == '\n' || (s[k + 1] == '\r' && k + 2 < s.size() && s[k + 2] == '\n')));
  };
  while (pos > 0 && space(pos - 1)) --pos;
  return pos;
}

// Start of the kernel expression that ends just before `end` (exclusive):
// a name, qualified names, template arguments, or a parenthesized expression.
// Returns std::string::npos when there is none.
// Whether a kernel expression is a name (`k`, `ns::k<T, (N > 2)>`): no
// subscript, member, call or parentheses outside its template arguments.
bool names_a_kernel(const std::string& k) {
  int depth = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    const char c = k[i];
    const bool arrow = c == '-' && i + 1 < k.size() && k[i + 1] == '>';
    if (depth == 0 && (c == '(' || c == '[' || c == '.' || arrow)) return false;
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    else if ((c == '>' && !(i > 0 && k[i - 1] == '-')) || c == ')' || c == ']')
      depth = depth > 0 ? depth - 1 : 0;
  }
  return true;
}

size_t kernel_start(const std::string& s, const std::vector<bool>& code, size_t end) {
  size_t pos = skip_space_back(s, code, end);
  bool any = false;
  while (pos > 0) {
    const char c = s[pos - 1];
    if (c == '>' || c == ')' || c == ']') {
      const char open = c == '>' ? '<' : c == ')' ? '(' : '[';
      int depth = 0;
      size_t k = pos;
      while (k > 0) {
        --k;
        if (!code[k]) continue;
        if (s[k] == c)
          ++depth;
        else if (s[k] == open && --depth == 0)
          break;
      }
      if (depth != 0) return std::string::npos;
      pos = k;
      any = true;
      if (c == ')') return pos;  // (expr)<<<...>>>
      pos = skip_space_back(s, code, pos);
      continue;
    }
    if (ident_char(c)) {
      while (pos > 0 && ident_char(s[pos - 1])) --pos;
      any = true;
      size_t before = skip_space_back(s, code, pos);
      // `run_##f<<<...>>>` in a #define: the pasted name is the kernel.
      if (before >= 2 && s[before - 1] == '#' && s[before - 2] == '#') {
        const size_t pasted = skip_space_back(s, code, before - 2);
        if (pasted > 0 && ident_char(s[pasted - 1])) {
          pos = pasted;
          continue;
        }
      }
      if (before >= 2 && s[before - 1] == ':' && s[before - 2] == ':') {
        pos = skip_space_back(s, code, before - 2);
        if (pos == 0 || !(ident_char(s[pos - 1]) || s[pos - 1] == '>')) return before - 2;
        continue;
      }
      // A member: `ops.kernel<<<...>>>`, `table->kernels[i]<<<...>>>`.
      const bool dot = before >= 1 && s[before - 1] == '.';
      const bool arrow = before >= 2 && s[before - 1] == '>' && s[before - 2] == '-';
      if (dot || arrow) {
        const size_t object = skip_space_back(s, code, before - (dot ? 1 : 2));
        if (object > 0 && (ident_char(s[object - 1]) || s[object - 1] == ']')) {
          pos = object;
          continue;
        }
      }
      return pos;
    }
    break;
  }
  return any ? pos : std::string::npos;
}

std::string flatten(const std::string& t) {
  std::string out;
  for (char c : t) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Where `<<<` (c '<') or `>>>` (c '>') starting at `i` ends: the three
// characters may have spaces or tabs between them, as nvcc allows
// (`k << < grid, block >> > (args)`); npos when there is none at `i`.
size_t triple_end(const std::string& s, const std::vector<bool>& code, size_t i, char c) {
  size_t k = i;
  for (int n = 0; n < 3; ++n) {
    while (n > 0 && k < s.size() && code[k] && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k >= s.size() || !code[k] || s[k] != c) return std::string::npos;
    ++k;
  }
  return k;
}

// Whether the code before `i` ends with the word `operator`: `operator<< <T>`
// names a template's explicit arguments, not a launch.
bool after_operator(const std::string& s, const std::vector<bool>& code, size_t i) {
  const size_t end = skip_space_back(s, code, i);
  return end >= 8 && s.compare(end - 8, 8, "operator") == 0 &&
         (end == 8 || !ident_char(s[end - 9]));
}

// Finds `>>>` closing the configuration that starts at `from`, at bracket
// depth 0; npos if missing.
size_t config_end(const std::string& s, const std::vector<bool>& code, size_t from) {
  int depth = 0;
  for (size_t i = from; i + 2 < s.size(); ++i) {
    if (!code[i]) continue;
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return std::string::npos;
    } else if (c == '>' && depth == 0 && triple_end(s, code, i, '>') != std::string::npos) {
      return i;
    } else if (c == ';' && depth == 0) {
      return std::string::npos;
    }
  }
  return std::string::npos;
}

// The arguments after a launch's `>>>` (at `from`) written `0` or `NULL`,
// as [begin, end) spans: a null pointer constant for a pointer parameter,
// which forwarding them through the launch would turn into an int.
std::vector<std::pair<size_t, size_t>> zero_arguments(const std::string& s,
                                                      const std::vector<bool>& code, size_t from) {
  std::vector<std::pair<size_t, size_t>> zeros;
  auto splice = [&](size_t k) {  // a backslash that continues a #define's line
    return s[k] == '\\' && k + 1 < s.size() &&
           (s[k + 1] == '\n' || (s[k + 1] == '\r' && k + 2 < s.size() && s[k + 2] == '\n'));
  };
  size_t i = from;
  while (i < s.size() && (!code[i] || std::isspace(static_cast<unsigned char>(s[i])) || splice(i)))
    ++i;
  if (i >= s.size() || s[i] != '(') return zeros;
  int depth = 0, angle = 0;  // angle: `<` not yet closed in this argument
  size_t start = i + 1;
  auto argument_ends = [&](size_t end) {
    // The argument's code, without comments, spaces and continuations.
    std::string text;
    size_t first = std::string::npos, last = 0;
    for (size_t k = start; k < end; ++k) {
      if (!code[k] || std::isspace(static_cast<unsigned char>(s[k])) || splice(k)) continue;
      text += s[k];
      if (first == std::string::npos) first = k;
      last = k + 1;
    }
    if (text == "0" || text == "NULL") zeros.emplace_back(first, last);
    start = end + 1;
    angle = 0;
  };
  for (; i < s.size(); ++i) {
    if (!code[i]) continue;
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        argument_ends(i);
        return zeros;
      }
    } else if (depth == 1 && c == '<') {
      ++angle;
    } else if (depth == 1 && c == '>' && angle > 0) {
      --angle;
    } else if (c == ',' && depth == 1 && angle == 0) {  // not one of X<1, 0>'s
      argument_ends(i);
    } else if (c == ';' && depth == 1) {
      break;
    }
  }
  return {};
}

// After each non-template __global__ function a file defines, a registration
// that lets cudaLaunchKernel call it through a void pointer. Inserted on the
// line where the definition ends, so no line moves.
std::string register_kernels(const std::string& src, int* count) {
  const std::vector<bool> code = code_mask(src);
  std::vector<std::pair<size_t, std::string>> inserts;
  for (size_t i = 0; i < src.size(); ++i) {
    if (!word_at(src, code, i, "__global__")) continue;
    const size_t line_start = src.rfind('\n', i) == std::string::npos ? 0 : src.rfind('\n', i) + 1;
    const size_t first = src.find_first_not_of(" \t", line_start);
    if (first != std::string::npos && src[first] == '#') continue;  // a #define's line
    // A template kernel has no single address to register.
    size_t back = i;
    bool is_template = false;
    while (back > 0) {
      --back;
      if (!code[back]) continue;
      const char ch = src[back];
      if (ch == ';' || ch == '}' || ch == '{') break;
      if (word_at(src, code, back, "template")) is_template = true;
    }
    if (is_template) continue;
    size_t j = i + 10, paren = std::string::npos;
    std::string name;
    while (true) {
      paren = src.find('(', j);
      while (paren != std::string::npos && !code[paren]) paren = src.find('(', paren + 1);
      if (paren == std::string::npos) break;
      const size_t name_end = skip_space_back(src, code, paren);
      size_t name_begin = name_end;
      while (name_begin > 0 && ident_char(src[name_begin - 1])) --name_begin;
      name = src.substr(name_begin, name_end - name_begin);
      if (name == "__launch_bounds__" || name == "__align__" || name == "alignas" ||
          name == "__attribute__" || name == "__declspec") {
        const size_t close = matching(src, code, paren);
        if (close == std::string::npos) break;
        j = close + 1;
        continue;
      }
      break;
    }
    if (paren == std::string::npos || name.empty() || std::isdigit((unsigned char)name[0]))
      continue;
    const std::string between = src.substr(i, paren - i);
    if (between.find_first_of(";{}") != std::string::npos) continue;
    const size_t close = matching(src, code, paren);
    if (close == std::string::npos) continue;
    size_t body = close + 1;
    while (body < src.size() && (std::isspace((unsigned char)src[body]) || !code[body])) ++body;
    if (body >= src.size() || src[body] != '{') continue;  // a declaration
    const size_t body_end = matching(src, code, body);
    if (body_end == std::string::npos) continue;
    // A kernel a #define defines over continued lines (`__global__ void
    // run_##f(...) \` with the line before ending in a backslash): each
    // expansion is a kernel of its own name. (A #define inside a kernel's
    // body does not count.)
    if (line_start > 0) {
      size_t end = line_start - 1;  // the previous line's newline
      if (end > 0 && src[end - 1] == '\r') --end;
      if (end > 0 && src[end - 1] == '\\') {
        i = body_end;
        continue;
      }
    }
    std::string params;
    bool directive = false;  // an #if inside the parameters (HeCBench's pad)
    for (size_t k = paren + 1; k < close; ++k) {
      params += (!code[k] || src[k] == '\n' || src[k] == '\r') ? ' ' : src[k];
      if (src[k] == '#' && code[k] &&
          trim(src.substr(src.rfind('\n', k) + 1, k - src.rfind('\n', k) - 1)).empty())
        directive = true;
    }
    // Default arguments and directives cannot go on the one line: such a
    // kernel is launched with <<<>>> only, not by cudaLaunchKernel.
    if (params.find('=') != std::string::npos || directive) continue;
    // A kernel defined outside its namespace (`void Aig::build(...)`) is
    // named as written.
    std::string qualified = name;
    for (size_t at = skip_space_back(src, code, paren) - name.size(); at >= 2;) {
      const size_t colons = skip_space_back(src, code, at);
      if (colons < 2 || src.compare(colons - 2, 2, "::") != 0) break;
      const size_t scope_end = skip_space_back(src, code, colons - 2);
      size_t scope_begin = scope_end;
      while (scope_begin > 0 && ident_char(src[scope_begin - 1])) --scope_begin;
      qualified = src.substr(scope_begin, scope_end - scope_begin) + "::" + qualified;
      if (scope_begin == scope_end) break;  // `::name`
      at = scope_begin;
    }
    inserts.push_back(
        {body_end + 1, " static const int cudalab_kernel_registered_" + name + "_" +
                           std::to_string(line_of(src, i)) +
                           " = ::cudalab::detail::register_kernel(static_cast<void (*)(" + params +
                           ")>(&" + qualified + "), \"" + qualified + "\");"});
    i = body_end;
  }
  std::string out;
  size_t copied = 0;
  for (const auto& [at, text] : inserts) {
    out.append(src, copied, at - copied);
    out += text;
    copied = at;
  }
  out.append(src, copied, std::string::npos);
  *count = int(inserts.size());
  return out;
}

// The name that ends just before `end` (spaces and comments skipped), or ""
// when the code there does not end with a name; `*begin` is where it starts.
std::string name_before(const std::string& s, const std::vector<bool>& code, size_t end,
                        size_t* begin) {
  const size_t stop = skip_space_back(s, code, end);
  size_t b = stop;
  while (b > 0 && code[b - 1] && ident_char(s[b - 1])) --b;
  *begin = b;
  return s.substr(b, stop - b);
}

// Keywords after which an expression follows (`return clock();`).
bool keyword_before_expression(const std::string& word) {
  static const char* const kKeywords[] = {"return", "co_return", "co_yield", "throw", "case",
                                          "else",   "do",        "sizeof",   "and",   "or",
                                          "not",    "xor",       "bitand",   "bitor", "compl"};
  return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}

// The scope that a `::` starting at `colons` names: "" for the global
// namespace (nothing or a keyword before it), ">" for a template's, else
// the name before it, which starts at `*begin`.
std::string scope_of(const std::string& s, const std::vector<bool>& code, size_t colons,
                     size_t* begin) {
  const size_t end = skip_space_back(s, code, colons);
  if (end > 0 && s[end - 1] == '>') return ">";
  const std::string name = name_before(s, code, colons, begin);
  return keyword_before_expression(name) ? "" : name;
}

// CUDA's clock() is a __host__ __device__ function: in a kernel the GPU's
// cycle counter, elsewhere the C library's clock(). Its calls, `clock()`
// (also as `std::clock()` or `::clock()`), become calls of the runtime's
// ::cudalab::detail::clock(), which is both; the C library's clock stays what
// every other use of the name means: a declaration (`clock_t clock();`), its
// address (`&clock`), a member (`t.clock()`) or another scope's
// (`Timer::clock()`). Only names change, so every line keeps its place.
std::string rename_clock_calls(const std::string& src, int* count) {
  const std::vector<bool> code = code_mask(src);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    if (!word_at(src, code, i, "clock")) continue;
    // A call: an empty argument list follows (clock takes no arguments).
    size_t k = i + 5;
    auto skip_space = [&] {
      while (k < src.size() && (std::isspace(static_cast<unsigned char>(src[k])) || !code[k])) ++k;
    };
    skip_space();
    if (k >= src.size() || src[k] != '(') continue;
    ++k;
    skip_space();
    if (k >= src.size() || src[k] != ')') continue;
    // One edit, decided by what comes before the name: `text` in place of
    // the `erase` characters at `edit` (a qualifier `std`, or none).
    size_t edit = i, erase = 0;
    std::string text = "::cudalab::detail::";
    const size_t before = skip_space_back(src, code, i);
    const char prev = before > 0 ? src[before - 1] : '\n';
    if (prev == '.' || (prev == '>' && before >= 2 && src[before - 2] == '-')) continue;  // member
    if (prev == ':' && before >= 2 && src[before - 2] == ':') {
      size_t q = 0;
      const std::string scope = scope_of(src, code, before - 2, &q);
      if (scope.empty()) {
        text = "cudalab::detail::";  // ::clock()
      } else if (scope == "std") {
        // std::clock() or ::std::clock(), not N::std::clock().
        const size_t colons = skip_space_back(src, code, q);
        const bool global = colons >= 2 && src[colons - 1] == ':' && src[colons - 2] == ':';
        size_t outer = 0;
        if (global && !scope_of(src, code, colons - 2, &outer).empty()) continue;
        edit = q;
        erase = 3;
        text = global ? "cudalab::detail" : "::cudalab::detail";
      } else {
        continue;  // a class's or another namespace's clock
      }
    } else if (ident_char(prev)) {
      // After a name, an expression only after a keyword (`return clock()`)
      // or as a macro's body (`#define NOW clock()`); else a declaration.
      size_t name = 0, define = 0;
      const std::string word = name_before(src, code, before, &name);
      if (!keyword_before_expression(word) && name_before(src, code, name, &define) != "define")
        continue;
    }
    if (edit < copied) continue;
    out.append(src, copied, edit - copied);
    out += text;
    copied = edit + erase;
    ++*count;
    i += 4;
  }
  out.append(src, copied, std::string::npos);
  return out;
}

// Whether the `volatile` at `i` qualifies shared data: `volatile T*` or
// `volatile T&` (what it points to is volatile, as in a warp-synchronous
// reduction's `volatile int* s`), or `volatile __shared__ T` / `__shared__
// volatile T`. Not `T* volatile p`, nor a volatile local (`volatile int x`).
bool volatile_data_at(const std::string& s, const std::vector<bool>& code, size_t i) {
  size_t before = skip_space_back(s, code, i);
  size_t word = before;
  while (word > 0 && ident_char(s[word - 1])) --word;
  if (s.compare(word, before - word, "__shared__") == 0) return true;
  size_t k = i + 8;  // past "volatile"
  while (k < s.size()) {
    if (!code[k] || std::isspace(static_cast<unsigned char>(s[k]))) {
      ++k;
    } else if (ident_char(s[k])) {
      const size_t start = k;
      while (k < s.size() && ident_char(s[k])) ++k;
      if (s.compare(start, k - start, "__shared__") == 0) return true;
    } else if (s[k] == ':' && k + 1 < s.size() && s[k + 1] == ':') {
      k += 2;
    } else {
      return s[k] == '*' || s[k] == '&';
    }
  }
  return false;
}

// Where the `volatile` at `i` is in effect: the body of the function whose
// parameter it is, or the rest of the block it is declared in, or of the file.
std::pair<size_t, size_t> volatile_scope(const std::string& s, const std::vector<bool>& code,
                                         size_t i) {
  int parens = 0, braces = 0;
  for (size_t k = i; k-- > 0;) {
    if (!code[k]) continue;
    const char c = s[k];
    if (c == ')') ++parens;
    if (c == '}') ++braces;
    if (c == '(' && parens-- == 0 && braces == 0) {
      // A parameter: the function's body follows the list.
      size_t close = matching(s, code, k);
      if (close == std::string::npos) break;
      size_t body = s.find('{', close);
      const size_t end = s.find(';', close);
      if (body == std::string::npos || (end != std::string::npos && end < body)) break;
      const size_t last = matching(s, code, body);
      return {body, last == std::string::npos ? s.size() : last};
    }
    if (c == '{' && braces-- == 0) {
      const size_t last = matching(s, code, k);
      return {i, last == std::string::npos ? s.size() : last};
    }
  }
  return {i, s.size()};
}

// Whether [from, to) waits for other threads: __syncthreads(), __syncwarp(),
// or a cooperative group's sync (`cg::sync(block)`, `block.sync()`).
bool waits_in(const std::string& s, const std::vector<bool>& code, size_t from, size_t to) {
  for (size_t k = from; k < to && k < s.size(); ++k) {
    if (!code[k] || (k > 0 && ident_char(s[k - 1]))) continue;
    if (word_at(s, code, k, "__syncthreads") || word_at(s, code, k, "__syncwarp")) return true;
    if (word_at(s, code, k, "sync") && k > 0 && (s[k - 1] == '.' || s[k - 1] == ':')) return true;
  }
  return false;
}

// The name that `volatile T* name` declares ("" for a cast or __shared__).
std::string volatile_name(const std::string& s, const std::vector<bool>& code, size_t i) {
  size_t k = i + 8;
  while (k < s.size() && (!code[k] || (s[k] != '*' && s[k] != '&' && s[k] != ';'))) ++k;
  if (k >= s.size() || s[k] == ';') return "";
  ++k;
  while (true) {
    while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
    size_t start = k;
    while (k < s.size() && ident_char(s[k])) ++k;
    const std::string word = s.substr(start, k - start);
    if (word == "__restrict__" || word == "__restrict" || word == "const") continue;
    return word;
  }
}

// Whether `name` is read or written through in [from, to): name[...],
// *name or name->.
bool accessed_in(const std::string& s, const std::vector<bool>& code, const std::string& name,
                 size_t from, size_t to) {
  for (size_t k = from; k < to && k < s.size(); ++k) {
    if (!word_at(s, code, k, name.c_str())) continue;
    size_t after = k + name.size();
    while (after < s.size() && std::isspace(static_cast<unsigned char>(s[after]))) ++after;
    size_t before = skip_space_back(s, code, k);
    if (s[after] == '[' || s.compare(after, 2, "->") == 0 || (before > 0 && s[before - 1] == '*'))
      return true;
  }
  return false;
}

// Whether the statement at `i` updates an element in place from its XOR
// partner, `a[i] += a[i ^ 8]` (or `a[i] = a[i] + a[i ^ 8]`): each thread
// reads the element another writes in the same statement, which gives the
// intended sums only when a warp's lanes read before any writes, as on a
// GPU (NVIDIA's dxtc sums colours so).
bool xor_butterfly_at(const std::string& s, const std::vector<bool>& code, size_t i) {
  size_t k = i;
  while (k < s.size() && ident_char(s[k])) ++k;
  if (k == i || std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  const std::string name = s.substr(i, k - i);
  const size_t open = skip_space_forward(s, code, k);
  if (open >= s.size() || s[open] != '[') return false;
  const size_t close = matching(s, code, open);
  if (close == std::string::npos) return false;
  auto squeeze = [](const std::string& t) {
    std::string out;
    for (char c : t)
      if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
  };
  const std::string index = squeeze(s.substr(open + 1, close - open - 1));
  size_t op = skip_space_forward(s, code, close + 1);
  if (op < s.size() && std::strchr("+-*|&^", s[op]) && op + 1 < s.size() && s[op + 1] == '=') ++op;
  if (op >= s.size() || s[op] != '=' || (op + 1 < s.size() && s[op + 1] == '=')) return false;
  const size_t end = s.find(';', op);
  if (index.empty() || end == std::string::npos) return false;
  const std::string rhs = squeeze(s.substr(op + 1, end - op - 1));
  if (rhs.find(name + "[" + index + "^") != std::string::npos) return true;  // a[i ^ c]
  const size_t at = rhs.find("^" + index + "]");                             // a[c ^ i]
  return at != std::string::npos && rhs.rfind(name + "[", at) != std::string::npos;
}

// The line of the first volatile shared data (above) in a source that has
// __shared__ memory and uses it as warp-synchronous code does, which a GPU
// runs with its warps in lock-step (0: none): accessed through the volatile
// name with no barrier where it is in effect. Code that waits at barriers
// between its volatile accesses (NVIDIA's scan, say) is not warp-synchronous,
// nor is a function that only passes the pointer on.
int warp_synchronous_line(const std::string& s, const std::vector<bool>& code) {
  bool shared = false;
  size_t first = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!code[i] || (i > 0 && ident_char(s[i - 1]))) continue;
    if (!shared && word_at(s, code, i, "__shared__")) shared = true;
    if (first == std::string::npos && word_at(s, code, i, "volatile") &&
        volatile_data_at(s, code, i)) {
      const auto [from, to] = volatile_scope(s, code, i);
      const std::string name = volatile_name(s, code, i);
      if (!waits_in(s, code, from, to) && (name.empty() || accessed_in(s, code, name, from, to)))
        first = i;
    }
    if (shared && first != std::string::npos) return line_of(s, first);
    // An in-place XOR butterfly is warp-synchronous wherever its array is
    // (a pointer into shared memory that a header's function takes).
    if (ident_char(s[i]) && xor_butterfly_at(s, code, i)) return line_of(s, i);
  }
  return 0;
}

}  // namespace

// The Thrust headers (`sort` for thrust/sort.h) that `text` includes, itself
// or through the headers it includes in quotes from `dir` (up to a depth);
// `cub` for any of CUB's.
const std::regex& thrust_include() {
  static const std::regex include(R"(^[ \t]*#[ \t]*include[ \t]*<thrust/([a-z_0-9]+)\.h>)");
  return include;
}
const std::regex& quoted_include() {
  static const std::regex include(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re");
  return include;
}
void thrust_headers_of(const std::string& text, const std::filesystem::path& dir, int depth,
                       std::set<std::string>& found, std::set<std::filesystem::path>& seen) {
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (l.find("<thrust/") != std::string::npos && std::regex_search(l, m, thrust_include())) {
      found.insert(m[1]);
    } else if (l.find("<cub/") != std::string::npos && l.find("include") != std::string::npos) {
      found.insert("cub");
    } else if (depth > 0 && l.find('"') != std::string::npos &&
               std::regex_search(l, m, quoted_include())) {
      std::error_code ec;
      const std::filesystem::path header = std::filesystem::weakly_canonical(dir / m[1].str(), ec);
      // A program's own headers are small; anything else named here is skipped.
      if (ec || !seen.insert(header).second || !std::filesystem::is_regular_file(header, ec) ||
          std::filesystem::file_size(header, ec) > (4u << 20) || ec)
        continue;
      std::ifstream in(header, std::ios::binary);
      const std::string body{std::istreambuf_iterator<char>(in), {}};
      thrust_headers_of(body, header.parent_path(), depth - 1, found, seen);
    }
  }
}

// A file that includes Thrust's headers (itself or through its own headers
// beside it) gets, after the last include that brought Thrust, the others
// nvcc's Thrust would have brought with them (thrust_headers.cpp):
// thrust/sort.h alone declares thrust::sequence and thrust::device there,
// and programs built with nvcc rely on it. The lines after keep their
// numbers.
std::string with_thrust_headers(const std::string& text, const std::string& path,
                                const std::string& escaped_path) {
  if (text.find("thrust::") == std::string::npos) return text;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::set<std::string> included;
  std::set<std::filesystem::path> seen;
  size_t insert_at = std::string::npos;
  int line = 0, insert_line = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string l = text.substr(at, end - at);
    if (l.find("include") != std::string::npos) {
      const size_t before = included.size();
      thrust_headers_of(l, dir, 8, included, seen);
      if (included.size() != before) insert_at = end, insert_line = line;
    }
    at = end + 1;
  }
  if (insert_at == std::string::npos || insert_at == text.size()) return text;
  std::set<std::string> wanted;
  for (const std::string& h : included)
    for (std::string& w : rewriter::thrust_headers_with(h))
      if (!included.count(w)) wanted.insert(std::move(w));
  if (wanted.empty()) return text;
  std::string added;
  for (const std::string& h : wanted) added += "#include <thrust/" + h + ".h>\n";
  return text.substr(0, insert_at + 1) + added + "#line " + std::to_string(insert_line + 1) +
         " \"" + escaped_path + "\"\n" + text.substr(insert_at + 1);
}

Result rewrite(const std::string& file_text, const std::string& path, bool library) {
  Result r;
  // A UTF-8 byte order mark (editors on Windows write one), which nvcc and
  // clang skip at a file's start: the rewritten file puts lines before it.
  const bool marked = file_text.rfind("\xEF\xBB\xBF", 0) == 0;
  const std::string original = marked ? file_text.substr(3) : file_text;
  const std::string renamed =
      rename_clock_calls(register_kernels(original, &r.registered_kernels), &r.clock_calls);
  const std::string source =
      translate_inline_ptx(renamed, code_mask(renamed), &r.inline_ptx, library);
  const std::vector<bool> code = code_mask(source);
  std::string out;
  out.reserve(source.size() + 1024);
  size_t copied = 0;  // source[0, copied) is already in `out`

  for (size_t i = 0; i + 2 < source.size(); ++i) {
    if (!code[i]) continue;
    if (const size_t open_end = triple_end(source, code, i, '<');
        open_end != std::string::npos && !after_operator(source, code, i)) {
      const size_t kstart = kernel_start(source, code, i);
      if (kstart == std::string::npos || kstart < copied) {
        r.problems.push_back({line_of(source, i), "a launch `<<<` with no kernel name before it"});
        i += 2;
        continue;
      }
      const size_t cend = config_end(source, code, open_end);
      if (cend == std::string::npos) {
        r.problems.push_back(
            {line_of(source, i), "a launch `<<<` without its closing `>>>` in the same statement"});
        i += 2;
        continue;
      }
      const std::string kernel = source.substr(kstart, skip_space_back(source, code, i) - kstart);
      const size_t close_end = triple_end(source, code, cend, '>');
      const std::string config = source.substr(open_end, cend - open_end);
      if (trim(config).empty()) {
        r.problems.push_back({line_of(source, i),
                              "an empty launch configuration `<<<>>>`: "
                              "give at least <<<grid, block>>>"});
        i = close_end - 1;
        continue;
      }
      out.append(source, copied, kstart - copied);
      // Keep the newlines of the kernel expression and the gap before <<<.
      const std::string kernel_one_line = one_line(kernel);
      const auto zeros = zero_arguments(source, code, close_end);
      // A kernel named (`k`, `ns::k<T, 4>`) is called by its name, so that
      // overloads and templates resolve as nvcc resolves them (a name that is
      // a local function pointer is copied into the launch); any other
      // kernel expression (`table[i]`, `ops.k`, `(p)`) is evaluated once, on
      // the host, and its value copied. Either way the threads read the
      // launch's copy, not the host's variable.
      const bool named = names_a_kernel(kernel_one_line);
      const std::string callee = named ? kernel_one_line : "cudalab_kernel_";
      const std::string capture = named ? "[=]" : "[cudalab_kernel_ = (" + kernel_one_line + ")]";
      // The kernel called with the arguments; with an argument written 0 or
      // NULL (a LiteralZero), through call_kernel, which passes it as the
      // int 0 where that calls the kernel and else as a null pointer.
      const std::string call =
          zeros.empty()
              ? callee + "(cudalab_args_...); }"
              : "::cudalab::detail::call_kernel([&](auto&&... cudalab_zero_args_) -> decltype(" +
                    callee + "(cudalab_zero_args_...)) { " + callee +
                    "(cudalab_zero_args_...); }, cudalab_args_...); }";
      // KernelPointer gives the kernel as a pointer of the arguments' exact
      // types when it has them (launch.h passes arguments the CUDA way).
      out += "::cudalab::detail::make_launcher(" + capture + "(auto&&... cudalab_args_) { " + call +
             ", ::cudalab::detail::KernelPointer{[&](auto cudalab_type_) -> "
             "decltype(static_cast<decltype(cudalab_type_)>(&" +
             kernel_one_line + ")) { return static_cast<decltype(cudalab_type_)>(&" +
             kernel_one_line + "); }}, ::cudalab::detail::LaunchSite{\"" +
             flatten(kernel_one_line) + "\", __FILE__, __LINE__})(";
      out += line_breaks(source, kstart, i);
      out += config;
      out += ")";  // closes the configuration call
      copied = close_end;
      for (const auto& [begin, end] : zeros) {
        out.append(source, copied, begin - copied);
        out += "::cudalab::detail::LiteralZero{}";
        copied = end;
      }
      i = close_end - 1;
      ++r.launches;
    } else if (i >= copied && word_at(source, code, i, "__shared__")) {
      // `__shared__ alignas(16) float t[64];`, which nvcc takes: C++ wants
      // the alignas first (`__shared__` is `static thread_local ...`).
      const size_t a = skip_space_forward(source, code, i + 10);
      if (!word_at(source, code, a, "alignas")) continue;
      const size_t open_paren = skip_space_forward(source, code, a + 7);
      if (open_paren >= source.size() || source[open_paren] != '(') continue;
      const size_t close = matching(source, code, open_paren);
      if (close == std::string::npos) continue;
      out.append(source, copied, i - copied);
      out += one_line(source.substr(a, close + 1 - a)) + " __shared__";
      out += line_breaks(source, i, close + 1);
      copied = close + 1;
      i = close;
    } else if (word_at(source, code, i, "extern")) {
      // extern __shared__ T name[];  (or extern T __shared__ name[];, or
      // __shared__ extern T name[];)
      const size_t semi = source.find(';', i);
      if (semi == std::string::npos) continue;
      size_t shared = std::string::npos;
      const size_t before = skip_space_back(source, code, i);
      if (before >= copied + 10 && word_at(source, code, before - 10, "__shared__") &&
          source.find('\n', before - 10) > i)  // on the same line
        shared = before - 10;
      for (size_t k = i + 6; k < semi && shared == std::string::npos; ++k)
        if (word_at(source, code, k, "__shared__")) shared = k;
      if (shared == std::string::npos) continue;
      // `extern "C" __global__ void k() { __shared__ float t[64]; ...`: a
      // static array inside a function declared extern "C", not dynamic.
      if (shared > i && source.find_first_of("{\"", i) < shared) continue;
      const size_t from = std::min(i, shared);  // where the declaration starts
      // The name's brackets: `name[]`, or `name[][N]...` (an array of rows,
      // cuda-samples' tensor-core GEMMs), whose later bounds stay the type's.
      const size_t open = source.find('[', std::max(i, shared));
      if (open == std::string::npos || open > semi) {
        r.problems.push_back({line_of(source, i),
                              "an `extern __shared__` declaration that is not "
                              "of the form `extern __shared__ T name[];`"});
        continue;
      }
      size_t name_end = skip_space_back(source, code, open);
      size_t name_begin = name_end;
      while (name_begin > i && ident_char(source[name_begin - 1])) --name_begin;
      std::string type = source.substr(i + 6, name_begin - i - 6);
      if (shared > i) type.replace(shared - i - 6, 10, " ");
      // Alignment requests are met: the arena is aligned to 128 bytes.
      for (const char* align : {"__align__", "alignas"})
        if (size_t a = type.find(align); a != std::string::npos) {
          const size_t open_paren = type.find('(', a);
          const size_t close =
              open_paren == std::string::npos
                  ? std::string::npos
                  : matching(type, std::vector<bool>(type.size(), true), open_paren);
          if (close != std::string::npos) type.erase(a, close - a + 1);
        }
      const std::string name = source.substr(name_begin, name_end - name_begin);
      if (name.empty() || trim(type).empty()) {
        r.problems.push_back({line_of(source, i),
                              "an `extern __shared__` declaration without a "
                              "type and a name"});
        continue;
      }
      const size_t close_bracket = source.find(']', open);
      const std::string rows =
          close_bracket < semi ? trim(source.substr(close_bracket + 1, semi - close_bracket - 1))
                               : std::string();
      out.append(source, copied, from - copied);
      const std::string t = one_line(trim(type));
      if (rows.empty())
        out += "static thread_local " + t + "* const " + name + " = static_cast<" + t +
               "*>(::cudalab::detail::dynamic_shared_memory());";
      else
        out += "static thread_local " + t + " (*const " + name + ")" + one_line(rows) +
               " = static_cast<" + t + " (*)" + one_line(rows) +
               ">(::cudalab::detail::dynamic_shared_memory());";
      out += line_breaks(source, from, semi);
      copied = semi + 1;
      i = semi;
      ++r.dynamic_shared;
    }
  }
  out.append(source, copied, std::string::npos);
  if (!r.problems.empty()) return r;
  std::string escaped;
  for (char c : path) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  r.text = "#include <cuda_runtime.h>\n" +
           std::string(r.inline_ptx ? "#include <cudalab/detail/ptx.h>\n" : "") + "#line 1 \"" +
           escaped + "\"\n" + (library ? out : with_thrust_headers(out, path, escaped));
  r.warp_synchronous_line = warp_synchronous_line(source, code);
  if (r.warp_synchronous_line) {
    // After the last line, at file scope; once per program (weak), once per
    // translation unit (a header may be included twice).
    std::string where = path;
    if (const size_t slash = where.rfind('/'); slash != std::string::npos)
      where = where.substr(slash + 1);
    std::string where_escaped;
    for (char c : where) {
      if (c == '"' || c == '\\') where_escaped += '\\';
      where_escaped += c;
    }
    r.text +=
        "\n#ifndef CUDALAB_WARP_SYNCHRONOUS_MARKED\n#define CUDALAB_WARP_SYNCHRONOUS_MARKED\n"
        "extern \"C\" __attribute__((weak)) const char* const "
        "cudalab_warp_synchronous_source = \"" +
        where_escaped + ":" + std::to_string(r.warp_synchronous_line) + "\";\n#endif\n";
  }
  return r;
}

}  // namespace cudalab::rewriter
