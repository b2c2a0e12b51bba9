#include "fxscope/graph/python_text.h"

#include "fxscope/core/text.h"

namespace fxscope::graph::python_text {

namespace {

bool is_open(char c) {
  return c == '(' || c == '[' || c == '{';
}
bool is_close(char c) {
  return c == ')' || c == ']' || c == '}';
}

char closer_of(char open) {
  switch (open) {
    case '(':
      return ')';
    case '[':
      return ']';
    default:
      return '}';
  }
}

// The index just past the string literal starting at S[I] (a quote); S.size() if unterminated.
std::size_t skip_string(std::string_view s, std::size_t i) {
  const char q = s[i];
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\') {
      ++j;
    } else if (s[j] == q) {
      return j + 1;
    }
  }
  return s.size();
}

}  // namespace

std::size_t find_top_level(std::string_view s, std::string_view needle, std::size_t from) {
  if (needle.empty()) return std::string_view::npos;
  int depth = 0;
  std::size_t i = 0;
  const char first = needle.front();
  while (i < s.size()) {
    const char c = s[i];
    if (c != first && !text::is_python_syntax(c)) {
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      i = skip_string(s, i);
      continue;
    }
    if (depth == 0 && c == first && i >= from && s.compare(i, needle.size(), needle) == 0) {
      return i;
    }
    if (is_open(c)) ++depth;
    if (is_close(c) && depth > 0) --depth;
    ++i;
  }
  return std::string_view::npos;
}

std::size_t matching_close(std::string_view s, std::size_t open) {
  if (open >= s.size() || !is_open(s[open])) return std::string_view::npos;
  // A small fixed stack: deeper nesting than this is not FX output and is refused, not recursed.
  constexpr std::size_t kMaxDepth = 256;
  char stack[kMaxDepth];
  std::size_t depth = 0;
  std::size_t i = open;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      i = skip_string(s, i);
      continue;
    }
    if (is_open(c)) {
      if (depth == kMaxDepth) return std::string_view::npos;
      stack[depth++] = closer_of(c);
    } else if (is_close(c)) {
      if (depth == 0 || stack[depth - 1] != c) return std::string_view::npos;
      if (--depth == 0) return i;
    }
    ++i;
  }
  return std::string_view::npos;
}

CodeLine code_of(std::string_view s) {
  int depth = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (!text::is_python_syntax(c)) {
      ++i;
      continue;
    }
    if (c == '#') return {text::trim(s.substr(0, i)), depth};
    if (c == '\'' || c == '"') {
      i = skip_string(s, i);
      continue;
    }
    if (is_open(c)) ++depth;
    if (is_close(c)) --depth;
    ++i;
  }
  return {text::trim(s), depth};
}

}  // namespace fxscope::graph::python_text
