#pragma once
// Small string_view helpers shared by the parsers (no allocation unless a vector is returned).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxscope::text {

std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

// A quote, bracket, backslash or '#': the characters a bracket-aware scan must look at. A table,
// so that scanners skip every other character with one load.
inline constexpr std::array<bool, 256> kPythonSyntax = [] {
  std::array<bool, 256> table{};
  for (const char c : std::string_view("'\"()[]{}\\#")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();
inline bool is_python_syntax(char c) {
  return kPythonSyntax[static_cast<unsigned char>(c)];
}

// Splits S on SEP where SEP is not inside (), [], {} or a quoted string: "s0, (s1//2)" -> 2 parts.
std::vector<std::string_view> split_top_level(std::string_view s, std::string_view sep);
// The same into PARTS (cleared first), so that a caller splitting many lines reuses one buffer.
void split_top_level(std::string_view s, std::string_view sep,
                     std::vector<std::string_view>& parts);

// Calls FN(line, line_number) for each line of S (1-based numbers, "\n" stripped, "\r" kept).
template <class Fn>
void for_each_line(std::string_view s, Fn&& fn) {
  std::size_t line_no = 1;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t nl = s.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
    fn(s.substr(pos, end - pos), line_no++);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

// Python identifiers as the logs print them (ASCII): `l_x_`, and dotted names `torch.ops.aten.mm`.
bool is_identifier_char(char c);
bool is_identifier(std::string_view s);
bool is_dotted_name(std::string_view s);
// Whether WORD stands in TEXT as a whole identifier (`s0` in `2*s0 + 1`, not in `s01`).
bool contains_identifier(std::string_view text, std::string_view word);

std::optional<std::int64_t> parse_int(std::string_view s);
std::optional<double> parse_double(std::string_view s);

}  // namespace fxscope::text
