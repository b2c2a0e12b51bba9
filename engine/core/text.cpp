#include "fxscope/core/text.h"

#include <charconv>
#include <cstdlib>
#include <limits>

namespace fxscope::text {

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::vector<std::string_view> split_top_level(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  split_top_level(s, sep, parts);
  return parts;
}

void split_top_level(std::string_view s, std::string_view sep,
                     std::vector<std::string_view>& parts) {
  parts.clear();
  if (sep.empty()) {
    parts.push_back(s);
    return;
  }
  int depth = 0;
  char quote = 0;
  std::size_t start = 0;
  const char first = sep.front();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // Most characters are ordinary: skip them with one table look-up.
    if (quote == 0 && c != first && !is_python_syntax(c)) continue;
    if (quote != 0) {
      if (c == '\\') {
        ++i;  // skip the escaped character
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (depth == 0 && c == first && s.compare(i, sep.size(), sep) == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + sep.size();
      i = start - 1;
    }
  }
  parts.push_back(s.substr(start));
}

namespace {

// The parsers ask about every name of every statement: one load a character.
constexpr std::array<bool, 256> kIdentifierChar = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[static_cast<std::size_t>(c)] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  return table;
}();

}  // namespace

bool is_identifier_char(char c) {
  return kIdentifierChar[static_cast<unsigned char>(c)];
}

bool contains_identifier(std::string_view text, std::string_view word) {
  if (word.empty()) return false;
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(text[at - 1]);
    const bool ends =
        at + word.size() == text.size() || !is_identifier_char(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
  for (const char c : s) {
    if (!kIdentifierChar[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

bool is_dotted_name(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!is_identifier(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (!s.empty() && s.front() == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace fxscope::text
