#pragma once
// Recognizes the one statement shape that matters in output code, a call with optional
// assignment (`buf7 = torch.ops.aten.mm.default(a, b)`), without evaluating any Python.

#include <optional>
#include <string_view>

namespace fxscope::inductor {

// A statement `[targets = ]callee(args)`; views into the statement's text.
struct CallStatement {
  std::string_view targets;  // `buf7` or `buf7, buf8`; empty without an assignment
  std::string_view callee;   // a dotted name: `extern_kernels.mm`, `triton_poi_fused_add_0.run`
  std::string_view args;     // up to the end of the statement when the call never closes
  bool closed = true;        // false in output code cut short
};

// STATEMENT (one logical line) as a call statement; nothing for any other statement.
std::optional<CallStatement> match_call(std::string_view statement);

// A keyword argument such as `stream=stream0` (not `a == b`).
bool is_keyword_arg(std::string_view arg);

}  // namespace fxscope::inductor
