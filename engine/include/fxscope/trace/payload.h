#pragma once
// A record's payload as it lies in the mapped log: lines that each start with one TAB.

#include <cstddef>
#include <string>
#include <string_view>

namespace fxscope::trace {

// A view of the raw payload lines (TABs included, no trailing newline); text() strips them.
// The view points into the TraceLog's mapping and lives as long as that TraceLog.
struct Payload {
  std::string_view raw;
  std::size_t first_line = 0;  // 1-based line of the first payload line in the log; 0: none
  std::size_t line_count = 0;

  bool empty() const { return line_count == 0; }
  // The payload as PyTorch logged it: exactly one leading TAB removed from each line.
  std::string text() const;
};

}  // namespace fxscope::trace
