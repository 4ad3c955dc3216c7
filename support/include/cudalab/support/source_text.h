// Scanning and reshaping C++ source text, for the rewriter's passes:
// `code` marks the bytes that are code, not comments or literals. A line
// ends with LF or CR LF; one continued with a backslash (inside a #define)
// stays continued.
#pragma once

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace cudalab::support {

inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether the word `w` stands at `i` in code.
inline bool word_at(const std::string& s, const std::vector<bool>& code, size_t i, const char* w) {
  const size_t n = std::strlen(w);
  if (i + n > s.size() || s.compare(i, n, w) != 0 || !code[i]) return false;
  if (i > 0 && ident_char(s[i - 1])) return false;
  return i + n == s.size() || !ident_char(s[i + n]);
}

inline std::string trim(const std::string& t) {
  size_t a = 0, b = t.size();
  while (a < b && std::isspace(static_cast<unsigned char>(t[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(t[b - 1]))) --b;
  return t.substr(a, b - a);
}

// The bracket that closes the one at `open` in code; npos if none.
inline size_t matching(const std::string& s, const std::vector<bool>& code, size_t open) {
  const char o = s[open], c = o == '(' ? ')' : o == '{' ? '}' : ']';
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (s[i] == o)
      ++depth;
    else if (s[i] == c && --depth == 0)
      return i;
  }
  return std::string::npos;
}

// The line breaks of t[from, to), to keep the lines of text that a rewrite
// puts on one line: a break continued with a backslash stays continued (a
// space before it, so that what the rewrite put before it never runs into
// the next line's first word).
inline std::string line_breaks(const std::string& t, size_t from, size_t to) {
  std::string breaks;
  for (size_t i = from; i < to && i < t.size(); ++i) {
    if (t[i] != '\n') continue;
    const size_t end = i > from && t[i - 1] == '\r' ? i - 1 : i;  // CR LF ends a line too
    breaks += end > from && t[end - 1] == '\\' ? " \\\n" : "\n";
  }
  return breaks;
}

// `text` on one line: its line breaks, continued ones with their backslash,
// become spaces.
inline std::string one_line(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t next = i + 1 < text.size() && text[i + 1] == '\r' ? i + 2 : i + 1;
    if (text[i] == '\\' && next < text.size() && text[next] == '\n') continue;
    out += text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
  }
  return out;
}

}  // namespace cudalab::support
