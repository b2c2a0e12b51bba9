#include "fxscope/inductor/call_statement.h"

#include "fxscope/core/text.h"

namespace fxscope::inductor {

namespace {

// Assignment targets such as `buf7` or `buf7, buf8`; excludes `==`, `+=` and the like.
bool is_targets(std::string_view s) {
  s = text::trim(s);
  if (s.empty()) return false;
  for (const char c : s) {
    if (!text::is_identifier_char(c) && c != ',' && c != ' ') return false;
  }
  return true;
}

// Index of the ')' that closes the '(' at OPEN, skipping string literals (''' ones included,
// whose bodies may hold any number of quotes and parentheses).
std::optional<std::size_t> matching_close(std::string_view s, std::size_t open) {
  int depth = 0;
  char quote = 0;
  bool triple = false;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    const bool three = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote && (!triple || three)) {
        quote = 0;
        if (triple) i += 2;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      triple = three;
      if (triple) i += 2;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CallStatement> match_call(std::string_view statement) {
  const std::size_t open = statement.find('(');
  if (open == std::string_view::npos) return std::nullopt;
  CallStatement call;
  std::string_view head = text::trim(statement.substr(0, open));
  if (const std::size_t eq = head.find('='); eq != std::string_view::npos) {
    if (!is_targets(head.substr(0, eq))) return std::nullopt;
    call.targets = text::trim(head.substr(0, eq));
    head = text::trim(head.substr(eq + 1));
  }
  if (!text::is_dotted_name(head)) return std::nullopt;
  const auto close = matching_close(statement, open);
  call.callee = head;
  call.closed = close.has_value();
  call.args = statement.substr(open + 1, close ? *close - open - 1 : std::string_view::npos);
  return call;
}

bool is_keyword_arg(std::string_view arg) {
  const std::size_t eq = arg.find('=');
  return eq != std::string_view::npos && eq + 1 < arg.size() && arg[eq + 1] != '=' &&
         text::is_identifier(text::trim(arg.substr(0, eq)));
}

}  // namespace fxscope::inductor
