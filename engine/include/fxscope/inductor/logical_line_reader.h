#pragma once
// Splits Python source (Inductor's output code) into logical lines in one linear pass, so that
// the parser sees whole statements and never looks inside string literals: a kernel's source in a
// ''' string is one part of the statement that defines the kernel, never lines of its own.

#include <cstddef>
#include <optional>
#include <string_view>

namespace fxscope::inductor {

// How a logical line ended when the source ran out before it was complete.
enum class Unterminated { no, bracket, string };

// One Python statement or comment line: physical lines joined while a bracket or a string is open.
struct LogicalLine {
  std::string_view text;              // from the first non-blank character; may hold newlines
  std::size_t line = 0;               // 1-based number of its first physical line
  std::size_t indent = 0;             // columns of leading blanks of its first physical line
  std::string_view first_string;      // body of its first triple-quoted string, when it has one
  std::size_t first_string_line = 0;  // line where that body starts
  Unterminated unterminated = Unterminated::no;
};

// Reads logical lines one by one; blank lines are skipped.
class LogicalLineReader {
 public:
  explicit LogicalLineReader(std::string_view source) : source_(source) {}

  // The next logical line, or nothing at the end of the source.
  std::optional<LogicalLine> next();

 private:
  // Skips blank physical lines; returns false at the end of the source.
  bool skip_blank_lines();

  std::string_view source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;  // number of the physical line that starts at pos_
};

}  // namespace fxscope::inductor
