#pragma once
// One node of an FX graph, as the readable code or a graph fragment describes it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/graph/argument.h"
#include "fxscope/graph/tensor_meta.h"

namespace fxscope::graph {

// The six FX node kinds (torch.fx.Node.op).
enum class OpKind : std::uint8_t {
  placeholder,
  call_function,
  call_method,
  call_module,
  get_attr,
  output
};

// "call_function" for OpKind::call_function; the spelling FX uses.
std::string_view to_string(OpKind op);
// Inverse of to_string; also accepts Inductor's "PlaceHolder".
std::optional<OpKind> op_kind_from_string(std::string_view text);

// Where in user code a node came from: the `# File: F:L in FN, code: C` comment above it.
struct SourceLocation {
  std::string file;
  std::int64_t line = 0;
  std::string function;
  std::string code;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

// A node: its name, kind, target and arguments, plus what the text says about its value.
struct Node {
  std::string name;
  OpKind op = OpKind::call_function;
  // As written: torch.ops.aten.addmm.default, torch._C._nn.linear, operator.getitem, a method
  // name (permute) for call_method, a submodule path for call_module, the name for placeholders.
  std::string target;
  std::vector<Argument> args;
  std::vector<KeywordArgument> kwargs;
  std::optional<TensorMeta> meta;         // absent for tuple/list results and unannotated names
  std::optional<SourceLocation> source;   // absent under "# No stacktrace found"
  std::string module_path;                // "layer1.0.conv1" where a parameter name tells it
  std::optional<std::int64_t> num_users;  // only graph fragments print it
  std::string raw_annotation;             // an annotation that did not parse, as written
  std::string raw_text;                   // the right-hand side of a node that did not parse

  // True when the node's right side did not parse; it is kept so references still resolve.
  bool is_opaque() const { return !raw_text.empty(); }
  // call_function, call_method and call_module nodes are the graph's "ops".
  bool is_op() const {
    return op == OpKind::call_function || op == OpKind::call_method || op == OpKind::call_module;
  }
};

}  // namespace fxscope::graph
