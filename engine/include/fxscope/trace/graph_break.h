#pragma once
// Graph breaks from `dynamo_graph_break_reason` artifacts, one entry per distinct break.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/stack_frame.h"

namespace fxscope::trace {

// One break site: where (file:line), why (Dynamo's message, split into its parts) and every
// compile that hit it. `message` is Dynamo's whole message, the key of its graph_break counter.
struct GraphBreak {
  std::string file;
  int line = 0;
  std::string context;  // "Encountered graph break when attempting to trace CALL: ..."
  std::string message;  // headline through the "For more details" line
  std::string reason;   // the headline: "Unsupported Tensor.item() call with ..."
  std::string explanation;
  std::vector<std::string> hints;
  std::string developer_context;
  std::string link;     // https://.../gb/gb0124.html
  std::string gb_code;  // "gb0124"
  Stack user_stack;     // "User code traceback:", outermost first
  std::size_t count = 1;
  std::vector<CompileId> compile_ids;  // each compile that hit it, in log order
  std::size_t first_line = 0;          // envelope line of the first occurrence

  std::string location() const { return file + ":" + std::to_string(line); }
  // Same site and same message: a break reached again, not a new one.
  bool same_break(const GraphBreak& other) const;
};

// Parses one payload (tabs stripped). Unknown lines are skipped; missing parts stay empty.
GraphBreak parse_graph_break(std::string_view text);

}  // namespace fxscope::trace
