#pragma once
// One Python stack frame as the trace records it (dynamo_start stacks, user tracebacks).

#include <string>
#include <string_view>
#include <vector>

namespace fxscope::trace {

// A frame: file, line, function and the source line when the log has it.
struct StackFrame {
  std::string file;
  int line = 0;
  std::string function;
  std::string code;

  // True for PyTorch's and other installed packages' frames, which users did not write.
  bool is_library() const;
  std::string location() const { return file + ":" + std::to_string(line); }
};

using Stack = std::vector<StackFrame>;

// The innermost frame of STACK that the user wrote, else the innermost frame; null if empty.
const StackFrame* innermost_user_frame(const Stack& stack);

// Parses a Python traceback block ('  File "F", line N, in FN' + optional code line) from
// TEXT; stops at the first line that belongs to neither.
Stack parse_traceback(std::string_view text);

}  // namespace fxscope::trace
