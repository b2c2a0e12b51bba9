#pragma once
// Builds the graph of one `def forward` from its parameters and statements, one logical line at
// a time (the readable FX code parser splits lines, classes and comments and feeds this).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/graph/argument_reader.h"
#include "fxscope/graph/graph.h"

namespace fxscope::graph {

// Turns `name: "annot" = rhs;  a = None` statements into nodes of one Graph.
class ReadableStatementParser {
 public:
  ReadableStatementParser(Graph& graph, std::string_view where);

  // The text between `def forward(` and `)`: each parameter but self is a placeholder.
  void parse_parameters(std::string_view params, std::size_t line_no);
  // One logical line of the body (comments already stripped).
  void parse(std::string_view line, std::size_t line_no);
  // The `# File:` location for the nodes that follow; nullopt after "# No stacktrace found".
  void set_source(std::optional<SourceLocation> source) { source_ = std::move(source); }
  // Call at the end of the body: warns when no return was seen.
  void finish();
  Warnings take_warnings();

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::optional<NodeId> resolve(std::string_view name) const;
  void warn(std::size_t line_no, std::string message);
  void take_reader_problems(std::size_t line_no);
  void flush_deferred(std::size_t line_no);
  void add(Node node, std::optional<std::string_view> annotation, std::size_t line_no);
  void parse_statement(std::string_view stmt, std::size_t line_no);
  void parse_return(std::string_view rest, std::size_t line_no);
  std::size_t parse_inplace(const std::vector<std::string_view>& stmts, std::size_t line_no);
  std::size_t parse_setitem(const std::vector<std::string_view>& stmts, std::size_t line_no);
  bool parse_right_side(std::string_view rhs, Node& node);
  void parse_call(std::string_view head, std::string_view inner, Node& node);

  Graph& graph_;
  std::string_view where_;
  ArgumentReader reader_;
  std::unordered_map<std::string, NodeId, NameHash, std::equal_to<>> aliases_;
  std::vector<std::string> deferred_;  // unannotated parameters (joint graphs' primals, tangents)
  bool declared_inputs_ = false;
  bool returned_ = false;
  std::optional<SourceLocation> source_;
  std::vector<std::string_view> statements_;  // parse()'s split of a line, kept for its capacity
  Warnings warnings_;
};

}  // namespace fxscope::graph
