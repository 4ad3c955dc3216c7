// Scanning C++ source text, for the rewriter's passes (rewrite.cpp,
// inline_ptx.cpp): `code` marks the bytes that are code, not comments or
// literals.
#pragma once

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace cudalab::rewriter {

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

}  // namespace cudalab::rewriter
