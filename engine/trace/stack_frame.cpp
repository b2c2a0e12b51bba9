#include "fxscope/trace/stack_frame.h"

#include "fxscope/core/text.h"

namespace fxscope::trace {

bool StackFrame::is_library() const {
  // Installed packages (torch itself, transformers, torchvision) and the standard library are
  // not what a user edits; "<...>" files are generated code.
  return file.find("/site-packages/") != std::string::npos ||
         file.find("/dist-packages/") != std::string::npos ||
         file.find("/lib/python3") != std::string::npos || text::starts_with(file, "<");
}

const StackFrame* innermost_user_frame(const Stack& stack) {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (!it->is_library()) return &*it;
  }
  return stack.empty() ? nullptr : &stack.back();
}

namespace {

// '  File "F", line N, in FN' -> frame without code; false if LINE is not such a line.
bool parse_file_line(std::string_view line, StackFrame& frame) {
  line = text::trim(line);
  constexpr std::string_view kFile = "File \"";
  if (!text::starts_with(line, kFile)) return false;
  line.remove_prefix(kFile.size());
  constexpr std::string_view kLine = "\", line ";
  const auto quote = line.rfind(kLine);
  if (quote == std::string_view::npos) return false;
  frame.file = std::string(line.substr(0, quote));
  line.remove_prefix(quote + kLine.size());
  const auto comma = line.find(", in ");
  const auto number = text::parse_int(line.substr(0, comma));
  if (!number) return false;
  frame.line = static_cast<int>(*number);
  frame.function = comma == std::string_view::npos ? "" : std::string(line.substr(comma + 5));
  return true;
}

}  // namespace

Stack parse_traceback(std::string_view text) {
  Stack stack;
  bool done = false;
  text::for_each_line(text, [&](std::string_view line, std::size_t) {
    if (done) return;
    StackFrame frame;
    if (parse_file_line(line, frame)) {
      stack.push_back(std::move(frame));
      return;
    }
    const auto code = text::trim(line);
    // Python 3.11+ marks the failing expression with a line of carets: not source.
    const bool carets = !code.empty() && code.find_first_not_of("^~ ") == std::string_view::npos;
    if (!stack.empty() && !code.empty() && text::starts_with(line, "    ") && !carets) {
      if (stack.back().code.empty()) stack.back().code = std::string(code);
      return;
    }
    if (carets) return;
    done = true;
  });
  return stack;
}

}  // namespace fxscope::trace
