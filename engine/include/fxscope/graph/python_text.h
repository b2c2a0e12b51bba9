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

// Bracket depth change over S ((, [, { minus their closers), quotes and a `#` comment skipped.
int depth_change(std::string_view s);

// S without a trailing `# comment` (a `#` outside quotes), right-trimmed.
std::string_view strip_comment(std::string_view s);

}  // namespace fxscope::graph::python_text
