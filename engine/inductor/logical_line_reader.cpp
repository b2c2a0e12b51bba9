#include "fxscope/inductor/logical_line_reader.h"

namespace fxscope::inductor {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f';
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool LogicalLineReader::skip_blank_lines() {
  while (pos_ < source_.size()) {
    std::size_t i = pos_;
    while (i < source_.size() && is_blank(source_[i])) ++i;
    if (i < source_.size() && source_[i] != '\n') return true;
    if (i == source_.size()) {
      pos_ = i;
      return false;
    }
    pos_ = i + 1;
    ++line_;
  }
  return false;
}

std::optional<LogicalLine> LogicalLineReader::next() {
  if (!skip_blank_lines()) return std::nullopt;
  LogicalLine out;
  out.line = line_;
  std::size_t i = pos_;
  while (i < source_.size() && is_blank(source_[i])) ++i;
  out.indent = i - pos_;
  const std::size_t start = i;

  const std::size_t n = source_.size();
  int depth = 0;
  char quote = 0;  // the open string's quote character, 0 outside strings
  bool triple = false;
  std::size_t body_start = 0;
  bool in_first_string = false;
  // Each step moves i forward, so the whole source is read once: linear time on any input.
  while (i < n) {
    const char c = source_[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < n) {
        if (source_[i + 1] == '\n') ++line_;
        i += 2;
        continue;
      }
      if (triple && c == quote && i + 2 < n && source_[i + 1] == quote && source_[i + 2] == quote) {
        if (in_first_string) {
          out.first_string = source_.substr(body_start, i - body_start);
          in_first_string = false;
        }
        quote = 0;
        i += 3;
        continue;
      }
      if (c == '\n') {
        ++line_;
        // A one-quote string cannot span lines in Python: end it here rather than swallow the rest.
        if (!triple) quote = 0;
        if (!triple && depth == 0) {
          pos_ = i + 1;
          out.text = trim_right(source_.substr(start, i - start));
          return out;
        }
      } else if (!triple && c == quote) {
        quote = 0;
      }
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < n && source_[i] != '\n') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      triple = i + 2 < n && source_[i + 1] == c && source_[i + 2] == c;
      i += triple ? 3 : 1;
      if (triple && out.first_string_line == 0) {
        body_start = i;
        in_first_string = true;
        out.first_string_line = line_;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '\\' && i + 1 < n && source_[i + 1] == '\n') {
      ++line_;
      i += 2;
      continue;
    } else if (c == '\n') {
      ++line_;
      if (depth == 0) {
        pos_ = i + 1;
        out.text = trim_right(source_.substr(start, i - start));
        return out;
      }
    }
    ++i;
  }
  pos_ = n;
  out.text = trim_right(source_.substr(start));
  if (quote != 0) {
    out.unterminated = Unterminated::string;
    if (in_first_string) out.first_string = source_.substr(body_start);
  } else if (depth > 0) {
    out.unterminated = Unterminated::bracket;
  }
  return out;
}

}  // namespace fxscope::inductor
