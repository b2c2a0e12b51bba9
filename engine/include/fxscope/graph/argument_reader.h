#pragma once
// Reads the Python-repr argument text that FX prints (`(%a, [1, 0], torch.float32)`, `x, dim = 2`)
// into Arguments. Shared by the readable-code and graph-fragment parsers.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/graph/argument.h"

namespace fxscope::graph {

// Turns argument text into Arguments; node names resolve through the caller's callback.
class ArgumentReader {
 public:
  // How the text names nodes: `x` (readable code) or `%x` (graph fragments, Node.format_node).
  enum class NodeNames { bare, percent };
  using Resolver = std::function<std::optional<NodeId>(std::string_view name)>;

  ArgumentReader(NodeNames names, Resolver resolve);

  // One value: a literal, a node name, a list/tuple/slice, a symbol, else raw text.
  Argument read(std::string_view text);
  // A call's argument list without its parentheses: "a, [1, 0], dim = 2" (kwargs use `=`).
  void read_call(std::string_view text, std::vector<Argument>& args,
                 std::vector<KeywordArgument>& kwargs);
  // A fragment's kwargs dict with its braces: "{dtype: torch.float32, device: cuda:0}".
  std::vector<KeywordArgument> read_dict(std::string_view text);

  // Names that resolved to no node, and other oddities met since the last take_problems().
  std::vector<std::string> take_problems();

 private:
  Argument read_value(std::string_view text, int depth);
  Argument read_name(std::string_view text);
  std::vector<Argument> read_items(std::string_view inner, int depth);
  // A {key: value} literal T as a dict value; raw where an entry is no key: value pair.
  Argument read_dict_value(std::string_view t, int depth);

  NodeNames names_;
  Resolver resolve_;
  std::vector<std::string> problems_;
  std::vector<std::string_view> call_parts_;  // read_call()'s split, kept for its capacity
};

}  // namespace fxscope::graph
