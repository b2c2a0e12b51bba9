#pragma once
// Scanning helpers for the Python text FX prints: positions outside brackets and quotes.
// Used by the graph parsers; no allocation.

#include <cstddef>
#include <string_view>

namespace fxscope::graph::python_text {

// The position of NEEDLE in S at bracket depth 0 and outside quotes, from FROM; npos if none.
std::size_t find_top_level(std::string_view s, std::string_view needle, std::size_t from = 0);

// The position of the bracket closing the one at OPEN ((, [ or {), quotes skipped; npos if the
// text ends first or a different bracket closes it.
std::size_t matching_close(std::string_view s, std::size_t open);

// A line's code: S without a trailing `# comment` (a `#` outside quotes), trimmed, and the
// bracket depth change over it ((, [, { minus their closers, quotes skipped). One scan for both:
// the readable-graph parser asks this of every line.
struct CodeLine {
  std::string_view code;
  int depth_change = 0;
};
CodeLine code_of(std::string_view s);

}  // namespace fxscope::graph::python_text
